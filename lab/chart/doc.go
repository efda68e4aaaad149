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
// it. The rendering methods SVG() string, PNG() []byte and VegaLite() []byte
// are detected by the notebook kernel and the browser page by method set.
//
// # Vega-Lite
//
// Each chart is also a Vega-Lite v5 spec (VegaLite, shown in a notebook as
// application/vnd.vegalite.v5+json, which JupyterLab and the JupyterLite
// site render with their built-in Vega renderer): the same title, axis
// labels, colours and log axes as the PNG, the data inline, tooltips with
// each point's exact figures, the article's figures marked (grey bars; a
// dashed line with open diamonds), a legend whose entries toggle their
// series and scales that zoom and pan. The PNG stays beside it in the
// notebook, for nbconvert and viewers without a Vega renderer. A spec is
// at most [VegaLiteWidth] (800 px) wide, axes, titles and legends
// included, narrower than the PNG's 900 px: vega-embed draws a canvas at
// the spec's size, which no CSS scales down to the output area as it does
// the PNG; a grid's plots are sized for its row to fit. A scatter's
// coordinates are written as float32 (a picture, not figures) to keep the
// spec small. The tests compile every spec with the real vega-lite and run
// it headless with vega (the pinned npm tree in lab/chart/vega).
//
// The API is non-generic so notebooks can call it through the interpreter.
package chart
