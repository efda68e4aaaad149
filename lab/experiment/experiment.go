package experiment

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/veclab/veclab/engine"
	labmeasure "github.com/veclab/veclab/lab/measure" // the package; measure is this package's loop
	"github.com/veclab/veclab/lab/table"
)

// The framework's two sentinel errors.
var (
	// ErrNotRunnable is wrapped by the error of an experiment that cannot
	// run in this build (a mechanism it needs is not implemented yet, or
	// the scale is too small for it). The message says what is missing.
	ErrNotRunnable = errors.New("experiment: not runnable")
	// ErrBadArgument is wrapped by errors about an experiment function's
	// arguments (an empty sweep, a non-positive setting).
	ErrBadArgument = fmt.Errorf("experiment: %w", engine.ErrInvalidArgument)
)

// errUnknown is returned when a selection names an experiment that is not
// registered.
var errUnknown = errors.New("experiment: unknown experiment")

// Figure is one number an article printed (measure.Figure: the lab's
// measuring vocabulary owns the type, so an experiment's figures go
// straight to measure.Beside).
type Figure = labmeasure.Figure

// Claim is one of the article's claims an experiment's verdicts judge:
// the words of a [Verdict]'s Claim and the article's figure (with its
// band, and the direction where it states one) as the verdict prints it.
type Claim struct {
	Claim   string
	Article string
}

// Experiment is one reproducible experiment.
type Experiment struct {
	ID      string   // "E02": E and two or more digits
	Title   string   // one line
	Article string   // the source: seed article and where its figures are
	Figures []Figure // the article's figures
	// Claims are the article's claims its Verdicts judge in a run of
	// `veclab reproduce`, registered before any run (`veclab reproduce
	// -list` prints them).
	Claims []Claim
	// Notebook is the file under notebooks/ that runs the experiment cell
	// by cell ("" if none does).
	Notebook string
	// Run measures the experiment on env and returns its report. An error
	// wrapping ErrNotRunnable means the experiment cannot run here.
	Run func(env *Env) (*Report, error)
}

// Figure returns the article's figure for a row and a measure.
func (e Experiment) Figure(row, measure string) (Figure, bool) {
	for _, f := range e.Figures {
		if f.Row == row && f.Measure == measure {
			return f, true
		}
	}
	return Figure{}, false
}

// articleValue returns the article's value for a row and a measure, or nil
// if the article gave none (so it can go straight into a table cell).
func (e Experiment) ArticleValue(row, measure string) any {
	if f, ok := e.Figure(row, measure); ok {
		return f.Value
	}
	return nil
}

// FiguresTable is the article's figures of the experiment as a table, the
// numbers a notebook's set-up cell shows before the lab measures its own:
// one row per figure, in the order the article gives them.
func (e Experiment) FiguresTable() *table.Table {
	t := table.New(fmt.Sprintf("%s: the article's figures (%s)", e.ID, e.Title),
		table.Col("row", ""), table.Col("measure", ""),
		table.Column{Header: "value", Source: table.Article, Align: table.Right},
		table.Col("unit", ""))
	for _, f := range e.Figures {
		_ = t.AddValues(f.Row, f.Measure, f.Value, f.Unit)
	}
	if len(e.Figures) == 0 {
		t.Note("the article gives no figure for %s", e.ID)
	}
	return t
}

var (
	regMu    sync.RWMutex
	registry = map[string]Experiment{}
	idRE     = regexp.MustCompile(`^E[0-9]{2,}$`)
)

// register adds an experiment to the registry. It is called from init in
// each experiment's file; a malformed id, a missing Run or a duplicate id
// is a programmer error and panics (as http.Handle does).
func Register(e Experiment) {
	if !idRE.MatchString(e.ID) {
		panic(fmt.Sprintf("experiment: Register: id %q is not E followed by digits", e.ID))
	}
	if e.Run == nil {
		panic("experiment: Register: " + e.ID + " has no Run function")
	}
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[e.ID]; dup {
		panic("experiment: Register: duplicate id " + e.ID)
	}
	registry[e.ID] = e
}

// Lookup returns the registered experiment with the given id (case-insensitive).
func Lookup(id string) (Experiment, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	e, ok := registry[strings.ToUpper(strings.TrimSpace(id))]
	return e, ok
}

// registered returns every registered experiment in id order.
func registered() []Experiment {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]Experiment, 0, len(registry))
	for _, e := range registry {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return idLess(out[i].ID, out[j].ID) })
	return out
}

// idLess orders E2 < E10 by number, then by text.
func idLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// Select returns the experiments named in a comma-separated list of ids
// ("E02,E06"; spaces and case ignored), in id order; an empty list selects
// all. Unknown ids are an error naming them and the registered ones.
func Select(list string) ([]Experiment, error) {
	if strings.TrimSpace(list) == "" {
		return registered(), nil
	}
	seen := map[string]bool{}
	var out []Experiment
	var unknown []string
	for _, f := range strings.Split(list, ",") {
		id := strings.ToUpper(strings.TrimSpace(f))
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		e, ok := Lookup(id)
		if !ok {
			unknown = append(unknown, id)
			continue
		}
		out = append(out, e)
	}
	if len(unknown) > 0 {
		var known []string
		for _, e := range registered() {
			known = append(known, e.ID)
		}
		return nil, fmt.Errorf("experiment: %s (registered: %s): %w", strings.Join(unknown, ", "), strings.Join(known, ", "), errUnknown)
	}
	sort.Slice(out, func(i, j int) bool { return idLess(out[i].ID, out[j].ID) })
	return out, nil
}
