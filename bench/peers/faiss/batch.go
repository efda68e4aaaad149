package faiss

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"

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
		return nil, fmt.Errorf("faiss: batch peer: nlist %d, niter %d, k %d, threads %d, %d nprobe and %d client values must all be positive: %w",
			req.Nlist, req.Niter, req.K, req.Threads, len(req.Nprobe), len(req.Clients), engine.ErrInvalidArgument)
	}
	var res BatchResult
	err := runScript(ctx, "batch peer", req.Python, "batch.py", batchScript, req.Threads, &res,
		"--base", req.Base, "--query", req.Query, "--gt", req.Truth,
		"--nlist", strconv.Itoa(req.Nlist), "--niter", strconv.Itoa(req.Niter),
		"--nprobe", intList(req.Nprobe), "--clients", intList(req.Clients), "--threads", strconv.Itoa(req.Threads),
		"--metric", req.Metric.String(), "--k", strconv.Itoa(req.K), "--seed", strconv.Itoa(req.Seed),
		"--min-seconds", strconv.FormatFloat(req.MinSeconds, 'g', -1, 64))
	if err != nil {
		return nil, err
	}
	if len(res.Flat) != len(req.Clients) || len(res.IVF) != len(req.Clients)*len(req.Nprobe) {
		return nil, fmt.Errorf("faiss: batch peer: %d flat and %d IVF points, want %d and %d",
			len(res.Flat), len(res.IVF), len(req.Clients), len(req.Clients)*len(req.Nprobe))
	}
	return &res, nil
}
