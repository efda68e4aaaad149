package quant

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/blockfile"
	"github.com/veclab/veclab/engine/vfs"
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

// Format constants: part of the file format; never change. A quantizer's
// bytes are an engine/internal/blockfile frame holding one section of
// parameters (see the package doc). formatVersion history: 1 = a framing
// of its own (4-byte magic "VQSQ"/"VQOS", u16 version, trailing CRC-32C;
// never committed to any file, so not read any more); 2 = blockfile.
const (
	formatVersion = 2
	magicScalar   = "VLQSCAL\x00"
	magicOSQ      = "VLQOSQ\x00\x00"
	tagScalar     = "SCAL"
	tagOSQ        = "OSQP"
	magicBinary   = "VLQBINQ\x00"
	tagBinary     = "BINQ"
	magicPQ       = "VLQPQ\x00\x00\x00"
	tagPQ         = "PQCB"
	magicTurbo    = "VLQTURB\x00"
	tagTurbo      = "TURB"
)

// Restore reads a quantizer written by MarshalBinary, of either kind.
func Restore(b []byte) (Quantizer, error) { return restore("", b) }

func restore(name string, b []byte) (Quantizer, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("quant: quantizer %s truncated at offset %d: the magic number needs 8 bytes: %w", name, len(b), engine.ErrCorrupt)
	}
	switch string(b[:8]) {
	case magicScalar:
		return restoreScalar(name, b)
	case magicOSQ:
		return restoreOSQ(name, b)
	case magicBinary:
		return restoreBinary(name, b)
	case magicPQ:
		return restorePQ(name, b)
	case magicTurbo:
		return restoreTurbo(name, b)
	}
	return nil, fmt.Errorf("quant: quantizer %s: unknown magic %q at offset 0: %w", name, b[:8], engine.ErrCorrupt)
}

// WriteFile writes q's MarshalBinary framing to path through fsys,
// atomically (engine/internal/blockfile: a temporary file, fsync, rename,
// fsync of the directory), so a disk watermark or an injected failure
// leaves a previous file intact.
func WriteFile(fsys vfs.FS, path string, q Quantizer) error {
	if fsys == nil || q == nil {
		return fmt.Errorf("quant: write %s: nil file system or quantizer: %w", path, engine.ErrInvalidArgument)
	}
	type framed interface {
		frame() (magic, tag string, body []byte)
	}
	fq, ok := q.(framed)
	if !ok {
		return fmt.Errorf("quant: write %s: %T is not a quantizer of this package: %w", path, q, engine.ErrInvalidArgument)
	}
	magic, tag, body := fq.frame()
	w, err := blockfile.Create(fsys, path, magic, formatVersion)
	if err != nil {
		return fmt.Errorf("quant: %w", err)
	}
	defer w.Abort()
	if err := w.Section(tag, body); err != nil {
		return fmt.Errorf("quant: %w", err)
	}
	if err := w.Commit(); err != nil {
		return fmt.Errorf("quant: %w", err)
	}
	return nil
}

// ReadFile reads a quantizer written by WriteFile (or the bytes of
// MarshalBinary saved by other means); errors name the file and offset.
func ReadFile(fsys vfs.FS, path string) (Quantizer, error) {
	b, err := vfs.ReadFile(fsys, path)
	if err != nil {
		return nil, fmt.Errorf("quant: read %s: %w", path, err)
	}
	return restore(path, b)
}

func marshal(magic, tag string, body []byte) ([]byte, error) {
	return blockfile.Append(nil, magic, formatVersion, blockfile.Payload{Tag: tag, Data: body})
}

// encoder appends little-endian fields.
type encoder struct{ b []byte }

func newEncoder(bodyHint int) *encoder { return &encoder{b: make([]byte, 0, bodyHint)} }

func (e *encoder) u8(v uint8)    { e.b = append(e.b, v) }
func (e *encoder) u32(v uint32)  { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *encoder) u64(v uint64)  { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *encoder) f32(v float32) { e.u32(math.Float32bits(v)) }
func (e *encoder) f64(v float64) { e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v)) }

// decoder reads little-endian fields of a section payload, remembering the
// first error with the file offset it happened at.
type decoder struct {
	b    []byte // the payload, CRC already checked
	base int    // file offset of b[0]
	off  int    // file offset of the next field
	what string
	err  error
}

// openFile checks the framing (magic, version, header and section CRCs,
// nothing after the section) and returns a decoder over the payload.
func openFile(name string, b []byte, magic, tag, what string) (*decoder, error) {
	label := what
	if name != "" {
		label = what + " " + name
	} else {
		name = what
	}
	// Version 1 was another framing: only version 2 is read.
	r, err := blockfile.NewReaderVersions(name, bytes.NewReader(b), int64(len(b)), magic, formatVersion, formatVersion)
	if err != nil {
		return nil, fmt.Errorf("quant: %w", err)
	}
	s, err := r.Expect(tag)
	if err != nil {
		return nil, fmt.Errorf("quant: %w", err)
	}
	if err := r.Finish(); err != nil {
		return nil, fmt.Errorf("quant: %w", err)
	}
	base := int(s.PayloadOffset())
	return &decoder{b: s.Data, base: base, off: base, what: label}, nil
}

func (d *decoder) need(n int, field string) bool {
	if d.err != nil {
		return false
	}
	if d.off-d.base+n > len(d.b) {
		d.err = fmt.Errorf("quant: %s truncated at offset %d reading %s (%d bytes): %w", d.what, d.off, field, n, engine.ErrCorrupt)
		return false
	}
	return true
}

func (d *decoder) u8(field string) uint8 {
	if !d.need(1, field) {
		return 0
	}
	v := d.b[d.off-d.base]
	d.off++
	return v
}

func (d *decoder) u32(field string) uint32 {
	if !d.need(4, field) {
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b[d.off-d.base:])
	d.off += 4
	return v
}

func (d *decoder) u64(field string) uint64 {
	if !d.need(8, field) {
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b[d.off-d.base:])
	d.off += 8
	return v
}

func (d *decoder) f32(field string) float32 {
	at := d.off
	v := math.Float32frombits(d.u32(field))
	if d.err == nil && !finite32(v) {
		d.err = fmt.Errorf("quant: %s: %s at offset %d is %v: %w", d.what, field, at, v, engine.ErrCorrupt)
	}
	return v
}

func (d *decoder) f64(field string) float64 {
	if !d.need(8, field) {
		return 0
	}
	at := d.off
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.off-d.base:]))
	d.off += 8
	if math.IsNaN(v) || math.IsInf(v, 0) {
		d.err = fmt.Errorf("quant: %s: %s at offset %d is %v: %w", d.what, field, at, v, engine.ErrCorrupt)
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
		d.err = fmt.Errorf("quant: %s: %s (offset %d): %w", d.what, fmt.Sprintf(format, args...), at, engine.ErrCorrupt)
	}
}

func (d *decoder) done() error {
	if d.err == nil && d.off-d.base != len(d.b) {
		d.err = fmt.Errorf("quant: %s: %d unexpected bytes at offset %d: %w", d.what, len(d.b)-(d.off-d.base), d.off, engine.ErrCorrupt)
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
		return fmt.Errorf("quant: %s has %d components, quantizer has %d: %w", what, len(v), dim, engine.ErrDimension)
	}
	for i, x := range v {
		if !finite32(x) {
			return fmt.Errorf("quant: %s component %d is %v: %w", what, i, x, engine.ErrInvalidVector)
		}
	}
	return nil
}

func checkDst(dst []byte, n int, what string) error {
	if len(dst) < n {
		return fmt.Errorf("quant: %s buffer has %d bytes, need %d: %w", what, len(dst), n, engine.ErrInvalidArgument)
	}
	return nil
}

func putF32(b []byte, v float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(v)) }
func getF32(b []byte) float32    { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }

// roundHalfUp rounds as Java's Math.round does (floor(x + 0.5)), which the
// Lucene quantizers use.
func roundHalfUp(x float64) float64 { return math.Floor(x + 0.5) }
