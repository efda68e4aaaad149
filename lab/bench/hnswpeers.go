package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/veclab/veclab/bench/peers/faiss"
	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/table"
)

// The HNSW peers of [HNSW]. Each runs as a separate process in serve mode
// (bench/peers/common/harness.hpp): it builds its index once per thread
// count at start, then sweeps every ef each time it is asked, so the rounds
// of veclab and of every peer alternate in one run without rebuilding.

// HNSWPeers are the names [HNSWConfig.Peers] accepts, in the order they
// run: native hnswlib 0.6.2 (Debian's headers), USearch 2.26.2 (the npm
// package's headers and NumKong kernels) with f32, i8 and b1 storage (b1
// with rescoring, see [HNSWConfig.PeerRescore]), and FAISS 1.7.3
// (Debian's generic build, no AVX2) IndexHNSWFlat and IndexHNSWSQ(8-bit).
//
// usearch-f32acc is USearch's f32 index with the harness's f32-summing
// AVX2 kernel in place of NumKong's (usearch_bench -kernel f32acc): on
// x86 NumKong's f32 dot widens to f64 (nk_dot_f32_haswell and _skylake),
// which doubles USearch's search time here; this peer shows USearch's graph
// and search loop with the summation hnswlib and veclab use, so veclab is
// held against USearch at its fastest as well as as shipped.
var HNSWPeers = []string{"hnswlib", "usearch", "usearch-f32acc", "usearch-i8", "usearch-b1", "faiss", "faiss-sq8"}

// FloatHNSWPeers are the peers storing float32 vectors, what "all" means.
var FloatHNSWPeers = []string{"hnswlib", "usearch", "usearch-f32acc", "faiss"}

// faissNote goes beside every FAISS figure.
const faissNote = "Debian's python3-faiss 1.7.3: a generic x86-64 build, no AVX2 kernels in FAISS"

// HNSWPeerRun is one peer's builds and sweeps at one efConstruction.
type HNSWPeerRun struct {
	Name    string // as in HNSWPeers
	Index   string // what it built, e.g. "usearch f32" or "IndexHNSWFlat"
	Kernels string // the kernels or compile options the peer reports
	Note    string // what to say beside its figures ("" none)
	// BytesPerVector is the peer's memory per vector as it reports it.
	BytesPerVector float64
	Builds         []HNSWBuild
	// Rounds holds one sweep (one point per ef) per round; Sweep is their
	// per-ef median QPS with the first round's recall.
	Rounds [][]HNSWPoint
	Sweep  []HNSWPoint
}

// Build returns the peer's build on threads threads.
func (r HNSWPeerRun) Build(threads int) (HNSWBuild, bool) {
	for _, b := range r.Builds {
		if b.Threads == threads {
			return b, true
		}
	}
	return HNSWBuild{}, false
}

// Peer returns the named peer's run, or false.
func (r HNSWRun) Peer(name string) (HNSWPeerRun, bool) {
	for _, p := range r.Peers {
		if p.Name == name {
			return p, true
		}
	}
	return HNSWPeerRun{}, false
}

// QPSRatio is veclab's QPS over a peer's at a recall, interpolated on
// each round's sweep, as the median of the per-round ratios (each from
// sweeps that ran back to back), with the medians of each side's QPS.
type QPSRatio struct {
	Recall             float64
	Ratio              float64 // median of per-round ratios (0: not reached)
	Veclab, Peer       float64 // median QPS of each side at Recall
	Rounds             int     // rounds where both reached Recall
	MinRatio, MaxRatio float64
}

// QPSAt is the peer's QPS at recall, interpolated on each round's sweep,
// as the median over the rounds that reached it; ok is false when none
// did.
func (p HNSWPeerRun) QPSAt(recall float64) (float64, bool) {
	var qps []float64
	for _, r := range p.Rounds {
		if q, ok := metrics.QPSAtRecall(sweepPoints(r), recall); ok {
			qps = append(qps, q)
		}
	}
	if len(qps) == 0 {
		return 0, false
	}
	return median(qps), true
}

// RatioAt returns veclab's QPS over peer's at recall, from the rounds
// both sides ran; ok is false when either never reached it.
func (r HNSWRun) RatioAt(peer HNSWPeerRun, recall float64) (QPSRatio, bool) {
	q := QPSRatio{Recall: recall}
	var ratios, ours, theirs []float64
	for i := range min(len(r.Rounds), len(peer.Rounds)) {
		a, okA := metrics.QPSAtRecall(sweepPoints(r.Rounds[i]), recall)
		b, okB := metrics.QPSAtRecall(sweepPoints(peer.Rounds[i]), recall)
		if okA && okB && b > 0 {
			ratios, ours, theirs = append(ratios, a/b), append(ours, a), append(theirs, b)
		}
	}
	if len(ratios) == 0 {
		return q, false
	}
	q.Ratio, q.Veclab, q.Peer, q.Rounds = median(ratios), median(ours), median(theirs), len(ratios)
	q.MinRatio, q.MaxRatio = slices.Min(ratios), slices.Max(ratios)
	return q, true
}

func sweepPoints(s []HNSWPoint) []metrics.Point {
	out := make([]metrics.Point, len(s))
	for i, p := range s {
		out[i] = metrics.Point{Label: "ef=" + strconv.Itoa(p.Ef), Param: float64(p.Ef), Recall: p.Recall, QPS: p.QPS}
	}
	return out
}

// medianSweep is the per-ef median QPS (and p50) of rounds, with the
// first round's recall and distance count (the same every round for a
// fixed graph).
func medianSweep(rounds [][]HNSWPoint) []HNSWPoint {
	if len(rounds) == 0 {
		return nil
	}
	out := slices.Clone(rounds[0])
	for j := range out {
		var qps, p50 []float64
		for _, r := range rounds {
			qps, p50 = append(qps, r[j].QPS), append(p50, float64(r[j].P50))
		}
		out[j].QPS, out[j].P50 = median(qps), time.Duration(median(p50))
	}
	return out
}

// checkPeers reports unknown peer names.
func checkPeers(names []string) []string {
	var bad []string
	for _, n := range names {
		if !slices.Contains(HNSWPeers, n) {
			bad = append(bad, fmt.Sprintf("peer %q: want one of %s", n, strings.Join(HNSWPeers, ", ")))
		}
	}
	return bad
}

// hnswPeerProc is a peer harness running in serve mode.
type hnswPeerProc struct {
	name string
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Scanner
	errb bytes.Buffer
	efs  int
}

// peerHead is the first line a peer prints: its builds.
type peerHead struct {
	Index          string  `json:"index"`
	Quant          string  `json:"quant"`
	Rescore        int     `json:"rescore"`
	Version        string  `json:"version"`
	Kernels        string  `json:"kernels"`
	Note           string  `json:"note"`
	BytesPerVector float64 `json:"bytes_per_vector"`
	Builds         []struct {
		Threads    int     `json:"threads"`
		Seconds    float64 `json:"seconds"`
		CPUSeconds float64 `json:"cpu_seconds"`
	} `json:"builds"`
}

// peerSweep is each later line.
type peerSweep struct {
	Search []struct {
		Ef        int     `json:"ef"`
		Recall    float64 `json:"recall"`
		QPS       float64 `json:"qps"`
		P50us     float64 `json:"p50_us"`
		P95us     float64 `json:"p95_us"`
		DistComps float64 `json:"dist_comps"`
	} `json:"search"`
}

// peerBinaries compiles the native harnesses the peers need, once, into
// pd before any timing: name → binary.
func peerBinaries(pd *peerDir, cfg HNSWConfig, log io.Writer) (map[string]string, error) {
	bins := map[string]string{}
	for _, p := range cfg.Peers {
		src := strings.SplitN(p, "-", 2)[0]
		if src == "faiss" {
			if _, ok := bins[src]; !ok {
				path := filepath.Join(pd.dir, "hnsw.py")
				if err := os.WriteFile(path, faiss.HNSWScript(), 0o644); err != nil {
					return nil, fmt.Errorf("bench: hnsw: faiss peer: %w", err)
				}
				bins[src] = path
			}
			continue
		}
		if _, ok := bins[src]; ok {
			continue
		}
		bin, err := pd.build(cfg.PeerSrc, src, src+"_bench", log)
		if err != nil {
			return nil, err
		}
		bins[src] = bin
	}
	return bins, nil
}

// startHNSWPeer starts peer name in serve mode on files at efConstruction
// efc (truth: the .ivecs the recall is scored against) and waits for its
// builds.
func startHNSWPeer(name, bin string, files dataset.Files, metric engine.Metric, cfg HNSWConfig, efc int) (*hnswPeerProc, *HNSWPeerRun, error) {
	threads := strconv.Itoa(cfg.Workers)
	if cfg.Single && cfg.Workers != 1 {
		threads = "1," + threads // the first build is the one searched
	}
	efs := make([]string, len(cfg.Efs))
	for i, e := range cfg.Efs {
		efs[i] = strconv.Itoa(e)
	}
	common := []string{"-base", files.Base, "-query", files.Queries, "-truth", files.Truth, "-metric", metric.String(),
		"-m", strconv.Itoa(cfg.M), "-efc", strconv.Itoa(efc), "-threads", threads,
		"-ef", strings.Join(efs, ","), "-k", strconv.Itoa(cfg.K),
		"-min-seconds", strconv.FormatFloat(cfg.MinSeconds, 'g', -1, 64), "-timing", cfg.Timing, "-serve"}
	var cmd *exec.Cmd
	switch name {
	case "hnswlib":
		cmd = exec.Command(bin, append(common, "-seed", strconv.FormatUint(cfg.GraphSeed, 10))...)
	case "usearch", "usearch-f32acc", "usearch-i8", "usearch-b1":
		q, rescore, kernel := "f32", 0, "numkong"
		switch name {
		case "usearch-f32acc":
			kernel = "f32acc"
		case "usearch-i8", "usearch-b1":
			q = name[len("usearch-"):]
		}
		if q == "b1" {
			rescore = cfg.PeerRescore
		}
		cmd = exec.Command(bin, append(common, "-quant", q, "-rescore", strconv.Itoa(rescore), "-kernel", kernel)...)
	case "faiss", "faiss-sq8":
		index := "flat"
		if name == "faiss-sq8" {
			index = "sq8"
		}
		args := []string{bin, "--index", index}
		for i := 0; i+1 < len(common); i += 2 { // the same flags, Python's spelling
			f := "-" + common[i]
			if f == "--truth" {
				f = "--gt"
			}
			args = append(args, f, common[i+1])
		}
		args = append(args, "--serve")
		py := cfg.Python
		if py == "" {
			py = faiss.DefaultPython
		}
		cmd = exec.Command(py, args...)
		// FAISS's build threads are set per build by the script; its
		// search runs on one.
		cmd.Env = append(os.Environ(), "OPENBLAS_NUM_THREADS=1")
	default:
		return nil, nil, fmt.Errorf("bench: hnsw: unknown peer %q: %w", name, engine.ErrInvalidArgument)
	}
	p := &hnswPeerProc{name: name, cmd: cmd, efs: len(cfg.Efs)}
	cmd.Stderr = &p.errb
	var err error
	if p.in, err = cmd.StdinPipe(); err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("bench: hnsw: starting the %s peer: %w", name, err)
	}
	p.out = bufio.NewScanner(stdout)
	p.out.Buffer(make([]byte, 1<<16), 1<<24)
	var h peerHead
	if err := p.readLine(&h); err != nil {
		p.close()
		return nil, nil, err
	}
	run := &HNSWPeerRun{Name: name, Kernels: h.Kernels, BytesPerVector: h.BytesPerVector, Note: h.Note}
	switch {
	case h.Index != "":
		run.Index = h.Index
	case h.Quant != "":
		run.Index = "USearch " + h.Version + " " + h.Quant
		if name == "usearch-f32acc" {
			run.Index += ", f32-summing kernel"
		}
		if h.Rescore > 0 {
			run.Index += fmt.Sprintf(", rescored ×%d", h.Rescore)
		}
	default:
		run.Index = "hnswlib 0.6.2"
	}
	if strings.HasPrefix(name, "faiss") {
		run.Note = faissNote
	}
	for _, b := range h.Builds {
		run.Builds = append(run.Builds, HNSWBuild{Threads: b.Threads,
			Wall: time.Duration(b.Seconds * float64(time.Second)), CPU: time.Duration(b.CPUSeconds * float64(time.Second))})
	}
	return p, run, nil
}

// readLine decodes the peer's next line into v.
func (p *hnswPeerProc) readLine(v any) error {
	if !p.out.Scan() {
		err := p.out.Err()
		werr := p.cmd.Wait()
		return fmt.Errorf("bench: %s peer ended early: %s (%v, %v)", p.name, strings.TrimSpace(p.errb.String()), err, werr)
	}
	if err := json.Unmarshal(p.out.Bytes(), v); err != nil {
		return fmt.Errorf("bench: %s peer: bad JSON %q: %w", p.name, truncate(p.out.Text(), 200), err)
	}
	return nil
}

// sweep asks for one sweep of every ef.
func (p *hnswPeerProc) sweep() ([]HNSWPoint, error) {
	if _, err := io.WriteString(p.in, "sweep\n"); err != nil {
		return nil, fmt.Errorf("bench: %s peer: %s: %w", p.name, strings.TrimSpace(p.errb.String()), err)
	}
	var s peerSweep
	if err := p.readLine(&s); err != nil {
		return nil, err
	}
	if len(s.Search) != p.efs {
		return nil, fmt.Errorf("bench: %s peer returned %d ef points, want %d", p.name, len(s.Search), p.efs)
	}
	us := func(v float64) time.Duration { return time.Duration(v * float64(time.Microsecond)) }
	out := make([]HNSWPoint, len(s.Search))
	for i, h := range s.Search {
		out[i] = HNSWPoint{Ef: h.Ef, Recall: h.Recall, QPS: h.QPS, P50: us(h.P50us), P95: us(h.P95us), DistComps: h.DistComps}
	}
	return out, nil
}

// close ends the peer (end of input) and waits for it.
func (p *hnswPeerProc) close() error {
	p.in.Close()
	if err := p.cmd.Wait(); err != nil {
		return fmt.Errorf("bench: %s peer: %s: %w", p.name, strings.TrimSpace(p.errb.String()), err)
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// PeerTable is the side-by-side table of one run (efConstruction): each
// engine's builds, bytes per vector and QPS at recall 0.95 and 0.99, with
// veclab's ratio to each peer as the median of per-round ratios.
func (rep *HNSWReport) PeerTable(run HNSWRun) *table.Table {
	cfg := rep.Config
	t := table.New(fmt.Sprintf("veclab HNSW beside its peers  %d × %d %s, %d queries, recall@%d  M=%d  efConstruction=%d  search on 1 thread, %d alternating round(s)",
		rep.N, rep.Dim, rep.Metric, rep.Queries, cfg.K, cfg.M, run.EfConstruction, len(run.Rounds)),
		table.Col("engine", ""),
		table.Column{Header: "build 1 thread", Unit: "s", Prec: 2, Align: table.Right},
		table.Column{Header: fmt.Sprintf("build %d threads", cfg.Workers), Unit: "s", Prec: 2, Align: table.Right},
		table.Column{Header: "bytes/vector", Prec: 0, Align: table.Right},
		table.Column{Header: "QPS @0.95", Prec: -1, Align: table.Right},
		table.Column{Header: "veclab ÷ @0.95", Prec: 2, Align: table.Right},
		table.Column{Header: "QPS @0.99", Prec: -1, Align: table.Right},
		table.Column{Header: "veclab ÷ @0.99", Prec: 2, Align: table.Right})
	ours := func(target float64) any {
		if q, ok := metrics.QPSAtRecall(sweepPoints(run.Sweep), target); ok {
			return q
		}
		return "not reached"
	}
	one, all := any(run.BuildOne.Seconds()), any(run.BuildAll.Seconds())
	if run.BuildOne == 0 {
		one = "—"
	}
	_ = t.AddValues("veclab", one, all, run.BytesPerVector, ours(0.95), "", ours(0.99), "")
	for _, p := range run.Peers {
		vals := []any{p.Name + " (" + p.Index + ")"}
		for _, th := range []int{1, cfg.Workers} {
			if b, ok := p.Build(th); ok {
				vals = append(vals, b.Wall.Seconds())
			} else {
				vals = append(vals, "—")
			}
		}
		vals = append(vals, p.BytesPerVector)
		for _, target := range []float64{0.95, 0.99} {
			if q, ok := run.RatioAt(p, target); ok {
				vals = append(vals, q.Peer, fmt.Sprintf("%.2f (%.2f–%.2f)", q.Ratio, q.MinRatio, q.MaxRatio))
			} else if qps, ok := p.QPSAt(target); ok {
				// The peer reached it and veclab did not: its QPS is
				// a figure a reader needs, and no ratio exists.
				vals = append(vals, qps, "veclab below")
			} else {
				vals = append(vals, "not reached", "—")
			}
		}
		_ = t.AddValues(vals...)
	}
	t.Note("QPS at a recall is interpolated on each round's sweep; a ratio is the median (min–max) of the per-round ratios, each from sweeps run back to back; peers' QPS is the median over rounds; \"veclab below\": the peer reached the recall and veclab did not at the efs swept")
	searched := "the single-threaded build"
	if run.BuildOne == 0 || (cfg.Workers != 1 && !cfg.Single) {
		searched = fmt.Sprintf("the %d-thread build", cfg.Workers)
	}
	t.Note("same vectors, truth, M, efConstruction, build thread counts and efs on every side; searched graph: %s", searched)
	for _, p := range run.Peers {
		if strings.HasPrefix(p.Name, "faiss") {
			t.Note("faiss: %s", p.Note)
			break
		}
	}
	return t
}

// HNSWRecord is one saved run of `veclab bench hnsw -json`: the report
// and what a reader needs beside its figures. docs/performance.md is
// generated from these records (lab/perfdoc), never typed.
type HNSWRecord struct {
	Command   string    // the command line that ran
	Date      time.Time // when it started
	Machine   string    // CPU, cores, Go, SIMD features and veclab's kernels
	LoadStart string    // load averages (1, 5, 15 minutes) at the start
	LoadEnd   string    // and at the end
	Report    *HNSWReport
}
