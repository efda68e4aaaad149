package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/veclab/veclab/kernel"
	"github.com/veclab/veclab/kernel/eval"
)

func init() {
	register(&command{
		name:    "kernel",
		summary: "serve the Jupyter kernel (started by Jupyter: veclab kernel -f CONNECTION_FILE)",
		run:     runKernel,
	})
}

func runKernel(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("kernel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("f", "", "Jupyter connection file (JSON)")
	hist := fs.String("history", "", "history file of executed cells (JSON lines; off: memory only) (default $VECLAB_HISTORY, else $XDG_DATA_HOME/veclab/history.jsonl)")
	mem := fs.String("memory-limit", "", "stop a cell whose heap grows past this (4GiB, 80%, off) (default $VECLAB_MEMORY_LIMIT, else 80%)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	histPath := *hist
	if histPath == "" {
		p, err := kernel.DefaultHistoryPath()
		if err != nil {
			fmt.Fprintf(stderr, "veclab kernel: %v; history kept in memory only\n", err)
		}
		histPath = p
	}
	if strings.EqualFold(histPath, "off") {
		histPath = ""
	}
	memSpec := *mem
	if memSpec == "" {
		memSpec = os.Getenv("VECLAB_MEMORY_LIMIT")
	}
	if memSpec == "" {
		memSpec = "80%"
	}
	limit, err := eval.ParseMemoryLimit(memSpec)
	if err != nil {
		return fmt.Errorf("-memory-limit: %w", err)
	}
	if *file == "" {
		return fmt.Errorf("missing -f CONNECTION_FILE (install the kernelspec with 'veclab install' and start it from Jupyter)")
	}
	conn, err := kernel.ReadConnectionFile(*file)
	if err != nil {
		return err
	}
	// From here fds 0–2 belong to the cells; the kernel logs to a dup of
	// the original stderr.
	sess, err := newSessionLimit(stderr, limit)
	if err != nil {
		return err
	}
	defer sess.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := handleKernelSignals(sess.Log(), cancel)
	defer stop()
	// Jupyter front ends name themselves in JPY_PARENT_PID; the kernel
	// ends with them (see kernel.Config.ParentPID).
	parent, _ := strconv.Atoi(os.Getenv("JPY_PARENT_PID"))
	return kernel.Run(ctx, kernel.Config{Conn: conn, Interp: sess, Log: sess.Log(), HandleSIGINT: true, IdleOnOneP: true, ParentPID: parent,
		HistoryPath: histPath})
}

// handleKernelSignals gives the kernel ipykernel's signal behaviour.
// jupyter_client sends signals to the kernel's process group
// (provisioning/local_provisioner.py send_signal): SIGINT to interrupt
// (kernel.Config.HandleSIGINT), and on shutdown, when the kernel has not
// exited within half of shutdown_wait_time after a shutdown_request,
// SIGTERM, then SIGKILL. SIGTERM calls shutdown, which makes kernel.Run
// stop the running cell, close its sockets and return (the deferred Close
// of the session then restores fds 0–2, and the embedded PostgreSQL
// server of lab/pglive, a child watching its stdin, stops when the
// process ends); a second SIGTERM ends the process at once. SIGQUIT
// writes every goroutine's stack to log and exits with status 2, as the
// Go runtime would, but not through fd 2: that is a pipe of the cells
// that nothing drains while the runtime dumps, so its own dump stopped at
// 64 KiB with the process hung. The returned func stops the handling.
func handleKernelSignals(log io.Writer, shutdown func()) (stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGQUIT)
	done := make(chan struct{})
	go func() {
		terms := 0
		for {
			select {
			case <-done:
				return
			case sig := <-sigs:
				if sig == syscall.SIGQUIT {
					fmt.Fprintf(log, "veclab kernel: SIGQUIT: goroutine dump, then exit\n%s", allStacks())
					os.Exit(2)
				}
				terms++
				if terms > 1 {
					fmt.Fprintln(log, "veclab kernel: second SIGTERM: exiting now")
					os.Exit(143) // 128 + SIGTERM, as the shell reports a kill
				}
				fmt.Fprintln(log, "veclab kernel: SIGTERM: shutting down")
				shutdown()
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// allStacks returns the stacks of every goroutine (runtime.Stack with all).
func allStacks() []byte {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}
