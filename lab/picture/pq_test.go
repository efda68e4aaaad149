package picture

import (
	"errors"
	"testing"

	"github.com/veclab/veclab/lab/dataset"
)

// TestPQInPlane: k-means (m = 1) decodes to 2^bits points, PQ with two
// sub-spaces to the 2^bits × 2^bits grid; 16 free centroids lose less than
// a 4 × 4 grid, more bits lose less; bad arguments are errors.
func TestPQInPlane(t *testing.T) {
	points, err := dataset.Plane(300, 6, 1)
	if err != nil {
		t.Fatal(err)
	}
	errs := map[[2]int]float64{}
	for _, tc := range []struct{ m, bits, codes int }{{1, 4, 16}, {2, 2, 16}, {2, 4, 256}} {
		s, q, e, err := PQInPlane(points, tc.m, tc.bits, 1)
		if err != nil {
			t.Fatal(err)
		}
		codes, err := AllCodes(q)
		if err != nil || len(codes) != tc.codes {
			t.Fatalf("m %d bits %d: %d codes, %v", tc.m, tc.bits, len(codes), err)
		}
		if last := s.Groups[len(s.Groups)-1]; len(last.X) != tc.codes {
			t.Errorf("m %d bits %d: %d decoded codes drawn", tc.m, tc.bits, len(last.X))
		}
		errs[[2]int{tc.m, tc.bits}] = e
	}
	if !(errs[[2]int{1, 4}] < errs[[2]int{2, 2}] && errs[[2]int{2, 4}] < errs[[2]int{2, 2}]) {
		t.Errorf("relative errors %v", errs)
	}
	for _, tc := range []struct{ m, bits int }{{3, 2}, {2, 0}, {2, 7}} {
		if _, _, _, err := PQInPlane(points, tc.m, tc.bits, 1); !errors.Is(err, ErrBadArgument) {
			t.Errorf("m %d bits %d: %v", tc.m, tc.bits, err)
		}
	}
	if _, err := AllCodes(nil); !errors.Is(err, ErrBadArgument) {
		t.Errorf("nil quantizer: %v", err)
	}
}
