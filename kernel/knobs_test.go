package kernel_test

import (
	"path/filepath"
	"testing"
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
	var res struct {
		Checks   [][3]any       `json:"checks"`
		RedrawMs map[string]int `json:"redraw_ms"`
	}
	stderr := runPyCheck(t, append(jupyterEnv(t), "VECLAB_SCALE=small"), &res, "knobs_check.py", "veclab", filepath.Join("..", "notebooks"))
	passed := countChecks(t, res.Checks)
	t.Logf("%d of %d checks passed; redraw as the client sees it (ms): %v", passed, len(res.Checks), res.RedrawMs)
	if len(res.Checks) < 35 {
		t.Errorf("only %d checks ran (the driver stopped early?)\nstderr:\n%s", len(res.Checks), stderr)
	}
}
