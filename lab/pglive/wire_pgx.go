//go:build !js

package pglive

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// errNoWire is nil where pgx is compiled in (see wire_js.go).
var errNoWire error

type pgxConfig struct{ cfg *pgx.ConnConfig }

// parseURL parses a postgres:// URL or a keyword/value string with pgx.
func parseURL(raw string) (wireConfig, error) {
	cfg, err := pgx.ParseConfig(raw)
	if err != nil {
		return nil, err
	}
	return pgxConfig{cfg}, nil
}

func (c pgxConfig) where() string {
	return fmt.Sprintf("%s:%d/%s", c.cfg.Host, c.cfg.Port, c.cfg.Database)
}

func (c pgxConfig) dial(ctx context.Context) (wire, error) {
	conn, err := pgx.ConnectConfig(ctx, c.cfg)
	if err != nil {
		return nil, err
	}
	return pgxWire{conn}, nil
}

type pgxWire struct{ c *pgx.Conn }

func (w pgxWire) exec(ctx context.Context, sql string) error {
	_, err := w.c.Exec(ctx, sql)
	return err
}

func (w pgxWire) scan(ctx context.Context, sql string, dest ...any) error {
	return w.c.QueryRow(ctx, sql).Scan(dest...)
}

func (w pgxWire) query(ctx context.Context, sql string, each func(string, float64) bool) error {
	rows, err := w.c.Query(ctx, sql)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var d float64
		if err := rows.Scan(&id, &d); err != nil {
			return fmt.Errorf("reading a result: %w", err)
		}
		if !each(id, d) {
			return nil
		}
	}
	rows.Close()
	return rows.Err()
}

func (w pgxWire) isClosed() bool { return w.c.IsClosed() }
func (w pgxWire) close() error   { return w.c.Close(context.Background()) }

// serverError reports the server's error in err's chain, if any.
func serverError(err error) (pgError, bool) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pgError{pe.Code, pe.Message}, true
	}
	return pgError{}, false
}
