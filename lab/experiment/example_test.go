package experiment_test

import (
	"fmt"
	"time"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/profile"
)

// The registered experiments, as `veclab reproduce -list` prints them.
func ExampleSelect() {
	exps, err := experiment.Select("E06,E02")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range exps {
		f, _ := e.Figure(map[string]string{"E02": "redis", "E06": "50"}[e.ID], "recall@10")
		fmt.Printf("%s %s (article: %v)\n", e.ID, e.Title, f)
	}
	// Output:
	// E02 unfiltered recall@10 of four stores on their defaults (article: redis recall@10 = 0.616)
	// E06 Redis EF_RUNTIME: the library default (10) against 50 and 200 (article: 50 recall@10 = 0.962)
}

// A notebook runs an experiment cell by cell: an environment, the sweep,
// the table (article beside lab) and the chart.
func ExampleE06Measure() {
	env, err := experiment.NewEnv(experiment.Small, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer env.Close()
	env.Progress = func(done, total int, what string) {} // e.g. update a progress bar
	ms, err := experiment.E06Measure(env, []int{10, 50, 200})
	if err != nil {
		fmt.Println(err)
		return
	}
	t := experiment.E06Table(env, ms, nil)
	c := experiment.E06Chart(ms)
	fmt.Println(len(t.Rows), t.Columns[1].Label(), t.Columns[2].Label(), c.Err())
	// Output: 3 recall@10 (article) recall@10 (lab) <nil>
}

// check stands for the notebooks' check (the kernel's): a cell stops at
// its first error.
func check(err error) {
	if err != nil {
		panic(err)
	}
}

// Every notebook's set-up cell: the scale it names ("article" in the
// repository's notebooks; $VECLAB_SCALE overrides it) and seed 1. About
// prints the scale, the conventions and the machine.
func ExampleNotebook() {
	env, err := experiment.Notebook("small", 1)
	check(err)
	defer env.Close()
	fmt.Println(env.Scale.Name, env.Scale.N, env.Scale.Dim, env.Seed)
	_ = env.About(env.Scale.K) // scale, conventions, machine: printed by the set-up cell
	// Output: small 2000 384 1
}

// A notebook that builds its own environments (notebook 00, and one per
// real data set in notebook 14): a parsed scale, then NewEnv. The data
// set and its exact truth are cached in the environment.
func ExampleNewEnv() {
	scale, err := experiment.ParseScale("small")
	check(err)
	env, err := experiment.NewEnv(scale, 1)
	check(err)
	defer env.Close()
	ds, err := env.Dataset()
	check(err)
	truth, err := env.Truth(env.Scale.K)
	check(err)
	fmt.Printf("%d × %d, %d queries, exact top-%d, metric %s\n", ds.Base.N, ds.Base.Dim, ds.Queries.N, truth.K, env.Metric())
	// Output: 2000 × 384, 20 queries, exact top-10, metric cosine
}

// A registered experiment run whole, as `veclab reproduce -only E04`
// runs it; a notebook does this for an experiment's notes (notebook 06).
func ExampleRun() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	check(err)
	defer env.Close()
	e04, _ := experiment.Lookup("E04")
	r := experiment.Run(env, e04)
	fmt.Println(r.ID, r.Status, len(r.Tables) > 0, r.Err == "")
	// Output: E04 ok true true
}

// The last cell of every notebook: every verdict its cells stated, in
// order (here E04's, which needs no measurement).
func ExampleEnv_Verdicts() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	check(err)
	defer env.Close()
	fmt.Println(experiment.E04Describe(env) != "")
	t := experiment.E04Table(env)
	experiment.E04Verdicts(env, t)
	for _, v := range env.Verdicts() {
		fmt.Println(v.ID)
	}
	// Output:
	// true
	// E04
}

// Notebook 01: the four stores ingest the set on their defaults (E01),
// then the lag from the last acknowledgement to searchable.
func ExampleE01Ingest() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	var e01 []experiment.Ingest
	for _, p := range profile.Defaults() {
		in, err := experiment.E01Ingest(env, p)
		check(err)
		e01 = append(e01, in)
	}
	fmt.Println(experiment.E01Table(env, e01))
	lagTable, lagChart, err := experiment.E01Lag(env, e01)
	check(err)
	fmt.Println(lagTable, lagChart.Err())
	fmt.Println(experiment.E01Verdicts(env, e01, lagTable))
}

// Notebooks 01 and 02: recall of the stores on their defaults (E02), one
// profile at a time or all four, and each store's graph at equal breadths.
func ExampleE02Measure() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	m, err := experiment.MeasureProfile(env, profile.Default(profile.Redis))
	check(err)
	fmt.Println(m)
	e02, err := experiment.E02Measure(env)
	check(err)
	fmt.Println(experiment.E02Table(env, e02))
	eq, err := experiment.E02MeasureBreadth(env, []int{10, 40, 100})
	check(err)
	fmt.Println(eq.Table)
	fmt.Println(experiment.E02Verdicts(env, e02), experiment.E02ShapeVerdicts(env, e02, eq))
}

// Notebook 04: the article's filter, pgvector's post-filter (E03) and
// its arithmetic, and hits by selectivity.
func ExampleE03Measure() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	sel, err := experiment.MeasureSelectivity(env, experiment.ArticleFilter)
	check(err)
	fmt.Println(sel)
	e03, err := experiment.E03Measure(env)
	check(err)
	fmt.Println(experiment.E03Table(env, e03))
	pf, err := experiment.E03PostFilterHits(env, e03)
	check(err)
	fmt.Println(pf)
	hits, err := experiment.E03SelectivitySweep(env, []string{"year == 2025"}, []string{experiment.ArticleFilter})
	check(err)
	fmt.Println(hits.Table)
	fmt.Println(experiment.E03Verdicts(env, e03))
}

// Notebook 03: Elasticsearch's quantized default (E05) by num_candidates,
// then its rescoring oversample raised (small scale here; the notebook
// opens its environment with Notebook("article", 1)).
func ExampleE05Measure() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	check(err)
	defer env.Close()
	e05, err := experiment.E05Measure(env, experiment.E05Default)
	check(err)
	t := experiment.E05Table(env, e05)
	fmt.Println(len(t.Rows), "num_candidates settings;", experiment.E05Chart(e05).Err())
	sweep, err := experiment.E05OversampleSweep(env, experiment.E05OversampleDefault)
	check(err)
	fmt.Println(len(sweep.Table.Rows), "oversample rows")
	vs := append(experiment.E05Verdicts(env, e05), experiment.E05OversampleVerdicts(env, sweep)...)
	fmt.Println(len(vs) > 0, vs[0].ID)
	// Output:
	// 4 num_candidates settings; <nil>
	// 8 oversample rows
	// true E05
}

// Notebook 02's EF_RUNTIME sweep, filtered and not, and its verdicts
// (small scale here).
func ExampleE06Verdicts() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	check(err)
	defer env.Close()
	e06, err := experiment.E06Measure(env, experiment.E06Default)
	check(err)
	filtered, err := experiment.E06MeasureFiltered(env, experiment.E06Default)
	check(err)
	fmt.Println(len(experiment.E06Table(env, e06, filtered).Rows), "EF_RUNTIME settings")
	for _, v := range experiment.E06Verdicts(env, e06) {
		fmt.Println(v.ID, v.Claim)
	}
	// Output:
	// 3 EF_RUNTIME settings
	// E06 10 (Redis EF_RUNTIME): recall@10 is 0.616
	// E06 50 (Redis EF_RUNTIME): recall@10 is 0.962
	// E06 200 (Redis EF_RUNTIME): recall@10 is 1.000
}

// Notebook 04: pgvector's iterative scans (E07), each row beside what its
// mechanism predicts, and hnsw.max_scan_tuples lowered (small scale here).
func ExampleE07Measure() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	check(err)
	defer env.Close()
	e07, err := experiment.E07Measure(env, experiment.E07Default)
	check(err)
	fmt.Println(len(experiment.E07Table(env, e07).Rows), "settings")
	_, err = experiment.E07Read(env, e07)
	check(err)
	bounds, err := experiment.E07ScanBoundSweep(env, []int{1000, 20000})
	check(err)
	fmt.Println(len(bounds.Table.Rows), "scan bounds (both iterative scans at each)")
	fmt.Println(experiment.E07Verdicts(env, e07)[0].ID)
	// Output:
	// 5 settings
	// 4 scan bounds (both iterative scans at each)
	// E07
}

// Notebook 05: Qdrant's filtered search (E08), its planner, the indexing
// threshold, payload-block links, and undeclared fields (E09).
func ExampleE08Measure() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	meta, err := experiment.FilterMeta(env, true)
	check(err)
	f, err := meta.CompileString(experiment.ArticleFilter)
	check(err)
	fmt.Println(len(f.IDs()), "documents match")
	e08, err := experiment.E08Measure(env)
	check(err)
	fmt.Println(experiment.E08Table(env, e08))
	plans, err := experiment.E08PlannerTable(env, experiment.E08PlanFilters)
	check(err)
	fmt.Println(plans)
	idxKB := experiment.E08IndexingThresholdKB(env.Scale)
	rows, err := experiment.E08Indexing(env, []int{env.Scale.N / 3, env.Scale.N}, idxKB)
	check(err)
	fmt.Println(experiment.E08IndexingTable(env, rows))
	links, err := experiment.E08MeasurePayloadLinks(env, idxKB, experiment.E08LinkFilters)
	check(err)
	fmt.Println(links.Table)
	e09, err := experiment.E09Measure(env)
	check(err)
	fmt.Println(experiment.E09Table(e09))
	fmt.Println(experiment.E08Verdicts(env, e08, rows), experiment.E08PayloadLinkVerdicts(env, links), experiment.E09Verdicts(env, e09))
}

// Notebook 03: Elasticsearch's index types (E10), their sizes, codes or
// segments, and the generator's spread.
func ExampleE10Measure() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	ms, fms, bytes, err := experiment.E10Measure(env, experiment.E10Types)
	check(err)
	fmt.Println(experiment.E10Table(env, ms, fms, bytes))
	sizes, err := experiment.E10Sizes(env, ms, bytes)
	check(err)
	fmt.Println(sizes)
	var labels []string
	var ps []profile.Profile
	for _, segs := range []int{1, 10} {
		p := profile.Default(profile.Elasticsearch)
		p.Segments = segs
		labels, ps = append(labels, fmt.Sprint(segs, " segment(s)")), append(ps, p)
	}
	segTable, err := experiment.CompareProfiles(env, "Elasticsearch by segment count (lab)", labels, ps)
	check(err)
	fmt.Println(segTable)
	cs, err := experiment.E10CodesOrSegments(env)
	check(err)
	fmt.Println(cs)
	rows, err := experiment.SpreadSensitivity(env, []float64{1, 1.5})
	check(err)
	fmt.Println(experiment.SpreadTable(env, rows), experiment.SpreadChart(rows).Err())
	fmt.Println(experiment.E10Verdicts(env, ms, fms, bytes))
}

// Notebook 06: each store's footprint (E11), split and projected, and
// the disk a save needs (E12).
func ExampleE11Measure() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	fs, err := experiment.E11Measure(env, experiment.E11Kinds)
	check(err)
	fmt.Println(experiment.E11Compare(env, fs))
	fmt.Println(experiment.E11Table(env, fs))
	split, bars := experiment.E11Split(env, fs)
	fmt.Println(split, bars.Err())
	fmt.Println(experiment.E11Projection(env, fs, experiment.E11ProjectShapes(env.Scale)))
	e12, err := experiment.E12Measure(env, uint64(experiment.E12DiskBytes), experiment.E12Disks)
	check(err)
	fmt.Println(experiment.E12Table(e12), experiment.E12SaveChart(e12).Err())
	fmt.Println(experiment.E11Verdicts(env, fs), experiment.E12Verdicts(env, e12))
}

// Notebook 07: disk-backed rescoring (E13) warm and cold, the RAM budget
// (E14) and the query modes (E15).
func ExampleE13Measure() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	hn, err := experiment.HNSWCodes(env, 2)
	check(err)
	fmt.Println(hn.Index.Len(), hn.Bits)
	warm, cold, err := experiment.E13Measure(env, 100, 10)
	check(err)
	budget, measured := experiment.E13Tables(env, warm, cold)
	fmt.Println(budget, measured)
	sweep, chart, err := experiment.E13OversampleSweep(env, 100, []float64{1, 3})
	check(err)
	fmt.Println(sweep, chart.Err())
	e14, err := experiment.E14Budget(env, 4)
	check(err)
	fmt.Println(e14)
	e15, err := experiment.E15Modes(env, 50, 3, 16, "gp3")
	check(err)
	fmt.Println(experiment.E15Table(env, 50, 3, e15))
	fmt.Println(experiment.E13Verdicts(env, warm, cold), experiment.E14Verdicts(env, e14), experiment.E15Verdicts(env, e15))
}

// Notebook 08: fewer, larger segments (E16), concurrent ingest (E18) and
// the shared bound across segments (E20).
func ExampleE16Measure() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	env.Workers = 1 // the same seed gives the same graphs
	e16, err := experiment.E16Measure(env, experiment.E16Segments, experiment.E16K, experiment.E16Ef)
	check(err)
	fmt.Println(experiment.E16Table(env, e16))
	fmt.Println(experiment.SegmentsChart("E16 (lab)", []string{"force-merged"}, e16).Err())
	e18, err := experiment.E18Measure(env, 0, 0, env.Scale.K, 40)
	check(err)
	fmt.Println(experiment.E18Table(env, e18))
	e20, err := experiment.E20Measure(env, experiment.E20Segments, experiment.E20Efs, env.Scale.K)
	check(err)
	fmt.Println(experiment.E20Table(env, e20), experiment.E20PairTable(e20))
	fmt.Println(experiment.E16Verdicts(env, e16), experiment.E18Verdicts(env, e18), experiment.E20Verdicts(env, e20, nil))
}

// Notebook 10: segments searched one after another at k = 100 (E17) and
// bulk bodies parsed by format (E19).
func ExampleE17Measure() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	e17, err := experiment.E17Measure(env, experiment.E17Segments, experiment.E17Efs, 100)
	check(err)
	fmt.Println(experiment.E17Table(env, e17))
	e19, err := experiment.E19Measure(env, experiment.E19Formats, experiment.E19SizesFor(env.Scale))
	check(err)
	fmt.Println(e19.Table)
	fmt.Println(experiment.E17Verdicts(env, e17), experiment.E19Verdicts(env, e19))
}

// Notebook 11: the distance kernels by dimension and an HNSW build (E21),
// then the quantizers' flat scans (E22–E24) and their frontier.
func ExampleE21Kernels() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	kernels, err := experiment.E21Kernels(env, experiment.E21Dims, 5*time.Millisecond)
	check(err)
	fmt.Println(kernels, experiment.E21KernelChart(kernels).Err())
	dps, err := experiment.E21Build(env, 1000)
	check(err)
	fmt.Println(experiment.E21BuildTable(env, 1000, dps, dps))
	e22, err := experiment.E22Sweep(env, experiment.E22Oversample)
	check(err)
	fmt.Println(experiment.QuantCurveChart("E22 int8", e22, experiment.E22Oversample, "raw", "int8").Err())
	e23, err := experiment.E23Sweep(env, experiment.E23Oversample)
	check(err)
	e24, err := experiment.E24Sweep(env, experiment.E24Oversample)
	check(err)
	fmt.Println(experiment.QuantRecall(e24, "bbq", 3))
	all, results, err := experiment.QuantSweep(env, experiment.QuantNames, []float64{1, 3})
	check(err)
	fmt.Println(all, experiment.QuantFrontier(env, results, 0.99))
	fmt.Println(experiment.E21Verdicts(env, kernels, dps, dps), experiment.E22Verdicts(env, e22),
		experiment.E23Verdicts(env, e23), experiment.E24Verdicts(env, e24))
}

// Notebook 00b: one quantizer trained as the compression experiments
// train it, and its flat scan with rescoring.
func ExampleQuantFlat() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	check(err)
	defer env.Close()
	q, err := experiment.TrainQuantizer(env, "int8")
	check(err)
	r, err := experiment.QuantFlat(env, "int8", []float64{1, 3})
	check(err)
	fmt.Println(q.CodeSize(), r.Name, len(r.RecallOver))
	// Output: 388 int8 2
}

// Notebook 00b's knobs: one quantizer's flat scan kept (here bbq, the
// 1-bit code), so recall after rescoring at any oversample up to the one
// ranked is a re-rank of ⌈o·k⌉ candidates, with no scan of the codes.
func ExampleRankCodes() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	check(err)
	defer env.Close()
	q, err := experiment.TrainQuantizer(env, "bbq")
	check(err)
	cr, err := experiment.RankCodes(env, q, 10)
	check(err)
	r3, err := cr.Recall(3)
	check(err)
	fmt.Println(cr.Candidates(3), cr.RecallNone() <= r3)
	// Output: 30 true
}

// Notebook 09: parents of passages (E25) built, queried and measured by
// beam, and by passage-count distribution (small scale here).
func ExampleE25Build() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	check(err)
	defer env.Close()
	x, err := experiment.E25Build(env, experiment.E25Config{})
	check(err)
	fmt.Println(x.CountChart().Err())
	_, err = experiment.E25Query(env, x, 0, 40)
	check(err)
	rows, err := experiment.E25Measure(env, x, experiment.E25Ef)
	check(err)
	fmt.Println(len(experiment.E25Table(env, x, rows).Rows) > 0, experiment.E25Chart(env, rows).Err())
	_ = experiment.E25Summary(env, x, rows) // per beam, the parent walk beside the naive plan
	st, shapes, err := experiment.E25Shapes(env, []experiment.E25Config{{MinPassages: 1, MaxPassages: 1}, {}}, 40)
	check(err)
	fmt.Println(len(st.Rows), "shapes;", experiment.E25ShapeChart(shapes).Err())
	fmt.Println(experiment.E25Verdicts(env, x, rows, shapes)[0].ID)
	// Output:
	// <nil>
	// true <nil>
	// 2 shapes; <nil>
	// E25
}

// Notebook 12: DiskBBQ's IVF against HNSW over the same 2-bit codes
// (E26), on local disk and on simulated devices.
func ExampleE26Sweeps() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	nq := experiment.SimulatedQueries(env.Scale)
	iv, err := experiment.IVFCodes(env, 2)
	check(err)
	fmt.Println(iv.Nlist())
	ivfPts, hnswPts, err := experiment.E26Sweeps(env, "local", 1, experiment.E26Visit, experiment.E26Ef, env.Scale.Queries)
	check(err)
	fmt.Println(experiment.E26Table(env, "local", 1, ivfPts, hnswPts))
	fmt.Println(experiment.E26Chart("E26 local (lab)", ivfPts, hnswPts).Err())
	a, b, err := experiment.E26Sweeps(env, "gp3", 1, []float64{5}, []int{200}, nq)
	check(err)
	runs := []experiment.E26StorageRun{{Storage: "local", IVF: ivfPts, HNSW: hnswPts}, {Storage: "gp3", IVF: a, HNSW: b}}
	fmt.Println(experiment.E26ByStorage(runs), experiment.E26StorageChart(runs).Err())
	o3IVF, _, err := experiment.E26Sweeps(env, "local", 3, experiment.E26Visit, experiment.E26Ef, env.Scale.Queries)
	check(err)
	centring, err := experiment.E26Centring(env, 5)
	check(err)
	fmt.Println(centring)
	bud, err := experiment.E26BudgetSweep(env, "gp3", []float64{1, 3}, nq)
	check(err)
	fmt.Println(bud.Table())
	ceiling, err := experiment.E26Ceiling(env, experiment.E26ArticleDim)
	check(err)
	fmt.Println(experiment.E26Verdicts(env, experiment.E26Results{LocalIVF: ivfPts, LocalHNSW: hnswPts, Over3IVF: o3IVF,
		Net: "gp3", NetIVF: a, NetHNSW: b, Budget: bud, Ceiling: ceiling}))
}

// Notebook 13: what each design keeps in RAM (E27), both on a simulated
// device, and the disk-resident HNSW's cost model.
func ExampleE27Measure() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	mem, err := experiment.E27MemoryBudget(env, 1)
	check(err)
	fmt.Println(mem.Table)
	iv, err := experiment.IVFCodes(env, 2)
	check(err)
	hn, err := experiment.HNSWCodes(env, 2)
	check(err)
	ps, err := experiment.E27Measure(env, 5, 100, 3, "gp3")
	check(err)
	fmt.Println(experiment.E27Table(env, 5, 100, 3, ps, mem.IVFResident, mem.HNSWCodes+mem.HNSWLinks))
	model, err := experiment.E27DiskHNSWModel(env, hn, ps[len(ps)-1], []int{100, 200}, 3, "gp3", 20)
	check(err)
	fmt.Println(model.Table(), model.Chart("gp3").Err())
	fmt.Println(experiment.E27Verdicts(env, ps, iv.Nlist(), model))
}

// Notebook 14: the same measurements on real embeddings, one environment
// per data set (a set not fetched is skipped with its reason).
func ExampleOpenRealSets() {
	scale, err := experiment.NotebookScale("article")
	check(err)
	sets, err := experiment.OpenRealSets(scale, 1)
	check(err)
	fmt.Println(sets)
	quants, err := experiment.MeasureQuantSets(sets, []string{"raw", "int8"}, []float64{1, 3})
	check(err)
	fmt.Println(quants.Table("E22 int8 beside raw float32", "raw", "int8"), quants.Chart("E22 int8", "int8").Err())
	var runs experiment.SetRuns
	for _, name := range sets.Names {
		env, err := experiment.NewEnv(experiment.Small, 1)
		if err == nil && name != "generated" {
			err = env.UseData(name, "")
		}
		check(err)
		run, err := experiment.RunOnSet(env)
		env.Close()
		check(err)
		runs = append(runs, run)
	}
	fmt.Println(runs.E02Table())
}
