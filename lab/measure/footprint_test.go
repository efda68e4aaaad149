package measure

import (
	"errors"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/profile"
)

// Footprint's vector structures are the store's own (profile.Store.Footprint,
// BytesPerVector), its metadata the filter store's, and a store or metadata
// that does not fit is refused in the caller's terms.
func TestFootprint(t *testing.T) {
	ds := smallSet(t)
	meta, err := ds.Metadata()
	if err != nil {
		t.Fatal(err)
	}
	other, err := dataset.Generate(dataset.Config{N: 100, Queries: 2, Dim: 24, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	otherMeta, err := other.Metadata()
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []profile.Kind{profile.Redis, profile.Elasticsearch} {
		s, err := profile.Default(kind).Build(ds.Base, profile.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		z, err := Footprint(s, meta)
		if err != nil {
			t.Fatal(err)
		}
		fp := s.Footprint()
		if z.Kind != kind || z.Docs != ds.Base.N || z.Dim != 24 || z.M != s.Profile().M ||
			z.Vectors != fp.Vectors || z.Links != fp.Links || z.Codes != fp.Codes {
			t.Errorf("%s: %+v, store's footprint %+v", kind, z, fp)
		}
		if z.BytesPerVector() != s.BytesPerVector() {
			t.Errorf("%s: %v bytes/vector, the store says %v", kind, z.BytesPerVector(), s.BytesPerVector())
		}
		if z.PerDoc(z.Vectors) != 4*24 {
			t.Errorf("%s: vectors %v B/doc, want 4·dim = 96", kind, z.PerDoc(z.Vectors))
		}
		if z.StoredFields != int64(meta.StoredBytes()) || z.PayloadIndexes <= 0 {
			t.Errorf("%s: stored fields %d (metadata %d), payload indexes %d", kind, z.StoredFields, meta.StoredBytes(), z.PayloadIndexes)
		}
		if (kind == profile.Elasticsearch) != (z.Codes > 0) {
			t.Errorf("%s: codes %d", kind, z.Codes)
		}
		if !strings.HasPrefix(z.String(), kind.String()+": 800 documents × 24 dims") {
			t.Errorf("String() = %q", z)
		}
		bare, err := Footprint(s, nil)
		if err != nil || bare.StoredFields != 0 || bare.PayloadIndexes != 0 || bare.Vectors != z.Vectors {
			t.Errorf("%s without metadata: %+v, %v", kind, bare, err)
		}
		if _, err := Footprint(s, otherMeta); !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), "800 documents, the metadata describes 100") {
			t.Errorf("%s with another data set's metadata: %v", kind, err)
		}
	}
	if _, err := Footprint(nil, meta); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("no store: %v", err)
	}
}
