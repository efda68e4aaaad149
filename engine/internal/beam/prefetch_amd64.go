//go:build !purego

package beam

// prefetchRows asks the CPU to start loading the first lines (64 bytes
// each) of the rows ids[0…n-1] of the slab at data, rowBytes apart, so
// their cache misses overlap with the distance computations that follow
// (hnswlib's searchBaseLayerST prefetches the next neighbour's vector the
// same way with _mm_prefetch). It has no effect on results.
//
//go:noescape
func prefetchRows(data *float32, ids *uint32, n int, rowBytes int, lines int)
