// Package all registers every experiment of the articles with
// lab/experiment: import it for its side effect, as `veclab reproduce`,
// the kernel and the tests do, and the registry ([experiment.Select],
// [experiment.Lookup]) holds E01…E27.
package all
