package dataset

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// An IDX file (LeCun's MNIST format, also Fashion-MNIST's), big-endian:
//
//	+------+------+------+-------+----------------------+--------------------+
//	| 0x00 | 0x00 | type | ndims | ndims × uint32 sizes | items, row-major … |
//	+------+------+------+-------+----------------------+--------------------+
//
// type 0x08 is unsigned bytes (images, labels), 0x0D float32. The first
// size is the number of rows; the others multiply to the row's dimension
// (28 × 28 = 784 for MNIST images; a label file has ndims 1 and dim 1).

// ReadIDX reads an IDX stream of unsigned bytes (type 0x08) or float32
// (0x0D) into a float32 matrix of sizes[0] rows, row by row. Errors wrap
// engine.ErrCorrupt and name what and where: a wrong magic, an unsupported
// type, a zero size, a truncated row (its index and byte offset), NaN or
// Inf, trailing bytes. Zero rows wrap engine.ErrEmpty.
func ReadIDX(r io.Reader) (*vec.Matrix, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var magic [4]byte
	if n, err := io.ReadFull(br, magic[:]); err != nil {
		if n == 0 && err == io.EOF {
			return nil, fmt.Errorf("dataset: idx: empty stream: %w", engine.ErrEmpty)
		}
		return nil, fmt.Errorf("dataset: idx: truncated magic (%d of 4 bytes): %w", n, engine.ErrCorrupt)
	}
	if magic[0] != 0 || magic[1] != 0 {
		return nil, fmt.Errorf("dataset: idx: wrong magic % x (want 00 00 type ndims): %w", magic, engine.ErrCorrupt)
	}
	var elem int
	switch magic[2] {
	case 0x08:
		elem = 1
	case 0x0D:
		elem = 4
	default:
		return nil, fmt.Errorf("dataset: idx: element type 0x%02x (want 0x08 unsigned byte or 0x0D float32): %w", magic[2], engine.ErrCorrupt)
	}
	nd := int(magic[3])
	if nd < 1 {
		return nil, fmt.Errorf("dataset: idx: 0 dimensions: %w", engine.ErrCorrupt)
	}
	sizes := make([]int, nd)
	b := make([]byte, 4*nd)
	if n, err := io.ReadFull(br, b); err != nil {
		return nil, fmt.Errorf("dataset: idx: truncated sizes (%d of %d bytes): %w", n, len(b), engine.ErrCorrupt)
	}
	dim := int64(1)
	for i := range sizes {
		sizes[i] = int(binary.BigEndian.Uint32(b[4*i:]))
		if i > 0 {
			if sizes[i] == 0 {
				return nil, fmt.Errorf("dataset: idx: size %d of %v is 0: %w", i, sizes, engine.ErrCorrupt)
			}
			dim *= int64(sizes[i])
			if dim > MaxTexmexDim {
				return nil, fmt.Errorf("dataset: idx: sizes %v: a row of more than %d items: %w", sizes, MaxTexmexDim, engine.ErrCorrupt)
			}
		}
	}
	n := sizes[0]
	if n == 0 {
		return nil, fmt.Errorf("dataset: idx: sizes %v: no rows: %w", sizes, engine.ErrEmpty)
	}
	if int64(n)*dim > 1<<34 {
		return nil, fmt.Errorf("dataset: idx: sizes %v are too large: %w", sizes, engine.ErrCorrupt)
	}
	d := int(dim)
	off := int64(4 + 4*nd)
	m := &vec.Matrix{Dim: d, Stride: d, Data: make([]float32, 0, min(n*d, 1<<20))}
	body := make([]byte, elem*d)
	for i := 0; i < n; i++ {
		got, err := io.ReadFull(br, body)
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
				return nil, fmt.Errorf("dataset: idx: row %d of %d at offset %d: truncated: %d of %d bytes: %w", i, n, off, got, len(body), engine.ErrCorrupt)
			}
			return nil, fmt.Errorf("dataset: idx: row %d at offset %d: %w", i, off, err)
		}
		if elem == 1 {
			for _, x := range body {
				m.Data = append(m.Data, float32(x))
			}
		} else {
			for j := 0; j < d; j++ {
				x := math.Float32frombits(binary.BigEndian.Uint32(body[4*j:]))
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					return nil, fmt.Errorf("dataset: idx: row %d at offset %d: component %d is %v: %w", i, off, j, x, engine.ErrCorrupt)
				}
				m.Data = append(m.Data, x)
			}
		}
		m.N++
		off += int64(len(body))
	}
	if _, err := br.ReadByte(); err == nil {
		return nil, fmt.Errorf("dataset: idx: data continues at offset %d past the %d rows of sizes %v: %w", off, n, sizes, engine.ErrCorrupt)
	}
	return m, nil
}

// WriteIDX writes m as an IDX file of unsigned bytes (type 0x08) with
// sizes (m.N, m.Dim), the form ReadIDX reads back; every component must be
// an integer in 0…255.
func WriteIDX(w io.Writer, m *vec.Matrix) error {
	if m == nil || m.Dim <= 0 {
		return fmt.Errorf("dataset: idx: nil or zero-dimension matrix: %w", engine.ErrInvalidArgument)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	hdr := []byte{0, 0, 0x08, 2}
	hdr = binary.BigEndian.AppendUint32(hdr, uint32(m.N))
	hdr = binary.BigEndian.AppendUint32(hdr, uint32(m.Dim))
	if _, err := bw.Write(hdr); err != nil {
		return err
	}
	buf := make([]byte, m.Dim)
	for i := 0; i < m.N; i++ {
		for j, x := range m.Row(i) {
			if !(x >= 0 && x <= 255) || x != float32(math.Trunc(float64(x))) {
				if err := bw.Flush(); err != nil {
					return err
				}
				return fmt.Errorf("dataset: idx: row %d component %d is %v, not a byte: %w", i, j, x, engine.ErrInvalidArgument)
			}
			buf[j] = byte(x)
		}
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("dataset: idx: row %d: %w", i, err)
		}
	}
	return bw.Flush()
}
