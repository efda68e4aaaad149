package e09

import (
	"errors"
	"strconv"
	"strings"

	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/table"
)

// e09 is the article's Redis undeclared-field refusal
// (09-redis-undeclared-metadata.txt).
var Experiment = experiment.Experiment{
	ID:      "E09",
	Claims:  claims,
	Title:   "Redis: filtering on a metadata field that was not declared",
	Article: "Spring AI VectorStore article, 09-redis-undeclared-metadata.txt: IllegalArgumentException \"Not allowed filter identifier name: category\"",
}

func init() {
	Experiment.Run, Experiment.Notebook = runE09, "05-qdrant-payload-index-and-threshold.ipynb"
	experiment.Register(Experiment)
}

// Outcome is what compiling the article's filter did on a store.
type Outcome struct {
	Declared bool
	Matching int    // documents matched when the filter compiled
	Err      string // the refusal, when it did not
	Unknown  bool   // the error is the undeclared-field refusal
}

// Measure compiles the article's filter against a Redis-like (declared
// schema) metadata store built without the metadata fields, then with them.
func Measure(env *experiment.Env) ([]Outcome, error) {
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	var out []Outcome
	for _, declared := range []bool{false, true} {
		schema := filter.Schema{Mode: filter.Declared}
		if declared {
			schema.Fields = []filter.Field{{Name: "category", Kind: filter.KindKeyword}, {Name: "year", Kind: filter.KindInteger}}
		}
		st, err := filter.NewStore(schema)
		if err != nil {
			return nil, err
		}
		docs := make([]filter.Doc, len(ds.Meta))
		for i, d := range ds.Meta {
			docs[i] = filter.Doc{Meta: map[string]any{"category": d.Category, "year": d.Year, "region": d.Region}}
		}
		if _, err := st.Add(docs...); err != nil {
			return nil, err
		}
		o := Outcome{Declared: declared}
		f, err := st.CompileString(experiment.ArticleFilter)
		if err != nil {
			o.Err, o.Unknown = err.Error(), errors.Is(err, filter.ErrUnknownField)
		} else {
			o.Matching = len(f.IDs())
		}
		out = append(out, o)
	}
	return out, nil
}

// Table shows both outcomes beside the article's.
func Table(os []Outcome) *table.Table {
	t := table.New("E09 Redis-like declared schema: filter "+experiment.ArticleFilter,
		table.Col("metadata fields", ""), table.Column{Header: "outcome", Source: table.Article}, table.Column{Header: "outcome", Source: table.Lab})
	for _, o := range os {
		if o.Declared {
			_ = t.AddValues("declared (tag category, numeric year)", "filtered search runs", fmtMatching(o))
		} else {
			_ = t.AddValues("NOT declared", "IllegalArgumentException: Not allowed filter identifier name: category", fmtMatching(o))
		}
	}
	t.Note("the refusal happens when the filter is compiled, before any search; the error names the field and its column in the expression")
	return t
}

func fmtMatching(o Outcome) string {
	if o.Err != "" {
		return "refused: " + o.Err
	}
	return "compiles; " + strconv.Itoa(o.Matching) + " documents match"
}

func runE09(env *experiment.Env) (*experiment.Report, error) {
	os, err := Measure(env)
	if err != nil {
		return nil, err
	}
	r := experiment.NewReport(Experiment, env)
	r.AddTable(Table(os))
	if len(os) > 0 && !os[0].Unknown {
		r.Note("unexpected: the undeclared field was not refused")
	}
	r.Verdicts = append(r.Verdicts, Verdicts(env, os)...)
	return r, nil
}

// Verdicts compares Measure's two outcomes with the article
// (§ "Redis: filter on a field you did not declare, and it refuses"): the
// filter on undeclared fields is refused with an error naming the field
// ("Not allowed filter identifier name: category"), and with the fields
// declared it runs. Outcomes, so no tolerance.
func Verdicts(env *experiment.Env, os []Outcome) experiment.Verdicts {
	const section = "§ Redis: filter on a field you did not declare, and it refuses"
	var out experiment.Verdicts
	for _, o := range os {
		if o.Declared {
			out = append(out, experiment.Holds("E09", "with category and year declared the filter runs ("+section+")",
				"filtered search runs", fmtMatching(o), o.Err == "" && o.Matching > 0, "the declared TAG and NUMERIC fields are indexed"))
		} else {
			out = append(out, experiment.Holds("E09", "the filter on an undeclared field is refused with an error naming it ("+section+")",
				"Not allowed filter identifier name: category", fmtMatching(o), o.Unknown && strings.Contains(o.Err, "category"),
				"the refusal comes when the filter is compiled, before any search"))
		}
	}
	return out
}
