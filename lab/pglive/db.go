package pglive

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// MinVectorVersion is the oldest pgvector with hnsw.iterative_scan and
// hnsw.max_scan_tuples (0.8.0), which E07 sets.
const MinVectorVersion = "0.8.0"

// DB is one connection to a PostgreSQL server with the vector extension
// created in its database.
type DB struct {
	conn wire // pgx's connection (wire_pgx.go)
	// Server is PostgreSQL's server_version; Vector is pgvector's
	// extversion; Where is host:port/database (no password).
	Server, Vector, Where string

	settings Settings // the session's hnsw / planner settings as last set
	set      bool     // settings holds what the session has
	srv      *Server  // the embedded server Open started, stopped by Close
	// cfg is what Connect parsed, kept to reconnect: a statement whose
	// context ends mid-flight (a notebook cell interrupted during a load)
	// makes pgx close the connection, and the next call reconnects
	// rather than failing with "conn closed" for the rest of the session.
	cfg wireConfig
}

// Connect opens a connection to the server at rawURL (a postgres:// URL or
// a keyword/value connection string), checks that it answers, and creates
// the vector extension if it is not there (CREATE EXTENSION IF NOT EXISTS
// vector). The URL's default_query_exec_mode defaults to simple_protocol:
// PGlite's socket server needs it, and it works with every server.
func Connect(ctx context.Context, rawURL string) (*DB, error) {
	if strings.TrimSpace(rawURL) == "" {
		return nil, fmt.Errorf("pglive: empty PostgreSQL URL (want postgres://user:password@host:port/database): %w", ErrBadArgument)
	}
	cfg, err := parseURL(withDefaults(rawURL))
	if err != nil {
		if errors.Is(err, errors.ErrUnsupported) {
			return nil, err
		}
		return nil, fmt.Errorf("pglive: PostgreSQL URL: %v (want postgres://user:password@host:port/database): %w", redact(err.Error()), ErrBadArgument)
	}
	db := &DB{Where: cfg.where()}
	conn, err := cfg.dial(ctx)
	if err != nil {
		return nil, db.explain("connecting", err)
	}
	db.conn, db.cfg = conn, cfg
	if err := db.init(ctx); err != nil {
		conn.close()
		return nil, err
	}
	return db, nil
}

// withDefaults adds default_query_exec_mode=simple_protocol and a connect
// timeout to a URL that sets neither.
func withDefaults(raw string) string {
	add := map[string]string{"default_query_exec_mode": "simple_protocol", "connect_timeout": "10"}
	if strings.HasPrefix(raw, "postgres://") || strings.HasPrefix(raw, "postgresql://") {
		u, err := url.Parse(raw)
		if err != nil {
			return raw // ParseConfig reports it
		}
		q := u.Query()
		for k, v := range add {
			if q.Get(k) == "" {
				q.Set(k, v)
			}
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	for k, v := range add {
		if !strings.Contains(raw, k+"=") {
			raw += " " + k + "=" + v
		}
	}
	return raw
}

// Redact replaces the password of a postgres:// URL quoted in s with
// xxxxx, for messages that repeat what the user typed.
func Redact(s string) string { return redact(s) }

// redact removes a password from a message that quotes a URL.
func redact(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		if at := strings.Index(s[i:], "@"); at > 0 {
			if c := strings.Index(s[i+3:i+at], ":"); c >= 0 {
				return s[:i+3+c+1] + "xxxxx" + s[i+at:]
			}
		}
	}
	return s
}

func (db *DB) init(ctx context.Context) error {
	if err := db.scan(ctx, "SHOW server_version", &db.Server); err != nil {
		return db.explain("reading server_version", err)
	}
	if err := db.exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector"); err != nil {
		if pe, ok := serverError(err); ok && (pe.Code == "0A000" || pe.Code == "58P01" || strings.Contains(pe.Message, "extension \"vector\" is not available")) {
			return fmt.Errorf("pglive: %s (PostgreSQL %s): %s: install pgvector %s or later on that server (https://github.com/pgvector/pgvector#installation), or use the embedded server: %w", db.Where, db.Server, pe.Message, MinVectorVersion, ErrNoVector)
		}
		if pe, ok := serverError(err); ok && pe.Code == "42501" {
			return fmt.Errorf("pglive: %s: not allowed to CREATE EXTENSION vector (%s): ask its owner to run it once in this database, or connect as a user who may: %w", db.Where, pe.Message, ErrNoVector)
		}
		return db.explain("CREATE EXTENSION vector", err)
	}
	if err := db.scan(ctx, "SELECT extversion FROM pg_extension WHERE extname = 'vector'", &db.Vector); err != nil {
		return db.explain("reading pgvector's version", err)
	}
	if versionLess(db.Vector, MinVectorVersion) {
		return fmt.Errorf("pglive: %s has pgvector %s; the experiments set hnsw.iterative_scan, which needs %s or later: ALTER EXTENSION vector UPDATE after installing it: %w", db.Where, db.Vector, MinVectorVersion, ErrNoVector)
	}
	return nil
}

// live returns an open connection, reconnecting if the last one was
// closed under a statement whose context ended (pgx closes a connection
// it could not bring back to a known state). The session settings are
// then the server's defaults again, so apply sets them anew.
func (db *DB) live(ctx context.Context) (wire, error) {
	if db == nil || db.conn == nil {
		return nil, fmt.Errorf("pglive: use of a closed DB: %w", ErrBadArgument)
	}
	if !db.conn.isClosed() {
		return db.conn, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	// The server may still be finishing the statement the old connection
	// was cut from (the embedded server serves one connection at a time
	// and resets others meanwhile): retry for a while.
	var err error
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		var conn wire
		if conn, err = db.cfg.dial(ctx); err == nil {
			db.conn, db.set = conn, false
			return conn, nil
		}
		if time.Since(t0) > reconnectFor {
			return nil, fmt.Errorf("pglive: reconnecting for %v (the server may still be running the statement the last connection was cut from): %w", reconnectFor, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// reconnectFor bounds how long live retries a reconnection. The embedded
// server finishes a statement whose connection was cut before it accepts
// another connection, and a multi-row INSERT into an HNSW index on its one
// WebAssembly thread can take longer than 30 s on a loaded machine (the CI
// run that found this had other test packages on both cores): two minutes
// covers that, and an interrupt still ends the wait at once (ctx).
const reconnectFor = 2 * time.Minute

// exec runs sql on a live connection.
func (db *DB) exec(ctx context.Context, sql string) error {
	c, err := db.live(ctx)
	if err == nil {
		err = c.exec(ctx, sql)
	}
	return err
}

// scan runs a one-row query on a live connection and scans it into dest.
func (db *DB) scan(ctx context.Context, sql string, dest ...any) error {
	c, err := db.live(ctx)
	if err == nil {
		err = c.scan(ctx, sql, dest...)
	}
	return err
}

// versionLess compares dotted versions numerically ("0.7.4" < "0.8.0").
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int
		if i < len(as) {
			fmt.Sscan(as[i], &x)
		}
		if i < len(bs) {
			fmt.Sscan(bs[i], &y)
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// explain wraps a server or connection error with what to do about it.
func (db *DB) explain(what string, err error) error {
	if pe, ok := serverError(err); ok {
		switch pe.Code {
		case "28P01", "28000":
			return fmt.Errorf("pglive: %s: %s: check the user and password in the URL (postgres://user:password@host/db), PGPASSWORD or ~/.pgpass: %w", db.Where, pe.Message, ErrAuth)
		case "3D000":
			return fmt.Errorf("pglive: %s: %s: create the database first (createdb) or name an existing one in the URL: %w", db.Where, pe.Message, ErrBadArgument)
		}
		return fmt.Errorf("pglive: %s: %s: %s (SQLSTATE %s)", db.Where, what, pe.Message, pe.Code)
	}
	if errors.Is(err, ErrBadArgument) {
		return err // already says what and where
	}
	// An ended context stays visible to errors.Is (the kernel reports an
	// interrupted cell by it); its text carries no URL to redact.
	for _, c := range []error{context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, c) {
			return fmt.Errorf("pglive: %s: %s: %w", db.Where, what, c)
		}
	}
	// pgx lists each connection attempt on a line of its own (one per
	// address and TLS mode): one line, for the terminal and a cell.
	msg := strings.ReplaceAll(strings.ReplaceAll(redact(err.Error()), ":\n\t", ": "), "\n\t", "; ")
	if strings.Contains(msg, "connection refused") {
		return fmt.Errorf("pglive: %s: %s: nothing listens there (%s): start the server, check host and port, or use the embedded server", db.Where, what, msg)
	}
	return fmt.Errorf("pglive: %s: %s: %s", db.Where, what, msg)
}

// Close closes the connection, and stops the embedded server if [Open]
// started one.
func (db *DB) Close() error {
	if db == nil || db.conn == nil {
		return nil
	}
	err := db.conn.close()
	db.conn = nil // a closed DB stays closed: live does not reconnect it
	if db.srv != nil {
		err = errors.Join(err, db.srv.Close())
	}
	return err
}

// String names the server, e.g. "PostgreSQL 18.6, pgvector 0.8.7 at
// 127.0.0.1:5432/postgres".
func (db *DB) String() string {
	return fmt.Sprintf("PostgreSQL %s, pgvector %s at %s", db.Server, db.Vector, db.Where)
}

// Embedded is the spec [Open] reads as "start the embedded server".
const Embedded = "embedded"

// Open connects by spec: [Embedded] starts the embedded server (see
// [Start]; the DB's Close stops it), anything else is a URL for [Connect]
// (postgres://user:password@host:port/database). It is what `veclab
// reproduce -pg` and the notebooks' VECLAB_PG read.
func Open(ctx context.Context, spec string) (*DB, error) {
	spec = strings.TrimSpace(spec)
	if errNoWire != nil {
		return nil, errNoWire
	}
	if spec != Embedded {
		return Connect(ctx, spec)
	}
	srv, err := Start(ctx, ServerOptions{})
	if err != nil {
		return nil, err
	}
	db, err := Connect(ctx, srv.URL)
	if err != nil {
		srv.Close()
		return nil, err
	}
	db.srv = srv
	return db, nil
}
