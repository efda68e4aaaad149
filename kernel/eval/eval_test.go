package eval

import (
	"fmt"
	"go/build"
	"os"
	"strings"
	"sync"
	"testing"
)

func newSession(t *testing.T, opt Options) *Session {
	t.Helper()
	s, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// realStderr is an *os.File of fd 2, made once and never dropped: the
// finalizer of a collected one would close fd 2.
var realStderr = sync.OnceValue(func() *os.File { return os.NewFile(2, "/dev/stderr") })

func TestCells(t *testing.T) {
	// go test -json runs the test binary with -test.v=test2json, where
	// the testing package sets os.Stderr = os.Stdout (testing.go: one
	// pipe into test2json); a kernel process never does, and its log and
	// println lines are told apart by the fd they reach.
	if os.Stderr == os.Stdout {
		stderr := os.Stderr
		os.Stderr = realStderr()
		t.Cleanup(func() { os.Stderr = stderr })
	}
	s := newSession(t, Options{Capture: CaptureFD})
	var problems []string
	cases := 0
	for _, tc := range []struct {
		name, code     string
		value          string // text/plain of the result, "" for none
		valueHas       string // instead of value: a substring of it
		stdout, stderr string // substrings of the captured streams
		errName        string
		errHas         string
		traceHas       string
	}{
		{name: "expression", code: "1+1", value: "2"},
		{name: "print hides (n, err)", code: `fmt.Println("hi")`, stdout: "hi\n"},
		{name: "multi-line print call", code: "fmt.Printf(\"%d-%d\\n\",\n\t1,\n\t2)", stdout: "1-2\n"},
		{name: "state kept", code: "x := 21", value: ""},
		{name: "state used", code: "x * 2", value: "42"},
		{name: "compile error names the line", code: "y := 1\n\nfoo + y", errName: "compile error", errHas: "undefined identifier: foo", traceHas: "cell line 3:"},
		{name: "panic recovered", code: `panic("boom")`, errName: "panic", errHas: "boom"},
		{name: "alive after panic", code: "x + 1", value: "22"},
		{name: "runtime error", code: "var a []int\na[3]", errHas: "index out of range"},
		{name: "os.Exit disabled", code: "import \"os\"\nos.Exit(3)", errName: "exit", errHas: "os.Exit(3)"},
		{name: "log.Fatal disabled", code: "import \"log\"\nlog.Fatal(\"bye\")", errName: "exit", stderr: "bye"},
		{name: "log and println captured", code: "log.SetFlags(0)\nlog.Println(\"logged\")\nprintln(\"raw\")", stderr: "logged\nraw\n"},
		{name: "goroutine output captured", code: "import \"sync\"\nvar wg sync.WaitGroup\nwg.Add(1)\ngo func() { fmt.Println(\"from goroutine\"); wg.Done() }()\nwg.Wait()", stdout: "from goroutine"},
		{name: "stdlib import", code: "import \"strings\"\nstrings.ToUpper(\"abc\")", value: "ABC"},
		{name: "trailing nil error dropped", code: "import \"strconv\"\nstrconv.Atoi(\"12\")", value: "12"},
		{name: "a panic about imports is not rewritten", code: `panic("cannot import module: unable to go get")`, errName: "panic", errHas: "cannot import module: unable to go get"},
		{name: "unbound import", code: `import "github.com/nope/nope"`, errHas: `cannot import "github.com/nope/nope": it has no binding`},
		{name: "redeclared err is not warned about", code: "a, err := strconv.Atoi(\"1\")\nb, err := strconv.Atoi(\"2\")\na + b", value: "3"},
		{name: "huge value cut", code: "make([]int, 100000)", valueHas: "more bytes of this value not shown"},
		{name: "cell closure as a compiled filter", code: "import \"github.com/veclab/veclab/engine\"\nevens := engine.FilterFunc(func(id engine.ID) bool { return id%2 == 0 })\nevens.Allowed(4) && !evens.Allowed(3)", value: "true"},
		{name: "cell type implements a bound interface", code: "type odd struct{}\nfunc (odd) Allowed(id engine.ID) bool { return id%2 == 1 }\nvar f engine.Filter = odd{}\nf.Allowed(3)", value: "true"},
		{name: "bound lab package", code: "import \"github.com/veclab/veclab/engine\"\nengine.L2", value: "l2"},
		{name: "check(nil) goes on", code: "n, err := strconv.Atoi(\"5\")\ncheck(err)\nn", value: "5"},
		{name: "check fails the cell at its line", code: "_, err := strconv.Atoi(\"x\")\n\ncheck(err)\nfmt.Println(\"not reached\")",
			errName: "error", errHas: `parsing "x": invalid syntax`, traceHas: "cell line 3:\n    check(err)"},
		{name: "check inside a function literal", code: "f := func() {\n\t_, err := strconv.Atoi(\"y\")\n\tcheck(err)\n}\nf()",
			errName: "error", errHas: `parsing "y"`, traceHas: "cell line 3:"},
		{name: "check passed as a value", code: "var c func(error) = check\nc(fmt.Errorf(\"as a value\"))", errName: "error", errHas: "as a value"},
	} {
		// No t.Run and no t.Error here: with CaptureFD, fds 1 and 2 are the
		// session's pipes until it closes, and go test -v and -json write
		// the test's own lines there (a subtest's "=== RUN", its failure),
		// so they were read as cell output and lost: under go test -json
		// the test failed with no message. Each case's problems are kept
		// and reported once the session has given the fds back.
		r := &Recorder{}
		res := s.Eval(tc.code, r)
		fail := func(format string, a ...any) {
			problems = append(problems, tc.name+": "+fmt.Sprintf(format, a...))
		}
		if tc.errName != "" || tc.errHas != "" {
			if res.Err == nil {
				fail("no error; value %v", res.Value)
				continue
			}
			if tc.errName != "" && res.Err.Name != tc.errName {
				fail("error name %q, want %q (%v)", res.Err.Name, tc.errName, res.Err)
			}
			if !strings.Contains(res.Err.Value, tc.errHas) {
				fail("error %q does not contain %q", res.Err.Value, tc.errHas)
			}
			if tb := strings.Join(res.Err.Traceback, "\n"); !strings.Contains(tb, tc.traceHas) {
				fail("traceback %q does not contain %q", tb, tc.traceHas)
			}
			if strings.Contains(res.Err.Value, "/root") || strings.Contains(res.Err.Value, "/tmp") {
				fail("error leaks a host path: %q", res.Err.Value)
			}
		} else if res.Err != nil {
			fail("error %v", res.Err)
			continue
		}
		got := ""
		if res.Value != nil {
			got, _ = res.Value["text/plain"].(string)
		}
		if tc.valueHas != "" {
			if !strings.Contains(got, tc.valueHas) || len(got) > MaxValueText+100 {
				fail("value (%d bytes) lacks %q", len(got), tc.valueHas)
			}
		} else if got != tc.value {
			fail("value %q, want %q", got, tc.value)
		}
		if out := r.Text("stdout"); !strings.Contains(out, tc.stdout) {
			fail("stdout %q does not contain %q", out, tc.stdout)
		}
		if out := r.Text("stderr"); !strings.Contains(out, tc.stderr) || strings.Contains(out, "redefined") {
			fail("stderr %q does not contain %q", out, tc.stderr)
		}
		cases++
	}
	s.Close()
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("%d cases checked", cases)
}

type richValue struct{}

func (richValue) HTML() string     { return "<i>r</i>" }
func (richValue) Markdown() string { return "*r*" }
func (richValue) String() string   { return "r" }

func TestDisplayAndHandles(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	r := &Recorder{}
	res := s.Eval(`import "github.com/veclab/veclab/kernel/display"
display.HTML("<b>x</b>")
h := display.NewHandle()
for i := 1; i <= 3; i++ {
	h.Markdown(fmt.Sprintf("step %d", i))
}
display.Markdown("done")`, r)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(r.Items) != 3 {
		t.Fatalf("want 3 displays (HTML, handle, Markdown), got %+v", r.Items)
	}
	if r.Items[0].Data["text/html"] != "<b>x</b>" || r.Items[1].Data["text/markdown"] != "step 3" || r.Items[1].ID == "" {
		t.Errorf("displays: %+v", r.Items)
	}
	r = &Recorder{}
	s.Eval("fmt.Println(\"first\")\ndisplay.HTML(\"second\")\nfmt.Println(\"third\")", r)
	if len(r.Items) != 3 || r.Items[0].Text != "first\n" || r.Items[1].Data["text/html"] != "second" || r.Items[2].Text != "third\n" {
		t.Errorf("order of prints and displays: %+v", r.Items)
	}
}

func TestOutputLimit(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo, MaxOutput: 1000})
	r := &Recorder{}
	if res := s.Eval("for i := 0; i < 500; i++ { fmt.Println(\"0123456789\") }", r); res.Err != nil {
		t.Fatal(res.Err)
	}
	if n := len(r.Text("stdout")); n > 1000 {
		t.Errorf("stdout has %d bytes, limit 1000", n)
	}
	if !strings.Contains(r.Text("stderr"), "output truncated") {
		t.Errorf("no truncation notice: %q", r.Text("stderr"))
	}
	r = &Recorder{}
	s.Eval(`fmt.Println("next cell")`, r)
	if r.Text("stdout") != "next cell\n" {
		t.Errorf("limit not reset for the next cell: %q", r.Text("stdout"))
	}
}

func TestStdin(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureFD})
	if !readingStdinSupported() {
		t.Skip("no /proc/self/task/*/syscall here")
	}
	r := &Recorder{Stdin: []string{"Ada", "42"}}
	res := s.Eval(`var name string
var n int
fmt.Scanln(&name)
fmt.Scanln(&n)
fmt.Sprintf("%s %d", name, n*2)`, r)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := res.Value["text/plain"]; got != "Ada 84" {
		t.Errorf("value %q", got)
	}
	// No input available: the read sees EOF instead of hanging.
	res = s.Eval("var m int\n_, err := fmt.Scanln(&m)\nerr", &Recorder{})
	if res.Err != nil || res.Value == nil || !strings.Contains(res.Value["text/plain"].(string), "EOF") {
		t.Errorf("want an EOF error value, got %+v %v", res.Value, res.Err)
	}
}

func TestIsComplete(t *testing.T) {
	for _, tc := range []struct{ code, want string }{
		{"x := 1", "complete"},
		{"func f() {", "incomplete"},
		{"fmt.Println(1,", "incomplete"},
		{"s := `abc", "incomplete"},
		{"x := 1 +", "incomplete"},
		{"}", "invalid"},
		{"", "complete"},
	} {
		if got, _ := isComplete(tc.code); got != tc.want {
			t.Errorf("isComplete(%q) = %s, want %s", tc.code, got, tc.want)
		}
	}
}

func TestCompleteAndInspect(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	s.Eval("import \"github.com/veclab/veclab/engine\"\nimport \"strings\"", &Recorder{})
	code := "strings.ToUp"
	start, end, m := s.Complete(code, len(code))
	if end != len(code) || start > end || !contains(m, "ToUpper") && !contains(m, "strings.ToUpper") {
		t.Errorf("Complete(%q) = %d %d %v", code, start, end, m)
	}
	b, ok := s.Inspect("engine.CheckVector(v, 3)", 10)
	if !ok || !strings.Contains(b["text/plain"].(string), "func CheckVector") {
		t.Errorf("Inspect engine.CheckVector: %v %v", ok, b)
	}
	if _, ok := s.Inspect("   ", 1); ok {
		t.Errorf("Inspect of blanks found something")
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func TestSecondSessionRefused(t *testing.T) {
	newSession(t, Options{})
	if _, err := New(Options{}); err != ErrBusy {
		t.Fatalf("second New: %v, want ErrBusy", err)
	}
}

func TestRenderMethodSets(t *testing.T) {
	b := (&Session{}).render("v", nil, nil)
	if b != nil {
		t.Fatalf("no values must render nothing")
	}
	got := Bundle(displayRender(richValue{}))
	if got["text/html"] != "<i>r</i>" || got["text/markdown"] != "*r*" || got["text/plain"] != "r" {
		t.Errorf("render: %v", got)
	}
}

func TestBundleLimit(t *testing.T) {
	big := Bundle{"text/html": strings.Repeat("x", MaxBundle+1), "text/plain": "[HTML]"}
	got := limitBundle(big)
	if len(got) != 1 || !strings.Contains(got["text/plain"].(string), "not sent") {
		t.Errorf("oversized bundle kept: %d types", len(got))
	}
	small := Bundle{"text/html": "<b>", "text/plain": "b"}
	if got := limitBundle(small); len(got) != 2 {
		t.Errorf("small bundle changed: %v", got)
	}
}

// An unbound import must not make gomacro write anything (it would create
// $GOPATH/src/gomacro.imports/... and run go get in module mode).
func TestUnboundImportWritesNothing(t *testing.T) {
	gopath := t.TempDir()
	t.Setenv("GOPATH", gopath)
	old := build.Default.GOPATH
	build.Default.GOPATH = gopath
	defer func() { build.Default.GOPATH = old }()
	s := newSession(t, Options{Capture: CaptureGo})
	r := &Recorder{}
	res := s.Eval(`import "example.com/not/bound"`, r)
	if res.Err == nil || !strings.Contains(res.Err.Value, "no binding") {
		t.Fatalf("want a no-binding error, got %+v", res.Err)
	}
	entries, err := os.ReadDir(gopath)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("the import wrote %d entries under GOPATH (first: %s)", len(entries), entries[0].Name())
	}
	if out := r.Text("stdout") + r.Text("stderr"); strings.Contains(out, "go get") {
		t.Errorf("the import ran go get: %q", out)
	}
}
