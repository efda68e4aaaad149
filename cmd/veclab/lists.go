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
			return nil, fmt.Errorf("%s %q is not an integer: %w", what, f, engine.ErrInvalidArgument)
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
			return nil, fmt.Errorf("%s %q is not a number: %w", what, f, engine.ErrInvalidArgument)
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
		return nil, fmt.Errorf("%s is empty: %w", what, engine.ErrInvalidArgument)
	}
	for _, v := range out {
		if v < 1 {
			return nil, fmt.Errorf("%s %d is not a positive integer: %w", what, v, engine.ErrInvalidArgument)
		}
	}
	return out, nil
}
