// Package kernel is veclab's Jupyter kernel: Go cells, run by the
// evaluation core of kernel/eval (gomacro), calling the compiled lab and
// engine, with rich display of tables and charts.
//
// [Run] serves one kernel process on the five sockets of a connection file
// (Jupyter messaging protocol 5.3, github.com/go-zeromq/zmq4): shell,
// control, stdin and heartbeat, plus IOPub for everything the cells
// produce. Messages with a bad or missing signature are dropped and logged,
// never executed.
//
// # Concurrency
//
// One goroutine per socket. Shell requests are handled in order on the
// shell goroutine, which is the only one that evaluates; control
// (interrupt_request, shutdown_request) has its own goroutine so it is
// served while a cell runs; SIGINT interrupts too (kernelspec
// interrupt_mode "signal"). IOPub sends are serialized by a mutex. Run
// returns when ctx is cancelled or a shutdown_request arrives.
//
// # Use
//
//	veclab install --user          # kernelspec "veclab": a copy of the binary, kernel.json, logos
//	jupyter lab                    # pick "Go (veclab)"
//	veclab run NB.ipynb -o OUT.ipynb   # the same cells without Jupyter (kernel/notebook)
//
// Cells are Go as gomacro reads it (about Go 1.18 without generics: no
// `for i := range n`, no min/max builtins). They import the standard
// library and the bound packages of kernel/bindings; the last expression's
// value is shown by its method set (kernel/display), so a lab table
// appears as an HTML table and a chart as a picture.
//
// # Measuring
//
// kernel/bench/latency.py starts a kernel through jupyter_client and
// reports the start-up time to the first kernel_info_reply and the round
// trip of a trivial cell, beside Debian's ipykernel measured the same way.
// BenchmarkExecuteRoundTrip measures the round trip from a Go client.
//
// # Limits
//
// An interpreted loop stops at once when interrupted; a long compiled call
// (an index build) finishes first, then the cell reports "interrupted". A panic inside a goroutine started
// by a cell ends the kernel process (gomacro runs goroutines without a
// recover); the front end then offers to restart it.
package kernel
