package bench

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/veclab/veclab/engine"
)

// SplitList splits a comma-separated flag value into its trimmed,
// non-empty items.
func SplitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// ParseInts reads a comma-separated list of integers (empty items are
// skipped); what names the list in the error (e.g. "-efs").
func ParseInts(what, s string) ([]int, error) {
	var out []int
	for _, f := range SplitList(s) {
		v, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("bench: %s %q is not an integer: %w", what, f, engine.ErrInvalidArgument)
		}
		out = append(out, v)
	}
	return out, nil
}

// ParseFloats reads a comma-separated list of finite numbers (empty items
// are skipped); what names the list in the error.
func ParseFloats(what, s string) ([]float64, error) {
	var out []float64
	for _, f := range SplitList(s) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("bench: %s %q is not a number: %w", what, f, engine.ErrInvalidArgument)
		}
		out = append(out, v)
	}
	return out, nil
}

// ParsePositiveInts is ParseInts for a list that must hold at least one
// item, each ≥ 1 (ef values, segment and client counts).
func ParsePositiveInts(what, s string) ([]int, error) {
	out, err := ParseInts(what, s)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bench: %s is empty: %w", what, engine.ErrInvalidArgument)
	}
	for _, v := range out {
		if v < 1 {
			return nil, fmt.Errorf("bench: %s %d is not a positive integer: %w", what, v, engine.ErrInvalidArgument)
		}
	}
	return out, nil
}
