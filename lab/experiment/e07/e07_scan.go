package e07

import (
	"fmt"
	"strings"

	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// prediction is what pgvector's mechanism predicts for one E07 row
// beside what the lab and the article measured: with iterative_scan off
// the post-filter keeps about ef_search × s rows; an iterative scan
// continues until LIMIT k rows pass the filter.
type prediction struct {
	Label string
	Ef    int
	Scan  string // "off", "relaxed_order" or "strict_order"
	// Predicted is the hits the mechanism predicts: ef × s for off, k for
	// an iterative scan.
	Predicted                                    float64
	MeanHits, ArticleHits, Recall, ArticleRecall float64
	DistComps                                    float64
}

// String prints the row on one line.
func (p prediction) String() string {
	pred := fmt.Sprintf("LIMIT     = %2.0f", p.Predicted)
	if p.Scan == "off" {
		pred = fmt.Sprintf("ef × s = %5.1f", p.Predicted)
	}
	return fmt.Sprintf("%-17s %s  hits lab %4.1f (article %4.1f)  recall lab %.3f (article %.3f)  %5.0f distances",
		p.Label, pred, p.MeanHits, p.ArticleHits, p.Recall, p.ArticleRecall, p.DistComps)
}

// Reading reads E07's rows against what each mechanism predicts, and
// the article's unexpected order of the two iterative scans: both return
// k rows, and strict_order, which skips a matching row found late closer
// than the last one emitted, loses more true neighbours.
type Reading struct {
	Rows []prediction
	// RelaxedMinusStrict is relaxed_order's recall minus strict_order's
	// at ef_search 40, the lab's and the article's; HasOrder is false (and
	// both are 0) when ms lacks either row.
	RelaxedMinusStrict, ArticleRelaxedMinusStrict float64
	HasOrder                                      bool
}

// e07Predict parses an E07 row label ("40 off", "40 relaxed_order") and
// returns its ef_search, its iterative_scan and the hits its mechanism
// predicts at selectivity s with LIMIT k.
func e07Predict(label string, s float64, k int) (ef int, scan string, hits float64, err error) {
	f := strings.Fields(label)
	if len(f) < 2 {
		return 0, "", 0, fmt.Errorf("experiment: E07 row %q is not \"ef_search iterative_scan\": %w", label, experiment.ErrBadArgument)
	}
	if _, err := fmt.Sscan(f[0], &ef); err != nil || ef < 1 {
		return 0, "", 0, fmt.Errorf("experiment: E07 row %q: ef_search %q is not a positive integer: %w", label, f[0], experiment.ErrBadArgument)
	}
	switch scan = f[1]; scan {
	case "off":
		return ef, scan, float64(ef) * s, nil
	case "relaxed_order", "strict_order":
		return ef, scan, float64(k), nil
	}
	return 0, "", 0, fmt.Errorf("experiment: E07 row %q: iterative_scan %q (want off, relaxed_order or strict_order): %w", label, scan, experiment.ErrBadArgument)
}

// Read reads Measure's rows ms as [Reading] describes.
func Read(env *experiment.Env, ms []experiment.StrategyMeasurement) (*Reading, error) {
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	r := &Reading{}
	var relaxed, strict *experiment.StrategyMeasurement
	for i, m := range ms {
		s := experiment.Selectivity{Matching: m.Matching, N: ds.Base.N}.S()
		ef, scan, pred, err := e07Predict(m.Label, s, env.Scale.K)
		if err != nil {
			return nil, fmt.Errorf("experiment: Read: %w", err)
		}
		a, _ := e07.Figure(m.Label, "mean hits")
		ar, _ := e07.Figure(m.Label, "recall@10")
		r.Rows = append(r.Rows, prediction{Label: m.Label, Ef: ef, Scan: scan, Predicted: pred,
			MeanHits: m.MeanHits, ArticleHits: a.Value, Recall: m.Recall, ArticleRecall: ar.Value, DistComps: m.DistComps})
		switch m.Label {
		case "40 relaxed_order":
			relaxed = &ms[i]
		case "40 strict_order":
			strict = &ms[i]
		}
	}
	if relaxed != nil && strict != nil {
		aRel, _ := e07.Figure(relaxed.Label, "recall@10")
		aStr, _ := e07.Figure(strict.Label, "recall@10")
		r.HasOrder = true
		r.RelaxedMinusStrict, r.ArticleRelaxedMinusStrict = relaxed.Recall-strict.Recall, aRel.Value-aStr.Value
	}
	return r, nil
}

// String prints a line per row, then the two iterative scans' difference.
func (r *Reading) String() string {
	var b strings.Builder
	for _, p := range r.Rows {
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	if r.HasOrder {
		fmt.Fprintf(&b, "\nrelaxed − strict recall: lab %+.3f, article %+.3f (both return 10 rows; strict drops late, closer matches)",
			r.RelaxedMinusStrict, r.ArticleRelaxedMinusStrict)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// ScanBound is the lab's step beyond E07: pgvector's iterative scans
// (ef_search 40, the article's filter) with hnsw.max_scan_tuples, the
// bound on the tuples a scan visits after its first batch, swept. Below
// the size of one batch's walk the iterative scan is no better than
// iterative_scan = off; the article did not vary the bound.
type ScanBound struct {
	Bounds []int // the hnsw.max_scan_tuples swept
	// Relaxed and Strict are recall@k of relaxed_order and strict_order at
	// each bound.
	Relaxed, Strict []float64
	Table           *table.Table
	Chart           *chart.Line
}

// ScanBoundSweep measures both iterative scans at ef_search 40 at each
// hnsw.max_scan_tuples of bounds (each ≥ 1; pgvector's default is
// 20,000).
func ScanBoundSweep(env *experiment.Env, bounds []int) (*ScanBound, error) {
	if len(bounds) == 0 {
		return nil, fmt.Errorf("experiment: ScanBoundSweep: no hnsw.max_scan_tuples: %w", experiment.ErrBadArgument)
	}
	modes := []string{"relaxed_order", "strict_order"}
	var settings []Setting
	for _, mst := range bounds {
		if mst < 1 {
			return nil, fmt.Errorf("experiment: ScanBoundSweep: hnsw.max_scan_tuples %d < 1: %w", mst, experiment.ErrBadArgument)
		}
		for _, mode := range modes {
			settings = append(settings, Setting{Ef: 40, Scan: mode, MaxScanTuples: mst})
		}
	}
	ms, err := Measure(env, experiment.FilterProfile(profile.PGVector), settings)
	if err != nil {
		return nil, err
	}
	k := env.Scale.K
	t := table.New(fmt.Sprintf("pgvector iterative scan, ef_search = 40, filter %s, %d queries (lab)", experiment.ArticleFilter, env.Scale.Queries),
		table.Col("max_scan_tuples", ""), table.Col("iterative_scan", ""),
		table.Column{Header: "mean hits", Source: table.Lab, Prec: 2},
		table.Column{Header: fmt.Sprintf("recall@%d", k), Source: table.Lab, Prec: 3},
		table.Column{Header: "distances/query", Source: table.Lab, Prec: -1},
		table.Column{Header: "p50", Unit: "ms", Source: table.Lab, Prec: 2})
	o := &ScanBound{Bounds: bounds, Table: t}
	var xs []float64
	for i, m := range ms {
		set := settings[i]
		_ = t.AddValues(set.MaxScanTuples, set.Scan, m.MeanHits, m.Recall, m.DistComps, m.P50ms())
		if set.Scan == "relaxed_order" {
			o.Relaxed = append(o.Relaxed, m.Recall)
			xs = append(xs, float64(set.MaxScanTuples))
		} else {
			o.Strict = append(o.Strict, m.Recall)
		}
	}
	t.Note("20,000 is pgvector's default: the E07 rows above; the article did not vary the bound")
	o.Chart = chart.NewLine(fmt.Sprintf("iterative scan recall@%d against hnsw.max_scan_tuples (lab)", k), "hnsw.max_scan_tuples", fmt.Sprintf("recall@%d", k))
	o.Chart.LogX = true
	o.Chart.Add("relaxed_order", xs, o.Relaxed)
	o.Chart.Add("strict_order", xs, o.Strict)
	return o, nil
}
