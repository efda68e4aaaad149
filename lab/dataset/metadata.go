package dataset

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
)

// Metadata returns the documents' metadata as a filter store: one
// document per base row, in row order (key "d<row>"), with the fields
// the article filters on (category, year and region, each with a payload
// index), so that a filter such as "category == 'c3' && year >= 2022"
// compiles against it. It is an error for a data set without metadata
// (vectors read from files).
func (ds *Dataset) Metadata() (*filter.Store, error) {
	if ds == nil || ds.Base == nil || len(ds.Meta) != ds.Base.N {
		return nil, fmt.Errorf("dataset: the data set has no metadata (one document per base row): %w", engine.ErrInvalidArgument)
	}
	st, err := filter.NewStore(filter.Schema{Mode: filter.Declared, Fields: []filter.Field{
		{Name: "category", Kind: filter.KindKeyword, Indexed: true},
		{Name: "year", Kind: filter.KindInteger, Indexed: true},
		{Name: "region", Kind: filter.KindKeyword, Indexed: true},
	}})
	if err != nil {
		return nil, fmt.Errorf("dataset: metadata: %w", err)
	}
	docs := make([]filter.Doc, len(ds.Meta))
	for i, d := range ds.Meta {
		docs[i] = filter.Doc{Key: fmt.Sprintf("d%d", i), Meta: map[string]any{"category": d.Category, "year": d.Year, "region": d.Region}}
	}
	if _, err := st.Add(docs...); err != nil {
		return nil, fmt.Errorf("dataset: metadata: %w", err)
	}
	return st, nil
}

// ArticleWhere is ArticleFilter in the filter language of engine/filter
// (what Spring AI's filter expression becomes in each store).
const ArticleWhere = "category == 'c3' && year >= 2022"

// Document returns the stored source of document i as a vector benchmark
// indexes it (the article's vectordb_document: an id, a passage of
// content and its metadata) without its vector, which Elasticsearch 9.2+
// keeps out of _source: about 120 bytes of JSON. It is what the lab's
// Elasticsearch store and segment collections keep in their compressed
// stored fields, so reading a hit's id from there costs what E17
// measures.
func Document(i int) []byte {
	return fmt.Appendf(nil, `{"id":"doc-%d","content":"passage %d of the synthetic corpus","metadata":{"category":"c%d","year":%d}}`,
		i, i, i%10, 2015+i%10)
}
