package eval

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cosmos72/gomacro/fast"
	xr "github.com/cosmos72/gomacro/xreflect"
)

// %time and %timeit follow IPython's ExecutionMagics.time and .timeit
// (ipython/ipython, IPython/core/magics/execution.py at commit
// 2628f2ff8710ebff5424d508a0aadf97415a959a): the same output, the same
// choice of loops and runs, the same time format (_format_time).
//
// %timeit compiles the statement once (gomacro's parse, the session's
// rewrite, gomacro's compile) and then calls the compiled closure in a Go
// loop: a loop costs a closure call and a poll of the interrupt, not a
// parse or an env set-up (BenchmarkTimeitOverhead measures it). As in
// IPython the setup of %%timeit runs before each run, untimed; unlike
// IPython's, the statement runs in the session's scope (a := in it
// defines a session variable), and the garbage collector stays on (Go's
// runs concurrently; IPython switches Python's off while timing).

// magicPiece returns a magic's Go code: the body of a cell magic, or the
// arguments of a line magic on their cell line.
func (m magicCall) piece(code string, line int) string {
	return strings.Repeat("\n", line-1) + code
}

// magicTime is %time and %%time: compile, then run once, timing the run;
// print the CPU and wall times after what the code printed; the value is
// the cell's (IPython returns it as Out).
func (s *Session) magicTime(m magicCall) (vals []xr.Value, types []xr.Type, eerr *Error) {
	code := m.piece(m.args, m.argsLine)
	if m.bodyLine > 0 {
		if m.args != "" {
			return nil, nil, usageError(m.argsLine, "Can't use statement directly after '%%time'!")
		}
		code = m.body
	}
	var (
		st      *site
		f       fault
		running bool
	)
	defer func() {
		s.site = nil
		if r := recover(); r != nil {
			vals, types, eerr = nil, nil, failed(r, code, st, &f, running)
		}
	}()
	var e *fast.Expr
	t0 := time.Now()
	if strings.TrimSpace(code) != "" {
		e, st = s.compile(code)
	}
	tc := time.Since(t0)
	s.site, running = st, true
	u0, s0, cpu := cpuTimes()
	w0 := time.Now()
	vals, types = s.runExpr(e, st, &f)
	wall := time.Since(w0)
	u1, s1, _ := cpuTimes()
	running = false
	var b strings.Builder
	if cpu {
		user, sys := (u1 - u0).Seconds(), (s1 - s0).Seconds()
		fmt.Fprintf(&b, "CPU times: user %s, sys: %s, total: %s\n", formatTime(user, 3), formatTime(sys, 3), formatTime(user+sys, 3))
	}
	fmt.Fprintf(&b, "Wall time: %s\n", formatTime(wall.Seconds(), 3))
	if tc > 100*time.Millisecond {
		fmt.Fprintf(&b, "Compiler : %s\n", formatTime(tc.Seconds(), 3))
	}
	fmt.Fprint(os.Stdout, b.String())
	return vals, types, nil
}

// timeitOptions are %timeit's flags (IPython's -n, -r, -p, -q).
type timeitOptions struct {
	number    int // loops per run; 0: chosen as IPython does
	repeat    int // runs
	precision int // significant digits shown
	quiet     bool
}

// parseTimeit reads %timeit's options (getopt style, as IPython's
// parse_options "n:r:tcp:qo": -n10 or -n 10, -qn10, -- ends them) and
// returns the statement after them.
func parseTimeit(args string) (o timeitOptions, stmt string, err error) {
	o = timeitOptions{repeat: 7, precision: 3}
	rest := strings.TrimLeft(args, " \t")
	next := func(s string) (tok, after string) {
		s = strings.TrimLeft(s, " \t")
		if i := strings.IndexAny(s, " \t"); i >= 0 {
			return s[:i], s[i:]
		}
		return s, ""
	}
	for strings.HasPrefix(rest, "-") {
		tok, after := next(rest)
		if tok == "--" {
			rest = after
			break
		}
		letters := tok[1:]
		if letters == "" || !(letters[0] >= 'a' && letters[0] <= 'z') {
			break // a statement starting with -
		}
		for j := 0; j < len(letters); j++ {
			switch c := letters[j]; c {
			case 'q':
				o.quiet = true
			case 'n', 'r', 'p':
				val := letters[j+1:]
				if val == "" {
					val, after = next(after)
				}
				v, perr := strconv.Atoi(val)
				if perr != nil || v < 1 {
					return o, "", fmt.Errorf("%%timeit: option -%c needs a whole number of at least 1, not %q", c, val)
				}
				switch c {
				case 'n':
					o.number = v
				case 'r':
					o.repeat = v
				case 'p':
					o.precision = v
				}
				j = len(letters)
			case 't', 'c', 'o':
				return o, "", fmt.Errorf("%%timeit: option -%c (IPython's %s) is not supported by this kernel; it takes -n N, -r R, -p P and -q", c,
					map[byte]string{'t': "time.time timer", 'c': "CPU clock timer", 'o': "TimeitResult return"}[c])
			default:
				return o, "", fmt.Errorf("%%timeit: unknown option -%c; it takes -n N (loops per run), -r R (runs), -p P (digits) and -q (quiet)", c)
			}
		}
		rest = strings.TrimLeft(after, " \t")
	}
	return o, strings.TrimSpace(rest), nil
}

// magicTimeit is %timeit and %%timeit (IPython's ExecutionMagics.timeit):
// with no -n, the loops per run are the first of 1, 10, 100, … (at most
// 10⁹) whose run takes at least 0.2 s; then -r runs (default 7) of that
// many loops; the result is the mean and standard deviation of the runs'
// time per loop.
func (s *Session) magicTimeit(m magicCall) (_ []xr.Value, _ []xr.Type, eerr *Error) {
	o, stmt, err := parseTimeit(m.args)
	if err != nil {
		return nil, nil, usageError(m.argsLine, err.Error())
	}
	setup, body := "", m.piece(stmt, m.argsLine)
	if m.bodyLine > 0 {
		setup, body = m.piece(stmt, m.argsLine), m.body
	}
	if strings.TrimSpace(body) == "" {
		if m.bodyLine > 0 {
			return nil, nil, usageError(m.argsLine, "%%timeit: the cell has no body to time (the first line is the setup)")
		}
		return nil, nil, usageError(m.argsLine, "%timeit: no statement to time")
	}
	var (
		code    = setup
		st      *site
		f       fault
		running bool
	)
	defer func() {
		s.site = nil
		if r := recover(); r != nil {
			eerr = failed(r, code, st, &f, running)
		}
	}()
	t0 := time.Now()
	var eSetup, eBody *fast.Expr
	var stSetup, stBody *site
	if strings.TrimSpace(setup) != "" {
		eSetup, stSetup = s.compile(setup)
	}
	code = body
	eBody, stBody = s.compile(body)
	tc := time.Since(t0)

	ctx := s.guard.ctxOf()
	done := ctx.Done()
	timeOnce := func(n int) (d time.Duration) {
		if eSetup != nil {
			code, st = setup, stSetup
			s.site, running = st, true
			s.runExpr(eSetup, st, &f)
		}
		code, st = body, stBody
		s.site, running = st, true
		s.inEnv(eBody, st, &f, func(env *fast.Env, fun func(*fast.Env) (xr.Value, []xr.Value)) {
			start := time.Now()
			for i := 0; i < n; i++ {
				st.cur = 0
				fun(env)
				select {
				case <-done:
					panic(stopPanic{context.Cause(ctx)})
				default:
				}
			}
			d = time.Since(start)
		})
		running = false
		return d
	}
	number := o.number
	if number == 0 {
		for index := 0; index < 10; index++ {
			number = int(math.Pow10(index))
			if timeOnce(number) >= 200*time.Millisecond {
				break
			}
		}
	}
	res := timeitResult{loops: number, precision: o.precision, runs: make([]time.Duration, o.repeat)}
	for i := range res.runs {
		res.runs[i] = timeOnce(number)
	}
	if o.quiet {
		return nil, nil, nil
	}
	var b strings.Builder
	best, worst := res.best(), res.worst()
	if worst > 4*best && best > 0 && worst > 1e-6 {
		fmt.Fprintf(&b, "The slowest run took %0.2f times longer than the fastest. This could mean that an intermediate result is being cached.\n", worst/best)
	}
	b.WriteString(res.String() + "\n")
	if tc > 100*time.Millisecond {
		fmt.Fprintf(&b, "Compiler time: %.2f s\n", tc.Seconds())
	}
	fmt.Fprint(os.Stdout, b.String())
	return nil, nil, nil
}

// timeitResult is IPython's TimeitResult: the runs of loops each.
type timeitResult struct {
	loops     int
	runs      []time.Duration
	precision int
}

// perLoop returns each run's time per loop, in seconds.
func (r timeitResult) perLoop() []float64 {
	t := make([]float64, len(r.runs))
	for i, d := range r.runs {
		t[i] = d.Seconds() / float64(r.loops)
	}
	return t
}

func (r timeitResult) best() float64 {
	b := math.Inf(1)
	for _, t := range r.perLoop() {
		b = math.Min(b, t)
	}
	return b
}

func (r timeitResult) worst() float64 {
	w := 0.0
	for _, t := range r.perLoop() {
		w = math.Max(w, t)
	}
	return w
}

// mean and stdev are IPython's average and stdev: the mean and the
// population standard deviation of the per-loop times.
func (r timeitResult) mean() float64 {
	sum := 0.0
	ts := r.perLoop()
	for _, t := range ts {
		sum += t
	}
	return sum / float64(len(ts))
}

func (r timeitResult) stdev() float64 {
	m, ss := r.mean(), 0.0
	ts := r.perLoop()
	for _, t := range ts {
		ss += (t - m) * (t - m)
	}
	return math.Sqrt(ss / float64(len(ts)))
}

// String is IPython's TimeitResult.__str__.
func (r timeitResult) String() string {
	plural := func(n int) string {
		if n == 1 {
			return ""
		}
		return "s"
	}
	return fmt.Sprintf("%s ± %s per loop (mean ± std. dev. of %d run%s, %s loop%s each)",
		formatTime(r.mean(), r.precision), formatTime(r.stdev(), r.precision),
		len(r.runs), plural(len(r.runs)), thousands(r.loops), plural(r.loops))
}

// thousands writes n with commas between thousands (Python's {:,}).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// formatTime is IPython's _format_time: a span of a minute or more as
// "1min 15s", shorter ones with precision significant digits in s, ms, µs
// or ns.
func formatTime(sec float64, precision int) string {
	if sec >= 60 {
		parts := []struct {
			suffix string
			length float64
		}{{"d", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}}
		var out []string
		left := sec
		for _, p := range parts {
			if v := int(left / p.length); v > 0 {
				left = math.Mod(left, p.length)
				out = append(out, strconv.Itoa(v)+p.suffix)
			}
			if left < 1 {
				break
			}
		}
		return strings.Join(out, " ")
	}
	units := [...]string{"s", "ms", "µs", "ns"}
	scaling := [...]float64{1, 1e3, 1e6, 1e9}
	order := 3
	if sec > 0 {
		// Python's -int(floor(log10(t)) // 3), floor division
		order = min(-int(math.Floor(math.Floor(math.Log10(sec))/3)), 3)
	}
	return fmt.Sprintf("%.*g %s", precision, sec*scaling[order], units[order])
}
