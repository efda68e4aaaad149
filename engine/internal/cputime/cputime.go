// Package cputime reads the CPU time of the calling OS thread, for
// benchmarks that report throughput per CPU second as well as per wall
// second: on a shared machine another process's load stretches wall time
// but not (much) the time the benchmark's own thread ran.
//
// A caller pins its goroutine first (runtime.LockOSThread) so that the
// thread it reads is the one that did the work.
package cputime
