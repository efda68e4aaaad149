package measure

import (
	"errors"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/engine/vfs"
)

// Rescored reads one full vector per rescored candidate, all of them from
// the device when the file is evicted before every query and none when it
// is warm; recall is the same either way, and bad knobs are refused.
func TestRescored(t *testing.T) {
	ds := smallSet(t)
	q, err := Exact(ds, 10, engine.Cosine)
	if err != nil {
		t.Fatal(err)
	}
	bq, err := quant.TrainBinary(ds.Base, engine.Cosine, quant.BinaryConfig{Encoding: quant.TwoBits})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := hnsw.New(hnsw.Config{Dim: 24, M: 8, EfConstruction: 64, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]uint64, ds.Base.N)
	for i := range keys {
		keys[i] = uint64(i)
	}
	if err := ix.AddBatch(keys, ds.Base); err != nil {
		t.Fatal(err)
	}
	if err := ix.AttachCodes(quant.NewStore(bq)); err != nil {
		t.Fatal(err)
	}
	fsys := vfs.NewMem() // engine/store's simulated page cache: the same counts on every machine
	if err := store.WriteMatrixFS(fsys, "vectors.vec", ds.Base, engine.Cosine); err != nil {
		t.Fatal(err)
	}
	f, err := store.OpenFS(fsys, "vectors.vec", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := rescore.New(f, engine.Cosine, rescore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Warm(); err != nil {
		t.Fatal(err)
	}
	warm, err := Rescored(ix, 40, 3, rs, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	cold, err := Rescored(ix, 40, 3, rs, q, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Rescoring{warm, cold} {
		if r.Candidates != 30 || r.Reads != 30 || r.KiB != 30*float64(4*24+4)/1024 || r.Recall <= 0.5 || r.Label != "3" {
			t.Errorf("%v: %+v", r, r)
		}
	}
	// Cold, a read finds its page resident only when an earlier read of the
	// same query brought it in (rows of 100 B share 4 KiB pages).
	if warm.DeviceReads != 0 || warm.Cold || cold.DeviceReads < 1 || cold.DeviceReads > cold.Reads || cold.DevicePages < 1 || !cold.Cold {
		t.Errorf("device reads warm %v, cold %v (pages %v)", warm.DeviceReads, cold.DeviceReads, cold.DevicePages)
	}
	if warm.Recall != cold.Recall {
		t.Errorf("recall warm %v, cold %v: the same candidates are read", warm.Recall, cold.Recall)
	}
	bad := []struct {
		name    string
		ix      *hnsw.Index
		breadth int
		over    float64
		rs      *rescore.Rescorer
	}{
		{"no index", nil, 40, 3, rs},
		{"no rescorer", ix, 40, 3, nil},
		{"ef 0", ix, 0, 3, rs},
		{"oversample below 1", ix, 40, 0.5, rs},
	}
	for _, c := range bad {
		if _, err := Rescored(c.ix, c.breadth, c.over, c.rs, q, nil); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Errorf("%s: err = %v, want ErrInvalidArgument", c.name, err)
		}
	}
}
