package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
)

func TestBenchSegmentsBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-skip", "merges"}, `-skip: unknown part "merges"`},
		{[]string{"-efs", "100,0"}, "-efs 0 is not a positive integer"},
		{[]string{"-mode-segments", "0"}, "-mode-segments 0"},
		{[]string{"-writers", "-1"}, "-writers -1"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		var errb bytes.Buffer
		if _, err := parseBenchSegments(tc.args, &errb); !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}
