package history

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func inputs(es []Entry) string {
	var b []string
	for _, e := range es {
		s := e.Input
		if e.Output != nil {
			s += "=" + *e.Output
		}
		b = append(b, s)
	}
	return strings.Join(b, "|")
}

// Two sessions written, the file reopened: numbering, tail, range and
// search answer as IPython's history does.
func TestStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "history.jsonl")
	s1, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range []string{"x := 1", "x + 1", "fmt.Println(x)", "x + 1"} {
		if err := s1.AddInput(i+1, in); err != nil {
			t.Fatal(err)
		}
	}
	s1.AddOutput(2, "2")
	s1.AddOutput(4, "2")
	if err := s1.AddOutput(9, "nope"); err == nil {
		t.Error("output for a line without input accepted")
	}
	s1.Close()
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if s1.Session() != 1 || s2.Session() != 2 {
		t.Fatalf("sessions %d, %d", s1.Session(), s2.Session())
	}
	s2.AddInput(1, "y := []int{1, 2}")
	s2.AddInput(2, "len(y)")
	s2.AddOutput(2, "2")
	search := func(p string, n int, u bool) []Entry {
		es, err := s2.Search(p, n, u)
		if err != nil {
			t.Fatal(err)
		}
		return es
	}
	for _, tc := range []struct {
		name string
		got  []Entry
		want string
	}{
		{"tail 3", s2.Tail(3), "x + 1=2|y := []int{1, 2}|len(y)=2"},
		{"tail 0", s2.Tail(0), ""},
		{"tail more than all", s2.Tail(100), "x := 1|x + 1=2|fmt.Println(x)|x + 1=2|y := []int{1, 2}|len(y)=2"},
		{"range current", s2.Range(0, 1, 0), "y := []int{1, 2}|len(y)=2"},
		{"range previous, lines [2, 4)", s2.Range(-1, 2, 4), "x + 1=2|fmt.Println(x)"},
		{"range absolute", s2.Range(1, 4, 5), "x + 1=2"},
		{"range of no session", s2.Range(7, 1, 0), ""},
		{"search glob", search("x*", 0, false), "x := 1|x + 1=2|x + 1=2"},
		{"search unique keeps the latest", search("x*", 0, true), "x := 1|x + 1=2"},
		{"search n", search("*", 2, false), "y := []int{1, 2}|len(y)=2"},
		{"search ?", search("len(?)", 0, false), "len(y)=2"},
		{"search class", search("[xy] *", 0, false), "x := 1|x + 1=2|x + 1=2|y := []int{1, 2}"},
		{"search negated class", search("[^xy]*", 0, false), "fmt.Println(x)|len(y)=2"},
		{"search is case-sensitive", search("FMT*", 0, false), ""},
		{"search whole input", search("x", 0, false), ""},
	} {
		if got := inputs(tc.got); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	if _, err := s2.Search("[x", 0, false); err == nil || !strings.Contains(err.Error(), "unclosed [") {
		t.Errorf("bad pattern: %v", err)
	}
}

// A torn last line (a kernel killed mid-write) and foreign lines are
// skipped; the rest of the history is read.
func TestTornFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	os.WriteFile(path, []byte("{\"session\":4,\"start\":\"x\"}\n{\"session\":4,\"line\":1,\"input\":\"a\"}\nnot json\n{\"session\":4,\"line\":2,\"inp"), 0o600)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Session() != 5 || inputs(s.Tail(10)) != "a" {
		t.Fatalf("session %d, tail %q", s.Session(), inputs(s.Tail(10)))
	}
	// The torn line is followed by a newline-less fragment: the next record
	// must still start on a line of its own.
	s.AddInput(1, "b")
	s.Close()
	s2, _ := Open(path)
	defer s2.Close()
	if got := inputs(s2.Tail(10)); got != "a|b" {
		t.Errorf("after appending to a torn file: %q", got)
	}
}

// Kernels opening one file at once get distinct sessions.
func TestConcurrentOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	var wg sync.WaitGroup
	got := make(chan int, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(path)
			if err != nil {
				t.Error(err)
				return
			}
			got <- s.Session()
			s.Close()
		}()
	}
	wg.Wait()
	close(got)
	seen := map[int]bool{}
	for n := range got {
		if seen[n] {
			t.Errorf("session %d drawn twice", n)
		}
		seen[n] = true
	}
}
