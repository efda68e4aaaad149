// Package chart draws the lab's figures, line charts (recall against ef,
// recall against QPS, several series, optional log axes) and grouped bar
// charts (a measure per store, the article's figure beside the lab's),
// scatter pictures of points in the plane (groups of points, a graph's
// edges, highlighted paths, a y = x reference) and grids that lay charts
// side by side, each as SVG and PNG. Every picture fits a notebook's
// output column: at most [MaxWidth] points (900 px) wide.
//
// Drawing is done by gonum.org/v1/plot, a maintained plotting library, so
// axes, ticks, legends and text are not hand-written SVG. Output is
// deterministic: the same chart renders to the same bytes, which the golden
// tests check.
//
// A chart is built from plain float64 slices and never fails to render: a
// chart with bad data (mismatched lengths, a non-positive value on a log
// axis, NaN) renders as a picture that names the problem, and Err reports
// it. The rendering methods SVG() string and PNG() []byte are detected by
// the notebook kernel and the browser page by method set.
//
// The API is non-generic so notebooks can call it through the interpreter.
package chart
