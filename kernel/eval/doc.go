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
//     session lives on.
//   - Each cell is parsed, rewritten (rewrite.go), then compiled by
//     gomacro. A go statement runs its function through a compiled
//     wrapper that recovers a panic (gomacro's own go statement has none,
//     and an unrecovered panic ends the process): while the cell runs the
//     panic is the cell's error ("goroutine panic", naming the go
//     statement); after it, the report goes to the next cell's stderr.
//     Selects without a default, and receive statements (<-ch, v = <-ch,
//     v := <-ch, v, ok := <-ch), get a case for the interrupt.
//   - check(err) is predeclared: a nil error goes on, any other fails the
//     cell with an error named "error", its message and the cell line of
//     the call (the rewriter adds the line). It replaces the three lines
//     of if err != nil { panic(err) }, whose panic a learner reads as a
//     crash, in the notebooks.
//   - A runtime panic names its cell line, and an index or slice error
//     reads as Go's own: "index out of range [7] with length 4 (cell line
//     3: a[i] = 1)" (gomacro itself says "reflect: slice index out of
//     range"). How (where.go):
//     the rewriter numbers the cell's top-level units (a statement, an
//     expression, or a run of declarations with var initializers, which
//     gomacro sorts by dependency and so cannot be split) and puts a
//     marker call, __veclab_at(k), before each but the first; gomacro
//     sorts a run of top-level statements by position, so each marker
//     takes a position between the node before it and its own. The cell
//     runs through the session's own copy of Interp.RunExpr's few lines,
//     whose deferred recover reads gomacro's call-stack bookkeeping
//     (Run.CurrEnv, the innermost env: a loop body, a function the cell
//     called) before it is unwound; that env's statement position
//     (Env.DebugPos[Env.IP]) names the innermost line when it lies in
//     this cell, with "reached from" the top-level unit's line, or, for
//     a function an earlier cell defined, in that cell (the session keeps
//     the newest 256 cells that compiled, at most 4 MiB of code: "line 2
//     of the cell starting …").
//     For an index or slice panic, the index and slice expressions the
//     failing statement evaluates itself are evaluated again in the
//     env it ran in, compiled in that env's scope (Env.DebugComp, kept
//     because the session switches on gomacro's debugger option; no
//     debugger runs; the option costs a pointer store per env, within
//     about 5% on BenchmarkEvalLoop), and the first out of range is
//     worded as the Go
//     runtime does (runtime/error.go, boundsError). This is sound because
//     only pure operands are evaluated again — names, literals,
//     selectors, index expressions, arithmetic, conversions and the
//     builtins len and cap, as resolved in that scope — so nothing the
//     cell does runs twice, and a message is only given for an
//     expression whose operands are, now, out of range. Anything else (a
//     call in the index, a function of a cell no longer kept, a panic
//     inside compiled code) keeps gomacro's text, with the cell line. A
//     widget callback ([Session.Call]) is placed the same way, in the
//     cell that defined it. A goroutine's panic ("goroutine panic") names
//     its line (the go statement's wrapper reads its gomacro Run's
//     current env) but not the index: its operands would have to be
//     compiled while the next cell may be compiling, and gomacro's
//     compiler is not goroutine-safe.
//   - Each cell runs under a context, made the engine's ambient context
//     (engine.Context) for the compiled lab and engine: [Session.Interrupt]
//     cancels it, so index builds, exact truth, k-means, data set
//     generation and experiment runs return at once (they check it between
//     chunks of work), and time.Sleep (rebound), selects and rewritten
//     receives end with it; interpreted loops stop at their next
//     iteration, in the cell and in the goroutines it started. The cell's
//     error is then named [InterruptedName]. A compiled call that takes no
//     context (a receive inside an expression, sync.WaitGroup.Wait on a
//     goroutine of another cell) finishes first, with a notice on stderr.
//     With no cell running, Interrupt stops the goroutines cells left.
//   - With Options.MemoryLimit, the Go runtime's soft limit is set
//     (debug.SetMemoryLimit) and a watchdog ends a cell whose heap grows
//     past it ("MemoryError"); a single allocation larger than the machine
//     can map still ends the process (the Go runtime's out-of-memory
//     error cannot be recovered).
//   - A transient display (display.Progress) is shown as any other while
//     its cell runs; when the cell ends the session asks the Output to
//     take it away ([Remover]): the kernel sends clear_output and the
//     cell's other outputs again, [Recorder] (`veclab run`) drops it.
//   - [Session.Call] ([Caller]) runs a Go function as a cell runs: its
//     output to an Output, under a cell context that Interrupt cancels,
//     a panic or an interrupt returned as an Error. The kernels run comm
//     callbacks (widget events) with it. display.ClearOutput reaches an
//     Output that is a [Clearer].
//   - With [CaptureFD], file descriptors 1 and 2 are pipes for the whole
//     session, so fmt, log, println and goroutines are all captured and
//     streamed while the cell runs (a crash report goes to the real
//     stderr, the Jupyter server's log); fd 0 is a pipe too, and a read of
//     it asks [Output.Input] for a line (Linux: the session watches for a
//     thread blocked in read(0) while a cell runs).
//
// # Magics
//
// IPython's magics are read before a cell reaches gomacro (magic.go): a
// line whose first non-blank character is % (outside a string or a
// comment, where it is never Go) is a line magic, run in its place among
// the cell's Go; a first line starting with %% is a cell magic taking the
// rest of the cell as its body. The kernel, `veclab run` and the wasm
// build share them, since all three call [Session.Eval]:
//
//	%time STMT, %%time          CPU times (user, sys, total; getrusage) and
//	                            wall time of one run, IPython's format; the
//	                            value is shown as usual (js/wasm: wall only)
//	%timeit [-n N -r R -p P -q] STMT, %%timeit [opts] [SETUP]
//	                            compiled once, then N loops × R runs (N, when
//	                            not given, the first power of ten whose run
//	                            takes ≥ 0.2 s; R 7): "mean ± std per loop (mean
//	                            ± std. dev. of R runs, N loops each)"
//	%who [TYPE…], %whos [TYPE…] the names cells defined ([Session.Variables]),
//	                            with type and a short value
//	%env [NAME[=VALUE]]         the environment, one variable, or set one
//	%lsmagic                    the list, with each magic's syntax ([LsMagic])
//
// An unknown or misplaced magic fails the cell with a UsageError naming
// it, before anything runs. %timeit follows IPython's
// ExecutionMagics.timeit (IPython/core/magics/execution.py) except where
// Go differs: the statement runs in the session's scope and the garbage
// collector stays on. A loop calls the compiled closure of the statement
// and polls the interrupt: BenchmarkTimeitOverhead measures 40–130 ns per
// loop around a compiled call that does nothing, and 0.02–0.03 % added to
// a compiled 1 ms statement (the target is 5 %).
//
// # Concurrency
//
// Eval, Complete, Inspect and IsComplete must be called from one goroutine
// at a time; Interrupt may be called from any goroutine.
package eval
