package e02

import (
	"runtime"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/internal/exptest"
	"github.com/veclab/veclab/lab/experiment/internal/latency"
)

func TestE02Small(t *testing.T) {
	env := exptest.Small(t)
	r := experiment.Run(env, Experiment)
	if r.Status != experiment.OK {
		t.Fatalf("E02: %s: %s", r.Status, r.Err)
	}
	tb := r.Tables[0]
	if len(tb.Rows) != 4 {
		t.Fatalf("E02 table has %d rows, want 4 stores", len(tb.Rows))
	}
	for _, store := range []string{"pgvector", "redis", "qdrant", "elasticsearch"} {
		rec := exptest.Float(t, tb, store, "recall@10 (lab)")
		if rec <= 0 || rec > 1 {
			t.Errorf("%s recall %v out of (0, 1]", store, rec)
		}
		if h := exptest.Float(t, tb, store, "mean hits (lab)"); h != 10 {
			t.Errorf("%s mean hits %v, want 10", store, h)
		}
		// The article's column holds the article's figure, not ours.
		f, _ := Experiment.Figure(store, "recall@10")
		if a := exptest.Float(t, tb, store, "recall@10 (article)"); a != f.Value {
			t.Errorf("%s article column %v, want the article's %v", store, a, f.Value)
		}
	}
	// Qdrant's small segments are below full_scan_threshold: exact.
	if rec := exptest.Float(t, tb, "qdrant", "recall@10 (lab)"); rec != 1 {
		t.Errorf("qdrant recall %v at small scale, want 1 (exact search under full_scan_threshold)", rec)
	}
	// The latency verdicts judge the thread's CPU time per query where
	// Linux gives it, and say so; elsewhere wall time, and say that.
	clock := latency.WallClock
	if runtime.GOOS == "linux" {
		clock = latency.CPUClock
	}
	n := 0
	for _, v := range r.Verdicts {
		if strings.Contains(v.Claim, "over redis's") || strings.Contains(v.Claim, "answers fastest") {
			n++
			if !strings.Contains(v.Reason, "clock: "+clock) {
				t.Errorf("%s: reason %q does not name the clock %q", v.Claim, v.Reason, clock)
			}
		}
	}
	if n != 7 {
		t.Errorf("%d latency verdicts, want 7", n)
	}
	if len(r.Charts) != 1 || !strings.Contains(r.Charts[0].SVG(), "<svg") {
		t.Error("E02 report lacks its chart")
	}
	if len(r.Tables) != 2 || len(r.Tables[1].Rows) != 4 {
		t.Fatalf("E02 lacks its segments finding (%d tables)", len(r.Tables))
	}
	seg := r.Tables[1]
	if one, ten := exptest.Float(t, seg, "hnsw, 1 segment(s)", "recall@10 (lab)"), exptest.Float(t, seg, "hnsw, 10 segment(s)", "recall@10 (lab)"); ten < one {
		t.Errorf("hnsw recall fell from %.3f (1 segment) to %.3f (10 segments)", one, ten)
	}
}
