package eval

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"testing"
)

// TestRuntimeErrorPlace checks the messages of runtime panics in cells:
// Go's own text for index and slice errors (index, length, capacity), and
// the cell line of the statement that failed and of the top-level
// statement that reached it.
func TestRuntimeErrorPlace(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	for _, tc := range []struct {
		name, code string
		errName    string // "" means "runtime error"
		value      string // the whole Error.Value
		trace      string // a substring of the joined traceback
	}{
		{name: "slice index, variable", code: "a := make([]float64, 4)\ni := 7\na[i] = 1",
			value: "index out of range [7] with length 4 (cell line 3: a[i] = 1)", trace: "cell line 3:\n    a[i] = 1"},
		{name: "nil slice, bare expression", code: "var a []int\na[3]",
			value: "index out of range [3] with length 0 (cell line 2: a[3])"},
		{name: "array", code: "var arr [3]int\nj := 5\narr[j]",
			value: "index out of range [5] with length 3 (cell line 3: arr[j])"},
		{name: "pointer to array", code: "p := &[2]int{}\nk := 2\np[k] = 1",
			value: "index out of range [2] with length 2 (cell line 3: p[k] = 1)"},
		{name: "string (gomacro's own runtime error)", code: "s := \"abc\"\n\ns[4]",
			value: "index out of range [4] with length 3 (cell line 3: s[4])"},
		{name: "negative index", code: "a := []int{1}\ni := -1\n_ = a[i]",
			value: "index out of range [-1] (cell line 3: _ = a[i])"},
		{name: "nested", code: "m := [][]int{{1}}\nx := m[0][2]\n_ = x",
			value: "index out of range [2] with length 1 (cell line 2: x := m[0][2])"},
		{name: "len in the index", code: "xs := []int{1, 2}\nxs[len(xs)]",
			value: "index out of range [2] with length 2 (cell line 2: xs[len(xs)])"},
		{name: "conversion in the index", code: "xs := []int{1, 2}\nvar id uint32 = 9\nxs[int(id)]",
			value: "index out of range [9] with length 2 (cell line 3: xs[int(id)])"},
		{name: "field selector", code: "type T struct{ V []int }\nt := T{V: []int{1}}\nt.V[1]",
			value: "index out of range [1] with length 1 (cell line 3: t.V[1])"},
		{name: "slice past capacity", code: "a := []int{1, 2}\nb := a[1:5]\n_ = b",
			value: "slice bounds out of range [:5] with capacity 2 (cell line 2: b := a[1:5])"},
		{name: "slice low above high", code: "a := []int{1, 2, 3}\nlo := 2\nb := a[lo:1]\n_ = b",
			value: "slice bounds out of range [2:1] (cell line 3: b := a[lo:1])"},
		{name: "slice low past length", code: "a := []int{1, 2, 3}\n_ = a[5:]",
			value: "slice bounds out of range [5:3] (cell line 2: _ = a[5:])"},
		{name: "three-index slice", code: "a := []int{1, 2, 3}\nb := a[1:2:5]\n_ = b",
			value: "slice bounds out of range [::5] with capacity 3 (cell line 2: b := a[1:2:5])"},
		{name: "array slice against its length", code: "var arr [3]int\narr[1:7]",
			value: "slice bounds out of range [:7] with length 3 (cell line 2: arr[1:7])"},
		{name: "string slice", code: "s := \"abc\"\ns[1:9]",
			value: "slice bounds out of range [:9] with length 3 (cell line 2: s[1:9])"},
		{name: "loop variable", code: "xs := []int{1, 2, 3}\nfor i := 0; i <= len(xs); i++ {\n\t_ = xs[i]\n}",
			value: "index out of range [3] with length 3 (cell line 3: _ = xs[i], reached from cell line 2: for i := 0; i <= len(xs); i++ {)",
			trace: "cell line 3:\n    _ = xs[i]\nreached from cell line 2:\n    for i := 0; i <= len(xs); i++ {"},
		{name: "range loop, index arithmetic", code: "xs := []int{1, 2, 3}\nsum := 0\nfor i := range xs {\n\tsum += xs[i+1]\n}",
			value: "index out of range [3] with length 3 (cell line 4: sum += xs[i+1], reached from cell line 3: for i := range xs {)"},
		{name: "in a function called from the cell", code: "f := func(xs []int, k int) int {\n\ty := k * 2\n\treturn xs[y]\n}\n\nf([]int{1}, 4)",
			value: "index out of range [8] with length 1 (cell line 3: return xs[y], reached from cell line 6: f([]int{1}, 4))"},
		{name: "in a function of an earlier cell", code: "g([]int{1, 2}, 5)",
			value: `index out of range [5] with length 2 (line 2 of the cell starting "func g(xs []int, k int) int {": return xs[k], reached from cell line 1: g([]int{1, 2}, 5))`,
			trace: "line 2 of the cell starting \"func g(xs []int, k int) int {\":\n    return xs[k]\nreached from cell line 1:\n    g([]int{1, 2}, 5)"},
		{name: "an earlier cell's function fails before an index of the cell", code: "us := []int{1}\nus[g(us, 3)+5]",
			value: `index out of range [3] with length 1 (line 2 of the cell starting "func g(xs []int, k int) int {": return xs[k], reached from cell line 2: us[g(us, 3)+5])`},
		{name: "impure index: not run twice", code: "calls := 0\nnext := func() int { calls++; return 10 }\nys := []int{1}\nys[next()] = 1",
			errName: "panic", value: "reflect: slice index out of range (cell line 4: ys[next()] = 1)"},
		{name: "a shadowed len is not called", code: "lens := 0\nlen := func(x []int) int { lens++; return 3 }\nzs := []int{1}\nzs[len(zs)]",
			errName: "panic", value: "reflect: slice index out of range (cell line 4: zs[len(zs)])"},
		{name: "top-level var declaration", code: "ws := []int{1}\nvar bad = ws[4]",
			value: "index out of range [4] with length 1 (cell line 2: var bad = ws[4])"},
		{name: "declarations spanning lines", code: "vs := []int{1}\nvar (\n\tok1 = vs[0]\n\tbad2 = vs[6]\n)",
			value: "index out of range [6] with length 1 (cell line 4: bad2 = vs[6])"},
		{name: "if condition", code: "cs := []int{1}\nif cs[0] > 0 && cs[3] > 0 {\n\tfmt.Println(\"no\")\n}",
			value: "index out of range [3] with length 1 (cell line 2: if cs[0] > 0 && cs[3] > 0 {)"},
		{name: "switch tag in a function", code: "sw := func(xs []int) {\n\tswitch xs[4] {\n\tcase 1:\n\t}\n}\nsw([]int{1})",
			value: "index out of range [4] with length 1 (cell line 2: switch xs[4] {, reached from cell line 6: sw([]int{1}))"},
		{name: "range over a slice expression", code: "rs := []int{1, 2}\nfor _, v := range rs[1:9] {\n\t_ = v\n}",
			value: "slice bounds out of range [:9] with capacity 2 (cell line 2: for _, v := range rs[1:9] {)"},
		{name: "second operand fails", code: "a1, b1 := []int{1, 2}, []int{1}\nq := 1\nsum := a1[q] + b1[q]\n_ = sum",
			value: "index out of range [1] with length 1 (cell line 3: sum := a1[q] + b1[q])"},
		{name: "tuple assignment", code: "a2, b2 := []int{1, 2}, []int{1}\na2[0], b2[1] = 5, 6",
			value: "index out of range [1] with length 1 (cell line 2: a2[0], b2[1] = 5, 6)"},
		{name: "nested loops", code: "grid := [][]int{{1, 2}, {3}}\nfor r := range grid {\n\tfor c := 0; c < 2; c++ {\n\t\tgrid[r][c]++\n\t}\n}",
			value: "index out of range [1] with length 1 (cell line 4: grid[r][c]++, reached from cell line 2: for r := range grid {)"},
		{name: "after a rewritten receive", code: "rc := make(chan []int, 1)\nrc <- []int{}\nrv := <-rc\nrv[2] = 1",
			value: "index out of range [2] with length 0 (cell line 4: rv[2] = 1)"},
		{name: "divide by zero names the line", code: "z := 0\n\n1 / z",
			value: "integer divide by zero (cell line 3: 1 / z)"},
		{name: "a cell's panic names the line", code: "x := 1\nif x > 0 {\n\tpanic(\"boom\")\n}",
			errName: "panic", value: "boom (cell line 3: panic(\"boom\"), reached from cell line 2: if x > 0 {)"},
		{name: "nil map write", code: "var mm map[string]int\nmm[\"a\"] = 1",
			value: "assignment to entry in nil map (cell line 2: mm[\"a\"] = 1)"},
		{name: "one-line cell", code: "[]int{}[0]", value: "index out of range [0] with length 0 (cell line 1: []int{}[0])"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "in a function of an earlier cell" {
				if r := s.Eval("func g(xs []int, k int) int {\n\treturn xs[k]\n}", Discard{}); r.Err != nil {
					t.Fatal(r.Err)
				}
			}
			res := s.Eval(tc.code, Discard{})
			if res.Err == nil {
				t.Fatalf("no error; value %v", res.Value)
			}
			want := tc.errName
			if want == "" {
				want = "runtime error"
			}
			if res.Err.Name != want || res.Err.Value != tc.value {
				t.Errorf("error\n  %s: %s\nwant\n  %s: %s", res.Err.Name, res.Err.Value, want, tc.value)
			}
			tb := strings.Join(res.Err.Traceback, "\n")
			if !strings.HasPrefix(tb, want+": "+tc.value) || !strings.Contains(tb, tc.trace) {
				t.Errorf("traceback %q: want it to start with the message and contain %q", tb, tc.trace)
			}
		})
	}
	// The impure index expressions ran once.
	for _, name := range []string{"calls", "lens"} {
		if r := s.Eval(name, Discard{}); r.Err != nil || r.Value["text/plain"] != "1" {
			t.Errorf("%s = %v, %v; want 1 (an index expression ran again)", name, r.Value, r.Err)
		}
	}
}

// TestPlaceChangesNothing checks cells that do not fail: the markers the
// rewriter adds between top-level units and the debugger option leave
// their values, their order of declarations and their output as they were.
func TestPlaceChangesNothing(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	for _, tc := range []struct{ name, code, value, stdout string }{
		{name: "one expression", code: "1+1", value: "2"},
		{name: "statements then a value", code: "a := 2\nb := 3\na * b", value: "6"},
		{name: "one line of statements", code: "x := 1; y := 2; x + y", value: "3"},
		{name: "declarations in any order", code: "func h() T { return T{5} }\ntype T struct{ V int }\nh().V", value: "5"},
		{name: "var declarations in dependency order", code: "var p = q + 1\nvar q = 2\np", value: "3"},
		{name: "receives keep their rewrite", code: "ch := make(chan int, 1)\nch <- 4\nv := <-ch\nv", value: "4"},
		{name: "receives on one line", code: "c2 := make(chan int, 1); c2 <- 7; w := <-c2; w", value: "7"},
		{name: "a receive as the value", code: "c3 := make(chan string, 1)\nc3 <- \"r\"\n<-c3", value: "(r, true)"},
		{name: "loop", code: "n := 0\nfor i := 0; i < 4; i++ {\n\tn += i\n}\nn", value: "6"},
		{name: "print order", code: "fmt.Println(\"one\")\nz := 2\nfmt.Println(\"two\", z)", stdout: "one\ntwo 2\n"},
		{name: "a break string is no breakpoint", code: "bk := 1\n_ = \"break\"\nbk", value: "1"},
		{name: "recovered panic", code: "r := func() (out string) {\n\tdefer func() { out = fmt.Sprint(recover()) }()\n\tvar e []int\n\t_ = e[2]\n\treturn\n}()\nr != \"\"", value: "true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Recorder{}
			res := s.Eval(tc.code, r)
			if res.Err != nil {
				t.Fatalf("error %v", res.Err)
			}
			got, _ := res.Value["text/plain"].(string)
			if got != tc.value {
				t.Errorf("value %q, want %q", got, tc.value)
			}
			if out := r.Text("stdout"); out != tc.stdout {
				t.Errorf("stdout %q, want %q", out, tc.stdout)
			}
			if out := r.Text("stderr"); out != "" {
				t.Errorf("stderr %q, want nothing", out)
			}
		})
	}
}

// TestHistoryBounds checks that the cells kept to name the lines of their
// functions stay within maxHistory and maxHistoryBytes, newest kept.
func TestHistoryBounds(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cells     int
		size      int
		wantCells int
	}{
		{name: "few", cells: 3, size: 10, wantCells: 3},
		{name: "by count", cells: maxHistory + 10, size: 10, wantCells: maxHistory},
		{name: "by bytes", cells: 10, size: maxHistoryBytes / 4, wantCells: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Session{}
			var last *site
			for i := 0; i < tc.cells; i++ {
				last = &site{code: strings.Repeat("x", tc.size), file: token.NewFileSet().AddFile("", -1, tc.size)}
				s.remember(last)
			}
			if len(s.history) != tc.wantCells || s.history[len(s.history)-1] != last {
				t.Errorf("%d cells kept (newest last: %v), want %d", len(s.history), s.history[len(s.history)-1] == last, tc.wantCells)
			}
		})
	}
}

// TestMarkerPositions checks the rewritten top level of cells: gomacro
// sorts each run of statements by position with an unstable sort, so the
// markers and the statements inserted for receives must have positions
// strictly increasing in the order they are to run; and each unit but the
// first gets one marker.
func TestMarkerPositions(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	for _, tc := range []struct {
		name, code string
		units      int
		markers    int
	}{
		{name: "one expression", code: "1 + 1", units: 1},
		{name: "statements", code: "a := 1\nb := 2\na + b", units: 3, markers: 2},
		{name: "one line", code: "a := 1; b := 2; a + b", units: 3, markers: 2},
		{name: "receives", code: "ch := make(chan int, 2)\nch <- 1; ch <- 2\nv := <-ch\nw := <-ch\n<-ch", units: 6, markers: 5},
		{name: "declarations are one unit", code: "x := 1\nvar p = q\nfunc f() {}\nvar q = 2\nx", units: 3, markers: 2},
		{name: "declarations without initializers are none", code: "type T int\nfunc g() {}\nvar z T\n1", units: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &site{code: tc.code}
			s.rewrite(s.ir.Parse(tc.code), tc.code, st)
			if len(st.units) != tc.units {
				t.Errorf("%d units, want %d: %+v", len(st.units), tc.units, st.units)
			}
			markers, prev := 0, token.NoPos
			for _, n := range st.nodes {
				if _, ok := n.(ast.Decl); ok {
					prev = token.NoPos // a new run
					continue
				}
				if prev.IsValid() && n.Pos() <= prev {
					t.Errorf("position %d after %d: the sort would reorder them", n.Pos(), prev)
				}
				prev = n.Pos()
				if e, ok := n.(*ast.ExprStmt); ok {
					if c, ok := e.X.(*ast.CallExpr); ok && types.ExprString(c.Fun) == atName {
						markers++
					}
				}
			}
			if markers != tc.markers {
				t.Errorf("%d markers, want %d", markers, tc.markers)
			}
		})
	}
}

// TestPlacingNeverPanics checks that a flaw in placing an error (here a
// fault whose cell is missing) leaves the error as it was instead of
// panicking out of Eval's recover.
func TestPlacingNeverPanics(t *testing.T) {
	e := &Error{Name: "panic", Value: "boom", Traceback: []string{"panic: boom"}}
	safely(func() { placeRuntime(e, "boom", &site{code: "x"}, &fault{ok: true, pos: 5}) })
	if e.Name != "panic" || e.Value != "boom" {
		t.Errorf("error changed to %v", e)
	}
}
