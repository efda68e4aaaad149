// Package segbench is `veclab bench segments`: the measurements of E16,
// E18 and E20 (segment counts, parallel ingest, the shared bound) run
// as one benchmark with its own configuration, outside the article's
// set-up.
package segbench
