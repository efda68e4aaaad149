package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
)

// FortunesReport says how the sentence set was made.
type FortunesReport struct {
	Files                       []string // the fortune files read, in order
	Read, Duplicates, NoWords   int      // fortunes read, dropped as repeats, dropped for no known word
	Embedded                    *Embedded
	Base, Queries               int
	TextsPerSecond, LoadSeconds float64
	// Encoder is the encoder of the vectors; FilterSeconds, when not 0,
	// the time GloVeMean took to find the fortunes with no known word
	// (for an encoder other than GloVeMean).
	Encoder       string
	FilterSeconds float64
}

// FortunesLayout makes the sentence set: every fortune of the fortune
// files in dir (all but ascii-art, whose entries are pictures), each once,
// embedded by enc in embedDir; fortunes none of whose words has a GloVe
// vector are dropped (under GloVeMean their vector is zero, which has no
// direction under cosine). The drop is GloVeMean's whatever enc is, so
// every encoder's set holds the same texts in the same order, and
// src.Queries held out with src.Seed (lab/dataset.HoldOut, which depends
// only on the row count and the seed) are the same queries: the sets of
// two encoders differ only in their vectors. The texts are kept as
// words.txt and "file:entry" ids as ids.txt. progress, when not nil, is
// called with the stage ("filtering", "embedding") as texts are embedded.
func FortunesLayout(ctx context.Context, src dataset.Source, dir, embedDir, node string, enc Encoder, progress func(stage string, done, total int)) (dataset.Layout, FortunesReport, error) {
	rep := FortunesReport{Encoder: enc.Name}
	if enc.Dim != src.Dim {
		return dataset.Layout{}, rep, fmt.Errorf("ingest: %s: encoder %s gives %d dimensions, the set has %d: %w", src.Name, enc.Name, enc.Dim, src.Dim, engine.ErrDimension)
	}
	stage := func(name string) func(done, total int) {
		if progress == nil {
			return nil
		}
		return func(done, total int) { progress(name, done, total) }
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return dataset.Layout{}, rep, fmt.Errorf("ingest: %w", err)
	}
	var texts, ids []string
	seen := map[string]bool{}
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || strings.Contains(name, ".") || name == "ascii-art" {
			continue
		}
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return dataset.Layout{}, rep, fmt.Errorf("ingest: %w", err)
		}
		fs, err := dataset.ReadFortunes(f)
		f.Close()
		if err != nil {
			return dataset.Layout{}, rep, fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
		}
		rep.Files = append(rep.Files, name)
		for i, t := range fs {
			rep.Read++
			if seen[t] {
				rep.Duplicates++
				continue
			}
			seen[t] = true
			texts = append(texts, t)
			ids = append(ids, name+":"+strconv.Itoa(i))
		}
	}
	if len(texts) <= src.Queries {
		return dataset.Layout{}, rep, fmt.Errorf("ingest: %s: %d fortunes, too few for %d queries: %w", dir, len(texts), src.Queries, engine.ErrEmpty)
	}
	// known[i] is 0 for a fortune none of whose words GloVe knows.
	var known []int
	if enc.Name != GloVeMean.Name {
		t0 := time.Now()
		g, err := GloVeMean.Embed(ctx, embedDir, node, texts, stage("filtering"))
		if err != nil {
			return dataset.Layout{}, rep, err
		}
		known = g.Known
		rep.FilterSeconds = time.Since(t0).Seconds()
	}
	emb, err := enc.Embed(ctx, embedDir, node, texts, stage("embedding"))
	if err != nil {
		return dataset.Layout{}, rep, err
	}
	if known == nil {
		known = emb.Known
	}
	rep.Embedded = emb
	rep.LoadSeconds = emb.Load.Seconds()
	if s := emb.Embed.Seconds(); s > 0 {
		rep.TextsPerSecond = float64(len(texts)) / s
	}
	all := &vec.Matrix{Dim: emb.Vectors.Dim, Stride: emb.Vectors.Dim}
	var keptTexts, keptIDs []string
	for i, k := range known {
		if k == 0 {
			rep.NoWords++
			continue
		}
		all.Data = append(all.Data, emb.Vectors.Row(i)...)
		all.N++
		keptTexts = append(keptTexts, texts[i])
		keptIDs = append(keptIDs, ids[i])
	}
	b, q, bRows, qRows, err := dataset.HoldOut(all, src.Queries, 0, src.Seed)
	if err != nil {
		return dataset.Layout{}, rep, err
	}
	rows := slices.Concat(bRows, qRows)
	words, rowIDs := make([]string, len(rows)), make([]string, len(rows))
	for i, r := range rows {
		words[i], rowIDs[i] = keptTexts[r], keptIDs[r]
	}
	rep.Base, rep.Queries = b.N, q.N
	return dataset.Layout{Base: b, Queries: q, Words: words, IDs: rowIDs, Manifest: dataset.Manifest{
		Name: src.Name, Metric: src.Metric.String(), Source: src.Origin + "; model: " + enc.Model, License: src.License, Seed: src.Seed,
		Notes: fmt.Sprintf("%d fortunes read from %d files (%s); %d repeats and %d with no word in GloVe's vocabulary dropped; %d queries held out with seed %d (lab/dataset.HoldOut); words.txt holds each row's text (whitespace collapsed), ids.txt its file:entry, base rows then queries",
			rep.Read, len(rep.Files), strings.Join(rep.Files, ", "), rep.Duplicates, rep.NoWords, q.N, src.Seed),
	}}, rep, nil
}
