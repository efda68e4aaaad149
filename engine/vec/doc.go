// Package vec stores vectors in flat float32 slabs and computes checked
// distances over them. Row i of a Matrix is Data[i*Stride : i*Stride+Dim].
//
// It is the checked layer over the trusted kernels of engine/internal/f32
// (generated AVX2 / AVX-512 assembly with pure-Go twins, chosen once at
// start-up): the functions here check lengths once and then call a kernel
// that checks nothing. A length mismatch in Dot, L2Sq, Dot4 or L2Sq4 is a
// programmer error and panics with "vec: length mismatch"; bad vector values
// are errors that wrap the engine sentinels (see [Normalize]).
//
// # Distances
//
// [Distance] and [Distance4] resolve a metric to a function once, so that no
// index compares metrics per call. Smaller is closer for every metric:
// squared L2 for engine.L2, −⟨a, b⟩ for engine.Dot and 1 − ⟨a, b⟩ for
// engine.Cosine, whose vectors must already be unit length (normalise them
// once at insert and the query once per search with [Normalize]).
//
// # bfloat16
//
// [EncodeBFloat16] and [DecodeBFloat16] store vectors at half their float32
// size, as Elasticsearch's dense_vector element_type bfloat16 keeps the
// full-precision originals it rescores with: each component rounded to the
// nearest bfloat16, ties to even ([ToBFloat16]), two little-endian bytes
// each. Decoding is exact; the loss is the rounding, at most 2⁻⁸ of a
// normal component.
//
// # Invariants
//
// A Matrix has Stride ≥ Dim and len(Data) ≥ N*Stride; Row aliases the slab,
// and Append never changes rows already stored.
//
// # Concurrency
//
// The functions are pure. A Matrix may be read concurrently; Append must not
// run concurrently with anything else on the same Matrix.
package vec
