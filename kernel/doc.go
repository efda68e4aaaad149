// Package kernel is veclab's Jupyter kernel: Go cells, run by the
// evaluation core of kernel/eval (gomacro), calling the compiled lab and
// engine, with rich display of tables and charts.
//
// [Run] serves one kernel process on the five sockets of a connection file
// (Jupyter messaging protocol 5.4, with 5.5's supported_features and
// kernel_info on control, not its XPUB welcome: wire.ProtocolVersion;
// github.com/go-zeromq/zmq4): shell,
// control, stdin and heartbeat, plus IOPub for everything the cells
// produce. Messages with a bad or missing signature are dropped and logged,
// never executed.
//
// # Concurrency
//
// One goroutine per socket, and the shell's reader apart from its
// handler. Shell requests are handled in order on the shell goroutine,
// which is the only one that evaluates (cells and comm callbacks); its
// reader goroutine decodes them and counts each comm_msg as it arrives; control
// (interrupt_request, shutdown_request, debug_request) has its own goroutine so it is
// served while a cell runs; SIGINT interrupts too (kernelspec
// interrupt_mode "signal"). IOPub sends are serialized by a mutex. Run
// returns when ctx is cancelled or a shutdown_request arrives, after
// interrupting the running cell and closing its sockets (it waits for
// them at most a second). `veclab kernel` cancels ctx on SIGTERM, which
// jupyter_client sends when a kernel has not exited after a
// shutdown_request (a second SIGTERM exits at once), and writes a
// goroutine dump to its log on SIGQUIT, then exits with status 2.
//
// # Cell outputs
//
// A cell's outputs are published as they come (stream, display_data,
// update_display_data) and kept: when the cell showed a transient display
// (display.Progress), the kernel sends clear_output and its other
// outputs again at the cell's end, so saved notebooks keep no progress.
//
// # Comms, clear_output and the pager
//
// The kernel serves Jupyter's comm protocol from the registry of
// kernel/comm (comm.Default): comm_open, comm_msg and comm_close in both
// directions with binary buffers, comm_info_request filtered by target,
// and a comm_close back for a target nobody registered. A callback (a
// widget event) runs like a cell, on the shell goroutine through
// eval.Caller: its output goes to IOPub as children of the comm message
// that triggered it, a panic or an interrupt is published as an error and
// the kernel goes on, and interrupt_request stops it. The shell socket is
// read on a goroutine of its own, so that a comm_msg arriving while a
// callback runs is counted at once (a redraw already stale is skipped, a
// running one preempted: kernel/widget's Interact).
//
// kernel/widget builds Jupyter widgets (protocol 2.1, ipywidgets 8's
// models, Interact) on these comms; TestWidgetsJupyterClient drives them
// with jupyter_client. display.ClearOutput(wait) sends clear_output. A cell that is only an
// inspection (`hnsw.New?`, `??idx`) is answered with the documentation as
// a pager payload (execute_reply payload, source "page"). TestConformance
// runs jupyter_kernel_test's suite with a sample for every test: all pass,
// none skips.
//
// # Magics, standard input, the debugger's variables panel
//
// Cells take IPython's magics (%time, %timeit, %who, %whos, %env,
// %lsmagic; kernel/eval reads them before gomacro does, so `veclab run`
// and the wasm build share them). A cell reading os.Stdin (fmt.Scanln,
// bufio) is answered through input_request on the stdin channel when the
// execute_request allows stdin, and sees the end of input when it does
// not. kernel_info_reply says debugger true and lists "debugger" in
// supported_features (JEP 92), and the kernelspec's metadata says
// debugger true, which is what JupyterLab reads to offer its Debugger: on
// the control channel the kernel answers the debug requests of its
// variables panel (eval.Debugger, which the browser kernel answers with
// too; debug.go sends its replies) — debugInfo, initialize, attach,
// configurationDone, disconnect, inspectVariables, richInspectVariables —
// listing the variables, constants and functions the cells defined with
// their Go types and short values, and a variable rendered as a cell
// would show it. It stops no cell: breakpoints are answered unverified
// with a message saying so, and the requests of a stopped program find
// none. While a cell runs the panel shows the variables as they were when
// the last cell ended (the interpreter is read only between cells).
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
// # Interrupt, survive, remember
//
// Each cell runs under a context that interrupt_request and SIGINT
// cancel; it is the engine's ambient context (engine.Context, which a cell
// can also read and pass on), so index builds, exact truth, k-means, data
// set generation and experiment runs stop within a fraction of a second
// with an error wrapping context.Canceled, and the cell's error reply says
// "Interrupted". time.Sleep, selects, receive statements and stdin reads
// stop too, in the cell and in the goroutines it started; an interrupt
// with no cell running stops the goroutines cells left running (kernel/eval
// says how). A panic in a goroutine a cell started is that cell's error,
// or a report on the next cell's stderr; os.Exit and log.Fatal raise an
// error instead of ending the process; a cell whose heap grows past the
// memory limit (veclab kernel -memory-limit, VECLAB_MEMORY_LIMIT, default
// 80 % of the machine's memory) fails with a MemoryError. The kernel keeps
// every executed cell, with the text of its result, in a history file
// (kernel/internal/history; -history or VECLAB_HISTORY, default
// $XDG_DATA_HOME/veclab/history.jsonl) and answers history_request's
// tail, range and search from it, across restarts.
//
// # Limits
//
// A compiled call that takes no context (a receive inside an expression,
// a for range over a channel, sync.WaitGroup.Wait, a lab function without
// checks) finishes before the cell reports "Interrupted"; a notice on
// stderr says so after a second. An allocation larger than the machine can
// map ends the process (the Go runtime's out-of-memory error is fatal).
// The front end then offers to restart the kernel.
package kernel
