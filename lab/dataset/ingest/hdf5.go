package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
)

// DefaultPython is Debian's interpreter, whose h5py (python3-h5py) reads
// HDF5; a pyenv or venv python3 earlier on $PATH may have none.
const DefaultPython = "/usr/bin/python3"

// HDF5Options name what to read from an HDF5 file.
type HDF5Options struct {
	// Base, Queries and Neighbors are dataset names; "" means
	// ann-benchmarks' train, test and neighbors. Queries and Neighbors
	// may be absent from the file; Base may not.
	Base, Queries, Neighbors string
	// Python is the interpreter with h5py ("" means DefaultPython).
	Python string
	// Progress, when not nil, is called as rows arrive with the rows read
	// and the rows of all the datasets read.
	Progress func(done, total int64)
}

// ANN is an ann-benchmarks file's content.
type ANN struct {
	Base, Queries *vec.Matrix // Queries nil when the file has none
	// Neighbors are the file's own neighbour ids, nearest first, one row a
	// query (nil when the file has none).
	Neighbors [][]int32
	// Distance is the file's distance attribute ("" when absent).
	Distance string
	// Names are the datasets read, in the order Base, Queries, Neighbors.
	Names []string
}

// MetricOf maps ann-benchmarks' distance attribute to the lab's metric:
// angular is cosine, euclidean is L2, dot (and ip) the inner product;
// jaccard and hamming (sets and bits) are refused.
func MetricOf(distance string) (engine.Metric, error) {
	switch strings.ToLower(distance) {
	case "angular", "cosine":
		return engine.Cosine, nil
	case "euclidean", "l2":
		return engine.L2, nil
	case "dot", "ip", "inner_product":
		return engine.Dot, nil
	}
	return 0, fmt.Errorf("ingest: distance %q: the lab measures angular, euclidean and dot: %w", distance, engine.ErrInvalidArgument)
}

// h5Script streams datasets of an HDF5 file to stdout: one JSON line
// describing the file (its attributes and each dataset's shape and dtype
// kind), then each requested dataset present, 2-D, as little-endian
// float32 (kind "f") or int32 (kind "i", "u") rows in blocks, so memory on
// both sides stays at a block. h5py reads through libhdf5; slicing a
// dataset reads only the rows asked for (https://docs.h5py.org/en/stable/high/dataset.html).
const h5Script = `
import json, sys
try:
    import h5py, numpy
except ImportError as e:
    sys.stderr.write("needs Debian's python3-h5py (apt-get install -y python3-h5py): %s\n" % e)
    sys.exit(3)
path, names = sys.argv[1], sys.argv[2:]
try:
    f = h5py.File(path, "r")
except Exception as e:
    sys.stderr.write("not a readable HDF5 file: %s\n" % e)
    sys.exit(4)
def attr(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, (str, int, float)):
        return v
    return str(v)
head = {"attrs": {k: attr(v) for k, v in f.attrs.items()}, "datasets": {}}
for n in names:
    if n in f and isinstance(f[n], h5py.Dataset):
        d = f[n]
        head["datasets"][n] = {"shape": list(d.shape), "kind": d.dtype.kind, "dtype": str(d.dtype)}
out = sys.stdout.buffer
out.write((json.dumps(head) + "\n").encode())
for n in names:
    info = head["datasets"].get(n)
    if info is None or len(info["shape"]) != 2 or info["kind"] not in "fiu":
        continue
    d = f[n]
    to = "<f4" if info["kind"] == "f" else "<i4"
    step = max(1, (1 << 22) // max(1, d.shape[1]))
    for i in range(0, d.shape[0], step):
        try:
            block = d[i:i + step]
        except Exception as e:
            sys.stderr.write("dataset %s, rows %d…: %s\n" % (n, i, e))
            sys.exit(5)
        with numpy.errstate(over="ignore", invalid="ignore"):
            out.write(numpy.ascontiguousarray(block, dtype=to).tobytes())
out.flush()
`

// h5Head is the script's first line.
type h5Head struct {
	Attrs    map[string]any `json:"attrs"`
	Datasets map[string]struct {
		Shape []int64 `json:"shape"`
		Kind  string  `json:"kind"`
		Dtype string  `json:"dtype"`
	} `json:"datasets"`
}

// ReadHDF5 reads an ann-benchmarks HDF5 file (or any HDF5 file with 2-D
// datasets of the names given) through h5py. Errors name the file and the
// dataset, and for bad values the row and component: a missing base
// dataset, one that is not 2-D or not numeric, base and query dimensions
// that differ, NaN or Inf, neighbours of the wrong shape or out of range, a
// file HDF5 cannot read (truncated, not HDF5).
func ReadHDF5(ctx context.Context, path string, opt HDF5Options) (*ANN, error) {
	if opt.Base == "" {
		opt.Base = "train"
	}
	if opt.Queries == "" {
		opt.Queries = "test"
	}
	if opt.Neighbors == "" {
		opt.Neighbors = "neighbors"
	}
	if opt.Python == "" {
		opt.Python = DefaultPython
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if _, err := exec.LookPath(opt.Python); err != nil {
		return nil, fmt.Errorf("ingest: %s: reading HDF5 needs Debian's python3 and python3-h5py (apt-get install -y python3-h5py): %v", path, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, opt.Python, "-c", h5Script, path, opt.Base, opt.Queries, opt.Neighbors)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("ingest: %s: %w", path, err)
	}
	a, rerr := readH5Stream(bufio.NewReaderSize(stdout, 1<<20), path, opt)
	if rerr != nil {
		cancel()
	}
	io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	if werr != nil && rerr == nil || werr != nil && errors.Is(rerr, io.ErrUnexpectedEOF) {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		if msg == "" {
			msg = werr.Error()
		}
		return nil, fmt.Errorf("ingest: %s: %s: %w", path, msg, engine.ErrCorrupt)
	}
	if rerr != nil {
		return nil, rerr
	}
	return a, nil
}

// maxH5Rows bounds the rows a dataset may declare.
const maxH5Rows = 1 << 31

func readH5Stream(r *bufio.Reader, path string, opt HDF5Options) (*ANN, error) {
	line, err := r.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("ingest: %s: no description from h5py: %w", path, io.ErrUnexpectedEOF)
	}
	var h h5Head
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, fmt.Errorf("ingest: %s: h5py's description: %v: %w", path, err, engine.ErrCorrupt)
	}
	a := &ANN{}
	if d, ok := h.Attrs["distance"].(string); ok {
		a.Distance = d
	}
	var names []string
	for _, n := range []string{opt.Base, opt.Queries, opt.Neighbors} {
		d, ok := h.Datasets[n]
		if !ok {
			if n == opt.Base {
				return nil, fmt.Errorf("ingest: %s: no dataset %q: %w", path, n, engine.ErrNotFound)
			}
			continue
		}
		if len(d.Shape) != 2 || !strings.Contains("fiu", d.Kind) || d.Kind == "" {
			return nil, fmt.Errorf("ingest: %s: dataset %q is %v of %s, not a 2-D array of numbers: %w", path, n, d.Shape, d.Dtype, engine.ErrInvalidArgument)
		}
		if d.Shape[0] > maxH5Rows || d.Shape[1] > int64(dataset.MaxTexmexDim) {
			return nil, fmt.Errorf("ingest: %s: dataset %q is %d×%d: %w", path, n, d.Shape[0], d.Shape[1], engine.ErrCorrupt)
		}
		if d.Shape[0] == 0 || d.Shape[1] == 0 {
			return nil, fmt.Errorf("ingest: %s: dataset %q is %d×%d: %w", path, n, d.Shape[0], d.Shape[1], engine.ErrEmpty)
		}
		if n != opt.Neighbors && d.Kind != "f" {
			return nil, fmt.Errorf("ingest: %s: dataset %q holds %s, not floats: %w", path, n, d.Dtype, engine.ErrInvalidArgument)
		}
		if n == opt.Neighbors && d.Kind == "f" {
			return nil, fmt.Errorf("ingest: %s: dataset %q holds %s, not integer ids: %w", path, n, d.Dtype, engine.ErrInvalidArgument)
		}
		names = append(names, n)
	}
	var total, done int64
	for _, n := range names {
		total += h.Datasets[n].Shape[0]
	}
	buf := make([]byte, 0, 4096)
	for _, n := range names {
		d := h.Datasets[n]
		rows, dim := int(d.Shape[0]), int(d.Shape[1])
		if cap(buf) < 4*dim {
			buf = make([]byte, 4*dim)
		}
		buf = buf[:4*dim]
		if n == opt.Neighbors {
			nb := make([][]int32, 0, min(rows, 1<<16))
			for i := 0; i < rows; i++ {
				if _, err := io.ReadFull(r, buf); err != nil {
					return nil, fmt.Errorf("ingest: %s: dataset %q: truncated at row %d of %d: %w", path, n, i, rows, io.ErrUnexpectedEOF)
				}
				row := make([]int32, dim)
				for j := range row {
					row[j] = int32(binary.LittleEndian.Uint32(buf[4*j:]))
				}
				nb = append(nb, row)
			}
			a.Neighbors = nb
		} else {
			m := &vec.Matrix{Dim: dim, Stride: dim}
			for i := 0; i < rows; i++ {
				if _, err := io.ReadFull(r, buf); err != nil {
					return nil, fmt.Errorf("ingest: %s: dataset %q: truncated at row %d of %d: %w", path, n, i, rows, io.ErrUnexpectedEOF)
				}
				for j := 0; j < dim; j++ {
					x := math.Float32frombits(binary.LittleEndian.Uint32(buf[4*j:]))
					if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
						return nil, fmt.Errorf("ingest: %s: dataset %q, row %d: component %d is %v (as float32): %w", path, n, i, j, x, engine.ErrCorrupt)
					}
					m.Data = append(m.Data, x)
				}
				m.N++
				if opt.Progress != nil && (i+1)%4096 == 0 {
					opt.Progress(done+int64(i+1), total)
				}
			}
			if n == opt.Base {
				a.Base = m
			} else {
				a.Queries = m
			}
		}
		done += int64(rows)
		if opt.Progress != nil {
			opt.Progress(done, total)
		}
	}
	a.Names = names
	if a.Queries != nil && a.Queries.Dim != a.Base.Dim {
		return nil, fmt.Errorf("ingest: %s: dataset %q has %d dimensions, %q has %d: %w", path, opt.Queries, a.Queries.Dim, opt.Base, a.Base.Dim, engine.ErrDimension)
	}
	if a.Neighbors != nil {
		if a.Queries == nil || len(a.Neighbors) != a.Queries.N {
			return nil, fmt.Errorf("ingest: %s: dataset %q has %d rows for %d queries: %w", path, opt.Neighbors, len(a.Neighbors), rowsOf(a.Queries), engine.ErrCorrupt)
		}
		for i, row := range a.Neighbors {
			for j, id := range row {
				if id < 0 || int(id) >= a.Base.N {
					return nil, fmt.Errorf("ingest: %s: dataset %q, row %d, column %d: id %d outside 0…%d: %w", path, opt.Neighbors, i, j, id, a.Base.N-1, engine.ErrCorrupt)
				}
			}
		}
	}
	return a, nil
}

func rowsOf(m *vec.Matrix) int {
	if m == nil {
		return 0
	}
	return m.N
}
