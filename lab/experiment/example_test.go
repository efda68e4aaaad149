package experiment_test

import (
	"fmt"
	"time"

	_ "github.com/veclab/veclab/lab/experiment/all" // the registry holds E01…E27 in this test binary

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e08"
	"github.com/veclab/veclab/lab/experiment/e09"
	"github.com/veclab/veclab/lab/experiment/e11"
	"github.com/veclab/veclab/lab/experiment/e12"
	"github.com/veclab/veclab/lab/experiment/e13"
	"github.com/veclab/veclab/lab/experiment/e14"
	"github.com/veclab/veclab/lab/experiment/e15"
	"github.com/veclab/veclab/lab/experiment/e16"
	"github.com/veclab/veclab/lab/experiment/e17"
	"github.com/veclab/veclab/lab/experiment/e18"
	"github.com/veclab/veclab/lab/experiment/e19"
	"github.com/veclab/veclab/lab/experiment/e20"
	"github.com/veclab/veclab/lab/experiment/e21"
	"github.com/veclab/veclab/lab/experiment/e22"
	"github.com/veclab/veclab/lab/experiment/e23"
	"github.com/veclab/veclab/lab/experiment/e24"
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
	res04, _ := experiment.Lookup("E04")
	r := experiment.Run(env, res04)
	fmt.Println(r.ID, r.Status, len(r.Tables) > 0, r.Err == "")
	// Output: E04 ok true true
}

// Notebook 05: Qdrant's filtered search (E08), its planner, the indexing
// threshold, payload-block links, and undeclared fields (E09).
func Example_e08() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	res08, err := e08.Measure(env)
	check(err)
	fmt.Println(e08.Table(env, res08))
	plans, err := e08.PlannerTable(env, e08.PlanFilters)
	check(err)
	fmt.Println(plans)
	idxKB := e08.IndexingThresholdKB(env.Scale)
	rows, err := e08.Indexing(env, []int{env.Scale.N / 3, env.Scale.N}, idxKB)
	check(err)
	fmt.Println(e08.IndexingTable(env, rows))
	links, err := e08.MeasurePayloadLinks(env, idxKB, e08.LinkFilters)
	check(err)
	fmt.Println(links.Table)
	res09, err := e09.Measure(env)
	check(err)
	fmt.Println(e09.Table(res09))
	fmt.Println(e08.Verdicts(env, res08, rows), e08.PayloadLinkVerdicts(env, links), e09.Verdicts(env, res09))
}

// Notebook 06: each store's footprint (E11), split and projected, and
// the disk a save needs (E12).
func Example_e11() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	fs, err := e11.Measure(env, e11.Kinds)
	check(err)
	fmt.Println(e11.Compare(env, fs))
	fmt.Println(e11.Table(env, fs))
	split, bars := e11.Split(env, fs)
	fmt.Println(split, bars.Err())
	fmt.Println(e11.Projection(env, fs, e11.ProjectShapes(env.Scale)))
	res12, err := e12.Measure(env, uint64(e12.DiskBytes), e12.Disks)
	check(err)
	fmt.Println(e12.Table(res12), e12.SaveChart(res12).Err())
	fmt.Println(e11.Verdicts(env, fs), e12.Verdicts(env, res12))
}

// Notebook 07: disk-backed rescoring (E13) warm and cold, the RAM budget
// (E14) and the query modes (E15).
func Example_e13() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	hn, err := experiment.HNSWCodes(env, 2)
	check(err)
	fmt.Println(hn.Index.Len(), hn.Bits)
	warm, cold, err := e13.Measure(env, 100, 10)
	check(err)
	budget, measured := e13.Tables(env, warm, cold)
	fmt.Println(budget, measured)
	sweep, chart, err := e13.OversampleSweep(env, 100, []float64{1, 3})
	check(err)
	fmt.Println(sweep, chart.Err())
	res14, err := e14.Budget(env, 4)
	check(err)
	fmt.Println(res14)
	res15, err := e15.Modes(env, 50, 3, 16, "gp3")
	check(err)
	fmt.Println(e15.Table(env, 50, 3, res15))
	fmt.Println(e13.Verdicts(env, warm, cold), e14.Verdicts(env, res14), e15.Verdicts(env, res15))
}

// Notebook 08: fewer, larger segments (E16), concurrent ingest (E18) and
// the shared bound across segments (E20).
func Example_e16() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	env.Workers = 1 // the same seed gives the same graphs
	res16, err := e16.Measure(env, e16.Segments, e16.K, e16.Ef)
	check(err)
	fmt.Println(e16.Table(env, res16))
	fmt.Println(experiment.SegmentsChart("E16 (lab)", []string{"force-merged"}, res16).Err())
	res18, err := e18.Measure(env, 0, 0, env.Scale.K, 40)
	check(err)
	fmt.Println(e18.Table(env, res18))
	res20, err := e20.Measure(env, e20.Segments, e20.Efs, env.Scale.K)
	check(err)
	fmt.Println(e20.Table(env, res20), e20.PairTable(res20))
	fmt.Println(e16.Verdicts(env, res16), e18.Verdicts(env, res18), e20.Verdicts(env, res20, nil))
}

// Notebook 10: segments searched one after another at k = 100 (E17) and
// bulk bodies parsed by format (E19).
func Example_e17() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	res17, err := e17.Measure(env, e17.Segments, e17.Efs, 100)
	check(err)
	fmt.Println(e17.Table(env, res17))
	res19, err := e19.Measure(env, e19.Default, e19.SizesFor(env.Scale))
	check(err)
	fmt.Println(res19.Table)
	fmt.Println(e17.Verdicts(env, res17), e19.Verdicts(env, res19))
}

// Notebook 11: the distance kernels by dimension and an HNSW build (E21),
// then the quantizers' flat scans (E22–E24).
func Example_e21() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	kernels, err := e21.Kernels(env, e21.Dims, 5*time.Millisecond)
	check(err)
	fmt.Println(kernels, e21.KernelChart(kernels).Err())
	dps, err := e21.Build(env, 1000)
	check(err)
	fmt.Println(e21.BuildTable(env, 1000, dps, dps))
	res22, err := e22.Sweep(env, e22.Oversample)
	check(err)
	res23, err := e23.Sweep(env, e23.Oversample)
	check(err)
	res24, err := e24.Sweep(env, e24.Oversample)
	check(err)
	fmt.Println(experiment.QuantRecall(res24, "bbq", 3))
	fmt.Println(e21.Verdicts(env, kernels, dps, dps), e22.Verdicts(env, res22),
		e23.Verdicts(env, res23), e24.Verdicts(env, res24))
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
