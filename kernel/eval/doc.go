// Package eval is the evaluation core shared by the Jupyter kernel,
// `veclab run` and the wasm build: an interpreter session that runs one
// cell at a time and reports what it printed, displayed and returned as
// MIME bundles.
//
// [Interpreter] is the seam: [Session] implements it on gomacro
// (github.com/cosmos72/gomacro), and another interpreter could replace it
// without touching the kernel or the lab.
//
// # The gomacro session
//
//   - Cells import the standard library (gomacro's bindings) and the
//     packages bound in kernel/bindings (engine, lab, kernel/display); fmt
//     is pre-imported. Any other import fails with a clear message: nothing
//     is downloaded, built or written to disk.
//   - gomacro's metadata importer (which runs `go list -export`) is
//     switched off: types come from reflection alone.
//   - os.Exit, syscall.Exit and log.Fatal* panic with a message instead of
//     ending the process; a panic in a cell becomes an [Error] and the
//     session lives on. A panic in a goroutine started by a cell still
//     kills the process (gomacro's go statement has no recover); with
//     CaptureFD its report goes to the real stderr (the Jupyter server's
//     log), not to the captured fd 2.
//   - With [CaptureFD], file descriptors 1 and 2 are pipes for the whole
//     session, so fmt, log, println and goroutines are all captured and
//     streamed while the cell runs; fd 0 is a pipe too, and a read of it
//     asks [Output.Input] for a line (Linux: the session watches for a
//     thread blocked in read(0) while a cell runs).
//   - Interrupt stops interpreted loops and blocks at once; a blocking
//     compiled call (time.Sleep, an index build) finishes first, with a
//     notice on stderr, and the cell is then reported as interrupted.
//
// # Concurrency
//
// Eval, Complete, Inspect and IsComplete must be called from one goroutine
// at a time; Interrupt may be called from any goroutine.
package eval
