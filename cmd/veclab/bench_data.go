package main

import (
	"flag"
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
)

// benchData is the data set of a bench command: generated from the
// command's flags by default, or a real set given by -data NAME_OR_DIR.
type benchData struct {
	ds     *dataset.Dataset
	metric engine.Metric
	truth  *dataset.GroundTruth // at least 100 neighbours, one row per query of ds
	desc   string               // one line naming the data set, for the output (the config of a generated one)
	real   *dataset.Real        // nil for the generated set
}

// dataFlag registers -data on a bench command's flag set.
func dataFlag(fs *flag.FlagSet) *string {
	return fs.String("data", "", "a real data set instead of the generated one: a name from `veclab data list` (fetched by `veclab data get`) or a directory with base.fvecs and query.fvecs; -n, -dim, -clusters, -spread and -seed then do not apply")
}

// generatorFlags defines the generated data set's flags (-n, -queries,
// -dim, -clusters, -spread, -seed) on fs, the bench commands' common
// ones; queries and the two help texts are the command's own.
func generatorFlags(fs *flag.FlagSet, ds *dataset.Config, queries int, queriesHelp, seedHelp string) {
	fs.IntVar(&ds.N, "n", dataset.DefaultN, "base vectors")
	fs.IntVar(&ds.Queries, "queries", queries, queriesHelp)
	fs.IntVar(&ds.Dim, "dim", dataset.DefaultDim, "dimensions")
	fs.IntVar(&ds.Clusters, "clusters", dataset.DefaultClusters, "Gaussian clusters")
	fs.Float64Var(&ds.Spread, "spread", dataset.DefaultSpread, "cluster spread (see lab/dataset)")
	fs.Uint64Var(&ds.Seed, "seed", 0, seedHelp)
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// loadBenchData opens -data (nameOrDir non-empty) or generates cfg. For a
// real set, queries > 0 keeps the first queries rows (all when 0 or more
// than it has); the exact top-max(k, 100) is the set's cached truth,
// computed once and kept in its directory.
func loadBenchData(nameOrDir string, cfg dataset.Config, queries, k int, cacheDir string) (*benchData, error) {
	kt := max(k, 100)
	if nameOrDir == "" {
		ds, err := dataset.Generate(cfg)
		if err != nil {
			return nil, err
		}
		t, err := dataset.Truth(ds, kt, engine.Cosine, cacheDir)
		if err != nil {
			return nil, err
		}
		return &benchData{ds: ds, metric: engine.Cosine, truth: t, desc: ds.Config.String()}, nil
	}
	r, err := dataset.OpenData(nameOrDir, "")
	if err != nil {
		return nil, err
	}
	t, err := r.Truth(kt)
	if err != nil {
		return nil, err
	}
	ds := r.Dataset
	if queries > 0 && queries < ds.Queries.N {
		q := &vec.Matrix{N: queries, Dim: ds.Queries.Dim, Stride: ds.Queries.Stride, Data: ds.Queries.Data[:queries*ds.Queries.Stride]}
		ds = &dataset.Dataset{Config: dataset.Config{N: ds.Config.N, Queries: queries, Dim: ds.Config.Dim}, Base: ds.Base, Queries: q}
		t = &dataset.GroundTruth{K: t.K, Metric: t.Metric, IDs: t.IDs[:queries], Dists: t.Dists[:queries]}
	}
	name := r.Manifest.Name
	if name == "" {
		name = nameOrDir
	}
	desc := fmt.Sprintf("%s: %d × %d, %d queries, %s", name, ds.Base.N, ds.Base.Dim, ds.Queries.N, r.Metric)
	if r.Manifest.Source != "" {
		desc += " (" + r.Manifest.Source + ")"
	}
	return &benchData{ds: ds, metric: r.Metric, truth: t, desc: desc, real: r}, nil
}
