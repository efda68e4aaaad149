package exercise

import (
	"errors"
	"fmt"
	"html"
	"math"
	"strings"
)

// ErrBadArgument is returned (wrapped) by a constructor given an argument
// it cannot check against, such as a nil environment.
var ErrBadArgument = errors.New("exercise: bad argument")

// Exercise is one question with its check, hint and solution. Make one with
// its constructor (SmallestEf, RecallFunc, …); the zero value checks
// nothing and says so.
type Exercise struct {
	// Name is the constructor's name, Question what the learner is asked.
	Name, Question string
	hint           string
	solution       string // Go, as a learner would write it in the cell
	// check runs the answer against the lab: ok, and what the lab measured.
	check func(answer any) (ok bool, detail string, err error)
	// right computes the solution's value (the compiled twin of solution);
	// wrong is one plausible wrong answer. Both are for the package's test.
	right func() (any, error)
	wrong any
}

// Check runs answer against the lab and returns the verdict. A wrong answer,
// an answer of the wrong type and a func that panics all give a Result that
// is not Correct, with the hint; Check never panics.
func (e *Exercise) Check(answer any) (r Result) {
	if e == nil || e.check == nil {
		return Result{Exercise: "?", Detail: "this exercise was not made by its constructor (exercise.SmallestEf() and the like)"}
	}
	r = Result{Exercise: e.Name}
	defer func() {
		if p := recover(); p != nil {
			r.Correct, r.Detail, r.Hint = false, fmt.Sprintf("your answer panicked: %v", p), e.hint
		}
	}()
	ok, detail, err := e.check(answer)
	switch {
	case err != nil:
		r.Detail = err.Error()
	case ok:
		r.Correct, r.Detail = true, detail
		return r
	default:
		r.Detail = detail
	}
	r.Hint = e.hint
	return r
}

// Hint returns the exercise's hint alone.
func (e *Exercise) Hint() Note {
	if e == nil {
		return Note{}
	}
	return Note{Title: e.Name + ": hint", Text: e.hint}
}

// Solution returns the code of a solution, as a learner would write it in
// the exercise's cell.
func (e *Exercise) Solution() Note {
	if e == nil {
		return Note{}
	}
	return Note{Title: e.Name + ": a solution", Code: e.solution}
}

// String is the question.
func (e *Exercise) String() string {
	if e == nil {
		return "<nil exercise>"
	}
	return e.Name + ": " + e.Question
}

// Markdown is the question, for a notebook cell.
func (e *Exercise) Markdown() string {
	return "**" + e.Name + "**: " + e.Question
}

// HTML is the question, for a notebook cell.
func (e *Exercise) HTML() string {
	return "<p><b>" + html.EscapeString(e.Name) + "</b>: " + html.EscapeString(e.Question) + "</p>"
}

// Result is the verdict on one answer: right or wrong, what the lab
// measured for it, and (when wrong) the exercise's hint.
type Result struct {
	Exercise string
	Correct  bool
	Detail   string // what the lab found for this answer
	Hint     string // empty when Correct
}

func (r Result) verdict() string {
	if r.Correct {
		return "✓ correct"
	}
	return "✗ not yet"
}

// String is the verdict in plain text.
func (r Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s — %s", r.Exercise, r.verdict())
	if r.Detail != "" {
		b.WriteString(": " + r.Detail)
	}
	if r.Hint != "" {
		b.WriteString("\nhint: " + r.Hint)
	}
	return b.String()
}

// Markdown is the verdict for a notebook.
func (r Result) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s — %s**", r.Exercise, r.verdict())
	if r.Detail != "" {
		b.WriteString(": " + r.Detail)
	}
	if r.Hint != "" {
		b.WriteString("\n\n*Hint:* " + r.Hint)
	}
	return b.String()
}

// HTML is the verdict for a notebook: a green or red box.
func (r Result) HTML() string {
	colour := "#b71c1c"
	if r.Correct {
		colour = "#1b5e20"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<div style="border-left:4px solid %s;padding:0.3em 0.8em"><b style="color:%s">%s — %s</b>`,
		colour, colour, html.EscapeString(r.Exercise), r.verdict())
	if r.Detail != "" {
		b.WriteString(": " + html.EscapeString(r.Detail))
	}
	if r.Hint != "" {
		b.WriteString("<br><i>Hint:</i> " + html.EscapeString(r.Hint))
	}
	b.WriteString("</div>")
	return b.String()
}

// Note is a hint or a solution: a title, prose or Go code.
type Note struct {
	Title, Text, Code string
}

// String is the note in plain text.
func (n Note) String() string {
	if n.Code != "" {
		return n.Title + ":\n" + n.Code
	}
	return n.Title + ": " + n.Text
}

// Markdown is the note for a notebook, code in a Go block.
func (n Note) Markdown() string {
	if n.Code != "" {
		return "**" + n.Title + "**\n\n```go\n" + n.Code + "\n```"
	}
	return "**" + n.Title + "**: " + n.Text
}

// HTML is the note for a notebook, code in a pre block.
func (n Note) HTML() string {
	if n.Code != "" {
		return "<p><b>" + html.EscapeString(n.Title) + "</b></p><pre><code>" + html.EscapeString(n.Code) + "</code></pre>"
	}
	return "<p><b>" + html.EscapeString(n.Title) + "</b>: " + html.EscapeString(n.Text) + "</p>"
}

// asInt reads an integer answer of any Go integer type, or a float that
// is a whole number (a learner may write 15.0).
func asInt(answer any) (int, error) {
	switch v := answer.(type) {
	case int:
		return v, nil
	case int8:
		return int(v), nil
	case int16:
		return int(v), nil
	case int32:
		return int(v), nil
	case int64:
		return int(v), nil
	case uint:
		return int(v), nil
	case uint8:
		return int(v), nil
	case uint16:
		return int(v), nil
	case uint32:
		return int(v), nil
	case uint64:
		return int(v), nil
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<31 {
			return int(v), nil
		}
	case float32:
		if float64(v) == math.Trunc(float64(v)) && math.Abs(float64(v)) < 1<<31 {
			return int(v), nil
		}
	}
	return 0, fmt.Errorf("the answer should be a whole number, got %v (%T)", answer, answer)
}
