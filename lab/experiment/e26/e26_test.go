package e26

import (
	"errors"
	"fmt"
	"github.com/veclab/veclab/lab/experiment/internal/exptest"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e13"
	"github.com/veclab/veclab/lab/experiment/e14"
	"github.com/veclab/veclab/lab/experiment/e15"
	"github.com/veclab/veclab/lab/experiment/e27"
)

// TestE26Small runs both sweeps on local storage at the small scale: every
// point rescoring k = 100 originals reads 100 vectors, recall grows along
// each sweep, and the table pairs every IVF point.
func TestE26Small(t *testing.T) {
	env := exptest.Small(t)
	a, b, err := Sweeps(env, "local", 1, []float64{5, 50}, []int{100, 400}, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(append([]experiment.DiskPoint{}, a...), b...) {
		if p.Reads != 100 {
			t.Errorf("%s: %v reads/query, want 100 (k=100, oversample 1)", p.Label, p.Reads)
		}
		if p.Recall <= 0 || p.Recall > 1 || p.QPS <= 0 {
			t.Errorf("%s: recall %v QPS %v", p.Label, p.Recall, p.QPS)
		}
	}
	if a[1].Recall < a[0].Recall {
		t.Errorf("IVF recall falls with visit %%: %v → %v", a[0].Recall, a[1].Recall)
	}
	if a[1].Recall < 0.5 || b[1].Recall < 0.5 {
		t.Errorf("recall@100 at 50%% visit %v, at ef 400 %v: below what 2-bit codes reach on this set (~0.7)", a[1].Recall, b[1].Recall)
	}
	// Rescoring more candidates can only help.
	a3, _, err := Sweeps(env, "local", 3, []float64{50}, []int{100}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if a3[0].Recall < a[1].Recall || a3[0].Reads != 300 {
		t.Errorf("oversample 3 at 50%% visit: recall %v (×1: %v), %v reads/query", a3[0].Recall, a[1].Recall, a3[0].Reads)
	}
	tb := Table(env, "local", 1, a, b)
	if len(tb.Rows) != len(a) {
		t.Errorf("E26 table has %d rows for %d IVF points", len(tb.Rows), len(a))
	}
	if _, _, err := Sweeps(env, "floppy", 1, []float64{5}, []int{100}, 1); !errors.Is(err, experiment.ErrBadArgument) {
		t.Errorf("unknown storage: %v", err)
	}
	if _, _, err := Sweeps(env, "local", 1, []float64{0}, []int{100}, 1); !errors.Is(err, experiment.ErrBadArgument) {
		t.Errorf("visit 0: %v", err)
	}
}

// TestDiskExperimentsSmall runs E13, E14 and E15 at the small scale.
func TestDiskExperimentsSmall(t *testing.T) {
	env := exptest.Small(t)
	warm, cold, err := e13.Measure(env, 50, 3)
	if err != nil {
		t.Fatal(err)
	}
	if warm.Reads != 30 || cold.Reads != 30 {
		t.Errorf("E13 reads/query warm %v cold %v, want ⌈3·10⌉ = 30", warm.Reads, cold.Reads)
	}
	if warm.DeviceReads != 0 {
		t.Errorf("E13 warm: %v device reads/query after Warm", warm.DeviceReads)
	}
	if cold.DeviceReads == 0 {
		t.Errorf("E13 cold: no device reads after eviction")
	}
	if warm.Recall != cold.Recall {
		t.Errorf("E13: cache state changed recall %v vs %v", warm.Recall, cold.Recall)
	}
	if got := e13.ArticleBudget.IOPS(10); got < 333 || got > 334 {
		t.Errorf("article budget at 10 QPS: %v IOPS per node, want 333", got)
	}
	if got := e13.ArticleBudget.QPSCap(); got != 90 {
		t.Errorf("gp3 cap %v QPS, want 90", got)
	}
	if mb := e13.ArticleBudget.MBps(10000); mb < 2730 || mb > 2731 {
		t.Errorf("article budget at 10,000 QPS: %v MB/s", mb)
	}

	r := experiment.Run(env, e14.Experiment)
	if r.Status != experiment.OK {
		t.Fatalf("E14: %s: %s", r.Status, r.Err)
	}
	tb := r.Tables[0]
	codes, links, total := exptest.Float(t, tb, "4-bit codes", "bytes/vector (lab)"), exptest.Float(t, tb, "graph links (m=16)", "bytes/vector (lab)"), exptest.Float(t, tb, "total resident", "bytes/vector (lab)")
	if codes < float64(env.Scale.Dim)/2 || links < 32*4 || total != codes+links {
		t.Errorf("E14: codes %v links %v total %v", codes, links, total)
	}
	if _, err := e14.Budget(env, 3); !errors.Is(err, experiment.ErrBadArgument) {
		t.Errorf("E14 bits 3: %v", err)
	}

	e15res, err := e15.Modes(env, 50, 3, 4, "")
	if err != nil {
		t.Fatal(err)
	}
	ps := e15res.Points
	if len(e15res.Warm.Ratios) != e15.Rounds || len(e15res.Cold.Ratios) != e15.Rounds || len(e15res.Sim.Ratios) != 0 {
		t.Errorf("E15 rounds: warm %v, cold %v, simulated %v (no device)", e15res.Warm, e15res.Cold, e15res.Sim)
	}
	if len(ps) != 4 {
		t.Fatalf("E15: %d modes", len(ps))
	}
	for i, p := range ps {
		cold := i >= 2
		if (p.DeviceReads > 0) != cold {
			t.Errorf("E15 %s: %v device reads/query", p.Label, p.DeviceReads)
		}
		if p.Recall != ps[0].Recall {
			t.Errorf("E15 %s: recall %v differs from %v (same candidates, same vectors)", p.Label, p.Recall, ps[0].Recall)
		}
	}
}

// TestE27Small: with the lists on disk IVF reads lists, warm from the
// cache and cold from the device, and the cache state does not change
// what is found.
func TestE27Small(t *testing.T) {
	env := exptest.Small(t)
	ps, err := e27.Measure(env, 20, 50, 3, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 4 {
		t.Fatalf("E27: %d points", len(ps))
	}
	warmIVF, warmHNSW, coldIVF, coldHNSW := ps[0], ps[1], ps[2], ps[3]
	if warmIVF.ListReads < 1 || warmIVF.ListDevice != 0 {
		t.Errorf("E27 warm IVF: %v list reads, %v from the device", warmIVF.ListReads, warmIVF.ListDevice)
	}
	if coldIVF.ListDevice < 1 || coldIVF.DeviceReads == 0 {
		t.Errorf("E27 cold IVF: %v list device reads, %v vector device reads", coldIVF.ListDevice, coldIVF.DeviceReads)
	}
	if warmHNSW.ListReads != 0 || coldHNSW.DeviceReads == 0 {
		t.Errorf("E27 HNSW: %v list reads, cold %v vector device reads", warmHNSW.ListReads, coldHNSW.DeviceReads)
	}
	if warmIVF.Recall != coldIVF.Recall || warmHNSW.Recall != coldHNSW.Recall {
		t.Errorf("E27: recall depends on the cache: IVF %v/%v HNSW %v/%v", warmIVF.Recall, coldIVF.Recall, warmHNSW.Recall, coldHNSW.Recall)
	}
}

// TestE26CentringSmall: the centring table has both rows with recalls in
// range.
func TestE26CentringSmall(t *testing.T) {
	env := exptest.Small(t)
	tb, err := Centring(env, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Rows) != 2 {
		t.Fatalf("%d rows", len(tb.Rows))
	}
	for _, row := range []string{"each list's centroid (DiskBBQ)", "the plain global mean (as Elasticsearch's bbq_hnsw)"} {
		if r := exptest.Float(t, tb, row, "recall@100 (lab)"); r <= 0 || r > 1 {
			t.Errorf("%s: recall %v", row, r)
		}
	}
	if _, err := Centring(env, 0); !errors.Is(err, experiment.ErrBadArgument) {
		t.Errorf("visit 0: %v", err)
	}
}

// TestE26Verdicts feeds Verdicts sweeps below the article's band: the
// band verdict names the codes' measured ceiling when there is one, and
// the simulated-device verdict names how much of a query the device's
// waits take, from the same designs on the warm local file.
func TestE26Verdicts(t *testing.T) {
	env := exptest.Small(t)
	pt := func(recall, qps float64) experiment.DiskPoint {
		return experiment.DiskPoint{Recall: recall, QPS: qps, Reads: 100}
	}
	res := Results{
		LocalIVF: []experiment.DiskPoint{pt(0.70, 3000), pt(0.751, 2800)}, LocalHNSW: []experiment.DiskPoint{pt(0.488, 2000), pt(0.488, 1500)},
		Net: "gp3", NetIVF: []experiment.DiskPoint{pt(0.751, 28)}, NetHNSW: []experiment.DiskPoint{pt(0.478, 28)},
	}
	vs := Verdicts(env, res)
	if v := vs[0]; v.Agrees || !strings.Contains(v.Reason, "ceiling was not measured") {
		t.Errorf("band without a ceiling: %s (%s)", v.Word(), v.Reason)
	}
	if v := vs[3]; v.Agrees || !strings.Contains(v.Reason, "35.7 and 35.7 ms on the simulated device against 0.36 and 0.50 ms on the warm local file, so waiting for the device is 99 % and 99 %") {
		t.Errorf("gp3: %s (%s)", v.Word(), v.Reason)
	}
	res.Ceiling = []CeilingPoint{{Data: "generated, 384 dims", Dim: 384, Recall: 0.751, Over2: 0.964, Qdrant: 0.449}, {Data: "generated, 768 dims", Dim: 768, Recall: 0.755, Over2: 0.961, Qdrant: 0.454}}
	if v := Verdicts(env, res)[0]; v.Agrees || !strings.Contains(v.Reason, "0.751 on the generated, 384 dims data (0.964 at oversample 2; Qdrant's two_bits codes 0.449), 0.755 on the generated, 768 dims data") {
		t.Errorf("band with the ceiling: %s (%s)", v.Word(), v.Reason)
	}
	res.LocalIVF = append(res.LocalIVF, pt(0.95, 2000))
	if v := Verdicts(env, res)[0]; !v.Agrees {
		t.Errorf("band reached: %s (%s)", v.Word(), v.Reason)
	}
}

// TestE26StorageVerdict: Qdrant's HNSW is judged on local against the
// network device at the widest ef both sweeps ran, and agrees only at
// 1.5× the QPS or more, never in the other direction.
func TestE26StorageVerdict(t *testing.T) {
	pt := func(ef, qps float64) experiment.DiskPoint {
		return experiment.DiskPoint{Label: fmt.Sprintf("ef=%g", ef), Param: ef, Recall: 0.68, QPS: qps, Reads: 100}
	}
	local := []experiment.DiskPoint{pt(100, 2000), pt(200, 1800), pt(500, 1300)}
	for _, tc := range []struct {
		name string
		net  []experiment.DiskPoint
		want string
		lab  string
	}{
		{"waits on the device", []experiment.DiskPoint{pt(100, 28), pt(200, 28), pt(500, 27.7)}, "agrees", "46.9×"},
		{"within the noise", []experiment.DiskPoint{pt(200, 1300)}, "differs", "1.38×"},
		{"faster on the network", []experiment.DiskPoint{pt(100, 2500), pt(500, 2600)}, "differs", "0.5×"},
		{"no common ef", []experiment.DiskPoint{pt(300, 28)}, "differs", "no common ef"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := storageVerdicts(Results{LocalHNSW: local, Net: "gp3", NetHNSW: tc.net})
			if len(vs) != 1 {
				t.Fatalf("%d verdicts: %v", len(vs), vs)
			}
			if v := vs[0]; v.Word() != tc.want || v.Lab != tc.lab || v.Article != "≥ 1.5×" {
				t.Errorf("%s: %s, lab %s, article %s; want %s, lab %s", tc.name, v.Word(), v.Lab, v.Article, tc.want, tc.lab)
			}
		})
	}
	if vs := storageVerdicts(Results{LocalHNSW: local}); len(vs) != 0 {
		t.Errorf("no network sweep: %v", vs)
	}
}
