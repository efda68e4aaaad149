package all

import (
	"github.com/veclab/veclab/lab/experiment/internal/exptest"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e01"
	"github.com/veclab/veclab/lab/experiment/e02"
	"github.com/veclab/veclab/lab/profile"
)

func TestE01Small(t *testing.T) {
	env, err := experiment.NewEnv(experiment.Small, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	var steps int
	env.Progress = func(done, total int, what string) { steps++ }
	r := experiment.Run(env, e01.Experiment)
	if r.Status != experiment.OK {
		t.Fatalf("E01: %s: %s", r.Status, r.Err)
	}
	if steps == 0 {
		t.Error("Progress was never called")
	}
	tb := r.Tables[0]
	for _, store := range []string{"pgvector", "redis", "qdrant", "elasticsearch"} {
		if v := exptest.Float(t, tb, store, "docs/s (lab)"); v <= 0 {
			t.Errorf("%s docs/s %v", store, v)
		}
		if acked, searchable := exptest.Float(t, tb, store, "ingest s (lab)"), exptest.Float(t, tb, store, "searchable after s (lab)"); searchable < acked {
			t.Errorf("%s searchable after %.3fs, before the last ack at %.3fs", store, searchable, acked)
		}
	}
	// E01 states its verdicts: the order, the Qdrant–Redis gap's direction
	// and magnitude, and one visibility step per store. The visibility
	// claims of pgvector and Qdrant ("pgvector: …", "qdrant: …") hold by
	// construction (commit; exact scan of plain segments), so they must
	// agree on any machine; the timing claims may go either way at small
	// scale, so only their figures and direction are checked.
	if len(r.Verdicts) != 7 {
		t.Errorf("E01 stated %d verdicts, want 7: %v", len(r.Verdicts), r.Verdicts)
	}
	var visible, directed int
	for _, v := range r.Verdicts {
		if v.ID != "E01" || v.Article == "" || v.Lab == "" {
			t.Errorf("E01 verdict without figures: %+v", v)
		}
		if strings.HasPrefix(v.Claim, "pgvector: ") || strings.HasPrefix(v.Claim, "qdrant: ") {
			visible++
			if !v.Agrees {
				t.Errorf("E01: %s", v)
			}
		}
		if v.Direction != "" {
			directed++
			if !strings.HasPrefix(v.Claim, "qdrant ") || !strings.HasPrefix(v.Direction, "> 1") {
				t.Errorf("E01 direction verdict on another claim or direction: %s (direction %q)", v, v.Direction)
			}
		}
	}
	if visible != 2 {
		t.Errorf("E01 stated %d by-construction visibility verdicts (pgvector, qdrant), want 2", visible)
	}
	if directed != 2 {
		t.Errorf("E01 stated %d verdicts with a direction, want 2 (the Qdrant–Redis gap's direction and magnitude)", directed)
	}
	// E01's stores are kept: E02 measures the same indexes without rebuilding.
	before := map[profile.Kind]*profile.Store{}
	for _, p := range profile.Defaults() {
		before[p.Kind], _ = env.Store(p)
	}
	if len(env.Stores) != 4 {
		t.Errorf("E01 kept %d stores, want its 4", len(env.Stores))
	}
	if r := experiment.Run(env, e02.Experiment); r.Status != experiment.OK {
		t.Fatalf("E02 after E01: %s %s", r.Status, r.Err)
	}
	for _, p := range profile.Defaults() {
		if s, _ := env.Store(p); s != before[p.Kind] {
			t.Errorf("E02 rebuilt the %s store E01 had built", p.Kind)
		}
	}
}
