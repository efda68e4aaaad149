package scratch

import (
	"runtime"
	"slices"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/engine/vfs"
)

// TestDir writes a vector file and a file in a subdirectory into a new
// scratch directory, reads the vectors back cold through engine/store
// (real reads natively; on js/wasm, under cmd/veclab's
// TestEngineTestsOnWasm, simulated ones priced by store.DeviceModel) and
// removes the directory.
func TestDir(t *testing.T) {
	if got, want := Simulated(), runtime.GOOS == "js"; got != want {
		t.Fatalf("Simulated() = %t on %s", got, runtime.GOOS)
	}
	d, err := New("veclab-scratch-test-")
	if err != nil {
		t.Fatal(err)
	}
	removed := false
	defer func() {
		if !removed {
			d.Remove()
		}
	}()
	m := vec.NewMatrix(50, 8)
	for i := range m.Data {
		m.Data[i] = float32(i)
	}
	vpath := d.Join("v.vec")
	if err := store.WriteMatrixFS(d.FS, vpath, m, engine.L2); err != nil {
		t.Fatal(err)
	}
	sub, err := d.Mkdir("sub")
	if err != nil {
		t.Fatal(err)
	}
	if err := vfs.WriteFile(d.FS, sub+"/x", []byte("x")); err != nil {
		t.Fatal(err)
	}
	f, err := store.OpenFS(d.FS, vpath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if left, err := f.Evict(); err != nil || left != 0 {
		f.Close()
		t.Fatalf("Evict: %d pages left, %v", left, err)
	}
	var st store.IOStats
	got, err := f.ReadVector(make([]float32, 8), 7, &st)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, m.Row(7)) {
		t.Fatalf("row 7 read back as %v", got)
	}
	if st.Reads != 1 || st.DeviceReads() != 1 || (st.Simulated > 0) != Simulated() {
		t.Fatalf("a cold read: %+v (simulated device: %t)", st, Simulated())
	}
	if err := d.Remove(); err != nil {
		t.Fatal(err)
	}
	removed = true
	for _, p := range []string{vpath, sub + "/x"} {
		if _, err := d.FS.Open(p); err == nil {
			t.Fatalf("%s is still there after Remove", p)
		}
	}
}
