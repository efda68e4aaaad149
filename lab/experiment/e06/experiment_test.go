package e06

import (
	"errors"
	"github.com/veclab/veclab/lab/experiment/internal/exptest"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/profile"
)

func TestE06Small(t *testing.T) {
	env := exptest.Small(t)
	ms, err := Measure(env, []int{10, 50, 200})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(ms); i++ {
		if ms[i].Recall+1e-9 < ms[i-1].Recall {
			t.Errorf("recall fell from %.3f (ef %s) to %.3f (ef %s)", ms[i-1].Recall, ms[i-1].Label, ms[i].Recall, ms[i].Label)
		}
		if ms[i].DistComps <= ms[i-1].DistComps {
			t.Errorf("a wider EF_RUNTIME did not compute more distances: %v then %v", ms[i-1].DistComps, ms[i].DistComps)
		}
	}
	if ms[0].Plan.Ef != 10 || ms[2].Plan.Ef != 200 {
		t.Errorf("plans %v / %v", ms[0].Plan, ms[2].Plan)
	}
	if _, err := e06Sweep(env, nil); !errors.Is(err, experiment.ErrBadArgument) {
		t.Errorf("empty sweep: %v", err)
	}
	if _, err := e06Sweep(env, []int{0}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("EF_RUNTIME 0: %v", err)
	}
	// One policy for a bad EF_RUNTIME: the store's view refuses it, in
	// the store's terms, whichever verb asked.
	var ke *profile.KnobError
	if _, err := Measure(env, []int{10, -3}); !errors.As(err, &ke) || ke.Call != "WithEf(-3)" || ke.Setting != "EF_RUNTIME" {
		t.Errorf("Measure with EF_RUNTIME -3: %v, want the view's KnobError", err)
	}
	tb, err := e06Sweep(env, []int{10, 20})
	if err != nil || len(tb.Rows) != 2 || tb.Cell(0, 0).String() != "10 (default)" {
		t.Fatalf("e06Sweep table %v, %v", tb, err)
	}
	// 2,000 documents: RediSearch's tree picks ADHOC_BF (index ≤ 5,500), exact.
	if fr := exptest.Float(t, tb, "10 (default)", "filtered recall@10 (lab)"); fr != 1 {
		t.Errorf("filtered recall through the Redis hybrid policy = %v, want 1 (ad-hoc brute force)", fr)
	}
}

func TestReportRendering(t *testing.T) {
	env := exptest.Small(t)
	r := experiment.Run(env, e06)
	if r.Status != experiment.OK {
		t.Fatal(r.Err)
	}
	md, h, txt := r.Markdown(), r.HTML(), r.String()
	for _, tt := range []struct{ name, s, want string }{
		{"markdown table", md, "| recall@10 (article) | recall@10 (lab) |"},
		{"markdown chart", md, "data:image/svg+xml;base64,"},
		{"html table", h, `<table class="veclab-table"`},
		{"html chart", h, "<svg"},
		{"text table", txt, "recall@10 (article)"},
		{"text conditions", txt, "scale small"},
	} {
		if !strings.Contains(tt.s, tt.want) {
			t.Errorf("%s lacks %q", tt.name, tt.want)
		}
	}
	if strings.Contains(h, "<?xml") {
		t.Error("inline SVG keeps its XML declaration")
	}
}
