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
