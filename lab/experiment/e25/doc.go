// Package e25 is experiment E25 of the articles: passages of one document (nested vectors): the k nearest documents by joining to the parent during the graph walk, vs k passages then dedupe.
//
// Source: Elastic's reply, \.
//
// Notebook 09 does E25's steps with the public verbs (dataset.ChunkPassages,
// engine/hnsw, nested.New and nested.Naive, measure.ExactParents and
// measure.Index); this package keeps what `veclab reproduce` and the
// notebook's further-than-the-article cell need: Build and Measure, Shapes
// and ShapeChart (one collection per passage-count distribution), and
// Verdicts, which judges the three plans' measurements. init registers the
// experiment with lab/experiment, so `veclab reproduce` runs it through
// lab/experiment/all.
package e25
