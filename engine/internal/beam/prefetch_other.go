//go:build !amd64 || purego

package beam

// prefetchRows is a no-op where there is no prefetch instruction stub: it
// only ever affects speed, never results.
func prefetchRows(data *float32, ids *uint32, n int, rowBytes int, lines int) {}
