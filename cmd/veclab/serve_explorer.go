package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The explorer (wasm/explorer): an engine-only WebAssembly module and its
// page, served at /explorer/ beside the JupyterLite site. Its module is
// built into the same cache directory as veclab.wasm (it depends on the
// same Go sources), its page into a directory keyed by the page's files.

// explorerWebKey hashes the explorer page's files (wasm/explorer/web).
func explorerWebKey(root string) (string, error) {
	files, err := filepath.Glob(filepath.Join(root, "wasm", "explorer", "web", "*"))
	if err != nil {
		return "", err
	}
	return hashFiles(files, "the explorer page")
}

// hashFiles is a cache key for a build's source files: each file's base
// name, length and contents, in the given order; what names them in an
// error.
func hashFiles(files []string, what string) (string, error) {
	h := sha256.New()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("hashing %s: %w", what, err)
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// buildExplorer makes the page's modules unless they are there —
// s.explorerWasm (the engine-only module every visit loads) and
// s.adviseWasm (lab/advise, loaded only when a file is dropped), each
// with .br and .gz — and the page's directory s.explorerWeb (its files
// and their .br and .gz forms) unless it is there.
func buildExplorer(goBin, nodeBin, root string, s *site, log io.Writer) error {
	for _, m := range []struct{ pkg, out string }{{"./wasm/explorer", s.explorerWasm}, {"./wasm/explorer/advise", s.adviseWasm}} {
		if err := buildModule(goBin, nodeBin, root, m.pkg, m.out, log); err != nil {
			return err
		}
	}
	lite := filepath.Join(root, "wasm", "lite")
	if fileExists(filepath.Join(s.explorerWeb, "index.html")) {
		fmt.Fprintf(log, "veclab serve: explorer page unchanged, reusing %s\n", s.explorerWeb)
		return nil
	}
	tmp := s.explorerWeb + fmt.Sprintf(".tmp%d", os.Getpid())
	defer os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(root, "wasm", "explorer", "web", "*"))
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := copyFile(filepath.Join(tmp, filepath.Base(f)), f); err != nil {
			return fmt.Errorf("copying the explorer page: %w", err)
		}
	}
	cmd := exec.Command(nodeBin, "compress.mjs", tmp)
	cmd.Dir = lite
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("node compress.mjs (in %s): %v\n%s", lite, err, out)
	}
	os.RemoveAll(s.explorerWeb)
	return os.Rename(tmp, s.explorerWeb)
}

// buildModule builds the js/wasm command pkg into out (with .br and .gz)
// unless it is there.
func buildModule(goBin, nodeBin, root, pkg, out string, log io.Writer) error {
	name := filepath.Base(out)
	if fileExists(out) && fileExists(out+".br") && fileExists(out+".gz") {
		fmt.Fprintf(log, "veclab serve: Go sources unchanged, reusing %s\n", out)
		return nil
	}
	lite := filepath.Join(root, "wasm", "lite")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	start := time.Now()
	tmp := filepath.Join(filepath.Dir(out), fmt.Sprintf("%s%d.wasm", strings.TrimSuffix(name, ".wasm"), os.Getpid()))
	for _, ext := range []string{"", ".br", ".gz"} {
		defer os.Remove(tmp + ext)
	}
	build := func(extra ...string) ([]byte, error) {
		args := append([]string{"build"}, extra...)
		args = append(args, "-ldflags=-s -w", "-trimpath", "-o", tmp, pkg)
		cmd := exec.Command(goBin, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		return cmd.CombinedOutput()
	}
	bout, err := build()
	if err != nil && strings.Contains(string(bout), "-buildvcs=false") {
		bout, err = build("-buildvcs=false")
	}
	if err != nil {
		return fmt.Errorf("building %s for js/wasm (GOOS=js GOARCH=wasm go build %s in %s): %v\n%s", pkg, pkg, root, err, bout)
	}
	built := time.Since(start)
	cmd := exec.Command(nodeBin, "compress.mjs", tmp)
	cmd.Dir = lite
	if cout, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("node compress.mjs (in %s): %v\n%s", lite, err, cout)
	}
	for _, ext := range []string{".br", ".gz", ""} {
		if err := os.Rename(tmp+ext, out+ext); err != nil {
			return err
		}
	}
	size := func(ext string) float64 {
		st, err := os.Stat(out + ext)
		if err != nil {
			return 0
		}
		return float64(st.Size()) / 1e6
	}
	fmt.Fprintf(log, "veclab serve: built %s, %.2f MB (%.2f MB gzip, %.2f MB brotli), in %.1f s (+%.1f s compressing)\n",
		name, size(""), size(".gz"), size(".br"), built.Seconds(), (time.Since(start) - built).Seconds())
	return nil
}

// exportExplorer writes the explorer to out/explorer.
func (s *site) exportExplorer(out string) error {
	dst := filepath.Join(out, "explorer")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir(s.explorerWeb)
	if err != nil {
		return err
	}
	files := []string{s.explorerWasm, s.explorerWasm + ".br", s.explorerWasm + ".gz", s.adviseWasm, s.adviseWasm + ".br", s.adviseWasm + ".gz"}
	for _, e := range ents {
		files = append(files, filepath.Join(s.explorerWeb, e.Name()))
	}
	for _, f := range files {
		if err := copyFile(filepath.Join(dst, filepath.Base(f)), f); err != nil {
			return fmt.Errorf("writing the explorer to %s: %w", dst, err)
		}
	}
	return nil
}

// explorerFile maps a request path under /explorer/ to its file.
func (s *site) explorerFile(p string) string {
	rest := strings.TrimPrefix(p, "/explorer")
	switch rest {
	case "", "/":
		rest = "/index.html"
	case "/explorer.wasm":
		return s.explorerWasm
	case "/advise.wasm":
		return s.adviseWasm
	}
	return filepath.Join(s.explorerWeb, filepath.FromSlash(rest[1:]))
}
