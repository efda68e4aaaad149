package experiment

import (
	"math"
	"strings"
	"testing"
)

func TestVerdictConstructors(t *testing.T) {
	env, err := NewEnv(Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	var kept Verdicts
	for _, tc := range []struct {
		v      Verdict
		agrees bool
		reason string
	}{
		{Within("E90", "a", 75, 74.7, 1, "%"), true, "within the tolerance"},
		{Within("E90", "b", 75, 73.9, 1, "%"), false, "off by 1.1 %, more than 1 %"},
		{Within("E90", "c", 32, math.NaN(), 1, "×"), false, "did not measure"},
		{AtLeast("E90", "d", 0.99, 0.995, 0, ""), true, "at or above"},
		{AtLeast("E90", "e", 0.99, 0.985, 0.01, ""), true, "within the tolerance"},
		{AtLeast("E90", "f", 0.99, 0.97, 0.01, ""), false, "below the bound by 0.02"},
		{AtMost("E90", "g", 10, 10.5, 1, "ms"), true, "within the tolerance"},
		{AtMost("E90", "h", 10, 12, 1, "ms"), false, "above the bound by 2 ms"},
		{Holds("E90", "i", "faster", "3×", true, "3× faster"), true, "3× faster"},
	} {
		if tc.v.Agrees != tc.agrees || !strings.Contains(tc.v.Reason, tc.reason) {
			t.Errorf("%s: agrees %v (%q), want %v (%q)", tc.v.Claim, tc.v.Agrees, tc.v.Reason, tc.agrees, tc.reason)
		}
		kept = append(kept, tc.v)
	}
	if len(env.Verdicts()) != 0 {
		t.Fatalf("the constructors kept %d verdicts in the environment; they must keep none", len(env.Verdicts()))
	}
	env.Keep(kept)
	v := Within("E90", "a", 75, 60, 1, "%")
	if v.Agrees {
		t.Errorf("re-run verdict: %v", v)
	}
	env.Keep(Verdicts{v})
	vs := env.Verdicts()
	if len(vs) != 9 || vs[0].Claim != "a" || vs[0].Agrees {
		t.Fatalf("recorded %d verdicts, first %v; want 9, the first replaced by its re-run", len(vs), vs[0])
	}
	if vs.agreeing() != 4 {
		t.Errorf("%d agree, want 4", vs.agreeing())
	}
	for _, s := range []string{vs.String(), vs.Markdown(), vs.HTML()} {
		if !strings.Contains(s, "4 of 9 agree") || !strings.Contains(s, "differs") || !strings.Contains(s, "≥ 0.99 (± 0.01)") {
			t.Errorf("rendering lacks the title, a verdict or a bound:\n%s", s)
		}
	}
	if j := vs.JSON(); len(j) != 9 || j[1]["verdict"] != "differs" {
		t.Errorf("JSON %v", j)
	}
}

// TestVerdictsRegistered runs the experiments that state verdicts at the
// small scale: each report carries verdicts of its own experiment, and
// the summary line names a claim and a verdict.
func TestVerdictsRegistered(t *testing.T) {
	env := small(t)
	for _, e := range registered() {
		if !judged[e.ID] {
			continue
		}
		r := Run(env, e)
		if r.Status != OK {
			t.Fatalf("%s: %s: %s", e.ID, r.Status, r.Err)
		}
		if len(r.Verdicts) == 0 {
			t.Errorf("%s is judged but its report has no verdicts", e.ID)
		}
		for _, v := range r.Verdicts {
			if v.ID != e.ID || v.Claim == "" || v.Lab == "" || v.Reason == "" {
				t.Errorf("%s: incomplete verdict %+v", e.ID, v)
			}
		}
		line := summaryLine(r)
		if !strings.Contains(line, r.Verdicts[0].Claim[:10]) && !strings.Contains(line, "differs") {
			t.Errorf("%s summary %q", e.ID, line)
		}
		t.Log(line)
	}
}
