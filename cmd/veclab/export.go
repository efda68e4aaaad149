package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/veclab/veclab/internal/checkout"
)

func init() {
	register(&command{
		name:    "export",
		summary: "write a notebook as one offline HTML page with its widgets drawn from their saved state (veclab export -html OUT.html NB.ipynb)",
		run:     runExport,
	})
}

// exportConfig configures export; Src and Cache as in serveConfig.
type exportConfig struct {
	HTML  string // the page to write
	Src   string // root of the veclab module's source (for wasm/export)
	Cache string // where the bundled script is kept, one subdirectory per source state
}

func runExport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg exportConfig
	fs.StringVar(&cfg.HTML, "html", "", "write the page here (required)")
	fs.StringVar(&cfg.Src, "src", "", "the veclab module's source directory (default: the module containing the working directory)")
	fs.StringVar(&cfg.Cache, "cache", "", "directory for the page's bundled script (default: the user cache directory's veclab/export)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: veclab export -html OUT.html [-src DIR] [-cache DIR] NOTEBOOK.ipynb")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Writes the notebook as one HTML page that needs no network: Markdown, code, streams,")
		fmt.Fprintln(stderr, "errors, HTML tables, SVG and PNG pictures, and the widgets drawn by")
		fmt.Fprintln(stderr, "@jupyter-widgets/html-manager from the widget state saved in the notebook (veclab run")
		fmt.Fprintln(stderr, "saves it; so does JupyterLab's \"Save Widget State Automatically\"), each at its last value.")
		fmt.Fprintln(stderr, "The page's script is bundled once from wasm/export's npm packages (node, npm; the")
		fmt.Fprintln(stderr, "module's source) and kept in the cache while its sources are unchanged.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	files, err := parseAnywhere(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if len(files) != 1 {
		fs.Usage()
		return errors.New("want exactly one notebook")
	}
	if cfg.HTML == "" {
		fs.Usage()
		return errors.New("-html OUT.html is required (the one format export writes)")
	}
	nb, err := os.ReadFile(files[0])
	if err != nil {
		return err
	}
	b, err := exportBundle(cfg, stderr)
	if err != nil {
		return err
	}
	page, err := exportPage(nb, strings.TrimSuffix(filepath.Base(files[0]), ".ipynb"), b)
	if err != nil {
		return fmt.Errorf("%s: %w", files[0], err)
	}
	if err := os.WriteFile(cfg.HTML, page, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "veclab export: wrote %s (%d kB)\n", cfg.HTML, len(page)>>10)
	return nil
}

// exportBundle returns the page's script and style, built by
// wasm/export/build.mjs into the cache unless a build of the same sources
// is there.
func exportBundle(cfg exportConfig, log io.Writer) (pageBundle, error) {
	root := cfg.Src
	if root == "" {
		var err error
		if root, err = checkout.Find(); err != nil {
			return pageBundle{}, fmt.Errorf("the veclab module source is not available: %v (veclab export bundles the page's script from wasm/export: run it in a checkout, e.g. go run ./cmd/veclab export …, or pass -src DIR)", err)
		}
	} else if !checkout.IsRoot(root) {
		return pageBundle{}, fmt.Errorf("-src %s: not the veclab module source (no go.mod declaring module %s)", root, checkout.Module)
	}
	dir := filepath.Join(root, "wasm", "export")
	if !fileExists(filepath.Join(dir, "build.mjs")) {
		return pageBundle{}, fmt.Errorf("the veclab module source at %s has no wasm/export/build.mjs (the static page's script)", root)
	}
	cache := cfg.Cache
	if cache == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return pageBundle{}, fmt.Errorf("no cache directory for the page's script (%v): pass -cache DIR", err)
		}
		cache = filepath.Join(d, "veclab", "export")
	}
	key, err := exportKey(dir)
	if err != nil {
		return pageBundle{}, err
	}
	out := filepath.Join(cache, "page-"+key)
	if !fileExists(filepath.Join(out, "page.js")) || !fileExists(filepath.Join(out, "page.css")) || !fileExists(filepath.Join(out, "vega.js")) {
		if err := buildExportBundle(dir, out, log); err != nil {
			return pageBundle{}, err
		}
	}
	js, err := os.ReadFile(filepath.Join(out, "page.js"))
	if err != nil {
		return pageBundle{}, err
	}
	css, err := os.ReadFile(filepath.Join(out, "page.css"))
	if err != nil {
		return pageBundle{}, err
	}
	vega, err := os.ReadFile(filepath.Join(out, "vega.js"))
	if err != nil {
		return pageBundle{}, err
	}
	return pageBundle{JS: js, CSS: css, Vega: vega}, nil
}

// exportKey hashes what the bundle depends on: the lock file, build.mjs
// and src/.
func exportKey(dir string) (string, error) {
	files := []string{filepath.Join(dir, "package-lock.json"), filepath.Join(dir, "build.mjs")}
	src, err := filepath.Glob(filepath.Join(dir, "src", "*"))
	if err != nil {
		return "", err
	}
	return hashFiles(append(files, src...), "the page's sources")
}

// buildExportBundle installs wasm/export's npm packages when they are
// missing (npm ci: the lock file's versions) and runs build.mjs into out
// through a temporary directory, so a failed build leaves nothing.
func buildExportBundle(dir, out string, log io.Writer) error {
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		return fmt.Errorf("node is not available: the node command is not on PATH (veclab export bundles the page's script with it once; install: apt-get install -y nodejs npm): %w", err)
	}
	if !fileExists(filepath.Join(dir, "node_modules", "esbuild", "package.json")) ||
		!fileExists(filepath.Join(dir, "node_modules", "@jupyter-widgets", "html-manager", "package.json")) {
		npm, err := exec.LookPath("npm")
		if err != nil {
			return fmt.Errorf("wasm/export has no node_modules and npm is not on PATH (install: apt-get install -y nodejs npm, then npm ci in wasm/export): %w", err)
		}
		fmt.Fprintf(log, "veclab export: installing the page's npm packages (npm ci in %s)…\n", dir)
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("npm ci in %s: %v\n%s", dir, err, b)
		}
	}
	start := time.Now()
	tmp := out + fmt.Sprintf(".tmp%d", os.Getpid())
	defer os.RemoveAll(tmp)
	cmd := exec.Command(nodeBin, "build.mjs", tmp)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("node build.mjs in %s: %v\n%s", dir, err, b)
	}
	os.RemoveAll(out)
	if err := os.Rename(tmp, out); err != nil {
		return err
	}
	fmt.Fprintf(log, "veclab export: bundled the page's script in %.1f s (%s)\n", time.Since(start).Seconds(), out)
	return nil
}
