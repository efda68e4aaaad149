package experiment

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"
)

// Run runs one experiment on env and always returns a report: an error, a
// missing mechanism (ErrNotRunnable) or a panic inside the experiment
// becomes the report's Status and Err, so one broken experiment never
// stops the others.
func Run(env *Env, e Experiment) *Report {
	start := time.Now()
	env.Logf("running %s: %s", e.ID, e.Title)
	r, err := runSafely(env, e)
	if r == nil {
		r = NewReport(e, env)
	}
	r.ID, r.Title, r.Article = e.ID, e.Title, e.Article
	if err == nil {
		r.Verdicts = env.tag(r.Verdicts)
	}
	r.Elapsed = time.Since(start)
	switch {
	case err == nil:
		r.Status = OK
	case errors.Is(err, ErrNotRunnable):
		r.Status, r.Err = NotRunnable, err.Error()
	default:
		r.Status, r.Err = Failed, err.Error()
	}
	return r
}

func runSafely(env *Env, e Experiment) (r *Report, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("experiment %s panicked: %v\n%s", e.ID, p, debug.Stack())
		}
	}()
	return e.Run(env)
}

// runAll runs the experiments in order on one environment (so they share
// its data set and stores) and returns their reports. Once
// engine.Context() is done (an interrupted cell) it runs no more.
func runAll(env *Env, exps []Experiment) []*Report {
	out := make([]*Report, 0, len(exps))
	for i, e := range exps {
		if i > 0 && interrupted() {
			break
		}
		env.Step(i, len(exps), "experiments")
		out = append(out, Run(env, e))
	}
	env.Step(len(exps), len(exps), "experiments")
	return out
}

// Summary is one line per experiment: for one that ran, its headline
// verdict (the first that differs, else the first) — the article's claim,
// the lab's figure, agrees or differs and why — with the count of its
// verdicts that agree; for one without verdicts, that it ran; for one
// that did not run, why.
func Summary(reports []*Report) string {
	var b strings.Builder
	for _, r := range reports {
		b.WriteString(summaryLine(r) + "\n")
	}
	return b.String()
}

// summaryLine is one report's line of [Summary].
func summaryLine(r *Report) string {
	if r.Status != OK {
		msg := r.Err
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return fmt.Sprintf("%-4s %-13s %s — %s", r.ID, r.Status, r.Title, msg)
	}
	if len(r.Verdicts) == 0 {
		return fmt.Sprintf("%-4s %-13s %s (tables only: the lab states no verdict for it yet)", r.ID, "ran", r.Title)
	}
	head := r.Verdicts[0]
	for _, v := range r.Verdicts {
		if !v.Agrees {
			head = v
			break
		}
	}
	word := "agrees"
	if r.Verdicts.agreeing() < len(r.Verdicts) {
		word = "differs"
	}
	line := fmt.Sprintf("%-4s %-13s %s: article %s, lab %s", r.ID, fmt.Sprintf("%s %d/%d", word, r.Verdicts.agreeing(), len(r.Verdicts)), head.Claim, head.Article, head.Lab)
	if head.Reason != "" {
		line += " — " + head.Reason
	}
	return line
}

// Counts are a run's verdicts counted: how many experiments stated
// verdicts and how many of them agree in every claim, how many claims
// were checked and how many differ, in which experiments (with how many
// each), and the experiments that did not run.
type Counts struct {
	Experiments int            // experiments that ran and stated verdicts
	AgreeAll    int            // of them, those whose every verdict agrees
	Claims      int            // verdicts checked
	Differ      int            // of them, those that differ
	Differing   []string       // the experiments with a verdict that differs, in run order
	PerID       map[string]int // how many differ in each of Differing
	NotRun      []string       // experiments that failed or could not run
}

// Count counts the verdicts of reports.
func Count(reports []*Report) Counts {
	c := Counts{PerID: map[string]int{}}
	for _, r := range reports {
		if r.Status != OK {
			c.NotRun = append(c.NotRun, r.ID)
			continue
		}
		if len(r.Verdicts) == 0 {
			continue
		}
		c.Experiments++
		c.Claims += len(r.Verdicts)
		d := len(r.Verdicts) - r.Verdicts.agreeing()
		if d == 0 {
			c.AgreeAll++
			continue
		}
		c.Differ += d
		c.Differing = append(c.Differing, r.ID)
		c.PerID[r.ID] = d
	}
	return c
}

// String is the closing line of a run: "20 of 27 experiments agree in
// every claim; 150 claims checked, 31 differ: E01 (2), E02 (2)".
func (c Counts) String() string {
	s := fmt.Sprintf("%d of %d experiments agree in every claim; %d claims checked, %d differ", c.AgreeAll, c.Experiments, c.Claims, c.Differ)
	if len(c.Differing) > 0 {
		ids := make([]string, len(c.Differing))
		for i, id := range c.Differing {
			ids[i] = fmt.Sprintf("%s (%d)", id, c.PerID[id])
		}
		s += ": " + strings.Join(ids, ", ")
	}
	if len(c.NotRun) > 0 {
		s += "; did not run: " + strings.Join(c.NotRun, ", ")
	}
	return s
}

// JSON returns the counts as a JSON-ready object (experiments,
// agree_all, claims, differ, differing as id → count, not_run, line).
func (c Counts) JSON() map[string]any {
	differing := map[string]any{}
	for _, id := range c.Differing {
		differing[id] = c.PerID[id]
	}
	notRun := append([]string{}, c.NotRun...)
	return map[string]any{"experiments": c.Experiments, "agree_all": c.AgreeAll, "claims": c.Claims, "differ": c.Differ,
		"differing": differing, "not_run": notRun, "line": c.String()}
}
