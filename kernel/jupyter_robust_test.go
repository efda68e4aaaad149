package kernel_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestJupyterRobust drives the built kernel through jupyter_client
// (testdata/jupyter_robust.py): interrupts of a 30 s sleep, a 30k × 384
// HNSW build, an experiment, a channel receive and a stdin read, each 1 s
// in; a goroutine panic during and after its cell, os.Exit, a goroutine
// looping forever, runaway memory; and history_request before and after a
// restart. The interrupt bound (3 s) is a behavioural bound, not a speed
// assertion: without the interrupt each of those cells runs 30 s or more.
func TestJupyterRobust(t *testing.T) {
	needJupyter(t)
	env := jupyterEnv(t)
	var histFile string
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "VECLAB_HISTORY="); ok {
			histFile = v
		}
	}
	env = append(env, "VECLAB_MEMORY_LIMIT=1GiB")
	cmd := exec.Command(python, "-Xfrozen_modules=off", filepath.Join("testdata", "jupyter_robust.py"), "veclab")
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("jupyter_robust.py: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Logf("jupyter_robust.py ran in %v", time.Since(start).Round(time.Millisecond))
	var res map[string]json.RawMessage
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("driver output: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	type timedStep struct {
		step
		Elapsed        float64 `json:"elapsed"`
		AfterInterrupt float64 `json:"after_interrupt"`
	}
	get := func(name string) timedStep {
		var s timedStep
		if err := json.Unmarshal(res[name], &s); err != nil {
			t.Fatalf("%s: %v (%s)", name, err, res[name])
		}
		return s
	}
	value := func(s timedStep) string {
		for _, r := range s.outputs("execute_result") {
			return fmt.Sprint(r["data"].(map[string]any)["text/plain"])
		}
		return ""
	}
	text := func(s timedStep, stream string) string {
		var b strings.Builder
		for _, o := range s.outputs("stream") {
			if o["name"] == stream {
				b.WriteString(fmt.Sprint(o["text"]))
			}
		}
		return b.String()
	}
	if s := get("setup"); s.Reply["status"] != "ok" || value(s) != "30000" {
		t.Fatalf("setup: %v %v", s.Reply, s.IOPub)
	}
	for _, tc := range []struct{ name, has string }{
		{"sleep", ""},
		{"hnsw", "hnsw: AddBatch stopped after"},
		{"experiment", ""},
		{"receive", ""},
		{"stdin", ""},
	} {
		s := get(tc.name)
		if s.Reply["status"] != "error" || s.Reply["ename"] != "Interrupted" || !strings.Contains(fmt.Sprint(s.Reply["evalue"]), tc.has) {
			t.Errorf("%s: want an Interrupted error saying %q, got %v", tc.name, tc.has, s.Reply)
		}
		if len(s.outputs("error")) != 1 {
			t.Errorf("%s: %d error outputs", tc.name, len(s.outputs("error")))
		}
		if s.AfterInterrupt > 3 {
			t.Errorf("%s: the reply came %.2f s after the interrupt", tc.name, s.AfterInterrupt)
		}
		t.Logf("%-10s interrupted 1 s in; reply %.3f s after the interrupt: %v", tc.name, s.AfterInterrupt, s.Reply["evalue"])
	}
	if s := get("hnsw_after"); text(s, "stdout") != "42 true\n" {
		t.Errorf("after the interrupted build: %q %v", text(s, "stdout"), s.Reply)
	}
	if s := get("alive"); value(s) != "42" {
		t.Errorf("state after the interrupts: %v", s.IOPub)
	}
	if s := get("go_panic"); s.Reply["ename"] != "goroutine panic" || !strings.Contains(fmt.Sprint(s.Reply["evalue"]), "boom in a goroutine") || s.Elapsed > 5 {
		t.Errorf("goroutine panic: %v after %.2f s", s.Reply, s.Elapsed)
	} else {
		t.Logf("goroutine panic: the cell (a 10 s sleep) replied after %.3f s: %v: %v", s.Elapsed, s.Reply["ename"], s.Reply["evalue"])
	}
	if s := get("go_panic_after"); value(s) != "42" {
		t.Errorf("state after a goroutine panic: %v", s.IOPub)
	}
	if s := get("late_report"); value(s) != "43" || !strings.Contains(text(s, "stderr"), "late boom") {
		t.Errorf("a panic after its cell, on the next cell's stderr: %q %v", text(s, "stderr"), s.IOPub)
	}
	if s := get("exit"); s.Reply["ename"] != "exit" || !strings.Contains(fmt.Sprint(s.Reply["evalue"]), "os.Exit(3)") {
		t.Errorf("os.Exit: %v", s.Reply)
	}
	if s := get("exit_after"); value(s) != "42" {
		t.Errorf("after os.Exit: %v", s.IOPub)
	}
	if s := get("spin_answers"); value(s) != "2" {
		t.Errorf("a spinning goroutine: the next cell %v", s.IOPub)
	} else {
		t.Logf("with a goroutine spinning, 1 + 1 answered in %.3f s", s.Elapsed)
	}
	if s := get("spin_stopped"); value(s) != "true" {
		t.Errorf("the interrupt with no cell running did not stop the spinning goroutine: %v %v", s.Reply, s.IOPub)
	}
	if s := get("memory"); s.Reply["ename"] != "MemoryError" || !strings.Contains(fmt.Sprint(s.Reply["evalue"]), "limit of 1.0 GiB") {
		t.Errorf("runaway memory: %v", s.Reply)
	} else {
		t.Logf("runaway memory stopped after %.3f s: %v", s.Elapsed, s.Reply["evalue"])
	}
	if s := get("memory_after"); value(s) != "42" {
		t.Errorf("after the MemoryError: %v", s.IOPub)
	}
	hist := func(name string) []any {
		var c struct {
			Status  string `json:"status"`
			History []any  `json:"history"`
		}
		if err := json.Unmarshal(res[name], &c); err != nil || c.Status != "ok" {
			t.Fatalf("%s: %v %s", name, err, res[name])
		}
		return c.History
	}
	// tail 3 with output: [session, line, [input, output]], the last cell
	// being "keep" → 42.
	tail := hist("tail")
	if len(tail) != 3 {
		t.Fatalf("tail: %v", tail)
	}
	last := tail[2].([]any)
	if io, ok := last[2].([]any); !ok || io[0] != "keep" || io[1] != "42" || last[0] != float64(1) {
		t.Errorf("tail with output: %v", tail)
	}
	if e := tail[1].([]any)[2].([]any); e[1] != nil { // the MemoryError cell has no output
		t.Errorf("a failed cell's output: %v", e)
	}
	search := hist("search")
	if len(search) != 2 || search[0].([]any)[2] != "keep + 1" || search[1].([]any)[2] != "keep" {
		t.Errorf("search keep* unique: %v", search)
	}
	if s := hist("search_n"); len(s) != 2 || !strings.Contains(fmt.Sprint(s[1].([]any)[2]), "time.Sleep(200") {
		t.Errorf("search *time.Sleep* n=2: %v", s)
	}
	prev := hist("range_previous")
	if len(prev) != 2 || prev[0].([]any)[0] != float64(1) || prev[1].([]any)[1] != float64(2) ||
		prev[1].([]any)[2].([]any)[0] != "time.Sleep(30 * time.Second)" {
		t.Errorf("range of the previous session after a restart: %v", prev)
	}
	if cur := hist("range_current"); len(cur) != 1 || cur[0].([]any)[0] != float64(2) || cur[0].([]any)[2] != "1" {
		t.Errorf("range of the current session: %v", cur)
	}
	t.Logf("history: tail 3 with output %v; search keep* unique %v; range of the previous session after the restart %v", tail, search, prev)
	if b, err := os.ReadFile(histFile); err != nil || !bytes.Contains(b, []byte(`"input":"keep + 1"`)) {
		t.Errorf("history file %s: %v\n%s", histFile, err, b)
	}
}
