package eval

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The expected strings of TestFormatTime and TestTimeitResultString are
// IPython 8.12.3's own (_format_time and TimeitResult.__str__ of
// IPython/core/magics/execution.py, run on the same inputs).
func TestFormatTime(t *testing.T) {
	for _, tc := range []struct {
		sec  float64
		prec int
		want string
	}{
		{0.05, 3, "50 ms"}, {0.0015, 3, "1.5 ms"}, {0.001, 3, "1 ms"}, {1e-7, 3, "100 ns"},
		{12.3, 3, "12.3 s"}, {0.2, 3, "200 ms"}, {0.000999, 3, "999 µs"}, {75.5, 3, "1min 15s"},
		{0, 3, "0 ns"}, {3e-10, 3, "0.3 ns"}, {0.0099, 3, "9.9 ms"}, {3661.5, 3, "1h 1min 1s"},
		{1.23456e-5, 6, "12.3456 µs"}, {59.99, 3, "60 s"}, {999.6e-9, 3, "1e+03 ns"}, {0.00099996, 3, "1e+03 µs"},
	} {
		if got := formatTime(tc.sec, tc.prec); got != tc.want {
			t.Errorf("formatTime(%g, %d) = %q, IPython says %q", tc.sec, tc.prec, got, tc.want)
		}
	}
}

func TestTimeitResultString(t *testing.T) {
	secs := func(fs ...float64) []time.Duration {
		out := make([]time.Duration, len(fs))
		for i, f := range fs {
			out[i] = time.Duration(f * 1e9)
		}
		return out
	}
	for _, tc := range []struct {
		r    timeitResult
		want string
	}{
		{timeitResult{loops: 1000, precision: 3, runs: secs(1.002, 1.0, 1.01, 0.998, 1.003, 1.004, 1.2)},
			"1.03 ms ± 69.1 µs per loop (mean ± std. dev. of 7 runs, 1,000 loops each)"},
		{timeitResult{loops: 1, precision: 3, runs: secs(0.25)},
			"250 ms ± 0 ns per loop (mean ± std. dev. of 1 run, 1 loop each)"},
		{timeitResult{loops: 10000, precision: 5, runs: secs(0.1234, 0.1236, 0.125)},
			"12.4 µs ± 71.181 ns per loop (mean ± std. dev. of 3 runs, 10,000 loops each)"},
	} {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

func TestParseTimeit(t *testing.T) {
	for _, tc := range []struct {
		args, stmt string
		want       timeitOptions
		err        string
	}{
		{args: "f(x)", stmt: "f(x)", want: timeitOptions{repeat: 7, precision: 3}},
		{args: "-n 10 -r 3 f(x)", stmt: "f(x)", want: timeitOptions{number: 10, repeat: 3, precision: 3}},
		{args: "-n10 -r3 -p5 f(x, -1)", stmt: "f(x, -1)", want: timeitOptions{number: 10, repeat: 3, precision: 5}},
		{args: "-qn100 a := 1; a++", stmt: "a := 1; a++", want: timeitOptions{number: 100, repeat: 7, precision: 3, quiet: true}},
		{args: "-r 2 -- -x", stmt: "-x", want: timeitOptions{repeat: 2, precision: 3}},
		{args: "-n 0 f()", err: "option -n needs a whole number of at least 1"},
		{args: "-n f()", err: `-n needs a whole number of at least 1, not "f()"`},
		{args: "-o f()", err: "option -o (IPython's TimeitResult return) is not supported"},
		{args: "-z f()", err: "unknown option -z"},
	} {
		o, stmt, err := parseTimeit(tc.args)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case stmt != tc.stmt || o != tc.want:
			t.Errorf("%q: %+v %q, want %+v %q", tc.args, o, stmt, tc.want, tc.stmt)
		}
	}
}

func TestSplitMagics(t *testing.T) {
	type p struct {
		line       int
		code, name string
		args, body string
	}
	for _, tc := range []struct {
		name, code string
		want       []p
		err        string
	}{
		{name: "no magic", code: "x := 1\nx % 2"},
		{name: "percent in a raw string", code: "s := `\n%time x\n`"},
		{name: "percent in a comment", code: "/*\n%time x\n*/\n1"},
		{name: "line magic alone", code: "%time f(x)", want: []p{{line: 1, name: "time", args: "f(x)"}}},
		{name: "magic between Go", code: "q := 1\n  %timeit -n 3 q++\nq", want: []p{
			{line: 1, code: "q := 1"}, {line: 2, name: "timeit", args: "-n 3 q++"}, {line: 3, code: "\n\nq"}}},
		{name: "cell magic", code: "%%timeit -n 2 a := 1\na++\n", want: []p{{line: 1, name: "timeit", args: "-n 2 a := 1", body: "\na++\n"}}},
		{name: "unknown line magic", code: "x := 1\n%foo bar", err: "Line magic function `%foo` not found"},
		{name: "unknown cell magic", code: "%%who\n1", err: "Cell magic `%%who` not found"},
		{name: "cell magic not first", code: "1\n%%time\n2", err: "must be the first line of the cell (line 2 here)"},
		{name: "magic in a cell magic's body", code: "%%time\n%who", err: "a magic inside the body of %%time (line 2)"},
		{name: "no name", code: "%", err: "Line magic function `%` not found"},
		{name: "magic inside a block", code: "for i := 0; i < 3; i++ {\n\t%time f(i)\n}", err: "a magic must stand at the top level of the cell, not inside brackets or a block (line 2)"},
		{name: "magic after a closed block", code: "for i := 0; i < 3; i++ {\n}\n%time f()", want: []p{{line: 1, code: "for i := 0; i < 3; i++ {\n}"}, {line: 3, name: "time", args: "f()"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := splitMagics(tc.code)
			if tc.err != "" {
				if err == nil || err.Name != UsageErrorName || !strings.Contains(err.Value, tc.err) {
					t.Fatalf("error %v, want UsageError %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []p
			for _, x := range ps {
				got = append(got, p{line: x.line, code: x.code, name: x.call.name, args: x.call.args, body: x.call.body})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestMagics runs magics through a session as a notebook would.
func TestMagics(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	os.Setenv("VECLAB_TEST_MAGIC", "on")
	defer os.Unsetenv("VECLAB_TEST_MAGIC")
	for _, tc := range []struct {
		name, code string
		stdout     string // a regular expression the whole stdout matches
		value      string
		errName    string
		errHas     string
	}{
		{name: "who before any cell", code: "%who", stdout: `Interactive namespace is empty.\n`},
		{name: "define", code: "x := 21\ny := []float32{1, 2, 3}\nconst k = 3\ntype P struct{ A int; b string }\np := &P{A: 1, b: \"hi\"}\nfunc twice(a int) int { return 2 * a }\nm := map[string]int{\"a\": 1}"},
		{name: "who", code: "%who", stdout: "k\t m\t p\t twice\t x\t y\t \n"},
		{name: "who by type", code: "%who int", stdout: "x\t \n"},
		{name: "who by kind", code: "%who slice map", stdout: "m\t y\t \n"},
		{name: "who no match", code: "%who chan", stdout: "No variables match your requested type.\n"},
		{name: "whos", code: "%whos", stdout: regexp.QuoteMeta(`Variable   Type              Data/Info
--------------------------------------
k          untyped int       3
m          map[string]int    n=1
p          *main.P           &{A:1 b:"hi"}
twice      func(int) int     func
x          int               21
y          []float32         n=3
`)},
		{name: "time an expression", code: "%time twice(x)", value: "42",
			stdout: `CPU times: user [0-9.]+ [nµm]?s, sys: [0-9.]+ [nµm]?s, total: [0-9.]+ [nµm]?s\nWall time: [0-9.]+ [nµm]?s\n`},
		{name: "time a cell", code: "%%time\nz := 0\nfor i := 0; i < 1000; i++ { z += i }\nfmt.Println(\"summed\")\nz", value: "499500",
			stdout: `summed\nCPU times: user .*\nWall time: .*\n`},
		{name: "time a statement amid Go", code: "q := 1\n%time q++\nq", value: "2", stdout: `CPU times: .*\nWall time: .*\n`},
		{name: "timeit with -n and -r", code: "%timeit -n 100 -r 3 twice(x)",
			stdout: `[0-9.]+ [nµm]s ± [0-9.]+ [nµm]?s per loop \(mean ± std. dev. of 3 runs, 100 loops each\)\n`},
		{name: "timeit chooses the loops as IPython", code: "import \"time\"\n%timeit -r 1 time.Sleep(30 * time.Millisecond)",
			stdout: `[0-9.]+ ms ± 0 ns per loop \(mean ± std. dev. of 1 run, 10 loops each\)\n`},
		{name: "timeit cell with setup", code: "%%timeit -n 10 -r 2 a := 5\nfor i := 0; i < 1000; i++ { a += i }",
			stdout: `[0-9.]+ [nµm]s ± [0-9.]+ [nµm]?s per loop \(mean ± std. dev. of 2 runs, 10 loops each\)\n`},
		{name: "timeit quiet", code: "%timeit -q -n 3 -r 1 x++", stdout: `^$`},
		{name: "timeit ran 3 loops", code: "x", value: "24"},
		{name: "timeit runtime error names its line", code: "%timeit -n 2 -r 2 var a []int; a[3] = 1", errName: "runtime error", errHas: "index out of range [3] with length 0 (cell line 1"},
		{name: "timeit compile error", code: "%timeit nope()", errName: "compile error", errHas: "undefined identifier: nope"},
		{name: "timeit nothing", code: "%timeit -n 3", errName: UsageErrorName, errHas: "no statement to time"},
		{name: "timeit cell without body", code: "%%timeit a := 1", errName: UsageErrorName, errHas: "no body to time"},
		{name: "time cell with a statement", code: "%%time x\n1", errName: UsageErrorName, errHas: "Can't use statement directly after '%%time'!"},
		{name: "env get", code: "%env VECLAB_TEST_MAGIC", value: "on"},
		{name: "env set", code: "%env VECLAB_TEST_MAGIC=off", stdout: "env: VECLAB_TEST_MAGIC=off\n"},
		{name: "env set with a blank", code: "%env VECLAB_TEST_MAGIC again", stdout: "env: VECLAB_TEST_MAGIC=again\n"},
		{name: "env missing", code: "%env VECLAB_NOT_SET_ANYWHERE", errName: UsageErrorName, errHas: "Environment does not have key: VECLAB_NOT_SET_ANYWHERE"},
		{name: "env lists", code: "%env", value: "VECLAB_TEST_MAGIC:again"},
		{name: "lsmagic", code: "%lsmagic", stdout: `(?s)^Available line magics:\n%env  %lsmagic  %time  %timeit  %who  %whos\n\nAvailable cell magics:\n%%time  %%timeit\n.*%timeit \[-n N\].*`},
		{name: "unknown magic", code: "x := 1\n%prun f()", errName: UsageErrorName, errHas: "Line magic function `%prun` not found"},
		{name: "an unknown magic runs nothing", code: "x", value: "24"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &Recorder{}
			res := s.Eval(tc.code, rec)
			if tc.errName != "" {
				if res.Err == nil || res.Err.Name != tc.errName || !strings.Contains(res.Err.Value, tc.errHas) {
					t.Fatalf("error %v, want %s: %q", res.Err, tc.errName, tc.errHas)
				}
				return
			}
			if res.Err != nil {
				t.Fatalf("%v\n%s", res.Err, rec.Text("stderr"))
			}
			if tc.stdout != "" {
				if out := rec.Text("stdout"); !regexp.MustCompile(`^` + tc.stdout + `$`).MatchString(out) {
					t.Errorf("stdout %q does not match %q", out, tc.stdout)
				}
			}
			got, _ := res.Value["text/plain"].(string)
			if tc.value != "" && !strings.Contains(got, tc.value) {
				t.Errorf("value %q, want %q", got, tc.value)
			}
		})
	}
}

// TestTimeitCompilesOnce checks that the timed statement is compiled once
// for all its loops and runs: the session keeps one compiled site per
// compile.
func TestTimeitCompilesOnce(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	if res := s.Eval("n := 0", Discard{}); res.Err != nil {
		t.Fatal(res.Err)
	}
	before := len(s.earlier())
	if res := s.Eval("%timeit -q -n 1000 -r 3 n++", Discard{}); res.Err != nil {
		t.Fatal(res.Err)
	}
	if d := len(s.earlier()) - before; d != 1 {
		t.Errorf("%d compiles for 3 runs of 1000 loops, want 1", d)
	}
	if res := s.Eval("n", Discard{}); res.Value["text/plain"] != "3000" {
		t.Errorf("n = %v after 3 × 1000 loops", res.Value["text/plain"])
	}
}

func TestMagicCompleteAndIsComplete(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	for _, tc := range []struct {
		code   string
		start  int
		wanted []string
	}{
		{"%ti", 0, []string{"%time", "%timeit"}},
		{"x := 1\n%%t", 7, []string{"%%time", "%%timeit"}},
		{"%w", 0, []string{"%who", "%whos"}},
	} {
		start, end, ms := s.Complete(tc.code, len(tc.code))
		if start != tc.start || end != len(tc.code) || !reflect.DeepEqual(ms, tc.wanted) {
			t.Errorf("Complete(%q) = %d %d %v, want %d %v", tc.code, start, end, ms, tc.start, tc.wanted)
		}
	}
	if b, ok := s.Inspect("x := 1\n%timeit f(x)", 10); !ok || !strings.HasPrefix(b["text/plain"].(string), "%timeit [-n N] [-r R]") {
		t.Errorf("Inspect on %%timeit: %v %v", b, ok)
	}
	if _, ok := s.Inspect("%timeit fmt.Sprint(1)", 17); !ok {
		t.Error("Inspect after a magic's name does not reach the Go")
	}
	for _, tc := range []struct{ code, want string }{
		{"%timeit f(x)", "complete"},
		{"%%timeit", "incomplete"},
		{"%%timeit\nfor {", "incomplete"},
		{"%time x\nfor {", "incomplete"},
		{"%whos", "complete"},
		{"%env A=", "complete"},
	} {
		if got, _ := s.IsComplete(tc.code); got != tc.want {
			t.Errorf("IsComplete(%q) = %s, want %s", tc.code, got, tc.want)
		}
	}
}

func TestVariables(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	if vs := s.Variables(); len(vs) != 0 {
		t.Fatalf("a new session lists %+v", vs)
	}
	if res := s.Eval("import \"strings\"\nbig := make([]int, 1000000)\nname := strings.Repeat(\"é\", 500)\nvar e error\nconst c float64 = 1.5\nf := func() {}", Discard{}); res.Err != nil {
		t.Fatal(res.Err)
	}
	got := map[string]Variable{}
	for _, v := range s.Variables() {
		got[v.Name] = v
		if len(v.Value) > MaxVariableText+len("…") {
			t.Errorf("%s: %d bytes of value text, the limit is %d", v.Name, len(v.Value), MaxVariableText)
		}
	}
	for _, w := range []Variable{
		{Name: "big", Kind: "var", Type: "[]int", Len: 1000000},
		{Name: "name", Kind: "var", Type: "string", Len: 1000},
		{Name: "e", Kind: "var", Type: "error", Value: "nil", Len: -1},
		{Name: "c", Kind: "const", Type: "float64", Value: "1.5", Len: -1},
		{Name: "f", Kind: "var", Type: "func()", Value: "func", Len: -1},
	} {
		g, ok := got[w.Name]
		if !ok {
			t.Errorf("%s not listed: %v", w.Name, got)
			continue
		}
		if g.Kind != w.Kind || g.Type != w.Type || g.Len != w.Len || w.Value != "" && g.Value != w.Value {
			t.Errorf("%s: %+v, want %+v", w.Name, g, w)
		}
	}
	if !strings.HasPrefix(got["big"].Value, "[0 0 0") || !strings.HasSuffix(got["big"].Value, "…") {
		t.Errorf("big: %q", got["big"].Value)
	}
	if _, ok := got["strings"]; ok {
		t.Error("an imported package is listed")
	}
	if b, ok := s.VariableBundle("c"); !ok || b["text/plain"] != "1.5" {
		t.Errorf("VariableBundle(c) = %v %v", b, ok)
	}
	if _, ok := s.VariableBundle("nope"); ok {
		t.Error("VariableBundle of an unknown name")
	}
}
