package faiss

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"

	"github.com/veclab/veclab/engine"
)

//go:embed pq.py
var pqScript []byte

// PQRequest describes one run of the product-quantization peer (pq.py):
// IndexPQ and, when Nlist > 0, IndexIVFPQ for each M, single-threaded;
// under Dot and Cosine also IndexIVFPQ with cells from L2 k-means
// (faiss.Kmeans), as veclab's: FAISS's own IndexIVF training assigns by
// the largest inner product under METRIC_INNER_PRODUCT.
type PQRequest struct {
	Python string // interpreter; "" → DefaultPython
	Base   string // .fvecs of the indexed vectors (unit-length for Cosine)
	Query  string // .fvecs of the queries
	Truth  string // .ivecs of the exact neighbours, at least K per query
	M      []int  // sub-spaces, each dividing the dimension
	Nbits  int    // bits per sub-space code
	Nlist  int    // IndexIVFPQ cells; 0: IndexPQ only
	Nprobe []int
	Niter  int // k-means iterations (sub-spaces and coarse)
	Metric engine.Metric
	K      int
	Seed   int
	Warmup int
	Passes int // timed passes of every query per search, the fastest kept; 0 → 1
}

// PQPoint is one search of a PQ run (Nprobe 0 for IndexPQ).
type PQPoint struct {
	Nprobe int     `json:"nprobe"`
	Recall float64 `json:"recall"`
	QPS    float64 `json:"qps"`
	CPUQPS float64 `json:"cpu_qps"`
}

// PQIndex is one FAISS index's results.
type PQIndex struct {
	Name     string    `json:"name"` // IndexPQ, IndexIVFPQ or (inner product) IndexIVFPQ(L2 k-means cells)
	M        int       `json:"m"`
	TrainS   float64   `json:"train_s"`
	TrainCPU float64   `json:"train_cpu_s"`
	AddS     float64   `json:"add_s"`
	CodeSize int       `json:"code_size"`
	Sweep    []PQPoint `json:"sweep"`
}

// PQResult is pq.py's output.
type PQResult struct {
	FaissVersion   string    `json:"faiss_version"`
	CompileOptions string    `json:"compile_options"`
	Note           string    `json:"note"`
	N              int       `json:"n"`
	Queries        int       `json:"queries"`
	Dim            int       `json:"dim"`
	Indexes        []PQIndex `json:"indexes"`
}

// Index returns the results of the named index at m, or nil.
func (r *PQResult) Index(name string, m int) *PQIndex {
	for i := range r.Indexes {
		if r.Indexes[i].Name == name && r.Indexes[i].M == m {
			return &r.Indexes[i]
		}
	}
	return nil
}

// RunPQ writes pq.py to a temporary file and runs it on one thread.
func RunPQ(ctx context.Context, req PQRequest) (*PQResult, error) {
	if len(req.M) == 0 || req.Nbits < 1 || req.Nbits > 16 || req.Niter < 1 || req.K < 1 || req.Nlist < 0 || (req.Nlist > 0 && len(req.Nprobe) == 0) {
		return nil, fmt.Errorf("faiss: pq peer: %d M values, nbits %d, niter %d, k %d, nlist %d, %d nprobe values: want M values, nbits 1–16, niter and k ≥ 1, nlist ≥ 0 and nprobe values when nlist > 0: %w",
			len(req.M), req.Nbits, req.Niter, req.K, req.Nlist, len(req.Nprobe), engine.ErrInvalidArgument)
	}
	var res PQResult
	err := runScript(ctx, "PQ peer", req.Python, "pq.py", pqScript, 1, &res,
		"--base", req.Base, "--query", req.Query, "--gt", req.Truth,
		"--m", intList(req.M), "--nbits", strconv.Itoa(req.Nbits), "--nlist", strconv.Itoa(req.Nlist),
		"--nprobe", intList(req.Nprobe), "--niter", strconv.Itoa(req.Niter), "--metric", req.Metric.String(),
		"--k", strconv.Itoa(req.K), "--seed", strconv.Itoa(req.Seed), "--warmup", strconv.Itoa(req.Warmup), "--passes", strconv.Itoa(max(1, req.Passes)))
	if err != nil {
		return nil, err
	}
	perM := 1
	if req.Nlist > 0 {
		perM = 2 // IndexPQ, IndexIVFPQ
		if req.Metric != engine.L2 {
			perM = 3 // and IndexIVFPQ(L2 k-means cells)
		}
	}
	want := len(req.M) * perM
	if len(res.Indexes) != want {
		return nil, fmt.Errorf("faiss: pq peer: %d index results, want %d", len(res.Indexes), want)
	}
	return &res, nil
}
