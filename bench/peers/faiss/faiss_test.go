package faiss

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/internal/testenv"
	"github.com/veclab/veclab/lab/dataset"
)

func TestRunIVF(t *testing.T) {
	testenv.Need(t, testenv.FAISS)
	ds, err := dataset.Generate(dataset.Config{N: 2000, Queries: 20, Dim: 32, Clusters: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	truth, err := dataset.Truth(ds, 10, engine.Cosine, "")
	if err != nil {
		t.Fatal(err)
	}
	files, err := dataset.WriteDir(t.TempDir(), ds, truth)
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunIVF(context.Background(), IVFRequest{Base: files.Base, Query: files.Queries, Truth: files.Truth,
		Nlist: 10, Niter: 5, Nprobe: []int{1, 10}, Metric: engine.Cosine, K: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	flat := res.Index("IndexIVFFlat")
	sq := res.Index("IndexIVFScalarQuantizer")
	if flat == nil || sq == nil || len(flat.Sweep) != 2 || res.N != 2000 {
		t.Fatalf("unexpected result %+v", res)
	}
	// nprobe = nlist is exhaustive: IVF-Flat must then be exact.
	if flat.Sweep[1].Recall < 0.999 {
		t.Fatalf("IndexIVFFlat at nprobe = nlist has recall %.3f", flat.Sweep[1].Recall)
	}
	if flat.Sweep[0].Recall > flat.Sweep[1].Recall || res.CompileOptions == "" {
		t.Fatalf("sweep %+v, compile options %q", flat.Sweep, res.CompileOptions)
	}
}

func TestRunIVFErrors(t *testing.T) {
	if _, err := RunIVF(context.Background(), IVFRequest{Nlist: 0}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("nlist 0 accepted: %v", err)
	}
	testenv.Need(t, testenv.FAISS)
	bad := filepath.Join(t.TempDir(), "bad.fvecs")
	os.WriteFile(bad, []byte{1, 2, 3}, 0o644)
	_, err := RunIVF(context.Background(), IVFRequest{Base: bad, Query: bad, Truth: bad, Nlist: 1, Niter: 1, Nprobe: []int{1}, K: 1})
	if err == nil {
		t.Fatal("garbage input accepted")
	}
}
