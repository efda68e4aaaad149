package experiment

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
)

// verdictWords returns "agrees"/"differs" per verdict, for compact
// comparisons.
func verdictWords(vs Verdicts) string {
	var w []string
	for _, v := range vs {
		w = append(w, v.word())
	}
	return strings.Join(w, " ")
}

// TestVerdictFunctions feeds the verdict functions of E12–E18, E20, E25
// and E27 figures that bear the article (or the lab's) claims out, and
// figures that do not: each verdict follows its figures, so a verdict
// function that ignored them would fail here.
func TestVerdictFunctions(t *testing.T) {
	env, err := NewEnv(Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	good := []E12Row{
		{Disk: "empty", File: "index", Written: true, OnDisk: "new", Loads: true, Identical: true},
		{Disk: "above", File: "index", Level: "high", Watermark: "high", Err: "store: high watermark", OnDisk: "previous", Loads: true, Identical: true},
		{Disk: "crosses", File: "index", Watermark: "high", Err: "store: high watermark", OnDisk: "previous", Loads: true, Identical: true},
		{Disk: "flooded", File: "index", Op: "rename", Watermark: "flood-stage", Err: "store: flood-stage watermark", OnDisk: "previous", Loads: true, Identical: true},
	}
	if got := verdictWords(E12Verdicts(env, good)); strings.Contains(got, "differs") {
		t.Errorf("E12 on intact saves: %s", got)
	}
	bad := append([]E12Row(nil), good...)
	bad[1].Written, bad[1].OnDisk, bad[1].TempLeft = true, "previous", 1 // written above the watermark, then lost, a temporary left
	if got := verdictWords(E12Verdicts(env, bad)); strings.Count(got, "differs") != 3 {
		t.Errorf("E12 on a save written above the watermark and lost: %s, want 3 differs", got)
	}

	warm := DiskPoint{Reads: 100, DeviceReads: 0, KB: 800}
	cold := DiskPoint{Reads: 100, DeviceReads: 100, KB: 800}
	if got := verdictWords(E13Verdicts(env, warm, cold)); got != "agrees agrees agrees agrees agrees agrees" {
		t.Errorf("E13 with the article's 100 reads of 8 KB: %s", got)
	}
	cold.DeviceReads, warm.DeviceReads = 50, 3
	if got := verdictWords(E13Verdicts(env, warm, cold)); got != "agrees agrees differs differs differs agrees" {
		t.Errorf("E13 with half the cold reads cached and warm device reads: %s", got)
	}

	e15 := &E15Result{
		Points: []DiskPoint{{QPS: 31.6}, {QPS: 35.8}, {QPS: 10, DeviceReads: 30}, {QPS: 30, DeviceReads: 30}, {QPS: 28}, {QPS: 85}},
		Warm:   Rounds{Clock: CPUTime, Ratios: []float64{1.10, 1.13, 1.20, 1.05, 1.15}},
		Cold:   Rounds{Ratios: []float64{1.8, 2.0, 1.9, 2.1, 2.0}},
		Sim:    Rounds{Ratios: []float64{3.0, 3.1, 2.9, 3.0, 3.0}},
	}
	if got := verdictWords(E15Verdicts(env, e15)); got != "agrees agrees agrees agrees" {
		t.Errorf("E15 with the article's warm ratio: %s", got)
	}
	e15.Points[0].DeviceReads = 1
	e15.Warm.Ratios = []float64{3.0, 3.1, 2.9, 3.0, 3.2}
	e15.Cold.Ratios = []float64{1.02, 0.98, 1.05, 1.0, 1.03} // within the article's 13 % noise
	e15.Sim.Ratios = []float64{1.4, 1.0, 1.1, 1.0, 1.1}      // a median of 1.1, under the 13 % noise
	if got := verdictWords(E15Verdicts(env, e15)); got != "differs differs differs differs" {
		t.Errorf("E15 with a 3× warm gain, device reads and no gain cold or simulated: %s", got)
	}
	// A busy machine: the warm rounds scatter; the tolerance widens to
	// the spread and says so. One cold round another job slowed does not
	// decide the cold claim (its bar stands on the lower quartile); two
	// of five rounds under the noise do.
	e15.Warm.Ratios = []float64{0.4, 0.7, 1.0, 0.6, 1.3}
	e15.Cold.Ratios = []float64{1.2, 1.9, 1.3, 1.25, 0.8}
	vs := E15Verdicts(env, e15)
	if got := verdictWords(vs[1:3]); got != "agrees agrees" {
		t.Errorf("E15 with scattered rounds, one slow cold round: %s", got)
	}
	if !strings.Contains(vs[1].Reason, "widened to the 5 rounds' spread") || !strings.Contains(vs[2].Reason, "in 4 of 5 rounds: their lower quartile 1.2× > 1.13×") {
		t.Errorf("E15 reasons: %q, %q", vs[1].Reason, vs[2].Reason)
	}
	e15.Cold.Ratios = []float64{1.2, 1.9, 1.1, 1.25, 0.8}
	if v := E15Verdicts(env, e15)[2]; v.Agrees || !strings.Contains(v.Reason, "in only 3 of 5 rounds") || !strings.Contains(v.Reason, "not yet explained") {
		t.Errorf("E15 with two slow cold rounds: %s (%s)", v.word(), v.Reason)
	}

	many := SegmentMeasurement{Segments: 128, Recall: 0.9745, QPS: 35.8, DistComps: 9000}
	few := SegmentMeasurement{Segments: 66, Recall: 0.9531, QPS: 53.3, DistComps: 5000}
	if got := verdictWords(E16Verdicts(env, []SegmentMeasurement{many, few})); got != "agrees agrees agrees" {
		t.Errorf("E16 on the article's figures: %s", got)
	}
	if got := verdictWords(E16Verdicts(env, []SegmentMeasurement{few, many})); got != "differs differs differs" {
		t.Errorf("E16 reversed: %s", got)
	}

	hs := E18Ingest{Segments: 4, DocsPerS: 1000, Search: SegmentMeasurement{DistComps: 1000}}
	hp := E18Ingest{Segments: 8, DocsPerS: 1500, Search: SegmentMeasurement{DistComps: 2000}}
	is := E18Ingest{Segments: 4, DocsPerS: 9000, Search: SegmentMeasurement{DistComps: 1000}}
	ip := E18Ingest{Segments: 8, DocsPerS: 9000, Search: SegmentMeasurement{DistComps: 1100}}
	e18 := &E18Result{Ingests: []E18Ingest{hp, hs, ip, is},
		Parallel:    Rounds{Ratios: []float64{1.6, 1.5, 1.7}},
		FewSegments: Rounds{Clock: CPUTime, Ratios: []float64{1.9, 2.0, 2.1}},
		IVFBuild:    Rounds{Clock: CPUTime, Ratios: []float64{5.8, 6.0, 5.5}},
	}
	if got := verdictWords(E18Verdicts(env, e18)); got != "agrees agrees agrees agrees agrees" {
		t.Errorf("E18: %s", got)
	}
	e18.Ingests[0], e18.Ingests[2].Search.DistComps = hs, 3000
	e18.Parallel.Ratios = []float64{1.05, 0.95, 1.1}  // within the article's 13 % noise
	e18.FewSegments.Ratios = []float64{1.2, 0.6, 1.4} // above 1.13 at the median, not above the spread
	e18.IVFBuild.Ratios = []float64{3, 9, 0.9}        // the slowest round 2.1 under the median: 3 ≤ 3.1
	if got := verdictWords(E18Verdicts(env, e18)); got != "differs differs differs differs differs" {
		t.Errorf("E18 with one segment count, no parallel gain, scattered rounds and IVF's work tripled: %s", got)
	}

	w := []DiskPoint{{Recall: 0.9}, {Recall: 0.8}, {Recall: 0.9, ListReads: 2, ListDevice: 2}, {Recall: 0.8}}
	if got := verdictWords(E27Verdicts(env, w, 20, nil)); got != "agrees agrees agrees agrees" {
		t.Errorf("E27 without the model: %s", got)
	}
	w[2].ListReads, w[2].Recall = 5, 0.7
	if got := verdictWords(E27Verdicts(env, w, 20, nil)); got != "differs agrees differs differs" {
		t.Errorf("E27 with 5 list reads of 20 lists, 2 from the device, and a cold recall drop: %s", got)
	}
	m := &E27Model{LatencyMs: 1, IVF: DiskPoint{ListReads: 2, Reads: 30, Simulated: 35}, Efs: []int{100, 200}, ParMs: []float64{60, 90}}
	if got := verdictWords(E27Verdicts(env, w, 20, m)[4:]); got != "agrees agrees agrees" {
		t.Errorf("E27's model verdicts: %s", got)
	}
	m.IVF.Simulated, m.ParMs = 20, []float64{10, 10}
	if got := verdictWords(E27Verdicts(env, w, 20, m)[4:]); got != "differs differs differs" {
		t.Errorf("E27's model verdicts, model overpricing and HNSW cheaper: %s", got)
	}
}

// TestShapeVerdicts checks E02ShapeVerdicts and E08PayloadLinkVerdicts on
// figures that bear their claims out and figures that do not.
func TestShapeVerdicts(t *testing.T) {
	env, err := NewEnv(Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	k := float64(env.Scale.K)
	ms := []Measurement{{Label: "pgvector", Recall: 0.95, MeanHits: k}, {Label: "redis", Recall: 0.62, MeanHits: k},
		{Label: "qdrant", Recall: 1, MeanHits: k}, {Label: "elasticsearch", Recall: 0.49, MeanHits: k}}
	br := &E02Breadth{Breadths: []int{10, 400}, Recall: map[string][]float64{
		"pgvector": {0.9, 0.999}, "redis": {0.6, 0.998}, "qdrant": {0.95, 1}, "elasticsearch": {0.3, 0.32}}}
	if got := verdictWords(E02ShapeVerdicts(env, ms, br)); got != "agrees agrees agrees agrees" {
		t.Errorf("E02 shape on the article's figures: %s", got)
	}
	ms[1].Recall, ms[0].MeanHits = 0.4, k-1 // redis lowest, pgvector short of k
	br.Recall["redis"][1], br.Recall["elasticsearch"][1] = 0.9, 0.99
	if got := verdictWords(E02ShapeVerdicts(env, ms, br)); got != "differs differs differs differs" {
		t.Errorf("E02 shape with the outliers swapped, a short store and no meeting: %s", got)
	}
	if n := len(E02ShapeVerdicts(env, ms, nil)); n != 2 {
		t.Errorf("E02 shape without the breadth sweep: %d verdicts, want 2", n)
	}
	pl := &E08PayloadLinks{NoLinks: []StrategyMeasurement{{Recall: 0.9}, {Recall: 0.05}}, WithLink: []StrategyMeasurement{{Recall: 0.95}, {Recall: 0.98}}}
	if got := verdictWords(E08PayloadLinkVerdicts(env, pl)); got != "agrees" {
		t.Errorf("payload links raising the worst recall: %s", got)
	}
	pl.WithLink[1].Recall = 0.01
	if got := verdictWords(E08PayloadLinkVerdicts(env, pl)); got != "differs" {
		t.Errorf("payload links lowering it: %s", got)
	}
}

// TestE20Verdicts checks the shared bound's cut, read at the same ef
// (e20ArticleEf) with and without the bound as Lucene's benchmark read it,
// with the recall drop bounded, and the verdict without that setting.
func TestE20Verdicts(t *testing.T) {
	env, err := NewEnv(Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	at := func(ef int, recall, dists float64) SegmentMeasurement {
		return SegmentMeasurement{Search: SegmentSearch{K: 10, Ef: ef}, Recall: recall, QPS: 100, DistComps: dists}
	}
	seq := []SegmentMeasurement{at(40, 0.9, 2000), at(e20ArticleEf, 0.99, 4000)}
	conc := []SegmentMeasurement{{Recall: 0.9, QPS: 211}, {Recall: 0.99, QPS: 211}}
	for _, c := range []struct {
		name   string
		shared []SegmentMeasurement
		cut    string // the cut verdict's word
		reason string // a part of its reason
	}{
		{"a 55 % cut, recall kept", []SegmentMeasurement{at(40, 0.88, 1900), at(e20ArticleEf, 0.98, 1800)}, "agrees", "4000 → 1800 distances per query, recall 0.990 → 0.980"},
		{"a 55 % cut, recall lost", []SegmentMeasurement{at(40, 0.8, 1900), at(e20ArticleEf, 0.90, 1800)}, "differs", "recall falls by 0.090, more than 0.05: not comparable"},
		{"a 10 % cut", []SegmentMeasurement{at(40, 0.9, 1900), at(e20ArticleEf, 0.99, 3600)}, "differs", "off by 50 %"},
		{"equal recall pairs both settings", []SegmentMeasurement{at(40, 0.9, 1000), at(e20ArticleEf, 0.99, 1800)}, "agrees", "paired at equal recall (± 0.01) instead, the largest cut is 55 %"},
	} {
		t.Run(c.name, func(t *testing.T) {
			vs := E20Verdicts(env, &E20Result{Sequential: seq, Concurrent: conc, Shared: c.shared}, nil)
			if len(vs) != 4 {
				t.Fatalf("%d verdicts, want 4", len(vs))
			}
			if v := vs[3]; v.word() != c.cut || !strings.Contains(v.Reason, c.reason) {
				t.Errorf("cut: %s (%s), want %s with %q", v.word(), v.Reason, c.cut, c.reason)
			}
		})
	}
	noArticleEf := []SegmentMeasurement{at(40, 0.9, 2000), at(80, 0.99, 4000)}
	vs := E20Verdicts(env, &E20Result{Sequential: noArticleEf, Concurrent: conc, Shared: noArticleEf}, nil)
	if v := vs[3]; v.Agrees || !strings.Contains(v.Reason, "no ef 100") {
		t.Errorf("E20 without the article's ef: %v", v)
	}
}

func TestE05OversampleVerdicts(t *testing.T) {
	env, err := NewEnv(Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	overs := []float64{1, 3, 10, 50}
	for _, tc := range []struct {
		name        string
		graph, scan []float64
		want        string
	}{
		{"the article's scale: codes limit, oversample recovers", []float64{0.15, 0.305, 0.642, 0.989}, []float64{0.151, 0.322, 0.649, 0.989}, "agrees agrees"},
		{"a small collection: nothing left to recover", []float64{0.8, 0.88, 0.95, 1}, []float64{0.81, 0.885, 0.95, 1}, "differs agrees"},
		{"the graph loses more than the codes", []float64{0.15, 0.2, 0.6, 0.98}, []float64{0.16, 0.32, 0.65, 0.99}, "agrees differs"},
	} {
		got := verdictWords(E05OversampleVerdicts(env, &E05Oversample{Overs: overs, Graph: tc.graph, Scan: tc.scan}))
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if got := verdictWords(E05OversampleVerdicts(env, &E05Oversample{Overs: []float64{1, 2}, Graph: []float64{0.1, 0.2}, Scan: []float64{0.1, 0.2}})); got != "differs" {
		t.Errorf("a sweep without the default 3: %s, want one differs", got)
	}
	if _, err := E05OversampleSweep(env, []float64{1, 2, 5}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("E05OversampleSweep without 3: %v, want engine.ErrInvalidArgument", err)
	}
}

// TestSpreadSensitivity: at a small scale each spread gets its own data
// set (the recalls differ between spreads), the marked row is the one
// nearest the article's Redis and pgvector figures, and a bad spread or
// a real data set is refused.
func TestSpreadSensitivity(t *testing.T) {
	env, err := NewEnv(Scale{Name: "custom", N: 600, Dim: 64, Clusters: 8, Queries: 10, Warmup: 2, K: 10, Batch: 200}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	rows, err := SpreadSensitivity(env, []float64{0.75, 1.5})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Spread != 0.75 || rows[1].Spread != 1.5 {
		t.Fatalf("rows %+v", rows)
	}
	if rows[0] == (SpreadRow{Spread: 0.75}) || rows[0].BBQ == rows[1].BBQ && rows[0].Redis == rows[1].Redis {
		t.Errorf("the two spreads measured alike: %+v", rows)
	}
	m, ok := spreadMatch(rows)
	gap := func(r SpreadRow) float64 {
		return math.Max(math.Abs(r.Redis-0.616), math.Abs(r.PGVector-0.951))
	}
	if !ok || gap(m) > gap(rows[0]) || gap(m) > gap(rows[1]) {
		t.Errorf("match %+v is not the nearest of %+v", m, rows)
	}
	if tb := SpreadTable(env, rows); !strings.Contains(tb.String(), "◀ nearest") {
		t.Errorf("table marks no row:\n%s", tb)
	}
	if err := SpreadChart(rows).Err(); err != nil {
		t.Error(err)
	}
	if _, err := env.withSpread(0); !errors.Is(err, errBadArgument) {
		t.Errorf("spread 0: %v", err)
	}
	if _, err := SpreadSensitivity(env, nil); !errors.Is(err, errBadArgument) {
		t.Errorf("no spreads: %v", err)
	}
}
