// Package faiss runs FAISS as a peer of veclab's benchmarks. For IVF, the Python
// script ivf.py (embedded, so the veclab binary carries it) trains
// IndexIVFFlat and IndexIVFScalarQuantizer(QT_8bit) single-threaded on the
// same .fvecs data, nlist and k-means iterations, sweeps nprobe and prints
// JSON, which RunIVF decodes. For HNSW, hnsw.py ([HNSWScript]) builds
// IndexHNSWFlat or IndexHNSWSQ(QT_8bit) and answers sweeps on demand
// (lab/bench drives it beside its own HNSW, in alternating rounds).
//
// It needs a Python that imports faiss and numpy: Debian's python3-faiss
// 1.7.3 under /usr/bin/python3, a generic x86-64 build without AVX2 kernels
// in FAISS itself (its BLAS calls go to the system OpenBLAS). The result
// carries FAISS's compile options so a report can say so.
package faiss

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/veclab/veclab/engine"
)

//go:embed ivf.py
var ivfScript []byte

// DefaultPython is the interpreter that sees Debian's python3-faiss.
const DefaultPython = "/usr/bin/python3"

// IVFRequest describes one peer run.
type IVFRequest struct {
	Python string // interpreter; "" → DefaultPython
	Base   string // .fvecs of the indexed vectors (unit-length for Cosine)
	Query  string // .fvecs of the queries
	Truth  string // .ivecs of the exact neighbours, at least K per query
	Nlist  int
	Niter  int // k-means iterations
	Nprobe []int
	Metric engine.Metric
	K      int
	Seed   int
}

// Point is one nprobe of a sweep.
type Point struct {
	Nprobe int     `json:"nprobe"`
	Recall float64 `json:"recall"`
	QPS    float64 `json:"qps"`
	CPUQPS float64 `json:"cpu_qps"` // queries per second of process CPU time
}

// IVFIndex is one FAISS index's results.
type IVFIndex struct {
	Name     string  `json:"name"`
	TrainS   float64 `json:"train_s"`
	TrainCPU float64 `json:"train_cpu_s"`
	AddS     float64 `json:"add_s"`
	CodeSize int     `json:"code_size"`
	Sweep    []Point `json:"sweep"`
}

// IVFResult is the script's output.
type IVFResult struct {
	FaissVersion   string     `json:"faiss_version"`
	CompileOptions string     `json:"compile_options"`
	Note           string     `json:"note"`
	N              int        `json:"n"`
	Queries        int        `json:"queries"`
	Dim            int        `json:"dim"`
	Nlist          int        `json:"nlist"`
	Niter          int        `json:"niter"`
	K              int        `json:"k"`
	KmeansS        float64    `json:"kmeans_s"`
	KmeansCPU      float64    `json:"kmeans_cpu_s"`
	Indexes        []IVFIndex `json:"indexes"`
}

// Index returns the named index's results, or nil.
func (r *IVFResult) Index(name string) *IVFIndex {
	for i := range r.Indexes {
		if strings.HasPrefix(r.Indexes[i].Name, name) {
			return &r.Indexes[i]
		}
	}
	return nil
}

// Script returns the embedded peer script.
func Script() []byte { return bytes.Clone(ivfScript) }

// RunIVF writes the script to a temporary file and runs it.
func RunIVF(ctx context.Context, req IVFRequest) (*IVFResult, error) {
	if req.Nlist < 1 || req.Niter < 1 || req.K < 1 || len(req.Nprobe) == 0 {
		return nil, fmt.Errorf("faiss: peer: nlist %d, niter %d, k %d and %d nprobe values must all be positive: %w",
			req.Nlist, req.Niter, req.K, len(req.Nprobe), engine.ErrInvalidArgument)
	}
	var res IVFResult
	err := runScript(ctx, "IVF peer", req.Python, "ivf.py", ivfScript, 1, &res,
		"--base", req.Base, "--query", req.Query, "--gt", req.Truth,
		"--nlist", strconv.Itoa(req.Nlist), "--niter", strconv.Itoa(req.Niter),
		"--nprobe", intList(req.Nprobe), "--metric", req.Metric.String(),
		"--k", strconv.Itoa(req.K), "--seed", strconv.Itoa(req.Seed))
	if err != nil {
		return nil, err
	}
	if len(res.Indexes) == 0 {
		return nil, errors.New("faiss: peer: no index results in output")
	}
	return &res, nil
}

// runScript writes script to a temporary directory as name, runs it with
// py (DefaultPython when "") and args, FAISS's OpenMP and the BLAS limited
// to threads, and decodes its JSON standard output into out; what names
// the peer in errors.
func runScript(ctx context.Context, what, py, name string, script []byte, threads int, out any, args ...string) error {
	if py == "" {
		py = DefaultPython
	}
	dir, err := os.MkdirTemp("", "veclab-faiss")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, script, 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, py, append([]string{path}, args...)...)
	// FAISS's parallelism is OpenMP; OpenBLAS (IndexFlat's sgemm) gets as
	// many threads.
	th := strconv.Itoa(threads)
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS="+th, "OPENBLAS_NUM_THREADS="+th, "MKL_NUM_THREADS="+th)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("faiss: %s (%s): %s: %w", what, py, strings.TrimSpace(stderr.String()), err)
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return fmt.Errorf("faiss: %s: bad JSON output (stdout %q): %w", what, truncate(stdout.String(), 200), err)
	}
	return nil
}

// intList writes xs as the scripts' comma-separated lists.
func intList(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Available reports whether python imports faiss (with the reason if not).
func Available(python string) error {
	if python == "" {
		python = DefaultPython
	}
	out, err := exec.Command(python, "-c", "import faiss, numpy").CombinedOutput()
	if err != nil {
		return fmt.Errorf("faiss: peer: %s cannot import faiss (%s): %w", python, strings.TrimSpace(string(out)), err)
	}
	return nil
}

//go:embed hnsw.py
var hnswScript []byte

// HNSWScript returns hnsw.py, the HNSW peer of `veclab bench hnsw`
// (IndexHNSWFlat, or IndexHNSWSQ with QT_8bit), which lab/bench runs in its
// serve mode so that its sweeps alternate with veclab's in one run.
func HNSWScript() []byte { return bytes.Clone(hnswScript) }
