package segment

import (
	"encoding/binary"
	"fmt"

	"github.com/klauspost/compress/s2"

	"github.com/veclab/veclab/engine"
)

// Stored fields are kept as Lucene keeps them (Lucene90StoredFieldsFormat):
// documents are appended in id order to a buffer that is compressed as one
// block when it passes the block size, so reading one document's fields
// means decompressing its whole block. The compressor is S2
// (github.com/klauspost/compress/s2), an LZ4-class block compressor, as
// Lucene's default BEST_SPEED mode uses LZ4. The block index (the first id and
// the byte offset of every block) is small and stays in memory.
//
// Each record is uvarint(key) uvarint(len(source)) source; the key is the
// document's id as a stored field (Elasticsearch's _id), kept beside the
// id column so that E17 can compare the two ways of reading it.

// maxBlockBytes bounds the decoded size a block may claim, so that a
// crafted file cannot make a reader allocate without limit.
const maxBlockBytes = 64 << 20

// storedWriter accumulates records and cuts compressed blocks.
type storedWriter struct {
	blockBytes int
	raw        []byte   // the open block
	first      []uint32 // first id of every finished block
	offs       []uint64 // byte offset of every finished block in data
	data       []byte   // finished compressed blocks, back to back
	n          uint32   // records written
	rawTotal   int64
}

func (w *storedWriter) add(key uint64, source []byte) error {
	if len(w.raw) == 0 {
		w.first = append(w.first, w.n)
	}
	w.raw = binary.AppendUvarint(w.raw, key)
	w.raw = binary.AppendUvarint(w.raw, uint64(len(source)))
	w.raw = append(w.raw, source...)
	w.n++
	if len(w.raw) >= w.blockBytes {
		return w.cut()
	}
	return nil
}

func (w *storedWriter) cut() error {
	if len(w.raw) == 0 {
		return nil
	}
	w.offs = append(w.offs, uint64(len(w.data)))
	w.rawTotal += int64(len(w.raw))
	w.data = append(w.data, s2.Encode(nil, w.raw)...)
	w.raw = w.raw[:0]
	return nil
}

// storedIndex is the in-memory block index of a segment's stored fields.
type storedIndex struct {
	n     uint32
	first []uint32 // first id of each block
	offs  []uint64 // offset of each block in data; len(data) closes the last
	data  []byte   // compressed blocks
}

// encodeIndex serialises the block index: n, blocks, then first ids and
// offsets (uint32, uint64 little-endian).
func (s *storedIndex) encodeIndex() []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, s.n)
	b = le.AppendUint32(b, uint32(len(s.first)))
	for i := range s.first {
		b = le.AppendUint32(b, s.first[i])
		b = le.AppendUint64(b, s.offs[i])
	}
	return b
}

func decodeIndex(b []byte, dataLen int, docs int) (*storedIndex, error) {
	le := binary.LittleEndian
	if len(b) < 8 {
		return nil, fmt.Errorf("block index of %d bytes is shorter than its header", len(b))
	}
	n, blocks := le.Uint32(b), le.Uint32(b[4:])
	if int(n) != docs {
		return nil, fmt.Errorf("block index counts %d documents, the segment %d", n, docs)
	}
	if uint64(len(b)-8) != uint64(blocks)*12 {
		return nil, fmt.Errorf("block index of %d bytes cannot hold %d blocks", len(b), blocks)
	}
	s := &storedIndex{n: n, first: make([]uint32, blocks), offs: make([]uint64, blocks)}
	for i := range s.first {
		s.first[i] = le.Uint32(b[8+12*i:])
		s.offs[i] = le.Uint64(b[12+12*i:])
		if i == 0 && s.first[i] != 0 || i > 0 && (s.first[i] <= s.first[i-1] || s.offs[i] <= s.offs[i-1]) || s.first[i] >= n && n > 0 || s.offs[i] >= uint64(dataLen) {
			return nil, fmt.Errorf("block %d (first id %d, offset %d) is out of order or out of range", i, s.first[i], s.offs[i])
		}
	}
	if n > 0 && blocks == 0 {
		return nil, fmt.Errorf("%d documents but no block", n)
	}
	return s, nil
}

// block returns the index of the block holding id.
func (s *storedIndex) block(id uint32) int {
	lo, hi := 0, len(s.first)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if s.first[mid] <= id {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// blockReader decodes blocks, keeping the last one (as Lucene's stored
// fields reader does), and counts the bytes it decompressed.
type blockReader struct {
	s            *storedIndex
	cur          int // block held in raw, -1 none
	raw          []byte
	Decompressed int64 // bytes produced by decompression
	Blocks       int   // blocks decompressed
}

func (s *storedIndex) reader() *blockReader { return &blockReader{s: s, cur: -1} }

// record returns document id's key and source (valid until the next call).
func (r *blockReader) record(id uint32) (uint64, []byte, error) {
	s := r.s
	if id >= s.n {
		return 0, nil, fmt.Errorf("segment: stored document %d of %d: %w", id, s.n, engine.ErrNotFound)
	}
	bi := s.block(id)
	if bi != r.cur {
		end := uint64(len(s.data))
		if bi+1 < len(s.offs) {
			end = s.offs[bi+1]
		}
		src := s.data[s.offs[bi]:end]
		n, err := s2.DecodedLen(src)
		if err == nil && n > maxBlockBytes {
			err = fmt.Errorf("claims %d bytes, more than %d", n, maxBlockBytes)
		}
		if err == nil {
			r.raw, err = s2.Decode(r.raw[:cap(r.raw)], src)
		}
		if err != nil {
			r.cur = -1
			return 0, nil, fmt.Errorf("segment: stored fields block %d at offset %d: %v: %w", bi, s.offs[bi], err, engine.ErrCorrupt)
		}
		r.cur = bi
		r.Decompressed += int64(len(r.raw))
		r.Blocks++
	}
	b := r.raw
	for j := s.first[bi]; ; j++ {
		key, n1 := binary.Uvarint(b)
		if n1 <= 0 {
			return 0, nil, fmt.Errorf("segment: stored fields block %d: bad record %d: %w", bi, j, engine.ErrCorrupt)
		}
		l, n2 := binary.Uvarint(b[n1:])
		if n2 <= 0 || uint64(len(b)-n1-n2) < l {
			return 0, nil, fmt.Errorf("segment: stored fields block %d: record %d runs past the block: %w", bi, j, engine.ErrCorrupt)
		}
		if j == id {
			return key, b[n1+n2 : n1+n2+int(l)], nil
		}
		b = b[n1+n2+int(l):]
	}
}
