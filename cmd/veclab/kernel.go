package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
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
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer cancel()
	// Jupyter front ends name themselves in JPY_PARENT_PID; the kernel
	// ends with them (see kernel.Config.ParentPID).
	parent, _ := strconv.Atoi(os.Getenv("JPY_PARENT_PID"))
	return kernel.Run(ctx, kernel.Config{Conn: conn, Interp: sess, Log: sess.Log(), HandleSIGINT: true, IdleOnOneP: true, ParentPID: parent,
		HistoryPath: histPath})
}
