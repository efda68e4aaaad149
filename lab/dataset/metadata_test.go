package dataset

import (
	"errors"
	"slices"
	"testing"

	"github.com/veclab/veclab/engine"
)

// The metadata store answers ArticleWhere with the very documents
// ArticleFilter picks, and a data set without metadata is refused.
func TestMetadata(t *testing.T) {
	ds, err := Generate(Config{N: 3000, Queries: 1, Dim: 8, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	meta, err := ds.Metadata()
	if err != nil {
		t.Fatal(err)
	}
	f, err := meta.CompileString(ArticleWhere)
	if err != nil {
		t.Fatal(err)
	}
	got, want := f.IDs(), ds.Matching(ArticleFilter)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("%s matches %d documents, ArticleFilter %d", ArticleWhere, len(got), len(want))
	}
	bare := &Dataset{Base: ds.Base}
	if _, err := bare.Metadata(); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("no metadata: %v", err)
	}
}
