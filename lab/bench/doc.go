// Package bench holds the measurements behind the `veclab bench`
// commands, so that a notebook cell and the command run the same code: the
// command parses its flags, loads the data set and prints; everything it
// measures is here.
//
//   - [Quant] measures recall@k of every quantizer of lab/quantizers'
//     catalogue, over a flat scan of the codes
//     and through an HNSW graph built with them, by oversample with
//     rescoring from RAM or from an on-disk vector file.
//   - [Filter] measures every filtered-search strategy of engine/filtered
//     at several filters and selectivities.
//   - [Flat] times exact search on one goroutine against the memory floor
//     (a pass streaming the slab), pair by pair, beside the plain C loop
//     of bench/peers/cflat.
//   - [HNSW] builds engine/hnsw with hnswlib's policy and sweeps ef,
//     beside its peers ([HNSWPeers]) on the same vectors, M,
//     efConstruction and thread counts: hnswlib's own harness
//     (bench/peers/hnswlib, same level seed), USearch's
//     (bench/peers/usearch: f32, i8, b1 storage) and FAISS's
//     IndexHNSWFlat / IndexHNSWSQ (bench/peers/faiss). The peers serve
//     sweeps on demand, so the rounds alternate veclab and each peer
//     without rebuilding, and each ratio ([HNSWRun.RatioAt]) is the
//     median of per-round ratios.
//   - [Batch] measures batch search on all cores (exact, HNSW, IVF-Flat)
//     from concurrent clients beside hnswlib's and FAISS's batch search,
//     in rounds that measure ours and then the peer, so that each ratio
//     ([BatchReport.Ratios]) is the median of per-round ratios of
//     measurements that saw the same machine.
//   - [IVF] trains engine/ivf with float32 and 1/2/4/8-bit OSQ posting
//     lists and sweeps nprobe and visit percentage on one thread, the
//     quantized lists rescored from an on-disk vector file; it serves
//     the rescoring reads every way the lab can (warm, cold, O_DIRECT,
//     a simulated device, sequential and concurrent), puts the posting
//     lists on disk too, and, with FAISS (bench/peers/faiss), compares
//     IVF-Flat and IVF-SQ8 at matched recall by wall and CPU time, and
//     the training times.
//
// `veclab bench segments` is a front end over lab/experiment's
// SegmentsBench instead: its measurements are E16's, E18's and E20's, and
// lab/experiment imports this package.
//
// The quantizer catalogue, the one place the lab names its quantizers,
// is lab/quantizers; the comma lists of the bench commands' flags are
// read in cmd/veclab, beside the commands. This package holds only what
// they measure.
//
// The native peers (hnswlib's and USearch's harnesses, the C loop) are
// compiled from the repository's bench/peers with their build.sh before
// any timing; FAISS runs through the Go package bench/peers/faiss, which
// imports nothing of the lab. [LoadAverage] goes with every timed figure.
//
// Timings are wall time on whatever else the machine runs; recall figures
// depend only on the seed (with one build worker).
//
// The API is non-generic so notebooks can call it through the interpreter.
package bench
