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
		if !errors.Is(tc.err, engine.ErrInvalidArgument) || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("error %v, want one containing %q", tc.err, tc.want)
		}
	}
	if got := splitList(" , a,b ,"); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("splitList = %q", got)
	}
}
