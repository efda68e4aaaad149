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
	needJupyter(t)
	testenv.Need(t, testenv.ClassicNotebook, testenv.Chromium, testenv.BrowserTest)
	env := jupyterEnv(t)
	dir := t.TempDir()
	nb := `{"cells": [], "metadata": {"kernelspec": {"name": "veclab", "display_name": "Go (veclab)", "language": "go"}}, "nbformat": 4, "nbformat_minor": 5}`
	if err := os.WriteFile(filepath.Join(dir, "classic.ipynb"), []byte(nb), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	srv := exec.Command(testenv.ClassicNotebook.Path(), "--no-browser", "--allow-root", "--ip=127.0.0.1", fmt.Sprintf("--port=%d", port),
		"--port-retries=0", "--NotebookApp.token=", "--NotebookApp.password=", "--notebook-dir="+dir)
	srv.Env = env
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the server and its kernels end together
	log, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Stdout, srv.Stderr = log, log
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(-srv.Process.Pid, syscall.SIGKILL)
		srv.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("jupyter-notebook's log:\n%s", b)
		}
	}()
	base := fmt.Sprintf("http://127.0.0.1:%d/", port)
	for start := time.Now(); ; time.Sleep(200 * time.Millisecond) {
		if res, err := http.Get(base + "api"); err == nil {
			res.Body.Close()
			break
		}
		if time.Since(start) > 2*time.Minute {
			t.Fatalf("jupyter-notebook did not answer at %s in 2 minutes", base)
		}
	}
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
