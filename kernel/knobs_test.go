package kernel_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestNotebookKnobs turns the knobs of notebooks 00, 00b and 04 through the
// real jupyter_client (kernel/testdata/knobs_check.py): it runs each
// notebook's cells up to its knob cell at the small scale, moves sliders
// and selections as @jupyter-widgets/controls does, and checks each redraw
// prints what the new setting gives (the figures of the cells' own static
// tables) and draws one picture into the Output widget. It logs each
// redraw's time as the client sees it (comm_msg sent to idle).
func TestNotebookKnobs(t *testing.T) {
	needJupyter(t)
	env := append(jupyterEnv(t), "VECLAB_SCALE=small")
	cmd := exec.Command(python, "-Xfrozen_modules=off", filepath.Join("testdata", "knobs_check.py"), "veclab", filepath.Join("..", "notebooks"))
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("knobs_check.py: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Logf("knobs_check.py ran in %v", time.Since(start).Round(time.Millisecond))
	var res struct {
		Checks   [][3]any       `json:"checks"`
		RedrawMs map[string]int `json:"redraw_ms"`
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
	t.Logf("%d of %d checks passed; redraw as the client sees it (ms): %v", passed, len(res.Checks), res.RedrawMs)
	if len(res.Checks) < 35 {
		t.Errorf("only %d checks ran (the driver stopped early?)\nstderr:\n%s", len(res.Checks), stderr.String())
	}
}
