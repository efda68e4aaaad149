package layering

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/veclab/veclab/internal/checkout"
)

const module = checkout.Module

// pkg is what the rules need to know of one package.
type pkg struct {
	Path    string   // import path
	Deps    []string // transitive dependencies of the non-test code
	Imports []string // direct imports of the non-test code
	Tests   []string // direct imports of its tests (internal and external)
}

// layer returns the top-level layer of a module package ("engine", "lab",
// "kernel", "wasm", "cmd", "bench", "internal"), or "" for packages outside
// the module.
func layer(path string) string {
	rest, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return ""
	}
	top, _, _ := strings.Cut(rest, "/")
	return top
}

func under(path, prefix string) bool { return path == prefix || strings.HasPrefix(path, prefix+"/") }

const (
	gomacro = "github.com/cosmos72/gomacro"
	zmq4    = "github.com/go-zeromq/zmq4"
)

// forbidden lists, per layer, the layers its code must not reach. bench
// (the native peers' drivers, bench/peers/...) sits beside lab: it may use
// the engine, and lab/bench and cmd/veclab drive it, but a peer measured
// against the lab must not run lab code. internal holds what every layer
// may use (internal/checkout, internal/testenv), so it reaches none of
// them.
var forbidden = map[string][]string{
	"engine":   {"lab", "kernel", "wasm", "cmd", "bench"},
	"lab":      {"kernel", "wasm", "cmd"},
	"bench":    {"lab", "kernel", "wasm", "cmd"},
	"internal": {"engine", "lab", "kernel", "wasm", "cmd", "bench"},
}

// lower reports whether l is a layer whose code and tests stay clear of
// kernel, wasm, cmd, gomacro and zmq4.
func lower(l string) bool { return l == "engine" || l == "lab" || l == "bench" || l == "internal" }

// violations applies the rules of the package doc.
func violations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		if under(p.Path, module+"/internal/depsanchor") {
			continue
		}
		l := layer(p.Path)
		for _, d := range p.Deps {
			for _, bad := range forbidden[l] {
				if layer(d) == bad {
					out = append(out, p.Path+" depends on "+d+" ("+l+" must not reach "+bad+")")
				}
			}
			if lower(l) && (under(d, gomacro) || under(d, zmq4)) {
				out = append(out, p.Path+" depends on "+d)
			}
		}
		for _, d := range p.Imports {
			if under(d, gomacro) && l != "kernel" && l != "wasm" {
				out = append(out, p.Path+" imports "+d+" (only kernel and wasm may)")
			}
			if under(d, zmq4) && l != "kernel" {
				out = append(out, p.Path+" imports "+d+" (only kernel may)")
			}
		}
		if lower(l) {
			for _, d := range p.Tests {
				if bl := layer(d); bl == "kernel" || bl == "wasm" || bl == "cmd" || under(d, gomacro) || under(d, zmq4) {
					out = append(out, p.Path+" tests import "+d)
				}
			}
		}
	}
	return out
}

func TestRulesCatchUpwardImports(t *testing.T) {
	tests := []struct {
		name string
		p    pkg
		bad  bool
	}{
		{"engine down", pkg{Path: module + "/engine/hnsw", Deps: []string{module + "/engine", module + "/engine/vec", "sync"}}, false},
		{"engine up to lab", pkg{Path: module + "/engine/hnsw", Deps: []string{module + "/lab/dataset"}}, true},
		{"engine up to kernel transitively", pkg{Path: module + "/engine/flat", Deps: []string{module + "/kernel/eval"}}, true},
		{"engine reaches gomacro", pkg{Path: module + "/engine", Deps: []string{gomacro + "/fast"}}, true},
		{"lab down", pkg{Path: module + "/lab/table", Deps: []string{module + "/engine", "gonum.org/v1/plot"}}, false},
		{"lab up to cmd", pkg{Path: module + "/lab/experiment", Deps: []string{module + "/cmd/veclab"}}, true},
		{"lab up to wasm", pkg{Path: module + "/lab", Deps: []string{module + "/wasm"}}, true},
		{"lab imports zmq4", pkg{Path: module + "/lab/x", Imports: []string{zmq4}, Deps: []string{zmq4}}, true},
		{"kernel imports gomacro and zmq4", pkg{Path: module + "/kernel", Imports: []string{gomacro + "/fast", zmq4}}, false},
		{"wasm imports gomacro", pkg{Path: module + "/wasm", Imports: []string{gomacro + "/fast"}}, false},
		{"wasm imports zmq4", pkg{Path: module + "/wasm", Imports: []string{zmq4}}, true},
		{"cmd imports gomacro directly", pkg{Path: module + "/cmd/veclab", Imports: []string{gomacro}}, true},
		{"cmd reaches gomacro through kernel", pkg{Path: module + "/cmd/veclab", Deps: []string{gomacro}, Imports: []string{module + "/kernel"}}, false},
		{"engine test uses lab", pkg{Path: module + "/engine/hnsw", Tests: []string{module + "/lab/dataset"}}, false},
		{"engine test uses kernel", pkg{Path: module + "/engine/hnsw", Tests: []string{module + "/kernel"}}, true},
		{"depsanchor exempt", pkg{Path: module + "/internal/depsanchor", Imports: []string{gomacro, zmq4}}, false},
		{"bench peer uses the engine", pkg{Path: module + "/bench/peers/faiss", Deps: []string{module + "/engine", "os/exec"}}, false},
		{"bench peer reaches the lab", pkg{Path: module + "/bench/peers/faiss", Deps: []string{module + "/lab/metrics"}}, true},
		{"bench peer reaches cmd", pkg{Path: module + "/bench/peers/faiss", Deps: []string{module + "/cmd/veclab"}}, true},
		{"bench peer test uses kernel", pkg{Path: module + "/bench/peers/faiss", Tests: []string{module + "/kernel"}}, true},
		{"bench peer test uses the lab", pkg{Path: module + "/bench/peers/faiss", Tests: []string{module + "/lab/dataset"}}, false},
		{"lab drives a bench peer", pkg{Path: module + "/lab/bench", Deps: []string{module + "/bench/peers/faiss"}}, false},
		{"engine reaches a bench peer", pkg{Path: module + "/engine/ivf", Deps: []string{module + "/bench/peers/faiss"}}, true},
		{"internal stays below the engine", pkg{Path: module + "/internal/checkout", Deps: []string{"os", "bufio"}}, false},
		{"internal reaches the engine", pkg{Path: module + "/internal/testenv", Deps: []string{module + "/engine"}}, true},
		{"internal reaches gomacro", pkg{Path: module + "/internal/checkout", Deps: []string{gomacro}}, true},
		{"similar prefix is not the module", pkg{Path: module + "x/engine", Deps: []string{module + "x/lab"}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := violations([]pkg{tc.p})
			if (len(v) > 0) != tc.bad {
				t.Fatalf("violations %q, want bad=%t", v, tc.bad)
			}
		})
	}
}

// TestLayering lists every package of the module and applies the rules.
func TestLayering(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	const sep = "\x1f"
	format := "{{.ImportPath}}" + sep + `{{join .Deps ","}}` + sep + `{{join .Imports ","}}` + sep +
		`{{join .TestImports ","}},{{join .XTestImports ","}}`
	cmd := exec.Command(goBin, "list", "-e", "-f", format, module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	split := func(s string) []string {
		var xs []string
		for _, x := range strings.Split(s, ",") {
			if x != "" {
				xs = append(xs, x)
			}
		}
		return xs
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		f := strings.Split(sc.Text(), sep)
		if len(f) != 4 {
			t.Fatalf("unexpected go list line %q", sc.Text())
		}
		pkgs = append(pkgs, pkg{Path: f[0], Deps: split(f[1]), Imports: split(f[2]), Tests: split(f[3])})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, p := range pkgs {
		seen = append(seen, layer(p.Path))
	}
	for _, want := range []string{"engine", "lab", "cmd", "bench", "internal"} {
		if !strings.Contains(strings.Join(seen, " "), want) {
			t.Fatalf("go list found no %s package: the check would pass vacuously", want)
		}
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}
