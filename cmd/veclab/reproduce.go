package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/veclab/veclab/lab/experiment"
	_ "github.com/veclab/veclab/lab/experiment/all"
)

func init() {
	register(&command{
		name:    "reproduce",
		summary: "run the articles' experiments and print the article's figures beside the lab's",
		run:     runReproduce,
	})
}

// reproduceFlags are the flags of `veclab reproduce`.
type reproduceFlags struct {
	scale    experiment.Scale
	only     string
	out      string
	jsonOut  string
	seed     uint64
	cache    string
	list     bool
	md       bool // -md: -list prints a Markdown catalogue
	progress bool
	data     string // -data: a real data set instead of the generated one
	pg       string
}

func parseReproduce(args []string, stderr io.Writer) (*reproduceFlags, error) {
	fs := flag.NewFlagSet("reproduce", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &reproduceFlags{}
	scale := fs.String("scale", "article", `"article" (30,000 × 384, 100 queries), "small" (tests), or key=value pairs such as "n=10000,queries=50"`)
	fs.StringVar(&f.only, "only", "", "comma-separated experiment ids to run (default: all registered), e.g. E02,E06")
	fs.StringVar(&f.out, "out", "", "also write a Markdown report to this file")
	fs.StringVar(&f.jsonOut, "json", "", "also write the reports (tables, seed, scale, machine) as JSON to this file")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the data set, the graphs and the quantizers (1, as the notebooks)")
	fs.StringVar(&f.cache, "cache", "", "directory that keeps the exact ground truth between runs")
	fs.BoolVar(&f.list, "list", false, "list the registered experiments, the claims each judges and the article's figures it registers, without running anything, and exit")
	fs.BoolVar(&f.md, "md", false, "with -list: print the catalogue as Markdown (docs/experiments.md is this output)")
	fs.BoolVar(&f.progress, "progress", false, "print progress of long steps to stderr as lines when stderr is not a terminal (on a terminal a progress bar is always drawn)")
	fs.StringVar(&f.data, "data", "", "run on a real data set (a name from `veclab data list`, or a directory) instead of the generated one; the scale's n and queries cut it")
	fs.StringVar(&f.pg, "pg", "", `also run the pgvector experiments on a real PostgreSQL: "embedded" (PostgreSQL 18.6 + pgvector 0.8.7 as WebAssembly, started for the run; needs node and npm ci in lab/pglive/server) or postgres://user:password@host:port/db`)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: veclab reproduce [-scale article|small|k=v,…] [-only E02,E06] [-out FILE.md] [-json FILE.json] [-seed N] [-pg embedded|postgres://…]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q (experiments are chosen with -only)", fs.Args())
	}
	sc, err := experiment.ParseScale(*scale)
	if err != nil {
		return nil, err
	}
	f.scale = sc
	return f, nil
}

func runReproduce(args []string, stdout, stderr io.Writer) error {
	f, err := parseReproduce(args, stderr)
	if err != nil {
		return err
	}
	exps, err := experiment.Select(f.only)
	if err != nil {
		return err
	}
	if f.md && !f.list {
		return fmt.Errorf("-md goes with -list")
	}
	if f.list && f.md {
		fmt.Fprint(stdout, experiment.Catalogue(exps))
		return nil
	}
	if f.list {
		for _, e := range exps {
			fmt.Fprintf(stdout, "%-4s %s\n     %s\n", e.ID, e.Title, e.Article)
			for _, c := range e.Claims {
				fmt.Fprintf(stdout, "     claim %s: %s — article %s\n", e.ID, c.Claim, c.Article)
			}
			for _, fig := range e.Figures {
				fmt.Fprintf(stdout, "     · %s %s: %s\n", e.ID, fig.Row, articleFigure(fig))
			}
		}
		if f.only == "" {
			fmt.Fprint(stdout, experiment.ArticleList(false))
		}
		return nil
	}
	if len(exps) == 0 {
		return fmt.Errorf("no experiments are registered")
	}
	env, err := experiment.NewEnv(f.scale, f.seed)
	if err != nil {
		return err
	}
	defer env.Close()
	env.CacheDir = f.cache
	env.Log = stderr
	if f.data != "" {
		if err := env.UseData(f.data, ""); err != nil {
			return err
		}
	}
	if env.PG, err = openPG(f.pg, stderr); err != nil {
		return err
	}
	defer env.PG.Close()
	var bar *progressBar
	switch {
	case isTerminal(stderr):
		bar = newProgressBar(stderr)
		env.Progress = bar.update
	case f.progress:
		env.Progress = progressLines(stderr)
	}
	fmt.Fprintf(stdout, "veclab reproduce: %d experiment(s), scale %s (%v), seed %d\nmachine: %v\n\n",
		len(exps), env.Scale.Name, env.Scale, f.seed, env.Machine)
	var reports []*experiment.Report
	for _, e := range exps {
		r := experiment.Run(env, e)
		if bar != nil {
			bar.end()
		}
		reports = append(reports, r)
		fmt.Fprintln(stdout, r.String())
	}
	fmt.Fprintln(stdout, "summary: per experiment, the article's claim, the lab's figure, and whether they agree")
	fmt.Fprint(stdout, experiment.Summary(reports))
	counts := experiment.Count(reports)
	fmt.Fprintln(stdout, counts)
	if f.out != "" {
		if err := writeReport(f.out, f, env, reports); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", f.out)
	}
	if f.jsonOut != "" {
		all := make([]any, len(reports))
		for i, r := range reports {
			all[i] = r.JSON()
		}
		b, err := json.MarshalIndent(map[string]any{"reports": all, "summary": counts.JSON()}, "", "  ")
		if err != nil {
			return fmt.Errorf("encoding reports: %w", err)
		}
		if err := writeAtomic(f.jsonOut, append(b, '\n')); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", f.jsonOut)
	}
	for _, r := range reports {
		if r.Status == experiment.Failed {
			return fmt.Errorf("%s failed: %s", r.ID, firstLine(r.Err))
		}
	}
	return nil
}

// articleFigure prints one of the article's registered figures as
// "measure = value unit".
func articleFigure(f experiment.Figure) string {
	s := fmt.Sprintf("%s = %s", f.Measure, strconv.FormatFloat(f.Value, 'f', -1, 64))
	if f.Unit != "" && f.Unit != f.Measure {
		s += " " + f.Unit
	}
	return s
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// writeReport writes the Markdown report to a temporary file and renames
// it into place, so a failed write never leaves half a report.
func writeReport(path string, f *reproduceFlags, env *experiment.Env, reports []*experiment.Report) error {
	var b strings.Builder
	b.WriteString("# veclab reproduce\n\n")
	fmt.Fprintf(&b, "Scale %s (%v), seed %d.  \nMachine: %v.\n\n", f.scale.Name, f.scale, f.seed, env.Machine)
	b.WriteString("Every table prints the article's figure beside the lab's; the lab never prints an article's number as its own.\n\n")
	b.WriteString("```\n" + experiment.Summary(reports) + experiment.Count(reports).String() + "\n```\n\n")
	for _, r := range reports {
		b.WriteString(r.Markdown())
		b.WriteString("\n")
	}
	return writeAtomic(path, []byte(b.String()))
}

// writeAtomic writes data to a temporary file beside path and renames it
// into place.
func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing report: %w", err)
	}
	return nil
}
