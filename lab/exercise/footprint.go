package exercise

import (
	"errors"
	"fmt"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/engine/vfs"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/picture"
	"github.com/veclab/veclab/lab/quantizers"
	"github.com/veclab/veclab/lab/scratch"
)

// The exercises of notebook 06 (what each store costs to keep): the bytes
// int8_hnsw keeps per vector besides its graph, the room a nearly full disk
// leaves for a vector file, and the bytes an HNSW graph takes per vector.

// fileSize writes m as a vector file in a fresh scratch directory and
// returns the file's size, as engine/store writes it.
func fileSize(m *vec.Matrix) (int64, error) {
	sd, err := scratch.New("veclab-exercise")
	if err != nil {
		return 0, err
	}
	defer sd.Remove()
	p := sd.Join("v.vec")
	if err := store.WriteMatrixFS(sd.FS, p, m, engine.Cosine); err != nil {
		return 0, err
	}
	f, err := sd.FS.Open(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return f.Size()
}

// Int8Bytes asks for the bytes per vector Elasticsearch's default
// (int8_hnsw) keeps besides its graph: the float32 vector it rescores from
// and the int8 code it searches. The check trains the lab's int8
// quantizer (lab/quantizers) at several dimensions and reads its CodeSize.
func Int8Bytes() *Exercise {
	return &Exercise{
		Name: "Int8Bytes",
		Question: "write esBytes := func(dim int) int: the bytes per vector Elasticsearch's int8_hnsw keeps besides its graph " +
			"(its float32 vector and its int8 code, as quantizers.Train(\"int8\", …) encodes it) for vectors of dim components.",
		hint: "int8_hnsw adds codes, it does not replace the vectors: count both. A code is one byte per component plus " +
			"something every code carries whatever its dimension — q.CodeSize() of a trained quantizer shows how much.",
		solution: `esBytes := func(dim int) int {
	return 4*dim + dim + 4 // float32 vector + one byte per component + the float32 correction term
}`,
		check: func(answer any) (bool, string, error) {
			f, ok := answer.(func(int) int)
			if !ok {
				return false, "", fmt.Errorf("the answer should be a func(dim int) int, got %T", answer)
			}
			dims := []int{16, 100, 384, 768}
			for _, dim := range dims {
				ds, err := dataset.Generate(dataset.Config{N: 300, Queries: 1, Dim: dim, Clusters: 4, Seed: 2})
				if err != nil {
					return false, "", err
				}
				q, err := quantizers.Train("int8", ds.Base, engine.Cosine, 2)
				if err != nil {
					return false, "", err
				}
				want := 4*dim + q.CodeSize()
				if got := f(dim); got != want {
					return false, fmt.Sprintf("dim = %d: you say %d B, the engine keeps %d B of float32 and %d B of int8 code", dim, got, 4*dim, q.CodeSize()), nil
				}
			}
			return true, fmt.Sprintf("your sizes are the engine's float32 vectors and int8 codes at dims %v", dims), nil
		},
		right: func() (any, error) {
			return func(dim int) int { return 5*dim + 4 }, nil
		},
		wrong: func(dim int) int { return dim + 4 }, // the code alone: the vectors are kept too
	}
}

// headroomDisk is DiskHeadroom's disk: about the article's 250 GB.
const headroomDisk = 250_000_000_000

// DiskHeadroom asks for the most other data, in whole megabytes, a disk of
// 250 GB can hold while saving base's vector file still succeeds under
// Elasticsearch's default watermarks. The check saves the file through a
// vfs.WatermarkFS over a simulated disk at the answer (it must be written)
// and at one megabyte more (it must be refused by a watermark).
func DiskHeadroom(base *vec.Matrix) *Exercise {
	save := func(usedMB int) (bool, error) {
		if base == nil {
			return false, fmt.Errorf("DiskHeadroom needs the notebook's vectors (ds.Base): %w", ErrBadArgument)
		}
		sd, err := scratch.New("veclab-exercise")
		if err != nil {
			return false, err
		}
		defer sd.Remove()
		disk := vfs.SimulatedDisk{FS: sd.FS, Used: uint64(usedMB) * 1_000_000, Total: headroomDisk}
		wm, err := vfs.NewWatermark(vfs.Watermark{FS: sd.FS, Usage: disk.Usage})
		if err != nil {
			return false, err
		}
		err = store.WriteMatrixFS(wm, sd.Join("v.vec"), base, engine.Cosine)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, vfs.ErrDiskWatermark):
			return false, nil
		}
		return false, err
	}
	return &Exercise{
		Name: "DiskHeadroom",
		Question: "on a disk of 250 GB (250,000,000,000 B) guarded by Elasticsearch's default watermarks, what is the most " +
			"other data, in whole megabytes (1 MB = 1,000,000 B), that can be on it while saving this notebook's vectors " +
			"(ds.Base, store.WriteMatrixFS) still succeeds? Assign it to headroomMB.",
		hint: "a write is refused when the bytes it adds would take the disk above one of the watermarks — which one refuses " +
			"new bytes, and how many bytes does this save add? The save cells above show both.",
		solution: `// The file's size, from a save on an empty disk, then the high watermark's room less that size.
sdx, err := scratch.New("veclab-headroom")
check(err)
px := sdx.Join("v.vec")
check(store.WriteMatrixFS(sdx.FS, px, ds.Base, engine.Cosine))
fx, err := sdx.FS.Open(px)
check(err)
size, err := fx.Size()
check(err)
check(fx.Close())
check(sdx.Remove())
headroomMB := int((0.90*250_000_000_000 - float64(size)) / 1_000_000) // high watermark: 90 %`,
		check: func(answer any) (bool, string, error) {
			mb, err := asInt(answer)
			if err != nil {
				return false, "", err
			}
			if mb < 0 || mb > headroomDisk/1_000_000 {
				return false, fmt.Sprintf("%d MB: the disk holds from 0 to %d MB", mb, headroomDisk/1_000_000), nil
			}
			ok, err := save(mb)
			if err != nil {
				return false, "", err
			}
			if !ok {
				return false, fmt.Sprintf("with %d MB of other data the save was refused by a watermark", mb), nil
			}
			okMore, err := save(mb + 1)
			if err != nil {
				return false, "", err
			}
			if okMore {
				return false, fmt.Sprintf("with %d MB the save succeeds, and with %d MB it still does: there is more room", mb, mb+1), nil
			}
			return true, fmt.Sprintf("with %d MB of other data the save succeeds, with %d MB a watermark refuses it", mb, mb+1), nil
		},
		right: func() (any, error) {
			if base == nil {
				return nil, fmt.Errorf("no vectors: %w", ErrBadArgument)
			}
			size, err := fileSize(base)
			if err != nil {
				return nil, err
			}
			return int((0.90*headroomDisk - float64(size)) / 1_000_000), nil
		},
		wrong: int(0.90 * headroomDisk / 1_000_000), // the high watermark, forgetting the file's own bytes
	}
}

// graphM are the M values GraphBytes checks, on graphs of graphPoints
// points of the plane.
var graphM = []int{4, 8, 16, 32}

const graphPoints = 3000

// GraphBytes asks for the expected bytes of graph per vector of an HNSW
// graph of M = m (layer 0 capped at 2m), as the engine keeps it, as a
// func. The check builds the engine's graphs over 3,000 points of the
// plane (picture.Graph) and reads hnsw.Index.GraphBytesPerVector: the
// estimate must be within 1 % for every M.
func GraphBytes() *Exercise {
	return &Exercise{
		Name: "GraphBytes",
		Question: "write linkBytes := func(m int) float64: the expected bytes of graph per vector of the engine's HNSW " +
			"graph built with M = m (layer 0 holds up to 2m links, each upper layer up to m; g.GraphBytesPerVector() " +
			"measures a built graph).",
		hint: "the engine reserves every list at its cap, whether full or not, with a count in front of it; a node also keeps " +
			"its top layer and where its upper lists start. Layer 0 is every node's; the upper layers only some nodes' " +
			"(notebook 00's layer sizes): add the expected number of upper lists per node.",
		solution: `linkBytes := func(m int) float64 {
	layer0 := 4 * float64(2*m+1)        // count + 2m ids of 4 B, every node
	perNode := 4.0 + 1.0                // the offset of its upper lists, its top layer
	upper := 4 * float64(m+1)           // one upper list: count + m ids
	levels := 1 / float64(m-1)          // expected upper layers: 1/m + 1/m² + … 
	return layer0 + perNode + upper*levels
}`,
		check: func(answer any) (bool, string, error) {
			f, ok := answer.(func(int) float64)
			if !ok {
				return false, "", fmt.Errorf("the answer should be a func(m int) float64, got %T", answer)
			}
			points, err := dataset.Plane(graphPoints, 6, 7)
			if err != nil {
				return false, "", err
			}
			for _, m := range graphM {
				ix, err := picture.Graph(points, picture.GraphOptions{M: m, EfConstruction: 16, Seed: 7})
				if err != nil {
					return false, "", err
				}
				got, want := f(m), ix.GraphBytesPerVector()
				if math.IsNaN(got) || math.Abs(got-want) > 0.01*want {
					return false, fmt.Sprintf("M = %d: you expect %.2f B per vector, the engine's graph of %d points holds %.2f B",
						m, got, graphPoints, want), nil
				}
			}
			return true, fmt.Sprintf("within 1 %% of the engine's graphs (%d points) for M = 4, 8, 16, 32", graphPoints), nil
		},
		right: func() (any, error) {
			return func(m int) float64 {
				return 4*float64(2*m+1) + 5 + 4*float64(m+1)/float64(m-1)
			}, nil
		},
		wrong: func(m int) float64 { return 4 * float64(2*m) }, // layer 0's links alone
	}
}
