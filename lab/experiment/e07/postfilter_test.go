package e07

import (
	"errors"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
)

func TestE07Predict(t *testing.T) {
	for _, tt := range []struct {
		label   string
		ef      int
		scan    string
		hits    float64
		wantErr bool
	}{
		{"40 off", 40, "off", 2, false},
		{"200 off", 200, "off", 10, false},
		{"40 relaxed_order", 40, "relaxed_order", 10, false},
		{"40 strict_order max_scan_tuples=100", 40, "strict_order", 10, false},
		{"40", 0, "", 0, true},
		{"x off", 0, "", 0, true},
		{"0 off", 0, "", 0, true},
		{"40 sideways", 0, "", 0, true},
	} {
		ef, scan, hits, err := e07Predict(tt.label, 0.05, 10)
		if tt.wantErr {
			if !errors.Is(err, experiment.ErrBadArgument) {
				t.Errorf("e07Predict(%q) error = %v, want ErrBadArgument", tt.label, err)
			}
			continue
		}
		if err != nil || ef != tt.ef || scan != tt.scan || hits != tt.hits {
			t.Errorf("e07Predict(%q) = %d, %q, %v, %v; want %d, %q, %v", tt.label, ef, scan, hits, err, tt.ef, tt.scan, tt.hits)
		}
	}
}
