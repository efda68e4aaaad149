// Package history is the kernel's record of executed cells: a small
// append-only file per user that survives restarts, read back to answer
// Jupyter's history_request (messaging spec 5.3: hist_access_type range,
// tail and search, with or without outputs).
//
// Each kernel process is one session, numbered one above the highest
// session in the file when it opens; its cells are lines 1, 2, … (the
// execution counts). Session 0 in a query means the current session, and
// a negative one counts back from it (-1 is the previous), as in IPython.
//
// # File format
//
// JSON lines (UTF-8, one object per line, appended with one write each):
//
//	{"session":3,"start":"2026-12-01T20:10:00Z"}            a session begins
//	{"session":3,"line":1,"input":"x := 1"}                  a cell, written before it runs
//	{"session":3,"line":1,"output":"1"}                      its result's text, written after
//
// Unknown fields are ignored, so later versions can add some. A line that
// does not parse (a torn last write) is skipped, never fatal. Outputs are
// cut to [MaxOutput] bytes.
//
// # Concurrency
//
// A [Store] is safe for concurrent use. Several kernels may append to one
// file: each record is a single O_APPEND write, and on Unix the session
// number is drawn under an exclusive flock of the file, so two kernels
// starting together get different numbers.
package history
