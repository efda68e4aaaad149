// Package bench holds the measurements behind the `veclab bench quant` and
// `veclab bench filter` commands, so that a notebook cell and the command
// run the same code: the command parses its flags, loads the data set and
// prints; everything it measures is here.
//
//   - [Quant] measures recall@k of every quantizer of the catalogue
//     ([QuantizerNames], [TrainQuantizer]), over a flat scan of the codes
//     and through an HNSW graph built with them, by oversample with
//     rescoring from RAM or from an on-disk vector file.
//   - [Filter] measures every filtered-search strategy of engine/filtered
//     at several filters and selectivities.
//
// The quantizer catalogue is the one place the lab names its quantizers:
// lab/experiment's E14 and E22–E24 train theirs through it too.
// [ParseInts], [ParseFloats] and [SplitList] read the comma lists of every
// bench command's flags.
//
// Timings are wall time on whatever else the machine runs; recall figures
// depend only on the seed (with one build worker).
//
// The API is non-generic so notebooks can call it through the interpreter.
package bench
