// Package quantizers is the lab's catalogue of quantizers: the one place
// that names each way the lab builds codes (raw float32; Lucene's int8,
// int8 with min/max bounds, int4 with and without its correction term;
// optimized scalar quantization at 1 bit as Elasticsearch's and Lucene's
// BBQ, 1×1, 2, 4 and 8 bits, with either centroid) and trains it from
// engine/quant. `veclab bench quant` ([lab/bench.Quant]) measures every
// entry, and lab/experiment's E14 and E22–E24 train theirs through it, so
// a name means the same configuration in a table, a command and a
// notebook.
//
// # Invariants
//
// [Names] lists the entries in table order, [Raw] first, every name once;
// each has a one-line description ([Describe]). [Train] with the same
// name, sample, metric and seed gives the same codes. An unknown name is
// an error wrapping engine.ErrInvalidArgument that lists the names.
//
// The API is non-generic so notebooks can call it through the interpreter.
package quantizers
