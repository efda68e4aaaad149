package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

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
}

// FortunesLayout makes the sentence set: every fortune of the fortune
// files in dir (all but ascii-art, whose entries are pictures), each once,
// embedded by the sentence embedder in embedDir; fortunes none of whose
// words has a vector are dropped (their vector is zero, which has no
// direction under cosine). src.Queries are held out with src.Seed; the
// texts are kept as words.txt and "file:entry" ids as ids.txt.
func FortunesLayout(ctx context.Context, src dataset.Source, dir, embedDir, node string, progress func(done, total int)) (dataset.Layout, FortunesReport, error) {
	var rep FortunesReport
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
	emb, err := EmbedTexts(ctx, embedDir, node, texts, progress)
	if err != nil {
		return dataset.Layout{}, rep, err
	}
	rep.Embedded = emb
	rep.LoadSeconds = emb.Load.Seconds()
	if s := emb.Embed.Seconds(); s > 0 {
		rep.TextsPerSecond = float64(len(texts)) / s
	}
	all := &vec.Matrix{Dim: emb.Vectors.Dim, Stride: emb.Vectors.Dim}
	var keptTexts, keptIDs []string
	for i, k := range emb.Known {
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
		Name: src.Name, Metric: src.Metric.String(), Source: src.Origin + "; model: " + SentencesModel, License: src.License, Seed: src.Seed,
		Notes: fmt.Sprintf("%d fortunes read from %d files (%s); %d repeats and %d with no word in GloVe's vocabulary dropped; %d queries held out with seed %d (lab/dataset.HoldOut); words.txt holds each row's text (whitespace collapsed), ids.txt its file:entry, base rows then queries",
			rep.Read, len(rep.Files), strings.Join(rep.Files, ", "), rep.Duplicates, rep.NoWords, q.N, src.Seed),
	}}, rep, nil
}
