package filter

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/veclab/veclab/engine"
)

// Mode is a schema mode.
type Mode uint8

// The schema modes.
const (
	Schemaless Mode = iota // Qdrant-like: any field, indexes on demand
	Declared               // Redis-like: only declared fields are filterable
)

// String returns "schemaless" or "declared".
func (m Mode) String() string {
	if m == Declared {
		return "declared"
	}
	if m == Schemaless {
		return "schemaless"
	}
	return fmt.Sprintf("Mode(%d)", m)
}

// Field declares one metadata field.
type Field struct {
	Name    string
	Kind    Kind
	Indexed bool // build a payload index (always true in Declared mode)
}

// Schema is a store's configuration. The zero value is a schemaless store
// without indexes.
type Schema struct {
	Mode   Mode
	Fields []Field // Declared: the filterable fields; Schemaless: fields to index from the start
}

// Validate checks field names and kinds and refuses duplicates.
func (s Schema) Validate() error {
	if s.Mode != Schemaless && s.Mode != Declared {
		return fmt.Errorf("filter: schema mode %d: %w", s.Mode, engine.ErrInvalidArgument)
	}
	seen := map[string]bool{}
	for i, f := range s.Fields {
		if f.Name == "" {
			return fmt.Errorf("filter: schema field %d has no name: %w", i, engine.ErrInvalidArgument)
		}
		if f.Kind < KindKeyword || f.Kind > KindBool {
			return fmt.Errorf("filter: schema field %q has kind %v (want keyword, integer, float or bool): %w", f.Name, f.Kind, engine.ErrInvalidArgument)
		}
		if seen[f.Name] {
			return fmt.Errorf("filter: schema field %q declared twice: %w", f.Name, engine.ErrInvalidArgument)
		}
		seen[f.Name] = true
	}
	return nil
}

// String prints the schema, e.g. "declared category:keyword* year:integer*"
// (a star marks an indexed field).
func (s Schema) String() string {
	var b strings.Builder
	b.WriteString(s.Mode.String())
	for _, f := range s.Fields {
		fmt.Fprintf(&b, " %s:%s", f.Name, f.Kind)
		if f.Indexed || s.Mode == Declared {
			b.WriteByte('*')
		}
	}
	return b.String()
}

// Doc is one document's metadata as the caller gives it: a key (optional,
// unique when set) and field values (string, bool, integer or float types).
type Doc struct {
	Key  string
	Meta map[string]any
}

// Store holds metadata for dense ids 0…Len()-1, stored msgpack-encoded, with
// optional payload indexes. See the package doc for modes and concurrency.
type Store struct {
	schema   Schema
	kinds    map[string]Kind // declared or first-seen kind of every field
	declared map[string]bool
	payloads [][]byte // msgpack of each document's metadata
	keys     []string
	byKey    map[string]engine.ID
	indexes  map[string]*index
	bytes    int // total stored-field bytes
}

// NewStore returns an empty store for schema s.
func NewStore(s Schema) (*Store, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	st := &Store{
		schema:   Schema{Mode: s.Mode, Fields: append([]Field(nil), s.Fields...)},
		kinds:    map[string]Kind{},
		declared: map[string]bool{},
		byKey:    map[string]engine.ID{},
		indexes:  map[string]*index{},
	}
	for _, f := range s.Fields {
		st.kinds[f.Name] = f.Kind
		if s.Mode == Declared {
			st.declared[f.Name] = true
		}
		if s.Mode == Declared || f.Indexed {
			st.indexes[f.Name] = newIndex(f.Kind)
		}
	}
	return st, nil
}

// Schema returns the store's schema (with fields indexed since creation).
func (s *Store) Schema() Schema {
	out := Schema{Mode: s.schema.Mode, Fields: append([]Field(nil), s.schema.Fields...)}
	return out
}

// Len returns the number of documents.
func (s *Store) Len() int { return len(s.payloads) }

// Key returns the caller key of id ("" if none was given).
func (s *Store) Key(id engine.ID) string {
	if int(id) >= len(s.keys) {
		return ""
	}
	return s.keys[id]
}

// Lookup returns the id of a caller key.
func (s *Store) Lookup(key string) (engine.ID, bool) {
	id, ok := s.byKey[key]
	return id, ok
}

// StoredBytes returns the total size of the msgpack-encoded stored fields.
func (s *Store) StoredBytes() int { return s.bytes }

// IndexBytes returns an estimate of the payload indexes' resident size.
func (s *Store) IndexBytes() int {
	n := 0
	for _, ix := range s.indexes {
		n += ix.bytes()
	}
	return n
}

// FieldIndexBytes returns the resident size of field's payload index in
// its two parts: bitmaps, the roaring bitmaps (the set of documents that
// have the field and, for keyword and bool fields, one bitmap per term,
// counted with its term string and 16 bytes of map entry), and column, the
// sorted numeric column of integer and float fields (an 8-byte value and a
// 4-byte id per document). Both are 0 when the field has no index. Summed
// over the fields, bitmaps+column is [Store.IndexBytes].
func (s *Store) FieldIndexBytes(field string) (bitmaps, column int) {
	ix := s.indexes[field]
	if ix == nil {
		return 0, 0
	}
	return ix.bitmapBytes(), ix.columnBytes()
}

// Kind returns the kind of a field (KindNone if the store has not seen it).
func (s *Store) Kind(field string) Kind { return s.kinds[field] }

// Indexed reports whether field has a payload index.
func (s *Store) Indexed(field string) bool { return s.indexes[field] != nil }

type checkedDoc struct {
	key    string
	vals   map[string]Value
	packed []byte
}

// Add appends docs as ids Len(), Len()+1, … and returns their ids. The batch
// is checked first and inserted only if every document is valid: a value
// of the wrong type, an unsupported type or a duplicate key is an error that
// names the document and the field, and then nothing is inserted.
func (s *Store) Add(docs ...Doc) ([]engine.ID, error) {
	checked := make([]checkedDoc, len(docs))
	newKinds := map[string]Kind{}
	batchKeys := map[string]int{}
	for i, d := range docs {
		name := docName(i, d.Key)
		if d.Key != "" {
			if _, dup := s.byKey[d.Key]; dup {
				return nil, fmt.Errorf("filter: document %s: key already stored: %w", name, engine.ErrDuplicateID)
			}
			if j, dup := batchKeys[d.Key]; dup {
				return nil, fmt.Errorf("filter: document %s: key repeats document %d of the batch: %w", name, j, engine.ErrDuplicateID)
			}
			batchKeys[d.Key] = i
		}
		vals := make(map[string]Value, len(d.Meta))
		for field, raw := range d.Meta {
			if field == "" {
				return nil, fmt.Errorf("filter: document %s: empty field name: %w", name, engine.ErrInvalidArgument)
			}
			v, err := ValueOf(raw)
			if err != nil {
				return nil, fmt.Errorf("filter: document %s field %q: %v: %w", name, field, err, engine.ErrInvalidArgument)
			}
			want := s.kinds[field]
			if want == KindNone {
				want = newKinds[field]
			}
			switch {
			case want == KindNone:
				if s.schema.Mode == Schemaless {
					newKinds[field] = v.Kind
				}
			case want == KindFloat && v.Kind == KindInteger:
				v = Float(float64(v.Int)) // widen
			case want != v.Kind:
				return nil, fmt.Errorf("filter: document %s field %q: value %s is %v, the field is %v: %w", name, field, v, v.Kind, want, engine.ErrInvalidArgument)
			}
			vals[field] = v
		}
		packed, err := encode(vals)
		if err != nil {
			return nil, fmt.Errorf("filter: document %s: encoding stored fields: %v: %w", name, err, engine.ErrInvalidArgument)
		}
		checked[i] = checkedDoc{key: d.Key, vals: vals, packed: packed}
	}
	// Commit: nothing below can fail.
	for f, k := range newKinds {
		s.kinds[f] = k
	}
	ids := make([]engine.ID, len(checked))
	for i, c := range checked {
		id := engine.ID(len(s.payloads))
		ids[i] = id
		s.payloads = append(s.payloads, c.packed)
		s.keys = append(s.keys, c.key)
		s.bytes += len(c.packed)
		if c.key != "" {
			s.byKey[c.key] = id
		}
		for f, v := range c.vals {
			if ix := s.indexes[f]; ix != nil {
				ix.add(id, v)
			}
		}
	}
	return ids, nil
}

func docName(i int, key string) string {
	if key != "" {
		return fmt.Sprintf("%q (batch position %d)", key, i)
	}
	return fmt.Sprintf("at batch position %d", i)
}

// encode packs vals as a msgpack map with sorted keys (deterministic bytes).
func encode(vals map[string]Value) ([]byte, error) {
	names := make([]string, 0, len(vals))
	for f := range vals {
		names = append(names, f)
	}
	sort.Strings(names)
	m := make(map[string]any, len(vals))
	for _, f := range names {
		m[f] = vals[f].goValue()
	}
	enc := msgpack.GetEncoder()
	defer msgpack.PutEncoder(enc)
	var buf strings.Builder
	enc.Reset(&buf)
	enc.SetSortMapKeys(true)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return []byte(buf.String()), nil
}

// Payload decodes the stored fields of id.
func (s *Store) Payload(id engine.ID) (map[string]any, error) {
	if int(id) >= len(s.payloads) {
		return nil, fmt.Errorf("filter: document id %d (store has %d): %w", id, len(s.payloads), engine.ErrNotFound)
	}
	var m map[string]any
	if err := msgpack.Unmarshal(s.payloads[id], &m); err != nil {
		return nil, fmt.Errorf("filter: stored fields of document %d: %v: %w", id, err, engine.ErrCorrupt)
	}
	return m, nil
}

// payloadValue decodes one document and returns its fields as Values; it is
// the slow path a filter takes on a field without a payload index.
func (s *Store) payloadValues(id engine.ID) map[string]Value {
	m, err := s.Payload(id)
	if err != nil {
		return nil
	}
	out := make(map[string]Value, len(m))
	for f, raw := range m {
		v, err := ValueOf(raw)
		if err != nil {
			continue
		}
		if s.kinds[f] == KindFloat && v.Kind == KindInteger {
			v = Float(float64(v.Int))
		}
		out[f] = v
	}
	return out
}

// CreateIndex builds a payload index on field (Qdrant's create_payload_index).
// kind must match the kind the store has for the field, or fix it when the
// store has not seen the field yet. Creating an existing index is a no-op.
func (s *Store) CreateIndex(field string, kind Kind) error {
	if field == "" {
		return fmt.Errorf("filter: index on an empty field name: %w", engine.ErrInvalidArgument)
	}
	if kind < KindKeyword || kind > KindBool {
		return fmt.Errorf("filter: index on %q with kind %v (want keyword, integer, float or bool): %w", field, kind, engine.ErrInvalidArgument)
	}
	if s.schema.Mode == Declared && !s.declared[field] {
		return fmt.Errorf("filter: %s (declare it in the schema to index it): %w", field, ErrUnknownField)
	}
	if have := s.kinds[field]; have != KindNone && have != kind {
		return fmt.Errorf("filter: index on %q as %v, but the field holds %v values: %w", field, kind, have, engine.ErrInvalidArgument)
	}
	if s.indexes[field] != nil {
		return nil
	}
	ix := newIndex(kind)
	for id := range s.payloads {
		if v, ok := s.payloadValues(engine.ID(id))[field]; ok {
			ix.add(engine.ID(id), v)
		}
	}
	s.kinds[field] = kind
	s.indexes[field] = ix
	s.schema.Fields = append(s.schema.Fields, Field{Name: field, Kind: kind, Indexed: true})
	return nil
}
