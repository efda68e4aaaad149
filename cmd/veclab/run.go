package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/veclab/veclab/kernel/eval"
	"github.com/veclab/veclab/kernel/notebook"
)

func init() {
	register(&command{
		name:    "run",
		summary: "execute a notebook's Go cells without Jupyter (veclab run NB.ipynb [-o OUT.ipynb])",
		run:     runNotebook,
	})
}

func runNotebook(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the executed notebook here (default: only print the outputs)")
	allowErrors := fs.Bool("allow-errors", false, "keep running after a failing cell")
	quiet := fs.Bool("q", false, "do not print the cells' outputs")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: veclab run [-o OUT.ipynb] [-allow-errors] [-q] NOTEBOOK.ipynb")
		fs.PrintDefaults()
	}
	files, err := parseAnywhere(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		fs.Usage()
		return errors.New("want exactly one notebook")
	}
	nb, err := os.ReadFile(files[0])
	if err != nil {
		return err
	}
	sess, err := newSession(stderr)
	if err != nil {
		return err
	}
	defer sess.Close()
	// While the session runs, fds 1 and 2 belong to the cells.
	logw := sess.Log()
	opt := notebook.Options{AllowErrors: *allowErrors}
	if !*quiet {
		opt.Progress = logw
	}
	result, runErr := notebook.Run(nb, sess, opt)
	if result != nil && *out != "" {
		if err := os.WriteFile(*out, result, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(logw, "wrote %s\n", *out)
	}
	return runErr
}

// newSession starts the evaluation core with file-descriptor capture
// (everything a cell writes, stdin through the front end), or, where that
// is not available (not Linux), with capture of os.Stdout and os.Stderr.
func newSession(stderr io.Writer) (*eval.Session, error) { return newSessionLimit(stderr, 0) }

// newSessionLimit is newSession with a memory limit (eval.Options.MemoryLimit).
func newSessionLimit(stderr io.Writer, memoryLimit int64) (*eval.Session, error) {
	sess, err := eval.New(eval.Options{Capture: eval.CaptureFD, MemoryLimit: memoryLimit})
	if err == nil {
		return sess, nil
	}
	fmt.Fprintf(stderr, "veclab: %v; capturing os.Stdout and os.Stderr only (no log/println capture, no stdin)\n", err)
	return eval.New(eval.Options{Capture: eval.CaptureGo, Log: stderr, MemoryLimit: memoryLimit})
}

// parseAnywhere parses fs's flags wherever they stand among args, before
// or after the file names, and returns the file names in order.
func parseAnywhere(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) > 0 {
			files = append(files, args[0])
			args = args[1:]
		}
	}
	return files, nil
}
