package kernel_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/veclab/veclab/internal/testenv"
)

// TestConformance runs jupyter_kernel_test's KernelTests (Debian's
// python3-jupyter-kernel-test) against the installed veclab kernel, with a
// Go sample for every test, and requires every test to pass: none fails,
// errs or skips (clear_output and the pager included). conformance.py adds
// veclab's cases in the suite's manner: the magics' output, a cell reading
// standard input answered through input_request (and refused without
// allow_stdin), is_complete of magic cells, kernel_info's
// supported_features, and the debug requests of JupyterLab's variables
// panel on the control channel.
func TestConformance(t *testing.T) {
	needJupyter(t)
	testenv.Need(t, testenv.KernelTest)
	env := jupyterEnv(t)
	cmd := exec.Command(python, "-Xfrozen_modules=off", filepath.Join("testdata", "conformance.py"), "veclab")
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("conformance.py: %v\nstderr:\n%s", err, stderr.String())
	}
	var res struct {
		Run      int         `json:"run"`
		Passed   []string    `json:"passed"`
		Failures [][2]string `json:"failures"`
		Errors   [][2]string `json:"errors"`
		Skipped  [][2]string `json:"skipped"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("conformance.py output: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	t.Logf("jupyter_kernel_test: %d run, %d passed, %d failed, %d errors, %d skipped",
		res.Run, len(res.Passed), len(res.Failures), len(res.Errors), len(res.Skipped))
	for _, f := range append(res.Failures, res.Errors...) {
		t.Errorf("%s:\n%s", f[0], f[1])
	}
	for _, s := range res.Skipped {
		t.Errorf("%s skipped: %s", s[0], s[1])
	}
	// jupyter_kernel_test 0.4.5's 12 tests and veclab's 10 (magics, stdin,
	// supported_features, the debugger).
	if res.Run < 22 || len(res.Passed) != res.Run {
		t.Errorf("%d tests run, %d passed: %v", res.Run, len(res.Passed), res.Passed)
	}
}
