package experiment

import (
	"fmt"
	"math"
	"strings"

	"github.com/veclab/veclab/lab/table"
)

// Verdict compares one of the lab's figures with one of the article's
// claims: the claim in words, the article's figure (or bound) and the
// tolerance the comparison allows, the lab's figure, whether they agree,
// and a one-line reason. Each experiment package's Verdicts function
// builds them with the constructors ([Within], [AtLeast], [AtMost],
// [Holds], [FasterRounds], [Direction], with [Toward]
// for a claim's direction), which compute Agrees, the margin and
// Reason from the numbers, so a verdict is never typed in, and returns
// them: the runner attaches what an experiment's Run returns to its
// report, and a notebook cell keeps what it states with [Env.Keep], so
// its last cell lists them all with [Env.Verdicts].
type Verdict struct {
	ID      string // the experiment, e.g. "E22"
	Claim   string // the article's claim, in words
	Article string // the article's figure as printed, with the tolerance ("≥ 74 % (± 1)")
	Lab     string // the lab's figure
	Agrees  bool
	Reason  string // one line: why it agrees or differs
	// Direction is the direction the claim states, as a comparison with
	// the neutral figure ("> 1×": faster; "< 0 %": fewer), empty for a
	// claim that states none. A verdict with a direction never agrees
	// with a lab figure on the other side of the neutral one, whatever
	// its tolerance ([Direction], [Toward], [FasterRounds]).
	Direction string
	// Margin is how far the lab's figure is from flipping the verdict, in
	// the figure's unit ("+0.12×": an agreeing figure 0.12× inside its
	// band; "−0.31×": a differing one 0.31× outside it), empty where the
	// verdict has no figure and band (a [Holds]).
	Margin string
	band   band // the figure and band the verdict was judged on, when numeric
}

// band is a numeric verdict's figure and the interval in which it
// agrees: [lo, hi], or (lo, hi] / [lo, hi) at an open end (a direction
// never agrees at the neutral figure itself).
type band struct {
	set            bool
	art, lab       float64 // the article's figure (NaN where it is words) and the lab's
	lo, hi         float64
	openLo, openHi bool
	unit           string
}

// judge sets v's band, whether it agrees (lab within [lo, hi], an open
// end excluded) and its margin; reasons are the caller's.
func (v *Verdict) judge(art, lab, lo, hi float64, openLo, openHi bool, unit string) {
	v.band = band{set: true, art: art, lab: lab, lo: lo, hi: hi, openLo: openLo, openHi: openHi, unit: unit}
	in := lab >= lo && lab <= hi && !(openLo && lab == lo) && !(openHi && lab == hi)
	v.Agrees = in && !math.IsNaN(lab)
	v.Margin = ""
	if m := v.MarginValue(); !math.IsNaN(m) {
		v.Margin = fmtSigned(m, unit)
	}
}

// MarginValue is Margin as a number in the figure's unit: positive, how
// far an agreeing figure may move before it differs; negative, how far a
// differing one must move to agree; NaN without a numeric band.
func (v Verdict) MarginValue() float64 {
	b := v.band
	if !b.set || math.IsNaN(b.lab) {
		return math.NaN()
	}
	return math.Min(b.lab-b.lo, b.hi-b.lab)
}

// fmtSigned prints a margin with its sign and unit ("+0.12×", "−3 %").
func fmtSigned(x float64, unit string) string {
	if math.IsInf(x, 0) {
		return ""
	}
	if x < 0 {
		return "−" + FmtFig(-x, unit)
	}
	return "+" + FmtFig(x, unit)
}

// word returns "agrees" or "differs".
func (v Verdict) Word() string {
	if v.Agrees {
		return "agrees"
	}
	return "differs"
}

// String prints the verdict on one line.
func (v Verdict) String() string {
	s := fmt.Sprintf("%s %s: %s", v.ID, v.Word(), v.Claim)
	if v.Article != "" || v.Lab != "" {
		s += fmt.Sprintf(" — article %s, lab %s", v.Article, v.Lab)
	}
	if v.Margin != "" {
		s += ", margin " + v.Margin
	}
	if v.Reason != "" {
		s += " (" + v.Reason + ")"
	}
	return s
}

// fmtFig prints a figure with its unit, with up to three significant
// decimals (0.989, 24.8, 1300).
func FmtFig(x float64, unit string) string {
	var s string
	switch {
	case math.IsNaN(x):
		return "not measured"
	case math.Abs(x) >= 100 || x == math.Trunc(x):
		s = fmt.Sprintf("%.0f", x)
	case math.Abs(x) >= 10:
		s = fmt.Sprintf("%.1f", x)
	default:
		s = fmt.Sprintf("%.3g", x)
	}
	switch unit {
	case "":
	case "×":
		s += "×"
	default:
		s += " " + unit
	}
	return s
}

func tolText(tol float64, unit string) string {
	if tol == 0 {
		return ""
	}
	return " (± " + FmtFig(tol, unit) + ")"
}

// Within is the verdict that the lab's figure agrees with the article's value
// when |lab − article| ≤ tol (unit is printed after both).
func Within(id, claim string, article, lab, tol float64, unit string) Verdict {
	v := Verdict{ID: id, Claim: claim, Article: FmtFig(article, unit) + tolText(tol, unit), Lab: FmtFig(lab, unit)}
	v.judge(article, lab, article-tol, article+tol, false, false, unit)
	d := lab - article
	switch {
	case math.IsNaN(lab):
		v.Reason = "the lab did not measure it"
	case v.Agrees:
		v.Reason = fmt.Sprintf("within the tolerance (off by %s)", FmtFig(math.Abs(d), unit))
	default:
		v.Reason = fmt.Sprintf("off by %s, more than %s", FmtFig(math.Abs(d), unit), FmtFig(tol, unit))
	}
	return v
}

// AtLeast is the verdict that the lab's figure agrees with a claim "at least
// bound" when lab ≥ bound − tol.
func AtLeast(id, claim string, bound, lab, tol float64, unit string) Verdict {
	v := Verdict{ID: id, Claim: claim, Article: "≥ " + FmtFig(bound, unit) + tolText(tol, unit), Lab: FmtFig(lab, unit)}
	v.judge(bound, lab, bound-tol, math.Inf(1), false, false, unit)
	switch {
	case math.IsNaN(lab):
		v.Reason = "the lab did not measure it"
	case lab >= bound:
		v.Reason = "at or above the bound"
	case v.Agrees:
		v.Reason = fmt.Sprintf("below the bound by %s, within the tolerance", FmtFig(bound-lab, unit))
	default:
		v.Reason = fmt.Sprintf("below the bound by %s", FmtFig(bound-lab, unit))
	}
	return v
}

// AtMost is the verdict that the lab's figure agrees with a claim "at most
// bound" when lab ≤ bound + tol.
func AtMost(id, claim string, bound, lab, tol float64, unit string) Verdict {
	v := Verdict{ID: id, Claim: claim, Article: "≤ " + FmtFig(bound, unit) + tolText(tol, unit), Lab: FmtFig(lab, unit)}
	v.judge(bound, lab, math.Inf(-1), bound+tol, false, false, unit)
	switch {
	case math.IsNaN(lab):
		v.Reason = "the lab did not measure it"
	case lab <= bound:
		v.Reason = "at or below the bound"
	case v.Agrees:
		v.Reason = fmt.Sprintf("above the bound by %s, within the tolerance", FmtFig(lab-bound, unit))
	default:
		v.Reason = fmt.Sprintf("above the bound by %s", FmtFig(lab-bound, unit))
	}
	return v
}

// Direction is the verdict on the direction alone of a claim that states
// one: the article's figure lies on one side of neutral, the figure of
// no change (1× for a ratio, 0 for a change in per cent), and the
// verdict agrees when the lab's lies on the same side by more than noise
// (the run-to-run noise the caller states and justifies before the run;
// 0 for a figure that does not wobble, such as a count of distances).
// A claim that states a magnitude as well gets a second verdict on it
// ([Within] … with [Toward]), so "the direction agrees, the magnitude
// differs" reads off two lines.
func Direction(id, claim string, article, lab, neutral, noise float64, unit string) Verdict {
	up := article > neutral
	bar, dir := neutral+noise, "> "
	if !up {
		bar, dir = neutral-noise, "< "
	}
	dir += FmtFig(bar, unit)
	v := Verdict{ID: id, Claim: claim, Article: FmtFig(article, unit) + " (direction " + dir + ")", Lab: FmtFig(lab, unit), Direction: dir}
	if math.IsNaN(article) || article == neutral {
		v.Reason = fmt.Sprintf("the article's figure %s states no direction from %s", FmtFig(article, unit), FmtFig(neutral, unit))
		return v
	}
	if up {
		v.judge(article, lab, bar, math.Inf(1), true, false, unit)
	} else {
		v.judge(article, lab, math.Inf(-1), bar, false, true, unit)
	}
	side := (lab - neutral) * (article - neutral)
	switch {
	case math.IsNaN(lab):
		v.Reason = "the lab did not measure it"
	case v.Agrees && noise > 0:
		v.Reason = fmt.Sprintf("the article's direction, beyond the noise ± %s", FmtFig(noise, unit))
	case v.Agrees:
		v.Reason = "the article's direction"
	case side > 0:
		v.Reason = fmt.Sprintf("the article's direction, but within the noise ± %s of %s", FmtFig(noise, unit), FmtFig(neutral, unit))
	default:
		v.Reason = fmt.Sprintf("the opposite direction: %s against the article's %s, either side of %s", FmtFig(lab, unit), FmtFig(article, unit), FmtFig(neutral, unit))
	}
	return v
}

// Toward makes v, a verdict with a figure and a band ([Within],
// [WithinShare], [AtLeast], [AtMost]), one on a claim
// that states a direction as well: the article's figure lies on one side
// of neutral (1× for a ratio, 0 for a change), and the band is cut at
// neutral, so v agrees only when the lab's figure lies strictly on the
// article's side. A tolerance, however wide, never reaches across to the
// opposite direction. A verdict without a band (a [Holds]), one with a
// direction already, or an article's figure at neutral is returned
// unchanged.
func Toward(v Verdict, neutral float64) Verdict {
	b := v.band
	if !b.set || v.Direction != "" || math.IsNaN(b.art) || b.art == neutral {
		return v
	}
	was := v.Agrees
	lo, hi, openLo, openHi, dir := b.lo, b.hi, b.openLo, b.openHi, "> "
	if b.art > neutral {
		if lo <= neutral {
			lo, openLo = neutral, true
		}
	} else {
		dir = "< "
		if hi >= neutral {
			hi, openHi = neutral, true
		}
	}
	dir += FmtFig(neutral, b.unit)
	v.judge(b.art, b.lab, lo, hi, openLo, openHi, b.unit)
	v.Direction = dir
	v.Article += " (direction " + dir + ")"
	if opposite := (b.lab - neutral) * (b.art - neutral); opposite <= 0 && !math.IsNaN(b.lab) {
		if was {
			v.Reason = fmt.Sprintf("the opposite direction: %s against the article's %s, either side of %s, though within the tolerance, which may not reach across", FmtFig(b.lab, b.unit), FmtFig(b.art, b.unit), FmtFig(neutral, b.unit))
		} else {
			v.Reason += fmt.Sprintf("; the opposite direction too (either side of %s)", FmtFig(neutral, b.unit))
		}
	}
	return v
}

// Holds is the verdict on a claim about a direction or an order ("faster",
// "a 4-bit query beats a 1-bit one"): article is the claim's figure in
// words, lab the lab's figures that decide it, ok whether they bear it
// out and reason the one-line why.
func Holds(id, claim, article, lab string, ok bool, reason string) Verdict {
	return Verdict{ID: id, Claim: claim, Article: article, Lab: lab, Agrees: ok, Reason: reason}
}

// Keep keeps verdicts for the notebook's closing list ([Env.Verdicts])
// and returns them as kept: a verdict with the same experiment and claim
// as one kept earlier replaces it (a re-run cell), and on a real data set
// ([Env.UseData]) each claim ends with the set's name ([onData]), so
// verdicts gathered from several sets (notebook 14) say which finding
// holds on which data. The verdict constructors ([Within], [AtLeast],
// [AtMost], [Holds]) keep nothing: a cell keeps what it states, e.g.
//
//	env.Keep(e06.Verdicts(env, ms))
func (e *Env) Keep(vs Verdicts) Verdicts {
	vs = e.tag(vs)
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, v := range vs {
		e.verdicts = replaceOrAppend(e.verdicts, v)
	}
	return vs
}

// tag returns the verdicts with their claims ending with the data set's
// name on a real data set, the later of two with the same experiment and
// claim in the place of the first.
func (e *Env) tag(vs Verdicts) Verdicts {
	var out Verdicts
	for _, v := range vs {
		if e.real != nil {
			v.Claim = onData(v.Claim, e.real.name)
		}
		out = replaceOrAppend(out, v)
	}
	return out
}

// replaceOrAppend puts v in the place of the verdict with its experiment
// and claim, or at the end.
func replaceOrAppend(vs Verdicts, v Verdict) Verdicts {
	for i, w := range vs {
		if w.ID == v.ID && w.Claim == v.Claim {
			vs[i] = v
			return vs
		}
	}
	return append(vs, v)
}

// onData ends a claim with the data set it was measured on: "… (on
// glove-100k)". A claim that already names it (a verdict recorded again
// after its reason was extended, as E24's is) is returned unchanged.
func onData(claim, set string) string {
	tag := " (on " + set + ")"
	if strings.HasSuffix(claim, tag) {
		return claim
	}
	return claim + tag
}

// Verdicts returns every verdict kept in this environment so far
// ([Env.Keep]), in the order first kept: a notebook's last cell shows them.
func (e *Env) Verdicts() Verdicts {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append(Verdicts(nil), e.verdicts...)
}

// Verdicts is a list of verdicts; it renders as a table (text, Markdown,
// HTML) and as JSON, like the lab's tables.
type Verdicts []Verdict

// agreeing counts the verdicts that agree.
func (vs Verdicts) agreeing() int {
	n := 0
	for _, v := range vs {
		if v.Agrees {
			n++
		}
	}
	return n
}

// Table returns the verdicts as a table: experiment, claim, article, lab,
// verdict, margin (how far the lab's figure is from flipping it),
// reason.
func (vs Verdicts) Table() *table.Table {
	t := table.New(fmt.Sprintf("Verdicts: %d of %d agree with the articles", vs.agreeing(), len(vs)),
		table.Col("experiment", ""), table.Col("the article's claim", ""), table.Col("article", ""),
		table.Col("lab", ""), table.Col("verdict", ""), table.Col("margin", ""), table.Col("why", ""))
	for _, v := range vs {
		_ = t.AddValues(v.ID, v.Claim, v.Article, v.Lab, v.Word(), v.Margin, v.Reason)
	}
	t.Note("margin: how far the lab's figure may move before its verdict flips (+, it agrees with that much to spare) or must move to flip it (−, it differs by that much); empty for a verdict read off words, not a figure")
	return t
}

// String renders the verdicts as a text table.
func (vs Verdicts) String() string { return vs.Table().String() }

// Markdown renders the verdicts as a Markdown table.
func (vs Verdicts) Markdown() string { return vs.Table().Markdown() }

// HTML renders the verdicts as an HTML table.
func (vs Verdicts) HTML() string { return vs.Table().HTML() }

// JSON returns the verdicts as a JSON-ready list of objects (id, claim,
// article, lab, verdict, reason, direction, margin as printed and
// margin_value as a number or null): the notebook tests compare it with
// the committed expectations.
func (vs Verdicts) JSON() []map[string]any {
	out := make([]map[string]any, len(vs))
	for i, v := range vs {
		var m any
		if x := v.MarginValue(); !math.IsNaN(x) && !math.IsInf(x, 0) {
			m = x
		}
		out[i] = map[string]any{"id": v.ID, "claim": v.Claim, "article": v.Article, "lab": v.Lab, "verdict": v.Word(), "reason": v.Reason,
			"direction": v.Direction, "margin": v.Margin, "margin_value": m}
	}
	return out
}

// conventions is the line [Env.About] gives a notebook's set-up cell: the
// seed (the default of `veclab reproduce` too) and what recall@k means in
// it.
func conventions(env *Env, k int) string {
	return fmt.Sprintf("conventions: seed %d (veclab reproduce's default too, so both print the same recall figures); recall@%d = the share of the exact top %d (brute force over all %d documents) a query returns, averaged over the queries; timings vary, recall does not",
		env.Seed, k, k, env.Scale.N)
}

// Because returns v with why appended to its reason: why it agrees or
// differs, when the numbers alone do not say.
func Because(v Verdict, why string) Verdict {
	if why == "" {
		return v
	}
	v.Reason += "; " + why
	return v
}

// WithinShare is Within with a tolerance of share × article (a
// relative tolerance, e.g. 0.25 for ± 25 %).
func WithinShare(id, claim string, article, lab, share float64, unit string) Verdict {
	return Within(id, claim, article, lab, share*math.Abs(article), unit)
}

// WithinFactor is the verdict that the lab's figure agrees with the
// article's within a factor (article/factor ≤ lab ≤ article·factor, e.g.
// 2 for "the same order of magnitude on another machine"): the band for a
// timing carried across machines, whose rule the caller states.
func WithinFactor(id, claim string, article, lab, factor float64, unit string) Verdict {
	v := Verdict{ID: id, Claim: claim, Article: FmtFig(article, unit) + " (×/÷ " + FmtFig(factor, "") + ")", Lab: FmtFig(lab, unit)}
	v.judge(article, lab, article/factor, article*factor, false, false, unit)
	r := lab / article
	switch {
	case math.IsNaN(lab):
		v.Reason = "the lab did not measure it"
	case v.Agrees:
		v.Reason = fmt.Sprintf("%.2f× the article's figure, within ×/÷ %s", r, FmtFig(factor, ""))
	default:
		v.Reason = fmt.Sprintf("%.2f× the article's figure, beyond ×/÷ %s", r, FmtFig(factor, ""))
	}
	return v
}

// ofN prints a count of cases that bear a claim out, "n of m".
func OfN(n, m int) string { return fmt.Sprintf("%d of %d", n, m) }

// why picks the reason of a verdict: ifAgrees when ok, else ifDiffers.
func Why(ok bool, ifAgrees, ifDiffers string) string {
	if ok {
		return ifAgrees
	}
	return ifDiffers
}
