package main

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
)

func TestParseLists(t *testing.T) {
	if got, err := parseInts("-efs", " 40, 100,,200 "); err != nil || !slices.Equal(got, []int{40, 100, 200}) {
		t.Errorf("parseInts = %v, %v", got, err)
	}
	if got, err := parseFloats("-oversample", "1,1.5, 3"); err != nil || !slices.Equal(got, []float64{1, 1.5, 3}) {
		t.Errorf("parseFloats = %v, %v", got, err)
	}
	if got, err := parsePositiveInts("-ef", "10,40"); err != nil || !slices.Equal(got, []int{10, 40}) {
		t.Errorf("parsePositiveInts = %v, %v", got, err)
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{func() error { _, err := parseInts("-efs", "40,x"); return err }(), `-efs "x" is not an integer`},
		{func() error { _, err := parseFloats("-oversample", "1,NaN"); return err }(), `-oversample "NaN" is not a number`},
		{func() error { _, err := parseFloats("-oversample", "Inf"); return err }(), `-oversample "Inf" is not a number`},
		{func() error { _, err := parsePositiveInts("-ef", " , "); return err }(), `-ef is empty`},
		{func() error { _, err := parsePositiveInts("-ef", "10,0"); return err }(), `-ef 0 is not a positive integer`},
	} {
		if !errors.Is(tc.err, engine.ErrInvalidArgument) || tc.err.Error() != tc.want {
			t.Errorf("error %v, want %q (and errors.Is engine.ErrInvalidArgument)", tc.err, tc.want)
		}
	}
	if got := splitList(" , a,b ,"); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("splitList = %q", got)
	}
}

// TestBadFlagsInUsersTerms runs the command as a user would, with a bad
// flag of each kind, and checks the whole line it prints: the flag and the
// value as typed, what is wanted, and no engine-internal words (it ended
// "…: engine: invalid argument" before).
func TestBadFlagsInUsersTerms(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "pq", "-m", "7,x"}, `veclab bench pq: -m "x" is not an integer`},
		{[]string{"bench", "hnsw", "-ef", "10,0"}, `veclab bench hnsw: -ef 0 is not a positive integer`},
		{[]string{"bench", "flat", "-k", "0"}, `veclab bench flat: -k must be ≥ 1, got 0`},
		{[]string{"bench", "segments", "-skip", "merges"}, `veclab bench segments: -skip: unknown part "merges" (ingest, counts, modes)`},
		{[]string{"data", "import", "-name", "a/b", "x.npy"}, `veclab data import: -name "a/b": want a plain directory name`},
	} {
		var stdout, stderr strings.Builder
		if code := run(tc.args, &stdout, &stderr); code == 0 {
			t.Errorf("veclab %s: exit 0, want an error", strings.Join(tc.args, " "))
			continue
		}
		got := strings.TrimSpace(stderr.String())
		if i := strings.LastIndex(got, "\n"); i >= 0 {
			got = got[i+1:] // the flag package's usage may come first
		}
		if got != tc.want {
			t.Errorf("veclab %s printed %q, want %q", strings.Join(tc.args, " "), got, tc.want)
		}
	}
}
