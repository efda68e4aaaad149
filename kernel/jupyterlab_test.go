package kernel_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/veclab/veclab/internal/testenv"
)

// TestJupyterLab serves a notebook on the veclab kernel with JupyterLab —
// its front end built by wasm/lite/jupyterlab.mjs from the npm packages
// of the JupyterLite site (same versions), served by Debian's
// jupyterlab_server (LabServerApp 2.16) over jupyter_server 1.23, the
// kernel installed in a temporary kernelspec directory — and runs
// wasm/browsertest/jupyterlab.js in chromium: %timeit's output, a
// fmt.Scanln cell answered in JupyterLab's input box, the debugger's
// Variables panel listing the cell's Go variables with types and values,
// a breakpoint set in a cell's gutter (dumpCell, answered unverified) and
// the cell's source opened from the Breakpoints and Kernel Sources panels
// (the source request). $JUPYTERLAB_SCREENSHOT names a PNG file for the
// Variables panel, relative to the repository's top
// (JUPYTERLAB_SCREENSHOT=docs/jupyterlab-variables.png made that one).
//
// The front end is built once per set of its sources (about 25 s) into
// the user's cache directory, as `veclab serve` keeps its site.
func TestJupyterLab(t *testing.T) {
	frontEndTest(t)
	needJupyter(t)
	testenv.Need(t, testenv.JupyterLabServer, testenv.Lite, testenv.Chromium, testenv.BrowserTest)
	start := time.Now()
	site := jupyterLabSite(t)
	t.Logf("JupyterLab's front end ready in %.1f s", time.Since(start).Seconds())
	env := jupyterEnv(t)
	dir := t.TempDir()
	nbDir := filepath.Join(dir, "notebooks")
	if err := os.Mkdir(nbDir, 0o755); err != nil {
		t.Fatal(err)
	}
	nb := `{"cells": [], "metadata": {"kernelspec": {"name": "veclab", "display_name": "Go (veclab)", "language": "go"}}, "nbformat": 4, "nbformat_minor": 5}`
	if err := os.WriteFile(filepath.Join(nbDir, "lab.ipynb"), []byte(nb), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-m", "jupyterlab_server",
		"--ServerApp.ip=127.0.0.1", "--ServerApp.port_retries=0",
		"--ServerApp.token=", "--ServerApp.password=", "--ServerApp.open_browser=False", "--ServerApp.allow_root=True",
		"--ServerApp.root_dir=" + nbDir}
	for _, d := range []struct{ trait, dir string }{
		{"static_dir", filepath.Join(site, "static")},
		{"schemas_dir", filepath.Join(site, "schemas")},
		{"themes_dir", filepath.Join(site, "themes")},
		{"templates_dir", filepath.Join(site, "templates")},
		{"app_settings_dir", filepath.Join(site, "settings")},
		{"user_settings_dir", filepath.Join(dir, "user-settings")},
		{"workspaces_dir", filepath.Join(dir, "workspaces")},
	} {
		args = append(args, "--LabServerApp."+d.trait+"="+d.dir)
	}
	base := startJupyterServer(t, "jupyterlab_server", env, dir, func(port int) *exec.Cmd {
		return exec.Command(python, append(args, fmt.Sprintf("--ServerApp.port=%d", port))...)
	})
	shot := os.Getenv("JUPYTERLAB_SCREENSHOT")
	if shot == "" {
		shot = filepath.Join(dir, "variables.png")
	} else if !filepath.IsAbs(shot) {
		shot = filepath.Join(testenv.Root(), shot) // from the repository's top
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, testenv.Node.Path(), "jupyterlab.js", base+"lab/", "lab.ipynb", shot)
	cmd.Dir = filepath.Join("..", "wasm", "browsertest")
	start = time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("node jupyterlab.js (%.1f s):\n%s", time.Since(start).Seconds(), out)
	if err != nil {
		t.Fatalf("the JupyterLab test (jupyterlab.js) failed: %v", err)
	}
	if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
		t.Errorf("no screenshot of the Variables panel at %s: %v", shot, err)
	}
}

// jupyterLabSite returns the directory of JupyterLab's front end built by
// wasm/lite/jupyterlab.mjs, kept in the user's cache directory under the
// hash of its sources (the lock file, the build scripts and the page's
// sources), else built into the test's temporary directory.
func jupyterLabSite(t *testing.T) string {
	t.Helper()
	lite := testenv.Lite.Dir()
	h := sha256.New()
	for _, f := range []string{"package-lock.json", "common.mjs", "jupyterlab.mjs", "src/jupyterlab.js", "src/plugins.js", "src/process.js"} {
		b, err := os.ReadFile(filepath.Join(lite, filepath.FromSlash(f)))
		if err != nil {
			t.Fatalf("hashing JupyterLab's sources: %v", err)
		}
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	key := hex.EncodeToString(h.Sum(nil))[:16]
	dir := filepath.Join(t.TempDir(), "jupyterlab")
	if cache, err := os.UserCacheDir(); err == nil {
		dir = filepath.Join(cache, "veclab", "jupyterlab", key)
		if _, err := os.Stat(filepath.Join(dir, "static", "lab.js")); err == nil {
			return dir
		}
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			dir = filepath.Join(t.TempDir(), "jupyterlab")
		}
	}
	// Built beside its place and renamed, so that a failed or concurrent
	// build leaves no half site under the key.
	tmp := fmt.Sprintf("%s.tmp%d", dir, os.Getpid())
	defer os.RemoveAll(tmp)
	cmd := exec.Command(testenv.Node.Path(), "jupyterlab.mjs", tmp)
	cmd.Dir = lite
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node jupyterlab.mjs: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "static", "lab.js")); serr != nil {
			t.Fatalf("keeping JupyterLab's front end: %v", err)
		}
	}
	return dir
}
