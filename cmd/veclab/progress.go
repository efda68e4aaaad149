package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progressBar draws a long step's progress on one terminal line, redrawn
// in place with a carriage return: the step's name, a bar, done of total
// and the time left, extrapolated from the step's elapsed time. A new step
// (another name, or done going back) starts a new line.
type progressBar struct {
	w     io.Writer
	now   func() time.Time
	what  string
	start time.Time
	last  time.Time // last redraw, to redraw at most every 100 ms
	open  bool      // a line is drawn and not yet ended
	prev  int
}

const barWidth = 30

func newProgressBar(w io.Writer) *progressBar { return &progressBar{w: w, now: time.Now} }

// update is an experiment.Env Progress function.
func (p *progressBar) update(done, total int, what string) {
	t := p.now()
	if what != p.what || done < p.prev {
		p.end()
		p.what, p.start, p.last = what, t, time.Time{}
	}
	p.prev = done
	if total <= 0 {
		return
	}
	if done < total && !p.last.IsZero() && t.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = t
	fill := min(barWidth*done/total, barWidth)
	left := "…"
	if done > 0 {
		el := t.Sub(p.start)
		left = (time.Duration(float64(el) * float64(total-done) / float64(done))).Round(time.Second).String()
	}
	if done >= total {
		left = "0s"
	}
	fmt.Fprintf(p.w, "\r  %s [%s%s] %d/%d, %s left\x1b[K", what, strings.Repeat("#", fill), strings.Repeat(".", barWidth-fill), done, total, left)
	p.open = true
	if done >= total {
		p.end()
	}
}

// end finishes the current line, if one is drawn.
func (p *progressBar) end() {
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}

// progressLines prints a long step's progress as lines (for -progress on a
// non-terminal): the first update of a step, every tenth, and the last.
func progressLines(w io.Writer) func(done, total int, what string) {
	last := ""
	return func(done, total int, what string) {
		if what != last || done == total || done%max(total/10, 1) == 0 {
			fmt.Fprintf(w, "  %s: %d/%d\n", what, done, total)
			last = what
		}
	}
}
