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
	env := jupyterEnv(t)
	cmd := exec.Command(python, "-Xfrozen_modules=off", filepath.Join("testdata", "widgets_check.py"), "veclab")
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("widgets_check.py: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Logf("widgets_check.py ran in %v", time.Since(start).Round(time.Millisecond))
	var res struct {
		Checks [][3]any `json:"checks"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("driver output: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	passed := 0
	for _, c := range res.Checks {
		if ok, _ := c[1].(bool); ok {
			passed++
			continue
		}
		t.Errorf("%v: %v", c[0], c[2])
	}
	t.Logf("%d of %d checks passed", passed, len(res.Checks))
	if len(res.Checks) < 25 {
		t.Errorf("only %d checks ran (the driver stopped early?)\nstderr:\n%s", len(res.Checks), stderr.String())
	}
}
