package faiss

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
)

// A batch request without clients (or any other non-positive count) is
// refused before Python starts, naming the counts.
func TestRunBatchRejectsBadRequest(t *testing.T) {
	_, err := RunBatch(context.Background(), BatchRequest{Nlist: 4, Niter: 2, K: 10, Threads: 2, Nprobe: []int{1}})
	if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), "0 client values") {
		t.Fatalf("no clients: %v", err)
	}
	if !strings.Contains(string(batchScript), "def run_clients") {
		t.Fatal("batch.py is not embedded")
	}
}

// A PQ request without M values (or with nprobe missing for IVF-PQ) is
// refused before Python starts, naming the counts.
func TestRunPQRejectsBadRequest(t *testing.T) {
	_, err := RunPQ(context.Background(), PQRequest{Nbits: 8, Niter: 10, K: 10})
	if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), "0 M values") {
		t.Fatalf("no M: %v", err)
	}
	_, err = RunPQ(context.Background(), PQRequest{M: []int{8}, Nbits: 8, Niter: 10, K: 10, Nlist: 16})
	if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), "0 nprobe values") {
		t.Fatalf("IVF-PQ without nprobe: %v", err)
	}
	if !strings.Contains(string(pqScript), "IndexIVFPQ(L2 k-means cells)") {
		t.Fatal("pq.py is not embedded")
	}
}
