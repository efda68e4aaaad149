package faiss

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/veclab/veclab/engine"
)

//go:embed batch.py
var batchScript []byte

// BatchRequest describes one run of the batch-search peer (batch.py).
type BatchRequest struct {
	Python     string // interpreter; "" → DefaultPython
	Base       string // .fvecs of the indexed vectors
	Query      string // .fvecs of the queries
	Truth      string // .ivecs of the exact neighbours, at least K per query
	Nlist      int
	Niter      int
	Nprobe     []int
	Clients    []int
	Threads    int // OpenMP threads of each search call (FAISS's batch parallelism)
	Metric     engine.Metric
	K          int
	Seed       int
	MinSeconds float64
}

// BatchPoint is one client count (and nprobe, for IVF) of a batch run.
type BatchPoint struct {
	Clients int     `json:"clients"`
	Nprobe  int     `json:"nprobe"`
	QPS     float64 `json:"qps"`      // over every timed pass
	BestQPS float64 `json:"best_qps"` // of the fastest pass
	CPUQPS  float64 `json:"cpu_qps"`  // over the process CPU time of every pass
	Recall  float64 `json:"recall"`
}

// BatchResult is batch.py's output.
type BatchResult struct {
	FaissVersion   string       `json:"faiss_version"`
	CompileOptions string       `json:"compile_options"`
	Note           string       `json:"note"`
	Threads        int          `json:"threads"`
	Flat           []BatchPoint `json:"flat"`
	IVF            []BatchPoint `json:"ivf"`
}

// RunBatch writes batch.py to a temporary file and runs it.
func RunBatch(ctx context.Context, req BatchRequest) (*BatchResult, error) {
	if req.Nlist < 1 || req.Niter < 1 || req.K < 1 || req.Threads < 1 || len(req.Nprobe) == 0 || len(req.Clients) == 0 {
		return nil, fmt.Errorf("%w: faiss batch peer: nlist %d, niter %d, k %d, threads %d, %d nprobe and %d client values must all be positive",
			engine.ErrInvalidArgument, req.Nlist, req.Niter, req.K, req.Threads, len(req.Nprobe), len(req.Clients))
	}
	py := req.Python
	if py == "" {
		py = DefaultPython
	}
	dir, err := os.MkdirTemp("", "veclab-faiss-batch")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "batch.py")
	if err := os.WriteFile(script, batchScript, 0o644); err != nil {
		return nil, err
	}
	join := func(xs []int) string {
		s := make([]string, len(xs))
		for i, x := range xs {
			s[i] = strconv.Itoa(x)
		}
		return strings.Join(s, ",")
	}
	cmd := exec.CommandContext(ctx, py, script,
		"--base", req.Base, "--query", req.Query, "--gt", req.Truth,
		"--nlist", strconv.Itoa(req.Nlist), "--niter", strconv.Itoa(req.Niter),
		"--nprobe", join(req.Nprobe), "--clients", join(req.Clients), "--threads", strconv.Itoa(req.Threads),
		"--metric", req.Metric.String(), "--k", strconv.Itoa(req.K), "--seed", strconv.Itoa(req.Seed),
		"--min-seconds", strconv.FormatFloat(req.MinSeconds, 'g', -1, 64))
	// FAISS's parallelism is OpenMP; OpenBLAS (IndexFlat's sgemm) gets as
	// many threads.
	th := strconv.Itoa(req.Threads)
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS="+th, "OPENBLAS_NUM_THREADS="+th, "MKL_NUM_THREADS="+th)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("faiss batch peer (%s): %w: %s", py, err, strings.TrimSpace(stderr.String()))
	}
	var res BatchResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return nil, fmt.Errorf("faiss batch peer: bad JSON output: %w (stdout %q)", err, truncate(stdout.String(), 200))
	}
	if len(res.Flat) != len(req.Clients) || len(res.IVF) != len(req.Clients)*len(req.Nprobe) {
		return nil, fmt.Errorf("faiss batch peer: %d flat and %d IVF points, want %d and %d",
			len(res.Flat), len(res.IVF), len(req.Clients), len(req.Clients)*len(req.Nprobe))
	}
	return &res, nil
}
