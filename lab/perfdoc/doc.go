// Package perfdoc writes docs/performance.md from the saved runs of the
// benchmarks (docs/perf/*.json, each a [bench.HNSWRecord] that
// `veclab bench hnsw -json` wrote), so that every figure of the page is a
// benchmark's output, never typed: the command, the machine (CPU, cores,
// SIMD features, veclab's kernels, each peer's kernels or build), the
// date, the load averages, the side-by-side table of veclab and its peers
// and every engine's recall/QPS curve.
//
//	go generate ./lab/perfdoc
//
// regenerates the page; TestUpToDate fails when it differs from what the
// records give.
package perfdoc

//go:generate go run gen.go
