package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/dataset/ingest"
)

func init() {
	register(&command{
		name:    "data import",
		summary: "convert your own embeddings (Parquet, ann-benchmarks HDF5) into a data set: exact truth computed, the file's own neighbours checked",
		run:     runDataImport,
	})
}

func runDataImport(args []string, stdout, stderr io.Writer) error {
	fs, rootFlag := dataFlags("data import", stderr)
	column := fs.String("column", "", "the vector column of a Parquet file (default: its only list column of FLOAT or DOUBLE), or the base dataset of an HDF5 file (default train)")
	idCol := fs.String("id-column", "", `a Parquet column of ids kept as ids.txt (default "id" when present; "-" for none)`)
	textCol := fs.String("text-column", "", `a Parquet column of texts kept as words.txt (default "text" when present; "-" for none)`)
	queries := fs.String("queries", "", "N: keep the file's first N queries, or hold N out of its rows (default 1,000, or a tenth of the rows); FILE: a second Parquet file whose rows are the queries")
	name := fs.String("name", "", "the set's name, a directory under the data directory (default: the file's name without its extension)")
	metric := fs.String("metric", "", `cosine, l2 or dot (default: an HDF5 file's distance attribute; cosine for Parquet)`)
	seed := fs.Uint64("seed", 1, "seed of the query hold-out")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: veclab data import [-root DIR] [-column C] [-queries N|FILE] [-name NAME] FILE.parquet|FILE.hdf5   (flags before or after the file)")
		fs.PrintDefaults()
	}
	files, err := parseAnywhere(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		fs.Usage()
		return badArg("want one file, got %d", len(files))
	}
	path := files[0]
	opt := ingest.Options{Column: *column, IDColumn: *idCol, TextColumn: *textCol, Metric: *metric, Seed: *seed}
	if *queries != "" {
		if n, err := strconv.Atoi(*queries); err == nil {
			if n < 1 {
				return badArg("-queries %d: want at least 1", n)
			}
			opt.Queries = n
		} else {
			opt.QueryFile = *queries
		}
	}
	if *name == "" {
		*name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	if *name == "" || strings.ContainsAny(*name, `/\`) || strings.HasPrefix(*name, ".") {
		return badArg("-name %q: want a plain directory name", *name)
	}
	if _, known := dataset.LookupSource(*name); known {
		return badArg("-name %q is a set `veclab data get` makes; choose another", *name)
	}
	opt.Name = *name
	root, err := dataRoot(*rootFlag)
	if err != nil {
		return err
	}
	dir := filepath.Join(root, *name)
	if _, err := os.Stat(dir); err == nil {
		return badArg("%s exists: remove it, or import under another -name", dir)
	}
	if isTerminal(stderr) {
		bar := newProgressBar(stderr)
		defer bar.end()
		opt.Progress = func(done, total int64) { bar.update(int(done), int(total), "reading "+filepath.Base(path)) }
	}
	t0 := time.Now()
	l, rep, err := ingest.Import(context.Background(), path, opt)
	if err != nil {
		return err
	}
	if err := dataset.WriteLayout(dir, l); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d base + %d queries × %d, %s, from %s\n", *name, rep.Base, rep.Queries, rep.Dim, rep.Metric, rep.Source)
	if rep.GivenK > 0 {
		fmt.Fprintf(stdout, "the file's own neighbours agree with exact search on %.3f of their first %d (over %d queries); kept as groundtruth.ivecs\n", rep.GivenAgree, rep.GivenK, rep.Sampled)
	}
	fmt.Fprintf(stdout, "wrote %s (%.1f MB, exact top-%d cached) in %.1f s; use it as -data %s\n", dir, float64(dirBytes(dir))/1e6, l.Truth.K, time.Since(t0).Seconds(), *name)
	return nil
}
