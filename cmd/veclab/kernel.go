package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/veclab/veclab/kernel"
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
	if err := fs.Parse(args); err != nil {
		return err
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
	sess, err := newSession(stderr)
	if err != nil {
		return err
	}
	defer sess.Close()
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer cancel()
	// Jupyter front ends name themselves in JPY_PARENT_PID; the kernel
	// ends with them (see kernel.Config.ParentPID).
	parent, _ := strconv.Atoi(os.Getenv("JPY_PARENT_PID"))
	return kernel.Run(ctx, kernel.Config{Conn: conn, Interp: sess, Log: sess.Log(), HandleSIGINT: true, IdleOnOneP: true, ParentPID: parent})
}
