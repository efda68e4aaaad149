package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/veclab/veclab/lab/advise"
	"github.com/veclab/veclab/lab/pglive"
)

func init() {
	register(&command{
		name:    "advise",
		summary: "on your own embeddings: each store's recall on its defaults and the smallest setting of its knob reaching a target recall, with latency and memory",
		run:     runAdvise,
	})
}

func runAdvise(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("advise", flag.ContinueOnError)
	fs.SetOutput(stderr)
	k := fs.Int("k", 10, "recall@k: the k of the queries")
	target := fs.Float64("target", 0.95, "the recall@k to reach")
	filt := fs.String("filter", "", "column=value: also measure the filtered query on the rows whose metadata column holds value (a Parquet column, or label for a directory's base-labels.ivecs)")
	sel := fs.Float64("selectivity", 0, "also measure a filtered query on a seeded random subset of this fraction of the rows (instead of -filter)")
	queries := fs.Int("queries", 0, "queries: the first N of the file's own, or N rows held out of the base (default 1,000, or a tenth of the rows)")
	holdOut := fs.Bool("holdout", false, "hold the queries out of the base even when the file has its own")
	n := fs.Int64("n", 0, "project memory to this many vectors (default: the file's rows)")
	seed := fs.Uint64("seed", 1, "seed of the query hold-out, the subset and the graphs")
	metric := fs.String("metric", "", "cosine, l2 or dot (default: the file's, else cosine)")
	column := fs.String("column", "", "a Parquet file's vector column, or an HDF5 file's base dataset")
	stores := fs.String("stores", "", "the store profiles, separated by commas, in lab/profile's syntax (default: pgvector, redis, qdrant, elasticsearch, then Qdrant with quantization=int8 and quantization=binary and Elasticsearch's other index types)")
	jsonOut := fs.String("json", "", "also write the report as JSON to this file")
	htmlOut := fs.String("html", "", "also write the report as one offline HTML page (table, recommendations, recall-vs-knob curves) to this file")
	pg := fs.String("pg", "", `also measure the real pgvector: "embedded" (PostgreSQL 18.6 + pgvector 0.8.7 as WebAssembly; needs node and npm ci in lab/pglive/server) or a postgres:// URL`)
	workers := fs.Int("workers", 1, "goroutines answering a knob search's queries (recall does not depend on it; latencies are timed one query at a time)")
	buildWorkers := fs.Int("build-workers", 1, "goroutines building each graph (1: the same graph every run)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: veclab advise [flags] FILE|DIR   (flags before or after the file)")
		fs.PrintDefaults()
	}
	files, err := parseAnywhere(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		fs.Usage()
		return badArg("advise: want one file or data set directory, got %d", len(files))
	}
	for _, out := range []string{*jsonOut, *htmlOut} {
		if out != "" {
			if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
				return badArg("advise: %s: its directory does not exist", out)
			}
		}
	}
	// Ctrl-C cancels between queries and between steps (a graph being
	// built finishes first); a second one ends the process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // the next signal kills the process as usual
	}()
	progress := func(done, total int, what string) {}
	var readProgress func(done, total int64)
	if isTerminal(stderr) {
		bar := newProgressBar(stderr)
		defer bar.end()
		progress = bar.update
		readProgress = func(done, total int64) { bar.update(int(done), int(total), "reading "+filepath.Base(files[0])) }
	} else {
		last := ""
		progress = func(done, total int, what string) {
			if step, _, _ := strings.Cut(what, ":"); step != last {
				last = step
				fmt.Fprintf(stderr, "advise: %s\n", step)
			}
		}
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(advise.GCPercent) // see its doc: the peak memory stays near what is live
	}
	d, err := advise.Load(ctx, files[0], advise.LoadOptions{K: *k, Queries: *queries, HoldOut: *holdOut, Seed: *seed, Metric: *metric, Column: *column, Filter: *filt, Selectivity: *sel, Progress: readProgress})
	if err != nil {
		return err
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(advise.MemoryLimit(d)) // see its doc: freed pages go back before the next merge maps new ones
	}
	opt := advise.Options{K: *k, Target: *target, N: *n, Seed: *seed, Workers: *workers, BuildWorkers: *buildWorkers, Progress: progress}
	if *stores != "" {
		for _, s := range strings.Split(*stores, ",") {
			opt.Profiles = append(opt.Profiles, strings.TrimSpace(s))
		}
	}
	// The options are checked before anything starts: a refusal (-pg
	// without a pgvector store, or on l2 data) comes before the embedded
	// PostgreSQL has started.
	if err := advise.Validate(d, opt, *pg != ""); err != nil {
		return err
	}
	if *pg != "" {
		db, err := pglive.Open(ctx, *pg)
		if err != nil {
			return fmt.Errorf("advise: -pg %s: %w", pglive.Redact(*pg), err)
		}
		defer db.Close()
		fmt.Fprintf(stderr, "real pgvector: %v\n", db)
		opt.PG = db
	}
	rep, err := advise.Run(ctx, d, opt)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("advise: interrupted; nothing written")
		}
		return err
	}
	// Everything is measured: now the files, each written whole or not at
	// all.
	if *jsonOut != "" {
		b, err := rep.JSON()
		if err != nil {
			return err
		}
		if err := writeWhole(*jsonOut, append(b, '\n')); err != nil {
			return err
		}
	}
	if *htmlOut != "" {
		if err := writeWhole(*htmlOut, []byte(rep.HTML())); err != nil {
			return err
		}
	}
	fmt.Fprint(stdout, rep.String())
	for _, out := range []string{*jsonOut, *htmlOut} {
		if out != "" {
			fmt.Fprintf(stdout, "wrote %s\n", out)
		}
	}
	return nil
}

// writeWhole writes b to a temporary file beside path and renames it
// over path: a reader sees the old file or the new one, never half.
func writeWhole(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}
