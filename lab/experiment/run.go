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
	env.logf("running %s: %s", e.ID, e.Title)
	r, err := runSafely(env, e)
	if r == nil {
		r = NewReport(e, env)
	}
	r.ID, r.Title, r.Article = e.ID, e.Title, e.Article
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

// RunAll runs the experiments in order on one environment (so they share
// its data set and stores) and returns their reports. Once
// engine.Context() is done (an interrupted cell) it runs no more.
func RunAll(env *Env, exps []Experiment) []*Report {
	out := make([]*Report, 0, len(exps))
	for i, e := range exps {
		if i > 0 && interrupted() {
			break
		}
		env.progress(i, len(exps), "experiments")
		out = append(out, Run(env, e))
	}
	env.progress(len(exps), len(exps), "experiments")
	return out
}

// Summary is a one-line-per-experiment status list of reports.
func Summary(reports []*Report) string {
	var b strings.Builder
	for _, r := range reports {
		line := fmt.Sprintf("%-4s %-13s %s", r.ID, r.Status, r.Title)
		if r.Status != OK {
			msg := r.Err
			if i := strings.IndexByte(msg, '\n'); i >= 0 {
				msg = msg[:i]
			}
			line += " — " + msg
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
