package pglive

import "context"

// wire is the connection DB talks through: pgx's (wire_pgx.go) natively;
// under js/wasm, where the browser gives a program no TCP socket, there
// is none (wire_js.go) and pgx is not compiled in.
type wire interface {
	exec(ctx context.Context, sql string) error
	// scan runs a one-row query and scans it into dest.
	scan(ctx context.Context, sql string, dest ...any) error
	// query runs sql, whose rows are (text, float8), and calls each with
	// every row until it returns false.
	query(ctx context.Context, sql string, each func(id string, d float64) bool) error
	isClosed() bool
	close() error
}

// wireConfig is a parsed connection URL.
type wireConfig interface {
	dial(ctx context.Context) (wire, error)
	where() string // host:port/database, no password
}

// pgError is what a server error says.
type pgError struct{ Code, Message string }
