package quantizers

import (
	"errors"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/dataset"
)

// TestCatalogue trains every quantizer of the catalogue and checks that
// names are unique, each is described, raw has no codes and the others
// are smaller than float32, and that training is deterministic.
func TestCatalogue(t *testing.T) {
	ds, err := dataset.Generate(dataset.Config{N: 400, Queries: 5, Dim: 32, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	names := Names()
	if len(names) == 0 || names[0] != Raw {
		t.Fatalf("Names() = %q, want %q first", names, Raw)
	}
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			t.Errorf("%s listed twice", name)
		}
		seen[name] = true
		if Describe(name) == "" {
			t.Errorf("%s has no description", name)
		}
		if err := Check(name); err != nil {
			t.Errorf("Check(%s): %v", name, err)
		}
		q, err := Train(name, ds.Base, engine.Cosine, 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if (q == nil) != (name == Raw) {
			t.Errorf("%s: quantizer %v", name, q)
		}
		if q == nil {
			continue
		}
		if q.BytesPerVector() >= float64(4*ds.Base.Dim) {
			t.Errorf("%s: %.0f bytes per vector, float32 takes %d", name, q.BytesPerVector(), 4*ds.Base.Dim)
		}
		again, err := Train(name, ds.Base, engine.Cosine, 1)
		if err != nil {
			t.Fatal(err)
		}
		a, b := make([]byte, q.CodeSize()), make([]byte, again.CodeSize())
		if err := q.Encode(a, ds.Base.Row(7)); err != nil {
			t.Fatal(err)
		}
		if err := again.Encode(b, ds.Base.Row(7)); err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Errorf("%s: two trainings with seed 1 encode row 7 differently", name)
		}
	}
}

func TestUnknownAndBadInput(t *testing.T) {
	ds, err := dataset.Generate(dataset.Config{N: 50, Queries: 1, Dim: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"unknown to Train", func() error { _, err := Train("int3", ds.Base, engine.Cosine, 1); return err }(), `quantizers: unknown quantizer "int3"`},
		{"unknown to Check", Check("int3"), `quantizers: unknown quantizer "int3" (want one of raw, int8`},
		{"empty name", Check(""), `quantizers: unknown quantizer ""`},
	} {
		if !errors.Is(tc.err, engine.ErrInvalidArgument) || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, tc.err, tc.want)
		}
	}
	if Describe("int3") != "" {
		t.Error("Describe of an unknown name is not empty")
	}
	if _, err := Train("int8", nil, engine.Cosine, 1); err == nil || !strings.HasPrefix(err.Error(), "quantizers: int8: ") {
		t.Errorf("Train on no sample: %v", err)
	}
}
