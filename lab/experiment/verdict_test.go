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
// small scale: each report carries verdicts of its own experiment, each
// a claim registered with the article's figure it is judged against
// (Experiment.Claims), and the summary line names a claim and a verdict.
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
		registered := map[string]string{}
		for _, c := range e.Claims {
			registered[c.Claim] = c.Article
		}
		for _, v := range r.Verdicts {
			if v.ID != e.ID || v.Claim == "" || v.Lab == "" || v.Reason == "" {
				t.Errorf("%s: incomplete verdict %+v", e.ID, v)
			}
			// Every claim a run states is registered before it, with
			// the article's figure and band it is judged against.
			if a, ok := registered[v.Claim]; !ok {
				t.Errorf("%s states a claim its registry entry lacks (add it to its claims.go): %q", e.ID, v.Claim)
			} else if a != v.Article {
				t.Errorf("%s: %q is judged against %q, registered as %q", e.ID, v.Claim, v.Article, a)
			}
		}
		line := summaryLine(r)
		if !strings.Contains(line, r.Verdicts[0].Claim[:10]) && !strings.Contains(line, "differs") {
			t.Errorf("%s summary %q", e.ID, line)
		}
		t.Log(line)
	}
}

// TestOppositeDirectionNeverAgrees: for every constructor that can carry
// a direction ([Direction], [FasterRounds], and [Within], [WithinShare],
// [AtLeast], [AtMost] through [Toward]), a lab figure on
// the other side of the neutral one, or on it, never agrees, however wide
// the band; the same figure on the article's side does agree (so the
// table could fail), and the margin's sign says which.
func TestOppositeDirectionNeverAgrees(t *testing.T) {
	rounds := func(xs ...float64) Rounds { return Rounds{Clock: WallTime, Ratios: xs} }
	for _, tc := range []struct {
		name        string
		same        func(lab float64) Verdict
		labSame     float64
		labsAgainst []float64
	}{
		{"Direction up",
			func(lab float64) Verdict { return Direction("E90", "faster", 1.13, lab, 1, 0, "×") },
			1.05, []float64{1, 0.99, 0.8, 0}},
		{"Direction down",
			func(lab float64) Verdict { return Direction("E90", "fewer", -60, lab, 0, 0, "%") },
			-9, []float64{0, 0.5, 9, 60}},
		{"Within up (± 0.37 reaches below 1×)",
			func(lab float64) Verdict { return Toward(Within("E90", "faster", 1.13, lab, 0.37, "×"), 1) },
			1.01, []float64{1, 0.99, 0.8}},
		{"Within down (± 100 reaches above 0)",
			func(lab float64) Verdict { return Toward(Within("E90", "fewer", -60, lab, 100, "%"), 0) },
			-1, []float64{0, 1, 30}},
		{"WithinShare up (± 90 %)",
			func(lab float64) Verdict { return Toward(WithinShare("E90", "higher", 5.5, lab, 0.9, "×"), 1) },
			1.19, []float64{1, 0.9, 0.6}},
		{"WithinFactor up (×/÷ 4 reaches below 1×)",
			func(lab float64) Verdict { return Toward(WithinFactor("E90", "faster", 2, lab, 4, "×"), 1) },
			1.1, []float64{1, 0.9, 0.6}},
		{"AtLeast up (tolerance 5× below a 2× bound)",
			func(lab float64) Verdict { return Toward(AtLeast("E90", "at least twice as fast", 2, lab, 5, "×"), 1) },
			1.2, []float64{1, 0.5, -2}},
		{"AtMost down (tolerance 50 above a −10 bound)",
			func(lab float64) Verdict { return Toward(AtMost("E90", "at least 10 fewer", -10, lab, 50, ""), 0) },
			-0.5, []float64{0, 5, 39}},
		{"FasterRounds",
			func(lab float64) Verdict {
				return FasterRounds("E90", "faster", "faster", rounds(lab, lab, lab, lab, lab), 0.13, "", "")
			},
			1.2, []float64{1.13, 1, 0.8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if v := tc.same(tc.labSame); !v.Agrees || v.MarginValue() <= 0 || v.Direction == "" || !strings.HasPrefix(v.Margin, "+") {
				t.Errorf("lab %v on the article's side: %v (margin %v, direction %q); want agrees with a positive margin", tc.labSame, v, v.MarginValue(), v.Direction)
			}
			for _, lab := range tc.labsAgainst {
				v := tc.same(lab)
				if v.Agrees || v.MarginValue() > 0 {
					t.Errorf("lab %v, not the article's direction: %v (margin %v); want differs", lab, v, v.MarginValue())
				}
			}
		})
	}
	// Toward leaves a verdict without a band, or one with a direction, as it is.
	h := Holds("E90", "i", "faster", "3×", true, "3× faster")
	if w := Toward(h, 1); w != h || w.Margin != "" {
		t.Errorf("Toward(Holds) = %v", w)
	}
	d := Direction("E90", "faster", 1.13, 1.05, 1, 0, "×")
	if w := Toward(d, 2); w.Article != d.Article || !w.Agrees {
		t.Errorf("Toward twice: %v", w)
	}
	if v := Toward(Within("E90", "faster", 1.13, 0.8, 0.37, "×"), 1); !strings.Contains(v.Reason, "the opposite direction") || !strings.Contains(v.Article, "direction > 1×") {
		t.Errorf("opposite direction's reason: %v", v)
	}
}

// TestVerdictMargin: the margin is the distance to the band's nearer edge,
// signed (+ agrees, − differs), printed in the verdict's line, table and
// JSON.
func TestVerdictMargin(t *testing.T) {
	for _, tc := range []struct {
		v    Verdict
		want float64
		text string
	}{
		{Within("E90", "a", 75, 74.7, 1, "%"), 0.7, "+0.7 %"},
		{Within("E90", "b", 75, 73.9, 1, "%"), -0.1, "−0.1 %"},
		{AtLeast("E90", "c", 0.99, 0.995, 0.01, ""), 0.015, "+0.015"},
		{AtMost("E90", "d", 10, 12, 1, "ms"), -1, "−1 ms"},
		{Direction("E90", "e", 5.5, 1.19, 1, 0, "×"), 0.19, "+0.19×"},
		{Toward(Within("E90", "f", 1.13, 0.8, 0.37, "×"), 1), -0.2, "−0.2×"},
	} {
		if got := tc.v.MarginValue(); math.Abs(got-tc.want) > 1e-9 || tc.v.Margin != tc.text {
			t.Errorf("%s: margin %v (%q), want %v (%q)", tc.v.Claim, got, tc.v.Margin, tc.want, tc.text)
		}
	}
	if v := Within("E90", "g", 32, math.NaN(), 1, "×"); v.Margin != "" || !math.IsNaN(v.MarginValue()) {
		t.Errorf("unmeasured margin %q", v.Margin)
	}
	vs := Verdicts{Within("E90", "a", 75, 74.7, 1, "%"), Holds("E90", "h", "x", "y", true, "z")}
	if !strings.Contains(vs[0].String(), "margin +0.7 %") || !strings.Contains(vs.String(), "margin") {
		t.Errorf("margin not printed:\n%s\n%s", vs[0], vs)
	}
	j := vs.JSON()
	if j[0]["margin"] != "+0.7 %" || math.Abs(j[0]["margin_value"].(float64)-0.7) > 1e-9 || j[1]["margin_value"] != nil {
		t.Errorf("JSON margins %v %v", j[0], j[1])
	}
}

// TestWithinFactor: the band is [article/f, article·f], both ends in,
// and the margin is the distance to the nearer end.
func TestWithinFactor(t *testing.T) {
	for _, tc := range []struct {
		lab    float64
		agrees bool
		margin string
	}{
		{1.6, true, "+0.8 h"}, {0.8, true, "+0 h"}, {3.2, true, "+0 h"}, {0.79, false, "−0.01 h"}, {4, false, "−0.8 h"},
	} {
		v := WithinFactor("E90", "a build takes 1.6 h", 1.6, tc.lab, 2, "h")
		if v.Agrees != tc.agrees || v.Margin != tc.margin || v.Article != "1.6 h (×/÷ 2)" {
			t.Errorf("lab %g: agrees %v margin %q article %q, want %v %q", tc.lab, v.Agrees, v.Margin, v.Article, tc.agrees, tc.margin)
		}
	}
}

// TestOnDataTag checks the data set's tag on a claim: added once.
func TestOnDataTag(t *testing.T) {
	for _, c := range []struct{ claim, set, want string }{
		{"int8 cuts memory", "glove-3k", "int8 cuts memory (on glove-3k)"},
		{"int8 cuts memory (on glove-3k)", "glove-3k", "int8 cuts memory (on glove-3k)"},
		{"int8 cuts memory (on glove-3k)", "fortunes", "int8 cuts memory (on glove-3k) (on fortunes)"},
	} {
		if got := onData(c.claim, c.set); got != c.want {
			t.Errorf("onData(%q, %q) = %q, want %q", c.claim, c.set, got, c.want)
		}
	}
}
