package kernel_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestWidgetsJupyterClient drives comms and widgets through the real
// jupyter_client (kernel/testdata/widgets_check.py): open, update,
// echo_update and close both ways, comm_info filtering, buffers both ways,
// callback output and errors, an interrupt inside a callback, Interact's
// preemption and last-value-wins, and the control target.
func TestWidgetsJupyterClient(t *testing.T) {
	needJupyter(t)
	var res struct {
		Checks [][3]any `json:"checks"`
	}
	stderr := runPyCheck(t, jupyterEnv(t), &res, "widgets_check.py", "veclab")
	passed := countChecks(t, res.Checks)
	t.Logf("%d of %d checks passed", passed, len(res.Checks))
	if len(res.Checks) < 25 {
		t.Errorf("only %d checks ran (the driver stopped early?)\nstderr:\n%s", len(res.Checks), stderr)
	}
}

// runPyCheck runs the Python driver testdata/script with args under env
// (through jupyter_client, kclient.py), decodes its JSON report into res
// and returns its stderr for messages.
func runPyCheck(t *testing.T, env []string, res any, script string, args ...string) string {
	t.Helper()
	cmd := exec.Command(python, append([]string{"-Xfrozen_modules=off", filepath.Join("testdata", script)}, args...)...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstderr:\n%s", script, err, stderr.String())
	}
	t.Logf("%s ran in %v", script, time.Since(start).Round(time.Millisecond))
	if err := json.Unmarshal(stdout.Bytes(), res); err != nil {
		t.Fatalf("driver output: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	return stderr.String()
}

// countChecks reports each failed [name, ok, detail] check and returns
// how many passed.
func countChecks(t *testing.T, checks [][3]any) int {
	t.Helper()
	passed := 0
	for _, c := range checks {
		if ok, _ := c[1].(bool); ok {
			passed++
			continue
		}
		t.Errorf("%v: %v", c[0], c[2])
	}
	return passed
}
