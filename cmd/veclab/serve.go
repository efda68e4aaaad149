package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func init() {
	register(&command{
		name:    "serve",
		summary: "build the browser version (wasm/) and serve its page (veclab serve [-addr 127.0.0.1:8080])",
		run:     runServe,
	})
}

// modulePath is the module whose wasm/ serve builds.
const modulePath = "github.com/veclab/veclab"

// serveConfig configures serve. The zero value of Src and Cache means
// "find it": the module containing the working directory, and the user's
// cache directory.
type serveConfig struct {
	Addr  string // listen address, e.g. "127.0.0.1:8080"; port 0 picks a free one
	Src   string // root of the veclab module's source (its go.mod)
	Cache string // where built files are kept, one subdirectory per source state
}

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg serveConfig
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:8080", "listen address (host:port; port 0 picks a free one)")
	fs.StringVar(&cfg.Src, "src", "", "the veclab module's source directory (default: the module containing the working directory)")
	fs.StringVar(&cfg.Cache, "cache", "", "directory for the built veclab.wasm (default: the user cache directory's veclab/wasm)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: veclab serve [-addr HOST:PORT] [-src DIR] [-cache DIR]")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Builds wasm/ (the evaluation core, lab and engine) for js/wasm with the Go toolchain,")
		fmt.Fprintln(stderr, "reusing the build while the sources are unchanged, and serves the notebook page of")
		fmt.Fprintln(stderr, "wasm/web with it. Needs the go command and the module's source.")
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, cfg, stdout, stderr, nil)
}

// serve builds the site, listens on cfg.Addr and serves until ctx ends.
// ready, when not nil, receives the page's URL once the server listens.
func serve(ctx context.Context, cfg serveConfig, stdout, stderr io.Writer, ready func(url string)) error {
	s, err := buildSite(cfg, stderr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
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

// site is what serve serves: the page from the module's wasm/web, the
// built veclab.wasm (and its gzip form) and the toolchain's wasm_exec.js.
type site struct {
	web    string // wasm/web of the module source
	wasm   string // veclab.wasm
	wasmGz string // veclab.wasm.gz
	execJS string // wasm_exec.js
}

// buildSite finds the Go toolchain and the module source, and builds
// wasm/ into the cache unless a build of the same sources is there.
func buildSite(cfg serveConfig, log io.Writer) (*site, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("the Go toolchain is not available: the go command is not on PATH (veclab serve builds wasm/ with it; install Go 1.26 from https://go.dev/dl/ and put its bin directory on PATH): %w", err)
	}
	root, err := moduleRoot(cfg.Src)
	if err != nil {
		return nil, err
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
	dir := filepath.Join(cache, key)
	s := &site{
		web:    filepath.Join(root, "wasm", "web"),
		wasm:   filepath.Join(dir, "veclab.wasm"),
		wasmGz: filepath.Join(dir, "veclab.wasm.gz"),
		execJS: filepath.Join(dir, "wasm_exec.js"),
	}
	if fileExists(s.wasm) && fileExists(s.wasmGz) {
		fmt.Fprintf(log, "veclab serve: sources unchanged, reusing %s\n", s.wasm)
	} else if err := buildWasm(goBin, root, dir, s, log); err != nil {
		return nil, err
	}
	// wasm_exec.js must match the toolchain that built the wasm: copy it
	// next to the build.
	if err := copyFile(s.execJS, execJS); err != nil {
		return nil, err
	}
	return s, nil
}

// moduleRoot returns src, or the directory of the go.mod of the veclab
// module containing the working directory, after checking that it holds
// wasm/ and its page.
func moduleRoot(src string) (string, error) {
	if src == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		for dir := wd; ; dir = filepath.Dir(dir) {
			if isModuleRoot(dir) {
				src = dir
				break
			}
			if filepath.Dir(dir) == dir {
				return "", fmt.Errorf("the veclab module source is not available: no go.mod of %s in %s or a directory above it (veclab serve builds wasm/ from the source: run it in a checkout, e.g. go run ./cmd/veclab serve, or pass -src DIR)", modulePath, wd)
			}
		}
	} else if !isModuleRoot(src) {
		return "", fmt.Errorf("-src %s: not the veclab module source (no go.mod declaring module %s)", src, modulePath)
	}
	for _, f := range []string{"wasm/main.go", "wasm/web/index.html"} {
		if !fileExists(filepath.Join(src, filepath.FromSlash(f))) {
			return "", fmt.Errorf("the veclab module source at %s has no %s (the browser build and its page)", src, f)
		}
	}
	return src, nil
}

func isModuleRoot(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module"); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`) == modulePath
		}
	}
	return false
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

// buildWasm runs `go build` of ./wasm for js/wasm in the module and writes
// veclab.wasm and veclab.wasm.gz into dir, each atomically.
func buildWasm(goBin, root, dir string, s *site, log io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(log, "veclab serve: building wasm/ for js/wasm in %s (the first build takes a few minutes)…\n", dir)
	start := time.Now()
	tmp := s.wasm + fmt.Sprintf(".tmp%d", os.Getpid())
	defer os.Remove(tmp)
	build := func(extra ...string) ([]byte, error) {
		args := append([]string{"build"}, extra...)
		args = append(args, "-ldflags=-s -w", "-o", tmp, "./wasm")
		cmd := exec.Command(goBin, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		return cmd.CombinedOutput()
	}
	out, err := build()
	if err != nil && bytes.Contains(out, []byte("-buildvcs=false")) {
		// No git, or a checkout git refuses to read: build without
		// the revision (the page then shows "devel").
		out, err = build("-buildvcs=false")
	}
	if err != nil {
		return fmt.Errorf("building wasm/ for js/wasm (GOOS=js GOARCH=wasm go build ./wasm in %s): %v\n%s", root, err, out)
	}
	if err := gzipFile(tmp+".gz", tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp+".gz", s.wasmGz); err != nil {
		return err
	}
	if err := os.Rename(tmp, s.wasm); err != nil {
		return err
	}
	st, _ := os.Stat(s.wasm)
	gz, _ := os.Stat(s.wasmGz)
	fmt.Fprintf(log, "veclab serve: built veclab.wasm, %.1f MB (%.1f MB gzipped), in %.1f s\n",
		float64(st.Size())/1e6, float64(gz.Size())/1e6, time.Since(start).Seconds())
	return nil
}

func gzipFile(dst, src string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(dst)
		}
	}()
	zw, err := gzip.NewWriterLevel(out, gzip.BestSpeed)
	if err != nil {
		return err
	}
	if _, err := io.Copy(zw, in); err != nil {
		return err
	}
	return zw.Close()
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

// handler serves the site. Every response is revalidated (Cache-Control:
// no-cache), so an edited page or a rebuilt wasm shows on reload.
func (s *site) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /veclab.wasm", s.serveWasm)
	mux.HandleFunc("GET /wasm_exec.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		http.ServeFile(w, r, s.execJS)
	})
	files := http.FileServer(http.Dir(s.web))
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		switch filepath.Ext(r.URL.Path) {
		case ".js":
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		case ".css":
			w.Header().Set("Content-Type", "text/css; charset=utf-8")
		case ".html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		files.ServeHTTP(w, r)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		mux.ServeHTTP(w, r)
	})
}

// serveWasm serves veclab.wasm as application/wasm (what
// WebAssembly.instantiateStreaming requires), gzipped when the client
// accepts it.
func (s *site) serveWasm(w http.ResponseWriter, r *http.Request) {
	name := s.wasm
	w.Header().Set("Vary", "Accept-Encoding")
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		name = s.wasmGz
		w.Header().Set("Content-Encoding", "gzip")
	}
	f, err := os.Open(name)
	if err != nil {
		w.Header().Del("Content-Encoding")
		http.Error(w, "veclab.wasm: "+err.Error(), http.StatusInternalServerError)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		w.Header().Del("Content-Encoding")
		http.Error(w, "veclab.wasm: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/wasm")
	http.ServeContent(w, r, "veclab.wasm", st.ModTime(), f)
}

func acceptsGzip(h string) bool {
	for _, part := range strings.Split(h, ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(enc), "gzip") {
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
