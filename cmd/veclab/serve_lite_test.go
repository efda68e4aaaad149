package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/veclab/veclab/internal/testenv"
)

// TestBrowserStdin serves the JupyterLite site and runs lite.js -stdin in
// chromium: a Go cell's fmt.Scanln shows JupyterLab's input box under the
// prompt the cell printed, the line typed there reaches the cell (and two
// reads of one cell take two lines), a cell waiting for input is
// interrupted and ends Interrupted in the same Go session, and an
// execute_request with allow_stdin false gets end of file and the reason
// on the cell's stderr.
func TestBrowserStdin(t *testing.T) {
	runLite(t, 6*time.Minute, "-stdin")
}

// TestBrowserDebugger serves the JupyterLite site and runs lite.js
// -debugger in chromium: JupyterLab's debugger extension on the Go kernel
// — the bug button starts it, its side panel lists a cell's variables (an
// int's value, the Go types of the others) and a later cell's, a variable
// opened from the panel shows its lab table as HTML, and debugInfo says
// breakpoints are not supported.
func TestBrowserDebugger(t *testing.T) {
	runLite(t, 6*time.Minute, "-debugger")
}

// TestBrowserStaticHost writes the site with `veclab serve -out` (buildSite
// and export, as run does) and serves the directory with Go's
// http.FileServer, a static host that sends no COOP/COEP headers (checked
// first), then runs lite.js -static in chromium: the first visit registers
// the site's service worker (veclab-sw.js) and reloads once, after which
// the page is cross-origin isolated; a second visit is isolated at once,
// without a reload; a running loop (time.Sleep in it) is interrupted
// through the SharedArrayBuffer flag and ends Interrupted before the
// kernel would have replaced its Go session, whose variables it keeps.
func TestBrowserStaticHost(t *testing.T) {
	root, err := moduleRoot("")
	if err != nil {
		t.Fatal(err)
	}
	needBrowser(t)
	var log bytes.Buffer
	start := time.Now()
	s, err := buildSite(serveConfig{Src: root, Cache: sharedCache(t)}, &log)
	if err != nil {
		t.Fatalf("building the site: %v\n%s", err, log.String())
	}
	out := t.TempDir()
	if err := s.export(out); err != nil {
		t.Fatal(err)
	}
	t.Logf("the site written to a directory in %.1f s", time.Since(start).Seconds())
	srv := httptest.NewServer(http.FileServer(http.Dir(out)))
	defer srv.Close()
	for _, p := range []string{"/", "/veclab-sw.js"} {
		res, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", p, res.Status)
		}
		for _, h := range []string{"Cross-Origin-Opener-Policy", "Cross-Origin-Embedder-Policy"} {
			if v := res.Header.Get(h); v != "" {
				t.Fatalf("GET %s: the static server sends %s: %s; the test needs a host without it", p, h, v)
			}
		}
	}
	dir := filepath.Join(root, "wasm", "browsertest")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, testenv.Node.Path(), "lite.js", "-static", srv.URL+"/")
	cmd.Dir = dir
	start = time.Now()
	nodeOut, err := cmd.CombinedOutput()
	t.Logf("node lite.js -static (%.1f s):\n%s", time.Since(start).Seconds(), nodeOut)
	if err != nil {
		t.Fatalf("the browser test (lite.js -static) failed: %v", err)
	}
}
