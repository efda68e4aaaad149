package kernel_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/veclab/veclab/internal/testenv"
)

// TestClassicNotebook serves a notebook on the veclab kernel with the
// classic Jupyter Notebook (Debian's jupyter-notebook 6.4) and runs
// wasm/browsertest/classic.js in chromium: %timeit's and %time's output,
// an unknown magic's UsageError, and a fmt.Scanln cell answered in the
// Notebook's input box.
func TestClassicNotebook(t *testing.T) {
	frontEndTest(t)
	needJupyter(t)
	testenv.Need(t, testenv.ClassicNotebook, testenv.Chromium, testenv.BrowserTest)
	env := jupyterEnv(t)
	dir := t.TempDir()
	nb := `{"cells": [], "metadata": {"kernelspec": {"name": "veclab", "display_name": "Go (veclab)", "language": "go"}}, "nbformat": 4, "nbformat_minor": 5}`
	if err := os.WriteFile(filepath.Join(dir, "classic.ipynb"), []byte(nb), 0o644); err != nil {
		t.Fatal(err)
	}
	base := startJupyterServer(t, "jupyter-notebook", env, dir, func(port int) *exec.Cmd {
		return exec.Command(testenv.ClassicNotebook.Path(), "--no-browser", "--allow-root", "--ip=127.0.0.1", fmt.Sprintf("--port=%d", port),
			"--port-retries=0", "--NotebookApp.token=", "--NotebookApp.password=", "--notebook-dir="+dir)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, testenv.Node.Path(), "classic.js", base+"notebooks/classic.ipynb")
	cmd.Dir = filepath.Join("..", "wasm", "browsertest")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("node classic.js (%.1f s):\n%s", time.Since(start).Seconds(), out)
	if err != nil {
		t.Fatalf("the classic Notebook test (classic.js) failed: %v", err)
	}
}

// startJupyterServer starts the Jupyter server that cmd(port) makes, on a
// free port of 127.0.0.1 with env, in a process group of its own (the
// server and its kernels end together when the test ends), its log in
// dir and shown when the test failed, and returns its base URL once its
// /api answers (2 minutes at most).
func startJupyterServer(t *testing.T, name string, env []string, dir string, cmd func(port int) *exec.Cmd) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	srv := cmd(port)
	srv.Env = env
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	log, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Stdout, srv.Stderr = log, log
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-srv.Process.Pid, syscall.SIGKILL)
		srv.Wait()
		log.Close()
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("%s's log:\n%s", name, b)
		}
	})
	base := fmt.Sprintf("http://127.0.0.1:%d/", port)
	for start := time.Now(); ; time.Sleep(200 * time.Millisecond) {
		if res, err := http.Get(base + "api"); err == nil {
			res.Body.Close()
			return base
		}
		if time.Since(start) > 2*time.Minute {
			t.Fatalf("%s did not answer at %s in 2 minutes", name, base)
		}
	}
}
