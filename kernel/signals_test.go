package kernel_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/veclab/veclab/internal/testenv"
)

// TestKernelSignals signals the kernel through a real jupyter_client
// KernelManager (testdata/jupyter_signals.py), which sends signals to the
// kernel's process group: SIGTERM while a cell sleeps ends the kernel
// within its grace period (jupyter_client sends SIGKILL 2.5 s after
// SIGTERM) with status 0; jupyter_client's own shutdown while a cell runs
// a compiled loop ends it on the shutdown_request, before any SIGTERM;
// SIGQUIT writes the goroutine dump to the kernel's log (not to the
// captured fd 2) and exits with status 2; an interrupt (SIGINT to the
// group) leaves the embedded PostgreSQL server a cell started running, and
// SIGTERM's exit ends it.
func TestKernelSignals(t *testing.T) {
	needJupyter(t)
	env := jupyterEnv(t)
	run := func(t *testing.T, c string) map[string]any {
		errPath := filepath.Join(t.TempDir(), "kernel.stderr")
		cmd := exec.Command(python, "-Xfrozen_modules=off", filepath.Join("testdata", "jupyter_signals.py"), "veclab", c, errPath)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("jupyter_signals.py %s: %v\n%s", c, err, out)
		}
		var res map[string]any
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("%s: %v\n%s", c, err, out)
		}
		if res["killed"] == true {
			t.Errorf("%s: the kernel had to be killed", c)
		}
		return res
	}
	exitedWithin := func(t *testing.T, res map[string]any, limit float64) {
		t.Helper()
		s, ok := res["exit_s"].(float64)
		if !ok || s > limit {
			t.Errorf("exit after %v s, want within %v s; kernel log:\n%s", res["exit_s"], limit, res["stderr"])
		}
	}
	t.Run("SIGTERM", func(t *testing.T) {
		res := run(t, "term")
		exitedWithin(t, res, 2)
		if res["code"] != 0.0 || !strings.Contains(res["stderr"].(string), "SIGTERM: shutting down") {
			t.Errorf("exit status %v, log:\n%s", res["code"], res["stderr"])
		}
	})
	t.Run("shutdown", func(t *testing.T) {
		res := run(t, "shutdown")
		exitedWithin(t, res, 2.4) // before finish_shutdown's SIGTERM at 2.5 s
		if strings.Contains(res["stderr"].(string), "SIGTERM") {
			t.Errorf("the kernel needed a SIGTERM to end:\n%s", res["stderr"])
		}
	})
	t.Run("SIGQUIT", func(t *testing.T) {
		res := run(t, "quit")
		exitedWithin(t, res, 8)
		log := res["stderr"].(string)
		if res["code"] != 2.0 || res["quit_logged"] != true || res["goroutines"].(float64) < 300 {
			t.Errorf("exit status %v, %v goroutines in the log:\n%.2000s", res["code"], res["goroutines"], log)
		}
	})
	t.Run("embedded PostgreSQL", func(t *testing.T) {
		testenv.Need(t, testenv.PGlite)
		res := run(t, "pg")
		if res["start"] != "ok" || res["children"] == 0.0 {
			t.Fatalf("starting the server from a cell: %v %v\n%s", res["start"], res["start_error"], res["stderr"])
		}
		if res["pg_after_interrupt"] != true || res["alive_after_interrupt"] != true || res["after_interrupt"] != "ok" {
			t.Errorf("after an interrupt: server alive %v, kernel alive %v, next cell %v", res["pg_after_interrupt"], res["alive_after_interrupt"], res["after_interrupt"])
		}
		exitedWithin(t, res, 2)
		if res["pg_gone"] != true {
			t.Errorf("the embedded server outlived the kernel")
		}
	})
}
