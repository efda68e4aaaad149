package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/veclab/veclab/lab/pglive"
)

func init() {
	register(&command{
		name:    "pg",
		summary: "serve the embedded PostgreSQL 18.6 + pgvector 0.8.7 (PGlite) on a loopback port until interrupted",
		run:     runPG,
	})
}

// runPG starts the embedded server, checks it with a connection (the
// vector extension is created), prints the URL to give `reproduce -pg` or
// VECLAB_PG, and serves until SIGINT or SIGTERM.
func runPG(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("pg", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", 0, "loopback port to listen on (0: any free port)")
	data := fs.String("data", "", "keep the database in this directory between runs (default: in memory)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: veclab pg [-port N] [-data DIR]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("pg: unexpected arguments %q", fs.Args())
	}
	ctx := context.Background()
	srv, err := pglive.Start(ctx, pglive.ServerOptions{Port: *port, DataDir: *data, Log: stderr})
	if err != nil {
		return err
	}
	defer srv.Close()
	db, err := pglive.Connect(ctx, srv.URL)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "veclab pg: %v\n%s\n(veclab reproduce -pg '%s'; psql '%s'; Ctrl-C stops it)\n", db, srv.URL, srv.URL, srv.URL)
	db.Close() // one connection at a time: leave the slot to the user's client
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	return nil
}

// openPG opens the real PostgreSQL of a -pg flag ("" none, "embedded" or
// a postgres:// URL) and says where it is.
func openPG(spec string, log io.Writer) (*pglive.DB, error) {
	if spec == "" {
		return nil, nil
	}
	db, err := pglive.Open(context.Background(), spec)
	if err != nil {
		return nil, fmt.Errorf("-pg %s: %w", pglive.Redact(spec), err)
	}
	fmt.Fprintf(log, "real pgvector: %v\n", db)
	return db, nil
}
