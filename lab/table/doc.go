// Package table holds the lab's result tables and renders them as aligned
// text, Markdown, HTML, CSV and JSON.
//
// A [Table] has a title, typed columns (header, unit, alignment, and the
// source of the figures: the article or the lab), rows of typed cells and
// notes printed under it. The "article vs lab" convention: a figure quoted
// from an article sits in a column whose Source is [Article], next to the
// lab's own measurement in a column whose Source is [Lab]; [Pair] makes such
// a pair. Headers say which is which, so an article's number is never
// printed as the lab's.
//
// A table whose headers name recall@k figures ("recall@10", "IVF
// recall@100") prints lab/metrics' definition of them once, as its first
// note ([Table.Caption]): the definition has one owner, and no table
// writes it by hand.
//
// The rendering methods are detected by method set: the Jupyter kernel and
// the browser page show a value that has HTML() string, Markdown() string or
// JSON() map[string]any as that MIME type, without this package importing
// either of them.
//
// # Concurrency
//
// A Table is a plain value with no locking: build it in one goroutine, then
// render it from any number.
//
// The API is deliberately non-generic: notebooks call it through an
// interpreter that cannot import generic functions or types.
package table
