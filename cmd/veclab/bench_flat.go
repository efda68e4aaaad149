package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
)

func init() {
	register(&command{
		name:    "bench flat",
		summary: "exact search on one goroutine against the memory floor (streaming the slab) and a C loop (g++ -O3 -march=native)",
		run:     runBenchFlat,
	})
}

type benchFlatFlags struct {
	ds         dataset.Config
	data       string
	k          int
	peer       string
	peerSrc    string
	minSeconds float64
	reps       int
}

func parseBenchFlat(args []string, stderr io.Writer) (*benchFlatFlags, error) {
	fs := flag.NewFlagSet("bench flat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &benchFlatFlags{}
	generatorFlags(fs, &f.ds, 100, "query vectors", "data set seed")
	fs.IntVar(&f.k, "k", 10, "neighbours per query")
	fs.StringVar(&f.peer, "peer", "c", `"c": also run the plain C loop (needs g++); "": none`)
	fs.StringVar(&f.peerSrc, "peer-src", "", "path to bench/peers (default: found from the working directory)")
	fs.Float64Var(&f.minSeconds, "min-seconds", 0.5, "minimum timed seconds of queries per measurement")
	fs.IntVar(&f.reps, "reps", 3, "measurements (each side runs reps times, alternating; the report gives each and their median)")
	data := dataFlag(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	f.data = *data
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%w: unexpected arguments %q", engine.ErrInvalidArgument, fs.Args())
	}
	var errs []error
	if f.k < 1 {
		errs = append(errs, fmt.Errorf("%w: -k must be ≥ 1, got %d", engine.ErrInvalidArgument, f.k))
	}
	if f.reps < 1 {
		errs = append(errs, fmt.Errorf("%w: -reps must be ≥ 1, got %d", engine.ErrInvalidArgument, f.reps))
	}
	if !(f.minSeconds >= 0) {
		errs = append(errs, fmt.Errorf("%w: -min-seconds must be ≥ 0", engine.ErrInvalidArgument))
	}
	if f.peer != "" && f.peer != "c" {
		errs = append(errs, fmt.Errorf("%w: -peer %q: only c is known", engine.ErrInvalidArgument, f.peer))
	}
	if err := f.ds.WithDefaults().Validate(); err != nil && f.data == "" {
		errs = append(errs, err)
	}
	return f, errors.Join(errs...)
}

// cFlatResult is the JSON of bench/peers/cflat/flat_bench.
type cFlatResult struct {
	N         int     `json:"n"`
	Rounds    int     `json:"rounds"`
	StreamMS  float64 `json:"stream_ms"`
	QueryMS   float64 `json:"query_ms"`
	PairRatio float64 `json:"pair_ratio"`
	FastStrMS float64 `json:"fastest_stream_ms"`
	FastQMS   float64 `json:"fastest_query_ms"`
	CPURatio  float64 `json:"cpu_pair_ratio"`
	FirstIDs  []int   `json:"first_ids"`
}

// flatRound is one measurement of one side: medians of the floor passes
// and of the queries, the median of the per-pair ratios query / adjacent
// pass (each pair sees the same machine, so this is the figure that other
// load on a shared machine disturbs least), the same by the thread's CPU
// time (which leaves out time other processes held the core), and the
// fastest of each.
type flatRound struct {
	floor, query, ratio, fastFloor, fastQuery float64 // ms, ms, -, ms, ms
	cpuRatio                                  float64 // the pair ratio by thread CPU time (0: unknown)
}

// flatVsFloor alternates a Stream pass over the slab and one query of x
// (k nearest, queries in turn) for at least minSeconds of queries and 21
// pairs.
func flatVsFloor(x *flat.Index, ds *dataset.Dataset, k int, minSeconds float64) (flatRound, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var floor, query, ratio, cpu []float64
	var total time.Duration
	for i := 0; total.Seconds() < minSeconds || i < 21; i++ {
		c0 := threadCPU()
		p := flat.StreamTime(ds.Base, 1)
		c1 := threadCPU()
		t := time.Now()
		if _, _, err := x.Search(ds.Queries.Row(i%ds.Queries.N), k, nil); err != nil {
			return flatRound{}, err
		}
		d := time.Since(t)
		c2 := threadCPU()
		total += d
		floor, query = append(floor, hnswMS(p)), append(query, hnswMS(d))
		ratio = append(ratio, d.Seconds()/p.Seconds())
		if c1 > c0 {
			cpu = append(cpu, (c2-c1).Seconds()/(c1-c0).Seconds())
		}
	}
	r := flatRound{floor: medianF(floor), query: medianF(query), ratio: medianF(ratio),
		fastFloor: slices.Min(floor), fastQuery: slices.Min(query)}
	if len(cpu) > 0 {
		r.cpuRatio = medianF(cpu)
	}
	return r, nil
}

// buildPeer compiles bench/peers/<name>/build.sh into dir/bin.
func buildPeer(peerSrc, name, bin, dir string) (string, error) {
	peers, err := findHNSWPeers(peerSrc)
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, bin)
	cmd := exec.Command("bash", filepath.Join(peers, name, "build.sh"), out)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building the %s peer: %v\n%s", name, err, b.String())
	}
	return out, nil
}

func runBenchFlat(args []string, stdout, stderr io.Writer) error {
	f, err := parseBenchFlat(args, stderr)
	if err != nil {
		return err
	}
	t0 := time.Now()
	bd, err := loadBenchData(f.data, f.ds, f.ds.Queries, f.k, "")
	if err != nil {
		return err
	}
	ds := bd.ds
	fmt.Fprintf(stdout, "data set: %s; %s, k=%d; kernels %s; GOMAXPROCS=%d; load average %s\n",
		bd.desc, bd.metric, f.k, vec.KernelName(), runtime.GOMAXPROCS(0), loadAverage())
	var cbin, dir string
	if f.peer == "c" {
		if dir, err = os.MkdirTemp("", "veclab-bench-flat-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if cbin, err = buildPeer(f.peerSrc, "cflat", "flat_bench", dir); err != nil {
			return err
		}
		if _, err := dataset.WriteDir(dir, ds, nil); err != nil {
			return err
		}
	}
	x, err := flat.New(ds.Base, flat.Config{Metric: bd.metric, Workers: 1})
	if err != nil {
		return err
	}
	first, _, err := x.Search(ds.Queries.Row(0), f.k, nil)
	if err != nil {
		return err
	}
	mb := float64(len(ds.Base.Data)*4) / 1e6
	var ours, cs []flatRound
	for rep := range f.reps {
		r, err := flatVsFloor(x, ds, f.k, f.minSeconds)
		if err != nil {
			return err
		}
		ours = append(ours, r)
		line := fmt.Sprintf("round %d: veclab floor %.3f ms (%.1f GB/s), query %.3f ms, pair ratio %.2f (CPU time %.2f), fastest %.3f / %.3f ms",
			rep+1, r.floor, mb/r.floor, r.query, r.ratio, r.cpuRatio, r.fastQuery, r.fastFloor)
		if cbin != "" {
			cmd := exec.Command(cbin, "-base", filepath.Join(dir, "base.fvecs"), "-query", filepath.Join(dir, "query.fvecs"),
				"-metric", bd.metric.String(), "-k", strconv.Itoa(f.k), "-min-seconds", strconv.FormatFloat(f.minSeconds, 'g', -1, 64))
			var out, eb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &eb
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("C peer: %v: %s", err, strings.TrimSpace(eb.String()))
			}
			var c cFlatResult
			if err := json.Unmarshal(out.Bytes(), &c); err != nil {
				return fmt.Errorf("C peer output: %v: %q", err, out.String())
			}
			same := 0
			for i, id := range c.FirstIDs {
				if i < len(first) && int(first[i].ID) == id {
					same++
				}
			}
			if rep == 0 {
				fmt.Fprintf(stdout, "C peer answers query 0 with the same ids in the same order at %d of %d ranks\n", same, len(first))
			}
			cs = append(cs, flatRound{floor: c.StreamMS, query: c.QueryMS, ratio: c.PairRatio, fastFloor: c.FastStrMS, fastQuery: c.FastQMS, cpuRatio: c.CPURatio})
			line += fmt.Sprintf("; C floor %.3f ms, query %.3f ms, pair ratio %.2f (CPU time %.2f), fastest %.3f / %.3f ms",
				c.StreamMS, c.QueryMS, c.PairRatio, c.CPURatio, c.FastQMS, c.FastStrMS)
		}
		fmt.Fprintf(stdout, "%s (load average %s)\n", line, loadAverage())
	}
	col := func(rs []flatRound, get func(flatRound) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = get(r)
		}
		return medianF(v)
	}
	summary := func(name string, rs []flatRound) string {
		return fmt.Sprintf("%s: floor %.3f ms, query %.3f ms; query/floor: median of pair ratios %.2f (by thread CPU time %.2f), fastest query / fastest pass %.2f",
			name, col(rs, func(r flatRound) float64 { return r.floor }), col(rs, func(r flatRound) float64 { return r.query }),
			col(rs, func(r flatRound) float64 { return r.ratio }), col(rs, func(r flatRound) float64 { return r.cpuRatio }),
			col(rs, func(r flatRound) float64 { return r.fastQuery })/col(rs, func(r flatRound) float64 { return r.fastFloor }))
	}
	fmt.Fprintf(stdout, "\nexact search, one goroutine, %.1f MB slab, medians of %d rounds (floor = one pass streaming the slab with %s loads)\n",
		mb, f.reps, vec.KernelName())
	fmt.Fprintf(stdout, "%s (target ≤ 1.3)\n", summary("veclab", ours))
	if cbin != "" {
		fmt.Fprintf(stdout, "%s\n", summary("C loop (g++ -O3 -march=native -mprefer-vector-width=512, omp simd dot; bench/peers/cflat)", cs))
		fmt.Fprintf(stdout, "veclab / C query time: median %.2f, fastest %.2f\n",
			col(ours, func(r flatRound) float64 { return r.query })/col(cs, func(r flatRound) float64 { return r.query }),
			col(ours, func(r flatRound) float64 { return r.fastQuery })/col(cs, func(r flatRound) float64 { return r.fastQuery }))
	}
	fmt.Fprintf(stdout, "(each round alternates floor passes and queries for ≥ %.2g s and ≥ 21 pairs; total %.1f s; load average %s)\n",
		f.minSeconds, time.Since(t0).Seconds(), loadAverage())
	return nil
}

func medianF(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// loadAverage returns the 1-, 5- and 15-minute load averages from
// /proc/loadavg, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	fs := strings.Fields(string(b))
	if len(fs) < 3 {
		return "unknown"
	}
	return strings.Join(fs[:3], " ")
}
