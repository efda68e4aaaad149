package dataset

import (
	"errors"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
)

func TestReadFortunes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  error
	}{
		{"A fool\n\tand his money.\n%\n\n%\nTwo\nlines\n%\n", []string{"A fool and his money.", "Two lines"}, nil},
		{"no separator at the end", []string{"no separator at the end"}, nil},
		{"%\n%\n", nil, nil},
		{"", nil, nil},
		{"a %\n% b\n", []string{"a % % b"}, nil},
		{"ok\n%\nbad \xff byte\n", nil, engine.ErrCorrupt},
		{strings.Repeat("x", 2<<20), nil, engine.ErrCorrupt},
	} {
		got, err := ReadFortunes(strings.NewReader(tc.in))
		if !errors.Is(err, tc.err) || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%.20q: got %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func FuzzReadFortunes(f *testing.F) {
	f.Add("A fool\n\tand his money.\n%\n\n%\nTwo\nlines\n%\n")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ReadFortunes(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, e := range got {
			if e == "" || strings.ContainsAny(e, "\n\r\t") {
				t.Fatalf("entry %q", e)
			}
		}
	})
}
