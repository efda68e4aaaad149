package store_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/engine/vec"
)

func Example() {
	dir, _ := os.MkdirTemp("", "store")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "vectors.vec")

	m := vec.NewMatrix(3, 2)
	copy(m.Data, []float32{1, 0, 0, 1, 3, 4})
	if err := store.WriteMatrix(path, m, engine.L2); err != nil {
		fmt.Println(err)
		return
	}
	f, err := store.Open(path, store.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	f.Evict() // cold cache: the next read goes to the device
	v, _ := f.Vector(make([]float32, 2), 2)
	st := f.Stats()
	fmt.Println(v, st.Reads, st.CachedReads)
	// Output: [3 4] 1 0
}
