package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/veclab/veclab/internal/checkout"
)

func init() {
	register(&command{
		name:    "serve",
		summary: "build the JupyterLite site with the Go (veclab) kernel (wasm/) and serve it (veclab serve [-addr 127.0.0.1:8080] [-out DIR])",
		run:     runServe,
	})
}

// serveConfig configures serve. The zero value of Src and Cache means
// "find it": the module containing the working directory, and the user's
// cache directory.
type serveConfig struct {
	Addr  string // listen address, e.g. "127.0.0.1:8080"; port 0 picks a free one
	Src   string // root of the veclab module's source (its go.mod)
	Cache string // where built files are kept, one subdirectory per source state
	Out   string // when set: write the static site there instead of serving it
}

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg serveConfig
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:8080", "listen address (host:port; port 0 picks a free one)")
	fs.StringVar(&cfg.Src, "src", "", "the veclab module's source directory (default: the module containing the working directory)")
	fs.StringVar(&cfg.Cache, "cache", "", "directory for the built site and veclab.wasm (default: the user cache directory's veclab/wasm)")
	fs.StringVar(&cfg.Out, "out", "", "write the static site (with .br and .gz forms) to this directory and exit, for any static file host")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: veclab serve [-addr HOST:PORT] [-src DIR] [-cache DIR] [-out DIR]")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Builds wasm/ (the evaluation core, lab and engine) for js/wasm with the Go toolchain and")
		fmt.Fprintln(stderr, "assembles the JupyterLite site of wasm/lite (JupyterLab in the browser, the notebooks of")
		fmt.Fprintln(stderr, "notebooks/, the Go (veclab) kernel in a Web Worker) with node, reusing both while their")
		fmt.Fprintln(stderr, "sources are unchanged, then serves the site with the cross-origin isolation headers the")
		fmt.Fprintln(stderr, "kernel's interrupt needs. Needs the go command, node and npm, and the module's source.")
		fmt.Fprintln(stderr, "The explorer page (wasm/explorer: HNSW, quantization and filters on an engine-only module)")
		fmt.Fprintln(stderr, "is built and served with it, at /explorer/.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if cfg.Out != "" {
		s, err := buildSite(cfg, stderr)
		if err != nil {
			return err
		}
		if err := s.export(cfg.Out); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "veclab serve: the static site is in %s\n", cfg.Out)
		return nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, cfg, stdout, stderr, nil)
}

// serve builds the site, listens on cfg.Addr and serves until ctx ends.
// ready, when not nil, receives the page's URL once the server listens.
func serve(ctx context.Context, cfg serveConfig, stdout, stderr io.Writer, ready func(url string)) error {
	// Listen first: a bad or busy address is reported at once, not after
	// the minutes a first build of the site takes.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("-addr %s: %w", cfg.Addr, err)
	}
	s, err := buildSite(cfg, stderr)
	if err != nil {
		ln.Close()
		return err
	}
	url := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(stdout, "veclab serve: %s (Ctrl+C stops)\n", url)
	if ready != nil {
		ready(url)
	}
	srv := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	err = srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		<-done
		return nil
	}
	return err
}

// moduleRoot returns src, or the checkout holding the working directory
// (internal/checkout), after checking that it holds wasm/ and its page.
func moduleRoot(src string) (string, error) {
	if src == "" {
		var err error
		if src, err = checkout.Find(); err != nil {
			return "", fmt.Errorf("the veclab module source is not available: %v (veclab serve builds wasm/ from the source: run it in a checkout, e.g. go run ./cmd/veclab serve, or pass -src DIR)", err)
		}
	} else if !checkout.IsRoot(src) {
		return "", fmt.Errorf("-src %s: not the veclab module source (no go.mod declaring module %s)", src, checkout.Module)
	}
	for _, f := range []string{"wasm/main.go", "wasm/lite/build.mjs"} {
		if !fileExists(filepath.Join(src, filepath.FromSlash(f))) {
			return "", fmt.Errorf("the veclab module source at %s has no %s (the browser build and its JupyterLite site)", src, f)
		}
	}
	return src, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// goEnv returns the named `go env` variables, run in dir.
func goEnv(goBin, dir string, names ...string) (map[string]string, error) {
	cmd := exec.Command(goBin, append([]string{"env"}, names...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(names) {
		return nil, fmt.Errorf("go env %s: unexpected output %q", strings.Join(names, " "), out)
	}
	m := map[string]string{}
	for i, n := range names {
		m[n] = lines[i]
	}
	return m, nil
}

// sourceKey hashes what the wasm build depends on: the Go version, the
// environment variables that change a build, and every non-test Go or
// assembly file, go.mod and go.sum of the module (a change anywhere in it
// rebuilds, which errs on the safe side).
func sourceKey(root, goVersion string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "go %s\n", goVersion)
	for _, v := range []string{"GOFLAGS", "GOEXPERIMENT", "GOWASM", "CGO_ENABLED"} {
		fmt.Fprintf(h, "%s=%s\n", v, os.Getenv(v))
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !(strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, ".s") || name == "go.mod" || name == "go.sum") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hashing the module source: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// site is what serve serves: the JupyterLite site of wasm/lite (built by
// its build.mjs with esbuild from the npm packages of its lock file), the
// built veclab.wasm, the toolchain's wasm_exec.js and the engine's SIMD128
// kernels (veclab-simd.js), with .br and .gz forms of every compressible
// file.
type site struct {
	lite   string // the built JupyterLite site (index.html, build/, files/, api/)
	wasm   string // veclab.wasm
	execJS string // wasm_exec.js
	simdJS string // veclab-simd.js, which every host of veclab.wasm and explorer.wasm installs

	explorerWasm string // explorer.wasm, the explorer page's engine-only module
	adviseWasm   string // advise.wasm, lab/advise for a file dropped on the explorer page
	explorerWeb  string // the explorer page (serve_explorer.go)
}

// buildSite finds the Go toolchain, node and the module source, and builds
// wasm/ and the site into the cache unless builds of the same sources are
// there.
func buildSite(cfg serveConfig, log io.Writer) (*site, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("the Go toolchain is not available: the go command is not on PATH (veclab serve builds wasm/ with it; install Go 1.26 from https://go.dev/dl/ and put its bin directory on PATH): %w", err)
	}
	root, err := moduleRoot(cfg.Src)
	if err != nil {
		return nil, err
	}
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("node is not available: the node command is not on PATH (veclab serve assembles the JupyterLite site of wasm/lite and compresses it with node; install: apt-get install -y nodejs npm): %w", err)
	}
	env, err := goEnv(goBin, root, "GOROOT", "GOVERSION")
	if err != nil {
		return nil, err
	}
	execJS := ""
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		if f := filepath.Join(env["GOROOT"], filepath.FromSlash(p)); fileExists(f) {
			execJS = f
			break
		}
	}
	if execJS == "" {
		return nil, fmt.Errorf("the Go toolchain at %s has no lib/wasm/wasm_exec.js (the JavaScript support of GOOS=js GOARCH=wasm; it ships with Go ≥ 1.24)", env["GOROOT"])
	}
	cache := cfg.Cache
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no cache directory for the wasm build (%v): pass -cache DIR", err)
		}
		cache = filepath.Join(dir, "veclab", "wasm")
	}
	key, err := sourceKey(root, env["GOVERSION"])
	if err != nil {
		return nil, err
	}
	lkey, err := liteKey(root)
	if err != nil {
		return nil, err
	}
	ekey, err := explorerWebKey(root)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cache, "wasm-"+key)
	s := &site{
		lite:   filepath.Join(cache, "lite-"+lkey),
		wasm:   filepath.Join(dir, "veclab.wasm"),
		execJS: filepath.Join(dir, "wasm_exec.js"),
		simdJS: filepath.Join(dir, simdJSName),

		explorerWasm: filepath.Join(dir, "explorer.wasm"),
		adviseWasm:   filepath.Join(dir, "advise.wasm"),
		explorerWeb:  filepath.Join(cache, "explorer-"+ekey),
	}
	lite := filepath.Join(root, "wasm", "lite")
	if fileExists(s.wasm) && fileExists(s.wasm+".br") && fileExists(s.wasm+".gz") {
		fmt.Fprintf(log, "veclab serve: Go sources unchanged, reusing %s\n", s.wasm)
	} else if err := buildWasm(goBin, nodeBin, root, dir, s, log); err != nil {
		return nil, err
	}
	if err := buildExplorer(goBin, nodeBin, root, s, log); err != nil {
		return nil, err
	}
	// wasm_exec.js must match the toolchain that built the wasm: copy it
	// next to the build.
	if err := copyFile(s.execJS, execJS); err != nil {
		return nil, err
	}
	// The kernels the modules import (//go:wasmimport veclab_simd …) are
	// generated into the source tree (engine/internal/wasmsimd): copy the
	// file of the sources just built.
	if err := copyFile(s.simdJS, filepath.Join(root, filepath.FromSlash(simdJSSource))); err != nil {
		return nil, err
	}
	if fileExists(filepath.Join(s.lite, "index.html")) {
		fmt.Fprintf(log, "veclab serve: site sources unchanged, reusing %s\n", s.lite)
	} else {
		if err := ensureNodeModules(lite, log); err != nil {
			return nil, err
		}
		if err := buildLite(nodeBin, root, s.lite, log); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// simdJSName is the engine's SIMD128 kernels and their loader, served at
// the site's root beside wasm_exec.js; simdJSSource is where go generate
// writes it, relative to the module root.
const (
	simdJSName   = "veclab-simd.js"
	simdJSSource = "engine/internal/wasmsimd/veclab-simd.js"
)

// liteKey hashes what the JupyterLite site depends on: wasm/lite's lock
// file, build and compression scripts and sources, and the notebooks.
func liteKey(root string) (string, error) {
	h := sha256.New()
	var files []string
	for _, pat := range []string{"wasm/lite/package-lock.json", "wasm/lite/*.mjs", "wasm/lite/src/*", "notebooks/*.ipynb"} {
		m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pat)))
		if err != nil {
			return "", err
		}
		files = append(files, m...)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("hashing the site's sources: %w", err)
		}
		rel, _ := filepath.Rel(root, f)
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// ensureNodeModules runs `npm ci` in wasm/lite when its packages (esbuild,
// JupyterLab, JupyterLite) are not installed.
func ensureNodeModules(lite string, log io.Writer) error {
	if fileExists(filepath.Join(lite, "node_modules", "esbuild", "package.json")) &&
		fileExists(filepath.Join(lite, "node_modules", "@jupyterlite", "services", "package.json")) {
		return nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("wasm/lite has no node_modules and npm is not on PATH (install: apt-get install -y nodejs npm, then npm ci in wasm/lite): %w", err)
	}
	fmt.Fprintf(log, "veclab serve: installing the site's npm packages (npm ci in %s)…\n", lite)
	cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = lite
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm ci in %s: %v\n%s", lite, err, out)
	}
	return nil
}

// buildLite runs wasm/lite/build.mjs into dir (through a temporary
// directory renamed at the end, so a failed build leaves no site) and
// pre-compresses it.
func buildLite(nodeBin, root, dir string, log io.Writer) error {
	fmt.Fprintf(log, "veclab serve: assembling the JupyterLite site in %s…\n", dir)
	start := time.Now()
	tmp := dir + fmt.Sprintf(".tmp%d", os.Getpid())
	defer os.RemoveAll(tmp)
	lite := filepath.Join(root, "wasm", "lite")
	for _, args := range [][]string{
		{"build.mjs", tmp, filepath.Join(root, "notebooks")},
		{"compress.mjs", tmp},
	} {
		cmd := exec.Command(nodeBin, args...)
		cmd.Dir = lite
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("node %s (in %s): %v\n%s", strings.Join(args, " "), lite, err, out)
		}
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	fmt.Fprintf(log, "veclab serve: site assembled in %.1f s\n", time.Since(start).Seconds())
	return nil
}

// buildWasm runs `go build` of ./wasm for js/wasm in the module (symbols
// and DWARF stripped) and writes veclab.wasm, veclab.wasm.br and
// veclab.wasm.gz into dir, each by a rename.
func buildWasm(goBin, nodeBin, root, dir string, s *site, log io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(log, "veclab serve: building wasm/ for js/wasm in %s (the first build takes a few minutes)…\n", dir)
	start := time.Now()
	tmp := filepath.Join(dir, fmt.Sprintf("build%d.wasm", os.Getpid()))
	for _, ext := range []string{"", ".br", ".gz"} {
		defer os.Remove(tmp + ext)
	}
	build := func(extra ...string) ([]byte, error) {
		args := append([]string{"build"}, extra...)
		args = append(args, "-ldflags=-s -w", "-trimpath", "-o", tmp, "./wasm")
		cmd := exec.Command(goBin, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		return cmd.CombinedOutput()
	}
	out, err := build()
	if err != nil && bytes.Contains(out, []byte("-buildvcs=false")) {
		// No git, or a checkout git refuses to read: build without
		// the revision (the kernel then says "devel").
		out, err = build("-buildvcs=false")
	}
	if err != nil {
		return fmt.Errorf("building wasm/ for js/wasm (GOOS=js GOARCH=wasm go build ./wasm in %s): %v\n%s", root, err, out)
	}
	built := time.Since(start)
	lite := filepath.Join(root, "wasm", "lite")
	cmd := exec.Command(nodeBin, "compress.mjs", tmp)
	cmd.Dir = lite
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("node compress.mjs (in %s): %v\n%s", lite, err, out)
	}
	for _, ext := range []string{".br", ".gz", ""} {
		if err := os.Rename(tmp+ext, s.wasm+ext); err != nil {
			return err
		}
	}
	size := func(ext string) float64 {
		st, err := os.Stat(s.wasm + ext)
		if err != nil {
			return 0
		}
		return float64(st.Size()) / 1e6
	}
	fmt.Fprintf(log, "veclab serve: built veclab.wasm, %.1f MB (%.1f MB gzip, %.1f MB brotli), in %.1f s (+%.1f s compressing)\n",
		size(""), size(".gz"), size(".br"), built.Seconds(), (time.Since(start) - built).Seconds())
	return nil
}

func copyFile(dst, src string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	tmp := dst + fmt.Sprintf(".tmp%d", os.Getpid())
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// export writes the static site to out: the site, veclab.wasm (with its
// .br and .gz forms), wasm_exec.js and veclab-simd.js.
func (s *site) export(out string) error {
	err := filepath.WalkDir(s.lite, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(s.lite, p)
		dst := filepath.Join(out, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		return copyFile(dst, p)
	})
	if err != nil {
		return fmt.Errorf("writing the site to %s: %w", out, err)
	}
	for _, f := range []string{s.wasm, s.wasm + ".br", s.wasm + ".gz", s.execJS, s.simdJS} {
		if err := copyFile(filepath.Join(out, filepath.Base(f)), f); err != nil {
			return fmt.Errorf("writing the site to %s: %w", out, err)
		}
	}
	v, err := wasmVersion(s.wasm)
	if err == nil {
		err = os.WriteFile(filepath.Join(out, "veclab.wasm.version"), []byte(v), 0o644)
	}
	if err != nil {
		return fmt.Errorf("writing the site to %s: %w", out, err)
	}
	return s.exportExplorer(out)
}

// handler serves the site. Every response carries the cross-origin
// isolation headers (COOP same-origin, COEP require-corp, CORP
// same-origin) that SharedArrayBuffer, hence the kernel's interrupt,
// needs, and is revalidated (Cache-Control: no-cache, answered by 304 when
// unchanged), so a rebuilt site shows on reload, except veclab.wasm asked
// for by its version (veclab.wasm?v=, the text of veclab.wasm.version)
// and the files build.mjs names by their content's hash (build/chunks/,
// build/assets/), which are immutable. A file is sent in its
// pre-compressed brotli or gzip form when the request accepts it. A
// directory's address serves its index.html; without its final slash (a
// shared link to lab?path=…) it is redirected, with its query, to it.
func (s *site) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Embedder-Policy", "require-corp")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		p := path.Clean("/" + r.URL.Path)
		var file string
		switch p {
		case "/veclab.wasm.version":
			// What boot.js asks for first, to fetch veclab.wasm?v=VERSION.
			v, err := wasmVersion(s.wasm)
			if err != nil {
				http.NotFound(w, r)
				return
			}
			h.Set("Content-Type", "text/plain; charset=utf-8")
			io.WriteString(w, v)
			return
		case "/veclab.wasm":
			// The module of a given version never changes: a browser keeps
			// it without asking again, and so keeps Chromium's cache of
			// its compiled code, which a revalidation (304) would drop.
			if v, err := wasmVersion(s.wasm); err == nil && r.URL.Query().Get("v") == v {
				h.Set("Cache-Control", "public, max-age=31536000, immutable")
			}
			file = s.wasm
		case "/wasm_exec.js":
			file = s.execJS
		case "/" + simdJSName:
			file = s.simdJS
		default:
			if strings.HasPrefix(p, "/build/chunks/") || strings.HasPrefix(p, "/build/assets/") {
				// build.mjs names these by their content's hash
				// (chunks/NAME-HASH.js, assets/NAME-HASH.EXT): a changed
				// file has a new name, so a browser keeps them without
				// asking again (a warm load revalidated each one).
				h.Set("Cache-Control", "public, max-age=31536000, immutable")
			}
			if p == "/explorer" || strings.HasPrefix(p, "/explorer/") {
				if p == "/explorer" && !strings.HasSuffix(r.URL.Path, "/") {
					http.Redirect(w, r, "/explorer/", http.StatusMovedPermanently)
					return
				}
				s.serveFile(w, r, s.explorerFile(p))
				return
			}
			// A directory's page (index.html; p, cleaned, has no final
			// slash but the root's) asked for without its slash, as a
			// shared link to lab?path=… may be, is redirected with the
			// query.
			if strings.HasSuffix(r.URL.Path, "/") {
				p = path.Join(p, "index.html")
			} else if p != "/" && fileExists(filepath.Join(s.lite, filepath.FromSlash(p[1:]), "index.html")) {
				to := p + "/"
				if r.URL.RawQuery != "" {
					to += "?" + r.URL.RawQuery
				}
				http.Redirect(w, r, to, http.StatusMovedPermanently)
				return
			}
			file = filepath.Join(s.lite, filepath.FromSlash(p[1:]))
		}
		s.serveFile(w, r, file)
	})
}

// serveFile sends file with the Content-Type of its name, or its .br or
// .gz form with Content-Encoding when the request accepts that encoding.
func (s *site) serveFile(w http.ResponseWriter, r *http.Request, file string) {
	st, err := os.Stat(file)
	if err != nil || !st.Mode().IsRegular() {
		http.NotFound(w, r)
		return
	}
	ctype := mime.TypeByExtension(filepath.Ext(file))
	switch filepath.Ext(file) {
	case ".js", ".mjs":
		ctype = "text/javascript; charset=utf-8"
	case ".wasm":
		ctype = "application/wasm" // what WebAssembly.instantiateStreaming requires
	case ".json", ".ipynb":
		ctype = "application/json"
	case ".woff2":
		ctype = "font/woff2"
	case ".woff":
		ctype = "font/woff"
	case ".ttf":
		ctype = "font/ttf"
	}
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Vary", "Accept-Encoding")
	name := file
	accept := r.Header.Get("Accept-Encoding")
	for _, enc := range []struct{ name, ext string }{{"br", ".br"}, {"gzip", ".gz"}} {
		if accepts(accept, enc.name) && fileExists(file+enc.ext) {
			name = file + enc.ext
			h.Set("Content-Encoding", enc.name)
			break
		}
	}
	f, err := os.Open(name)
	if err != nil {
		h.Del("Content-Encoding")
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer f.Close()
	fst, err := f.Stat()
	if err != nil {
		h.Del("Content-Encoding")
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	// The ETag names the encoded file, so a cache never mixes encodings.
	h.Set("ETag", strconv.Quote(fmt.Sprintf("%x-%x-%s", fst.ModTime().UnixNano(), fst.Size(), h.Get("Content-Encoding"))))
	http.ServeContent(w, r, "", fst.ModTime(), f)
}

// wasmVersion names the built module (its modification time and size),
// for the URL veclab.wasm?v=VERSION.
func wasmVersion(wasm string) (string, error) {
	st, err := os.Stat(wasm)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%x-%x", st.ModTime().UnixNano(), st.Size()), nil
}

// accepts reports whether an Accept-Encoding header value accepts enc
// (q > 0).
func accepts(h, enc string) bool {
	for _, part := range strings.Split(h, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), enc) {
			continue
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			q, err := strconv.ParseFloat(v, 64)
			return err == nil && q > 0
		}
		return true
	}
	return false
}
