// Package picture draws the mechanisms the teaching notebooks explain,
// HNSW's layers and walks (notebooks/00-hnsw-by-picture) and what scalar
// and optimized scalar quantization do to vectors
// (notebooks/00b-quantization-by-picture), and IVF's cells, probes and
// nprobe sweeps (notebooks/00d-ivf-by-picture), so that each notebook cell
// shows one step and not its bookkeeping.
//
// Nothing here re-implements the engine: the graphs are engine/hnsw
// indexes, the walks are [hnsw.Searcher.SearchTrace] (the real search with
// a recorder), IVF's cells and probes are engine/ivf's own lists and probe
// order ([ivf.Index.List], [ivf.Index.ProbeOrder]), the codes, decodings and distance estimates are
// engine/quant's, and the code rankings behind [TrueRanks] are
// lab/experiment's flat scans over the codes ([experiment.CodeRanking]).
// The package only gathers coordinates and numbers from them into
// lab/chart pictures and small tables.
//
// The API is non-generic so notebook cells can call it through the
// interpreter. Everything takes a seed; the same seed draws the same
// picture.
package picture
