package notebook_test

import (
	"fmt"
	"os"

	"github.com/veclab/veclab/kernel/eval"
	"github.com/veclab/veclab/kernel/notebook"
)

// Run executes a notebook's code cells and returns it with their outputs,
// as `veclab run` does.
func ExampleRun() {
	in := []byte(`{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
	  {"cell_type": "code", "metadata": {}, "outputs": [], "source": "n := 6\nn * 7"}]}`)
	stdout := os.Stdout // the session captures os.Stdout for the cells
	s, err := eval.New(eval.Options{Capture: eval.CaptureGo})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	out, err := notebook.Run(in, s, notebook.Options{Progress: stdout})
	fmt.Fprintln(stdout, err, len(out) > len(in))
	// Output:
	// ── cell 0 [1]
	// 42
	// <nil> true
}
