package rescore

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/engine/vec"
)

// BFloat16Slab serves originals stored as bfloat16 (vec.EncodeBFloat16):
// Elasticsearch's dense_vector with element_type bfloat16, which keeps
// the full-precision vectors it rescores with at 2 bytes a component
// instead of 4. Each read decodes one row to float32; the rescored
// distance is then the distance to the rounded vector, which is the whole
// of what bfloat16 originals cost in accuracy.
//
// A BFloat16Slab is read-only once built and safe for concurrent reads.
type BFloat16Slab struct {
	dim, n int
	rows   []byte // n rows of 2·dim bytes, little-endian bfloat16
}

// NewBFloat16Slab encodes every row of m. It copies nothing else of m,
// which may be dropped afterwards.
func NewBFloat16Slab(m *vec.Matrix) (*BFloat16Slab, error) {
	if m == nil || m.Dim < 1 {
		return nil, fmt.Errorf("rescore: bfloat16 slab of an empty matrix: %w", engine.ErrInvalidArgument)
	}
	s := &BFloat16Slab{dim: m.Dim, n: m.N, rows: make([]byte, 0, m.N*m.Dim*vec.BFloat16Bytes)}
	for i := 0; i < m.N; i++ {
		s.rows = vec.EncodeBFloat16(s.rows, m.Row(i))
	}
	return s, nil
}

// rowBytes is one encoded row's size, 2 bytes a component.
func (s *BFloat16Slab) rowBytes() int { return s.dim * vec.BFloat16Bytes }

// Dim returns the vectors' dimension.
func (s *BFloat16Slab) Dim() int { return s.dim }

// Len returns the number of vectors.
func (s *BFloat16Slab) Len() int { return s.n }

// Bytes returns the bytes the encoded originals occupy: what
// bytes-per-vector figures divide, measured from the slab, not computed
// from the dimension.
func (s *BFloat16Slab) Bytes() int { return len(s.rows) }

// Vector decodes row id into dst.
func (s *BFloat16Slab) Vector(dst []float32, id engine.ID) ([]float32, error) {
	if len(dst) != s.dim {
		return nil, fmt.Errorf("rescore: destination has %d components, bfloat16 slab has %d: %w", len(dst), s.dim, engine.ErrDimension)
	}
	if int(id) >= s.n {
		return nil, fmt.Errorf("rescore: vector %d, bfloat16 slab holds %d: %w", id, s.n, engine.ErrNotFound)
	}
	row := s.rowBytes()
	return vec.DecodeBFloat16(dst, s.rows[int(id)*row:(int(id)+1)*row])
}

// ReadVector is Vector counting one read of the row's encoded bytes into
// st (the Rescorer's counters), so a rescoring pass reports the bytes the
// bfloat16 originals cost, half a float32 row's.
func (s *BFloat16Slab) ReadVector(dst []float32, id engine.ID, st *store.IOStats) ([]float32, error) {
	v, err := s.Vector(dst, id)
	if err == nil {
		st.Reads++
		st.Bytes += int64(s.rowBytes())
	}
	return v, err
}
