package bulk

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/valyala/fastjson"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// errBadArgument is wrapped by the errors of a call the codec cannot
// honour (an unknown format, rows outside the matrix).
var errBadArgument = fmt.Errorf("bulk: %w", engine.ErrInvalidArgument)

// Format is how a bulk body carries each document's vector.
type Format uint8

// The formats.
const (
	FloatArrayJSON Format = iota // JSON, "vector": [0.1, …] (shortest float32 text)
	Base64JSON                   // JSON, "vector": "<base64 of little-endian float32 bytes>" (Elasticsearch 9.x)
	Msgpack                      // msgpack, the vector as a bin blob of little-endian float32 bytes
)

// Formats is every format, float array (the baseline) first.
var Formats = []Format{FloatArrayJSON, Base64JSON, Msgpack}

var formatNames = []string{"float array (JSON)", "base64 (JSON)", "msgpack (bin)"}

// String names the format.
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", f)
}

func (f Format) valid() bool { return int(f) < len(formatNames) }

// actionLine is a bulk action line: {"index":{"_id":"17"}}.
type actionLine struct {
	Index struct {
		ID string `json:"_id" msgpack:"_id"`
	} `json:"index" msgpack:"index"`
}

// floatDoc, base64Doc and binDoc are the document sources as a
// client sends them and a server's parser reads them.
type floatDoc struct {
	ID     uint64    `json:"id"`
	Vector []float32 `json:"vector"`
}

type base64Doc struct {
	ID     uint64 `json:"id"`
	Vector string `json:"vector"`
}

type binDoc struct {
	ID     uint64 `msgpack:"id"`
	Vector []byte `msgpack:"vector"`
}

// Encode encodes rows [first, first+n) of m as one bulk body in format
// f: for the JSON formats Elasticsearch's NDJSON (an action line, then the
// source line, each ending in '\n'), for msgpack the same pairs as a stream
// of msgpack maps. Document i gets id first+i. Non-finite components are
// an error (JSON cannot carry them).
func Encode(f Format, m *vec.Matrix, first, n int) ([]byte, error) {
	if !f.valid() {
		return nil, fmt.Errorf("bulk: unknown format %d: %w", f, errBadArgument)
	}
	if m == nil || first < 0 || n < 0 || first+n > m.N {
		return nil, fmt.Errorf("bulk: rows [%d, %d) outside the matrix: %w", first, first+n, errBadArgument)
	}
	var b bytes.Buffer
	enc := msgpack.NewEncoder(&b)
	raw := make([]byte, 4*m.Dim)
	for i := first; i < first+n; i++ {
		v := m.Row(i)
		for j, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("bulk: row %d component %d is %v: %w", i, j, x, errBadArgument)
			}
			binary.LittleEndian.PutUint32(raw[4*j:], math.Float32bits(x))
		}
		var a actionLine
		a.Index.ID = strconv.Itoa(i)
		var err error
		switch f {
		case FloatArrayJSON, Base64JSON:
			var line []byte
			if line, err = json.Marshal(a); err != nil {
				return nil, err
			}
			b.Write(line)
			b.WriteByte('\n')
			if f == FloatArrayJSON {
				line, err = json.Marshal(floatDoc{ID: uint64(i), Vector: v})
			} else {
				line, err = json.Marshal(base64Doc{ID: uint64(i), Vector: base64.StdEncoding.EncodeToString(raw)})
			}
			if err != nil {
				return nil, err
			}
			b.Write(line)
			b.WriteByte('\n')
		case Msgpack:
			if err = enc.Encode(&a); err == nil {
				err = enc.Encode(&binDoc{ID: uint64(i), Vector: raw})
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return b.Bytes(), nil
}

// Parser is how a Decoder reads a JSON body.
type Parser uint8

// The parsers.
const (
	// Reflect is Go's encoding/json decoding each line into a struct
	// by reflection: it first checks the whole line with its scanner's
	// state machine (a function call per byte, base64 strings included),
	// then decodes it.
	Reflect Parser = iota
	// Tokens reads each line's tokens in place (valyala/fastjson): a
	// string is handed over as a slice of the body, a number as its text,
	// nothing is reflected. It is the way Elasticsearch reads a bulk
	// source: its DocumentParser (server/.../index/mapper/DocumentParser.java)
	// walks the tokens of an XContentParser, for JSON JsonXContentParser
	// (libs/x-content/impl/.../provider/json/JsonXContentParser.java), a
	// wrapper of Jackson's streaming JsonParser; it takes a float array's
	// elements one number at a time and
	// a base64 vector as the string token's bytes decoded into a
	// temporary array (the article: "a temporary byte array on the server
	// for decoding"). Numbers go through strconv.ParseFloat as float32,
	// as encoding/json's do, so both parsers give the same bits.
	Tokens
)

// String names the parser.
func (p Parser) String() string {
	switch p {
	case Reflect:
		return "encoding/json"
	case Tokens:
		return "tokens (fastjson)"
	}
	return fmt.Sprintf("Parser(%d)", p)
}

// Decoder parses bulk bodies the way a server does (the vector decoded
// into float32), with Parser for the JSON formats, and appends the vectors
// to a slab. Its buffers are reused between bodies; it is not safe for
// concurrent use.
type Decoder struct {
	Format Format
	Dim    int
	Parser Parser // JSON formats only; the zero value is encoding/json

	fdoc floatDoc
	bdoc base64Doc
	mdoc binDoc
	raw  []byte
	tok  fastjson.Parser
	num  []byte
}

// Decode parses body and appends its vectors to *dst (row-major, Dim
// floats each) and their ids to *ids. An error wraps engine.ErrCorrupt and
// names the document (its index within the body, from 0); nothing is
// guaranteed about dst then.
func (d *Decoder) Decode(body []byte, ids *[]uint64, dst *[]float32) error {
	if !d.Format.valid() || d.Dim < 1 || d.Parser > Tokens {
		return fmt.Errorf("bulk: decoder for format %d, dim %d, parser %d: %w", d.Format, d.Dim, d.Parser, errBadArgument)
	}
	corrupt := func(doc int, format string, args ...any) error {
		return fmt.Errorf("bulk: %s body: document %d: %s: %w", d.Format, doc, fmt.Sprintf(format, args...), engine.ErrCorrupt)
	}
	if d.Format == Msgpack {
		// bytes.Reader is an io.ByteScanner, so the decoder reads it
		// directly and r.Len is what is left of the body.
		r := bytes.NewReader(body)
		dec := msgpack.NewDecoder(r)
		for doc := 0; r.Len() > 0; doc++ {
			var a actionLine
			if err := dec.Decode(&a); err != nil {
				return corrupt(doc, "action: %v", err)
			}
			d.mdoc.Vector = d.mdoc.Vector[:0]
			if err := dec.Decode(&d.mdoc); err != nil {
				return corrupt(doc, "source: %v", err)
			}
			if len(d.mdoc.Vector) != 4*d.Dim {
				return corrupt(doc, "vector of %d bytes, want %d", len(d.mdoc.Vector), 4*d.Dim)
			}
			*ids = append(*ids, d.mdoc.ID)
			for j := 0; j < d.Dim; j++ {
				*dst = append(*dst, math.Float32frombits(binary.LittleEndian.Uint32(d.mdoc.Vector[4*j:])))
			}
		}
		return nil
	}
	if len(body) > 0 && body[len(body)-1] != '\n' {
		// A bulk body ends with a newline; without it the last document
		// was cut.
		docs := bytes.Count(body, []byte{'\n'}) / 2
		return corrupt(docs, "body does not end with a newline (truncated)")
	}
	need := base64.StdEncoding.EncodedLen(4 * d.Dim)
	for doc := 0; len(body) > 0; doc++ {
		var action, source []byte
		action, body, _ = bytes.Cut(body, []byte{'\n'})
		var ok bool
		if source, body, ok = bytes.Cut(body, []byte{'\n'}); !ok {
			return corrupt(doc, "action line without a source line")
		}
		if d.Parser == Tokens {
			if err := d.decodeTokens(action, source, need, ids, dst); err != nil {
				return corrupt(doc, "%v", err)
			}
			continue
		}
		var a actionLine
		if err := json.Unmarshal(action, &a); err != nil {
			return corrupt(doc, "action: %v", err)
		}
		switch d.Format {
		case FloatArrayJSON:
			d.fdoc.Vector = d.fdoc.Vector[:0]
			if err := json.Unmarshal(source, &d.fdoc); err != nil {
				return corrupt(doc, "source: %v", err)
			}
			if len(d.fdoc.Vector) != d.Dim {
				return corrupt(doc, "vector of %d components, want %d", len(d.fdoc.Vector), d.Dim)
			}
			*ids = append(*ids, d.fdoc.ID)
			*dst = append(*dst, d.fdoc.Vector...)
		case Base64JSON:
			if err := json.Unmarshal(source, &d.bdoc); err != nil {
				return corrupt(doc, "source: %v", err)
			}
			if len(d.bdoc.Vector) != need {
				return corrupt(doc, "base64 vector of %d characters, want %d", len(d.bdoc.Vector), need)
			}
			if cap(d.raw) < 4*d.Dim {
				d.raw = make([]byte, 4*d.Dim)
			}
			raw := d.raw[:4*d.Dim]
			n, err := base64.StdEncoding.Decode(raw, []byte(d.bdoc.Vector))
			if err != nil {
				return corrupt(doc, "base64: %v", err)
			}
			if n != len(raw) {
				return corrupt(doc, "vector of %d bytes, want %d", n, len(raw))
			}
			*ids = append(*ids, d.bdoc.ID)
			for j := 0; j < d.Dim; j++ {
				*dst = append(*dst, math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:])))
			}
		}
	}
	return nil
}

// decodeTokens reads one document (its action and source lines) with
// the token parser: the action must name an _id, the source an id and a
// vector of Dim components (a float array, or base64 of need characters).
func (d *Decoder) decodeTokens(action, source []byte, need int, ids *[]uint64, dst *[]float32) error {
	a, err := d.tok.ParseBytes(action)
	if err != nil {
		return fmt.Errorf("action: %v", err)
	}
	if a.Get("index", "_id") == nil {
		return fmt.Errorf("action without index._id")
	}
	v, err := d.tok.ParseBytes(source)
	if err != nil {
		return fmt.Errorf("source: %v", err)
	}
	// fastjson's Get returns nil for a missing key, and its accessors
	// dereference it: a source without an id or a vector is refused here
	// (FuzzDecode found the panic).
	idv, vec := v.Get("id"), v.Get("vector")
	if idv == nil {
		return fmt.Errorf("source without an id")
	}
	if vec == nil {
		return fmt.Errorf("source without a vector")
	}
	id, err := idv.Uint64()
	if err != nil {
		return fmt.Errorf("source: id: %v", err)
	}
	switch d.Format {
	case FloatArrayJSON:
		arr, err := vec.Array()
		if err != nil {
			return fmt.Errorf("source: vector: %v", err)
		}
		if len(arr) != d.Dim {
			return fmt.Errorf("vector of %d components, want %d", len(arr), d.Dim)
		}
		for j, e := range arr {
			if e.Type() != fastjson.TypeNumber {
				return fmt.Errorf("vector component %d is a %s", j, e.Type())
			}
			d.num = e.MarshalTo(d.num[:0]) // a number's own text
			x, err := strconv.ParseFloat(string(d.num), 32)
			if err != nil {
				return fmt.Errorf("vector component %d: %v", j, err)
			}
			*dst = append(*dst, float32(x))
		}
	case Base64JSON:
		b, err := vec.StringBytes()
		if err != nil {
			return fmt.Errorf("source: vector: %v", err)
		}
		if len(b) != need {
			return fmt.Errorf("base64 vector of %d characters, want %d", len(b), need)
		}
		if cap(d.raw) < 4*d.Dim {
			d.raw = make([]byte, 4*d.Dim)
		}
		raw := d.raw[:4*d.Dim]
		n, err := base64.StdEncoding.Decode(raw, b)
		if err != nil {
			return fmt.Errorf("base64: %v", err)
		}
		if n != len(raw) {
			return fmt.Errorf("vector of %d bytes, want %d", n, len(raw))
		}
		for j := 0; j < d.Dim; j++ {
			*dst = append(*dst, math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:])))
		}
	}
	*ids = append(*ids, id)
	return nil
}

// Bodies encodes the first n rows of m as bulk bodies of batch
// documents in format f.
func Bodies(f Format, m *vec.Matrix, n, batch int) ([][]byte, error) {
	if batch < 1 || n < 1 || m == nil || n > m.N {
		return nil, fmt.Errorf("bulk: %d documents in batches of %d: %w", n, batch, errBadArgument)
	}
	var bodies [][]byte
	for first := 0; first < n; first += batch {
		b, err := Encode(f, m, first, min(batch, n-first))
		if err != nil {
			return nil, err
		}
		bodies = append(bodies, b)
	}
	return bodies, nil
}

// Check compares decoded vectors with rows [first, first+len(ids)) of m
// bit for bit.
func Check(f Format, m *vec.Matrix, first int, ids []uint64, got []float32) error {
	for i, id := range ids {
		if id != uint64(first+i) {
			return fmt.Errorf("bulk: %s: document %d decoded with id %d, want %d: %w", f, first+i, id, first+i, engine.ErrCorrupt)
		}
		want := m.Row(first + i)
		for j, x := range got[i*m.Dim : (i+1)*m.Dim] {
			if math.Float32bits(x) != math.Float32bits(want[j]) {
				return fmt.Errorf("bulk: %s: document %d component %d decoded as %v (%#08x), want %v (%#08x): %w", f, first+i, j, x, math.Float32bits(x), want[j], math.Float32bits(want[j]), engine.ErrCorrupt)
			}
		}
	}
	return nil
}
