package experiment

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/veclab/veclab/internal/testenv"
)

// TestOpenRealSetsInBrowser builds testdata/browserdata for js/wasm and
// runs it as JupyterLite's worker runs the kernel: Go's wasm_exec.js with
// no file system (every file call ENOSYS). The compiled-in glove-3k must
// open there (it used to be copied to a temporary directory first, which
// that file system cannot make, so the browser had no real set), and a
// set that is not in the tab's in-memory data directory is skipped with
// a reason that says why and what to use instead, not "run veclab data
// get".
func TestOpenRealSetsInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the lab for js/wasm and runs it under Node")
	}
	testenv.Need(t, testenv.Node)
	wasm := filepath.Join(t.TempDir(), "browserdata.wasm")
	build := exec.Command("go", "build", "-o", wasm, "./testdata/browserdata")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build for js/wasm: %v\n%s", err, out)
	}
	execJS := filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js")
	out, err := exec.Command(testenv.Node.Path(), filepath.Join("testdata", "browserdata", "nofs.js"), execJS, wasm).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	got := string(out)
	for _, want := range []string{
		"data sets: generated, glove-3k",
		`fashion-mnist: not used (experiment: dataset: data set "fashion-mnist" is not in this browser tab's data directory /veclab/data (in memory)`,
		"in the browser the compiled-in glove-3k opens, and a set a cell writes there with dataset.WriteLayout; for fashion-mnist use the native kernel (`veclab install`)",
		"glove-3k int8 recall@10 0.920, ×1.5 1.000", // the native kernel's figures (TestQuantSetsVerdicts' sets)
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the browser-like run lacks %q; it printed:\n%s", want, got)
		}
	}
	if strings.Contains(got, "error:") {
		t.Errorf("the browser-like run failed:\n%s", got)
	}
}
