package quant

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/veclab/veclab/engine"
)

// Quantizer encodes vectors of one dimension into fixed-size codes and
// scores codes. It is immutable and safe for concurrent use.
type Quantizer interface {
	// Dim returns the dimension of the vectors it encodes.
	Dim() int
	// Metric returns the metric its distances are on.
	Metric() engine.Metric
	// CodeSize returns the bytes of one document code, corrective factors included.
	CodeSize() int
	// QueryCodeSize returns the bytes of one encoded query.
	QueryCodeSize() int
	// Encode writes the code of document vector v into dst[:CodeSize()].
	Encode(dst []byte, v []float32) error
	// EncodeQuery writes the query code of q into dst[:QueryCodeSize()].
	EncodeQuery(dst []byte, q []float32) error
	// Distance estimates the distance between an encoded query and a
	// document code. Both must come from this quantizer (not checked).
	Distance(query, code []byte) float32
	// CodeDistance estimates the distance between two document codes.
	CodeDistance(a, b []byte) float32
	// Symmetric reports whether a query code is a document code (then
	// Distance and CodeDistance agree).
	Symmetric() bool
	// BytesPerVector returns the resident bytes of one document code.
	BytesPerVector() float64
	// MarshalBinary returns the trained parameters (see the package doc).
	MarshalBinary() ([]byte, error)
	// String describes the quantizer and its parameters in one line.
	String() string
}

// Format constants: part of the file format; never change.
const (
	formatVersion uint16 = 1
	headerSize           = 8
	crcSize              = 4
)

var (
	magicScalar = [4]byte{'V', 'Q', 'S', 'Q'}
	magicOSQ    = [4]byte{'V', 'Q', 'O', 'S'}
	castagnoli  = crc32.MakeTable(crc32.Castagnoli)
)

// Restore reads a quantizer written by MarshalBinary, of either kind.
func Restore(b []byte) (Quantizer, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: quantizer truncated at offset %d: need a 4-byte magic", engine.ErrCorrupt, len(b))
	}
	switch [4]byte(b[:4]) {
	case magicScalar:
		return RestoreScalar(b)
	case magicOSQ:
		return RestoreOSQ(b)
	}
	return nil, fmt.Errorf("%w: unknown quantizer magic %q at offset 0", engine.ErrCorrupt, b[:4])
}

// encoder appends little-endian fields.
type encoder struct{ b []byte }

func newEncoder(magic [4]byte, bodyHint int) *encoder {
	e := &encoder{b: make([]byte, 0, headerSize+bodyHint+crcSize)}
	e.b = append(e.b, magic[:]...)
	e.b = binary.LittleEndian.AppendUint16(e.b, formatVersion)
	e.b = binary.LittleEndian.AppendUint16(e.b, 0)
	return e
}

func (e *encoder) u8(v uint8)    { e.b = append(e.b, v) }
func (e *encoder) u32(v uint32)  { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *encoder) f32(v float32) { e.u32(math.Float32bits(v)) }
func (e *encoder) f64(v float64) { e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v)) }

func (e *encoder) finish() []byte {
	return binary.LittleEndian.AppendUint32(e.b, crc32.Checksum(e.b, castagnoli))
}

// decoder reads little-endian fields, remembering the first error with the
// offset it happened at.
type decoder struct {
	b    []byte // the body, CRC already checked and stripped
	off  int
	what string
	err  error
}

// openFile checks magic, version, size and CRC, in that order, and returns
// a decoder positioned after the header.
func openFile(b []byte, magic [4]byte, what string) (*decoder, error) {
	if len(b) < headerSize {
		return nil, fmt.Errorf("%w: %s truncated at offset %d: header needs %d bytes", engine.ErrCorrupt, what, len(b), headerSize)
	}
	if [4]byte(b[:4]) != magic {
		return nil, fmt.Errorf("%w: %s: bad magic %q at offset 0, want %q", engine.ErrCorrupt, what, b[:4], magic[:])
	}
	if v := binary.LittleEndian.Uint16(b[4:]); v != formatVersion {
		return nil, fmt.Errorf("%w: %s: format version %d at offset 4, this build reads %d", engine.ErrVersion, what, v, formatVersion)
	}
	if len(b) < headerSize+crcSize {
		return nil, fmt.Errorf("%w: %s truncated at offset %d: no room for the checksum", engine.ErrCorrupt, what, len(b))
	}
	body := b[:len(b)-crcSize]
	want := binary.LittleEndian.Uint32(b[len(b)-crcSize:])
	if got := crc32.Checksum(body, castagnoli); got != want {
		return nil, fmt.Errorf("%w: %s: checksum mismatch at offset %d (stored %08x, computed %08x): truncated or corrupted", engine.ErrCorrupt, what, len(b)-crcSize, want, got)
	}
	return &decoder{b: body, off: headerSize, what: what}, nil
}

func (d *decoder) need(n int, field string) bool {
	if d.err != nil {
		return false
	}
	if d.off+n > len(d.b) {
		d.err = fmt.Errorf("%w: %s truncated at offset %d reading %s (%d bytes)", engine.ErrCorrupt, d.what, d.off, field, n)
		return false
	}
	return true
}

func (d *decoder) u8(field string) uint8 {
	if !d.need(1, field) {
		return 0
	}
	v := d.b[d.off]
	d.off++
	return v
}

func (d *decoder) u32(field string) uint32 {
	if !d.need(4, field) {
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b[d.off:])
	d.off += 4
	return v
}

func (d *decoder) f32(field string) float32 {
	at := d.off
	v := math.Float32frombits(d.u32(field))
	if d.err == nil && !finite32(v) {
		d.err = fmt.Errorf("%w: %s: %s at offset %d is %v", engine.ErrCorrupt, d.what, field, at, v)
	}
	return v
}

func (d *decoder) f64(field string) float64 {
	if !d.need(8, field) {
		return 0
	}
	at := d.off
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.off:]))
	d.off += 8
	if math.IsNaN(v) || math.IsInf(v, 0) {
		d.err = fmt.Errorf("%w: %s: %s at offset %d is %v", engine.ErrCorrupt, d.what, field, at, v)
	}
	return v
}

// fail records a semantic error about the field that ended at the current offset.
// dimMetric reads the dimension and metric every quantizer file starts
// its body with, failing on out-of-range values.
func (d *decoder) dimMetric() (int, engine.Metric) {
	at := d.off
	dim := int(d.u32("dim"))
	if d.err == nil && (dim <= 0 || dim > 1<<20) {
		d.fail(at, "dimension %d out of range", dim)
	}
	at = d.off
	metric := engine.Metric(d.u8("metric"))
	if d.err == nil && !metric.Valid() {
		d.fail(at, "unknown metric %d", metric)
	}
	return dim, metric
}

func (d *decoder) fail(at int, format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s: %s (offset %d)", engine.ErrCorrupt, d.what, fmt.Sprintf(format, args...), at)
	}
}

func (d *decoder) done() error {
	if d.err == nil && d.off != len(d.b) {
		d.err = fmt.Errorf("%w: %s: %d unexpected bytes at offset %d", engine.ErrCorrupt, d.what, len(d.b)-d.off, d.off)
	}
	return d.err
}

func finite32(v float32) bool {
	f := float64(v)
	return !math.IsNaN(f) && !math.IsInf(f, 0)
}

// checkInput validates a vector handed to Encode/EncodeQuery.
func checkInput(v []float32, dim int, what string) error {
	if len(v) != dim {
		return fmt.Errorf("%w: %s has %d components, quantizer has %d", engine.ErrDimension, what, len(v), dim)
	}
	for i, x := range v {
		if !finite32(x) {
			return fmt.Errorf("%w: %s component %d is %v", engine.ErrInvalidVector, what, i, x)
		}
	}
	return nil
}

func checkDst(dst []byte, n int, what string) error {
	if len(dst) < n {
		return fmt.Errorf("%w: %s buffer has %d bytes, need %d", engine.ErrInvalidArgument, what, len(dst), n)
	}
	return nil
}

func putF32(b []byte, v float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(v)) }
func getF32(b []byte) float32    { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }

// roundHalfUp rounds as Java's Math.round does (floor(x + 0.5)), which the
// Lucene quantizers use.
func roundHalfUp(x float64) float64 { return math.Floor(x + 0.5) }
