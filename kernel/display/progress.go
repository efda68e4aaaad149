package display

import (
	"fmt"
	"html"
	"sync"
	"time"

	"github.com/veclab/veclab/kernel/internal/hook"
)

// ProgressEvery is the least time between two updates of a progress
// display: reports in between are dropped, except the first of a step and
// the one that completes it (a build that reports every vector would
// otherwise send thousands of messages a second).
const ProgressEvery = 200 * time.Millisecond

// Progress returns a progress reporter with the signature of
// lab/experiment's Env.Progress and profile.BuildOptions.Progress: each
// call shows "what: done of total" as a bar (text/html <progress>, and
// text/plain) with the time the step has taken and the time it has left,
// in one display updated in place.
//
// The display is transient: when the cell that showed it ends, the
// evaluation core takes it away, so no progress line stays in the cell's
// outputs (nor in a saved notebook). A reporter made in one cell and called
// in a later one shows a new display in that cell. A step starts when what
// changes or done goes back; its elapsed time counts from its first report.
//
//	env.Progress = display.Progress()
//
// Outside a kernel the text form goes to standard error. The reporter is
// safe for concurrent use.
func Progress() func(done, total int, what string) {
	p := &progress{}
	return p.report
}

// progress is the state of one reporter.
type progress struct {
	mu    sync.Mutex // guards the fields below
	h     *Handle    // the display; nil before the first report
	cell  uint64     // hook.Cell() when h was made
	what  string     // the step
	done  int        // its last reported count
	start time.Time  // its first report
	last  time.Time  // the last update sent
}

func (p *progress) report(done, total int, what string) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	cell := hook.Cell()
	fresh := p.h == nil || p.cell != cell
	if fresh {
		p.h, p.cell = NewHandle(), cell
	}
	switch {
	case fresh || what != p.what || done < p.done:
		p.what, p.start = what, now
	case now.Sub(p.last) < ProgressEvery && !(total > 0 && done >= total):
		p.done = done
		return
	}
	p.done, p.last = done, now
	p.h.showTransient(ProgressBundle(done, total, what, now.Sub(p.start)))
}

// ProgressBundle is the bundle a progress display shows: the step, done of
// total with its percentage, the elapsed time and, once something is done,
// the time left at the rate so far. total ≤ 0 means unknown (no bar).
func ProgressBundle(done, total int, what string, elapsed time.Duration) Bundle {
	line := fmt.Sprintf("%s: %d", what, done)
	bar := `<progress style="width:16em;vertical-align:middle"></progress>`
	if total > 0 {
		d := min(max(done, 0), total)
		line += fmt.Sprintf(" of %d (%d %%)", total, 100*d/total)
		bar = fmt.Sprintf(`<progress style="width:16em;vertical-align:middle" value="%d" max="%d"></progress>`, d, total)
	}
	line += " · " + shortDuration(elapsed)
	if total > 0 && done > 0 && done < total && elapsed > 0 {
		left := time.Duration(float64(elapsed) * float64(total-done) / float64(done))
		line += ", about " + shortDuration(left) + " left"
	}
	return Bundle{
		MIMEText: line,
		MIMEHTML: `<div class="veclab-progress">` + bar + " <code>" + html.EscapeString(line) + "</code></div>",
	}
}

// shortDuration writes d as "0.4 s", "12 s", "3 min 05 s" or "1 h 02 min".
func shortDuration(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		s := int(d.Round(time.Second).Seconds())
		return fmt.Sprintf("%d min %02d s", s/60, s%60)
	}
	m := int(d.Round(time.Minute).Minutes())
	return fmt.Sprintf("%d h %02d min", m/60, m%60)
}
