package main

// The comma lists of the bench commands' flags (-efs 40,100,200,
// -oversample 1,1.5,3, -only int8,bbq): read here, beside the commands
// that take them, so lab/bench holds only what it measures.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/veclab/veclab/engine"
)

// splitList splits a comma-separated flag value into its trimmed,
// non-empty items.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// parseInts reads a comma-separated list of integers (empty items are
// skipped); what names the list in the error (e.g. "-efs").
func parseInts(what, s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		v, err := strconv.Atoi(f)
		if err != nil {
			return nil, badArg("%s %q is not an integer", what, f)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseFloats reads a comma-separated list of finite numbers (empty items
// are skipped); what names the list in the error.
func parseFloats(what, s string) ([]float64, error) {
	var out []float64
	for _, f := range splitList(s) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, badArg("%s %q is not a number", what, f)
		}
		out = append(out, v)
	}
	return out, nil
}

// parsePositiveInts is parseInts for a list that must hold at least one
// item, each ≥ 1 (ef values, segment and client counts).
func parsePositiveInts(what, s string) ([]int, error) {
	out, err := parseInts(what, s)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, badArg("%s is empty", what)
	}
	for _, v := range out {
		if v < 1 {
			return nil, badArg("%s %d is not a positive integer", what, v)
		}
	}
	return out, nil
}

// argError is a bad flag or argument of a command, said in the terms the
// user typed (the flag, its value, what it wants). errors.Is matches
// engine.ErrInvalidArgument, the class every bad input of the module
// shares, but its message does not end in that sentinel's words
// ("engine: invalid argument"): the user gave a flag, not an engine call.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

// Is reports target to be engine.ErrInvalidArgument.
func (e *argError) Is(target error) bool { return target == engine.ErrInvalidArgument }

// badArg is an argError formatted as fmt.Sprintf formats.
func badArg(format string, a ...any) error { return &argError{msg: fmt.Sprintf(format, a...)} }
