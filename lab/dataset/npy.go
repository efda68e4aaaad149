package dataset

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// A NumPy .npy file (format versions 1.0, 2.0 and 3.0,
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html):
//
//	+------------+-------+-------+----------------------+-----------------+
//	| \x93NUMPY  | major | minor | header_len           | header          |  data …
//	| 6 bytes    | uint8 | uint8 | uint16 LE (1.0) or   | Python dict,    |  rows × dim
//	|            |       |       | uint32 LE (2.0, 3.0) | space-padded,   |  items, C order
//	|            |       |       |                      | ends in '\n'    |
//	+------------+-------+-------+----------------------+-----------------+
//
// The header is a dict literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (1000, 128), }.
// The lab reads two-dimensional arrays of float32 or float64 ('<f4',
// '<f8', and their big-endian forms '>f4', '>f8') in C order, and writes
// '<f4' in version 1.0 byte for byte as numpy.save does (the header padded
// so the data starts on a 64-byte boundary).

//
// Why not codeberg.org/sbinet/npyio (v0.14.0, compared for issue 26): it
// reads any dtype and shape into Go values through reflection, but it
// allocates the whole array from the header's shape before reading a byte
// (a 128-byte file claiming (1073741824, 1024) float32 ends the process
// with a fatal out-of-memory error, which no recover catches), returns a
// bare "EOF" for a truncated file after filling the missing components
// with the last bytes read, and checks no NaN or Inf. This reader streams
// rows, names the row and byte offset of every fault and is fuzzed; the
// lab needs only 2-D float arrays, so npyio's generality would buy
// nothing here for a gopickle and golang.org/x/text dependency.

// npyMagic starts every .npy file. Part of the format; never change.
const npyMagic = "\x93NUMPY"

// maxNpyHeader bounds the header length a reader accepts (numpy itself
// refuses headers over 10,000 bytes unless told otherwise).
const maxNpyHeader = 1 << 16

// NpyHeader is what a .npy header says about its array.
type NpyHeader struct {
	Major, Minor int
	Descr        string // '<f4', '<f8', …
	Fortran      bool
	Shape        []int
}

// ReadNpy reads a two-dimensional float32 or float64 .npy array in C order
// into a float32 matrix, row by row (the file is never held whole). Errors
// wrap engine.ErrCorrupt (or engine.ErrEmpty for zero rows) and name what
// is wrong and where: a wrong magic, an unsupported version, a header that
// does not parse, an element type other than float32 or float64, Fortran
// order, a shape that is not (rows, dim), a truncated row (with its index
// and byte offset), a NaN or Inf component, or a float64 outside
// float32's range.
func ReadNpy(r io.Reader) (*vec.Matrix, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	h, off, err := readNpyHeader(br)
	if err != nil {
		return nil, fmt.Errorf("dataset: npy: %w", err)
	}
	elem := 4
	if h.Descr[1:] == "f8" {
		elem = 8
	}
	var order binary.ByteOrder = binary.LittleEndian
	if h.Descr[0] == '>' {
		order = binary.BigEndian
	}
	n, dim := h.Shape[0], h.Shape[1]
	if n == 0 {
		return nil, fmt.Errorf("dataset: npy: shape (0, %d): no rows: %w", dim, engine.ErrEmpty)
	}
	// Grow as rows arrive rather than trusting the header's count: a
	// corrupt shape must not allocate gigabytes before the data runs out.
	m := &vec.Matrix{Dim: dim, Stride: dim, Data: make([]float32, 0, min(n*dim, 1<<20))}
	body := make([]byte, elem*dim)
	for i := 0; i < n; i++ {
		got, err := io.ReadFull(br, body)
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
				return nil, fmt.Errorf("dataset: npy: row %d of %d at offset %d: truncated: %d of %d bytes: %w", i, n, off, got, len(body), engine.ErrCorrupt)
			}
			return nil, fmt.Errorf("dataset: npy: row %d at offset %d: %w", i, off, err)
		}
		for j := 0; j < dim; j++ {
			var x float32
			if elem == 4 {
				x = math.Float32frombits(order.Uint32(body[4*j:]))
			} else {
				d := math.Float64frombits(order.Uint64(body[8*j:]))
				x = float32(d)
				if !math.IsNaN(d) && !math.IsInf(d, 0) && math.IsInf(float64(x), 0) {
					return nil, fmt.Errorf("dataset: npy: row %d at offset %d: component %d is %v, outside float32's range: %w", i, off, j, d, engine.ErrCorrupt)
				}
			}
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("dataset: npy: row %d at offset %d: component %d is %v: %w", i, off, j, x, engine.ErrCorrupt)
			}
			m.Data = append(m.Data, x)
		}
		m.N++
		off += int64(len(body))
	}
	if _, err := br.ReadByte(); err == nil {
		return nil, fmt.Errorf("dataset: npy: data continues at offset %d past the %d rows of shape %v: %w", off, n, h.Shape, engine.ErrCorrupt)
	}
	return m, nil
}

// readNpyHeader reads and validates the preamble and header; off is the
// byte offset of the data.
func readNpyHeader(br *bufio.Reader) (NpyHeader, int64, error) {
	var h NpyHeader
	var pre [8]byte
	if n, err := io.ReadFull(br, pre[:]); err != nil {
		if n == 0 && err == io.EOF {
			return h, 0, fmt.Errorf("empty stream: %w", engine.ErrEmpty)
		}
		return h, 0, fmt.Errorf("truncated preamble (%d of 8 bytes): %w", n, engine.ErrCorrupt)
	}
	if string(pre[:6]) != npyMagic {
		return h, 0, fmt.Errorf("wrong magic %q (want %q): %w", pre[:6], npyMagic, engine.ErrCorrupt)
	}
	h.Major, h.Minor = int(pre[6]), int(pre[7])
	var hlen, off int
	switch h.Major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return h, 0, fmt.Errorf("truncated header length: %w", engine.ErrCorrupt)
		}
		hlen, off = int(binary.LittleEndian.Uint16(b[:])), 10
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return h, 0, fmt.Errorf("truncated header length: %w", engine.ErrCorrupt)
		}
		hlen, off = int(binary.LittleEndian.Uint32(b[:])), 12
	default:
		return h, 0, fmt.Errorf("format version %d.%d (want 1.0, 2.0 or 3.0): %w", h.Major, h.Minor, engine.ErrVersion)
	}
	if hlen > maxNpyHeader {
		return h, 0, fmt.Errorf("header length %d exceeds %d: %w", hlen, maxNpyHeader, engine.ErrCorrupt)
	}
	hdr := make([]byte, hlen)
	if n, err := io.ReadFull(br, hdr); err != nil {
		return h, 0, fmt.Errorf("truncated header (%d of %d bytes): %w", n, hlen, engine.ErrCorrupt)
	}
	if err := parseNpyDict(&h, string(hdr)); err != nil {
		return h, 0, fmt.Errorf("header %q: %v: %w", strings.TrimSpace(string(hdr)), err, engine.ErrCorrupt)
	}
	switch h.Descr {
	case "<f4", ">f4", "<f8", ">f8":
	default:
		return h, 0, fmt.Errorf("element type %q (want float32 '<f4' or float64 '<f8'): %w", h.Descr, engine.ErrCorrupt)
	}
	if h.Fortran {
		return h, 0, fmt.Errorf("fortran_order is True (only C order is read; save with numpy.ascontiguousarray): %w", engine.ErrCorrupt)
	}
	if len(h.Shape) != 2 {
		return h, 0, fmt.Errorf("shape %v: want two dimensions (rows, dim): %w", h.Shape, engine.ErrCorrupt)
	}
	if d := h.Shape[1]; d < 1 || d > MaxTexmexDim {
		return h, 0, fmt.Errorf("shape %v: dim %d (want 1…%d): %w", h.Shape, d, MaxTexmexDim, engine.ErrCorrupt)
	}
	if n := h.Shape[0]; n < 0 || int64(n)*int64(h.Shape[1]) > 1<<34 {
		return h, 0, fmt.Errorf("shape %v is too large: %w", h.Shape, engine.ErrCorrupt)
	}
	return h, int64(off + hlen), nil
}

// parseNpyDict reads the header's dict literal: string keys; values that
// are strings, True/False or tuples of non-negative integers. Keys other
// than descr, fortran_order and shape are ignored, as numpy does; all
// three must be present.
func parseNpyDict(h *NpyHeader, s string) error {
	p := &npyParser{s: s}
	p.space()
	if !p.eat('{') {
		return errors.New("does not start with '{'")
	}
	seen := map[string]bool{}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return fmt.Errorf("key: %v", err)
		}
		p.space()
		if !p.eat(':') {
			return fmt.Errorf("no ':' after key %q", key)
		}
		p.space()
		switch key {
		case "descr":
			if h.Descr, err = p.str(); err != nil {
				return fmt.Errorf("descr: %v", err)
			}
		case "fortran_order":
			switch {
			case strings.HasPrefix(p.s[p.i:], "True"):
				h.Fortran, p.i = true, p.i+4
			case strings.HasPrefix(p.s[p.i:], "False"):
				h.Fortran, p.i = false, p.i+5
			default:
				return errors.New("fortran_order is neither True nor False")
			}
		case "shape":
			if h.Shape, err = p.tuple(); err != nil {
				return fmt.Errorf("shape: %v", err)
			}
		default:
			if err := p.skipValue(); err != nil {
				return fmt.Errorf("%s: %v", key, err)
			}
		}
		seen[key] = true
		p.space()
		if p.eat(',') {
			continue
		}
		p.space()
		if !p.eat('}') {
			return fmt.Errorf("expected ',' or '}' after %q", key)
		}
		break
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return fmt.Errorf("no %q key", k)
		}
	}
	if strings.TrimSpace(p.s[p.i:]) != "" {
		return errors.New("text after the closing '}'")
	}
	return nil
}

type npyParser struct {
	s string
	i int
}

func (p *npyParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\n' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *npyParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *npyParser) str() (string, error) {
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", errors.New("expected a quoted string")
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", errors.New("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return v, nil
}

func (p *npyParser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, errors.New("expected '('")
	}
	shape := []int{}
	for {
		p.space()
		if p.eat(')') {
			return shape, nil
		}
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		v, err := strconv.Atoi(p.s[p.i:j])
		if err != nil || j-p.i > 12 {
			return nil, fmt.Errorf("%q is not a dimension", p.s[p.i:min(j+1, len(p.s))])
		}
		shape = append(shape, v)
		p.i = j
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat(')') {
				return nil, errors.New("expected ',' or ')'")
			}
			return shape, nil
		}
	}
}

// skipValue skips a value of an unknown key: a string, a word or a tuple.
func (p *npyParser) skipValue() error {
	switch {
	case p.i < len(p.s) && (p.s[p.i] == '\'' || p.s[p.i] == '"'):
		_, err := p.str()
		return err
	case p.i < len(p.s) && p.s[p.i] == '(':
		_, err := p.tuple()
		return err
	}
	j := p.i
	for j < len(p.s) && p.s[j] != ',' && p.s[j] != '}' {
		j++
	}
	if j == p.i {
		return errors.New("missing value")
	}
	p.i = j
	return nil
}

// WriteNpy writes m as a version 1.0 '<f4' array of shape (m.N, m.Dim) in
// C order, the form numpy.save gives a float32 matrix.
func WriteNpy(w io.Writer, m *vec.Matrix) error {
	if m == nil || m.Dim <= 0 {
		return fmt.Errorf("dataset: npy: nil or zero-dimension matrix: %w", engine.ErrInvalidArgument)
	}
	dict := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", m.N, m.Dim)
	// As numpy.lib.format does: room for the row count to grow to 21
	// digits in place, then spaces so that magic + version + length +
	// header is a multiple of 64, the last byte being '\n'. The bytes are
	// then numpy.save's own (testdata/npy/f4.npy).
	dict += strings.Repeat(" ", max(0, 21-len(strconv.Itoa(m.N))))
	pad := 64 - (10+len(dict)+1)%64 // 64, not 0, on a boundary, as numpy
	hdr := dict + strings.Repeat(" ", pad) + "\n"
	var pre bytes.Buffer
	pre.WriteString(npyMagic)
	pre.Write([]byte{1, 0})
	binary.Write(&pre, binary.LittleEndian, uint16(len(hdr)))
	pre.WriteString(hdr)
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.Write(pre.Bytes()); err != nil {
		return fmt.Errorf("dataset: npy: header: %w", err)
	}
	buf := make([]byte, 4*m.Dim)
	for i := 0; i < m.N; i++ {
		for j, x := range m.Row(i) {
			binary.LittleEndian.PutUint32(buf[4*j:], math.Float32bits(x))
		}
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("dataset: npy: row %d: %w", i, err)
		}
	}
	return bw.Flush()
}
