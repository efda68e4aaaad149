package hnsw

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/blockfile"
	"github.com/veclab/veclab/engine/vfs"
)

// File format constants; part of the file format, never change.
const (
	fileMagic = "VLHNSW\x00\x00"
	// fileVersion history: 1 = the first format.
	fileVersion = 1
	metaSize    = 40 // n, entry, maxLevel, PCG state (20 bytes), minstd state
)

// Save writes the index to path through fsys (vfs.Default for the OS)
// atomically: a crash or an error leaves the previous file intact. The
// output is deterministic. An attached code store is not saved.
func (ix *Index) Save(fsys vfs.FS, path string) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	w, err := blockfile.Create(fsys, path, fileMagic, fileVersion)
	if err != nil {
		return fmt.Errorf("hnsw: save: %w", err)
	}
	defer w.Abort()
	n := len(ix.keys)
	le := binary.LittleEndian

	cfg := ix.cfg
	cfg.Codes = nil
	if err := w.Section("CONF", []byte(cfg.String())); err != nil {
		return fmt.Errorf("hnsw: save: %w", err)
	}
	meta := make([]byte, 0, 32)
	meta = le.AppendUint64(meta, uint64(n))
	meta = le.AppendUint32(meta, uint32(ix.entry))
	meta = le.AppendUint32(meta, uint32(int32(ix.maxLevel)))
	rng, _ := ix.pcg.MarshalBinary() // 20 bytes
	meta = append(meta, rng...)
	meta = le.AppendUint32(meta, ix.minstd.x)
	if err := w.Section("META", meta); err != nil {
		return fmt.Errorf("hnsw: save: %w", err)
	}
	sections := []struct {
		tag   string
		size  int
		write func(b []byte, i int) []byte
		count int
	}{
		{"KEYS", 8, func(b []byte, i int) []byte { return le.AppendUint64(b, ix.keys[i]) }, n},
		{"LEVL", 1, func(b []byte, i int) []byte { return append(b, ix.levels[i]) }, n},
		{"VECS", 4, func(b []byte, i int) []byte { return le.AppendUint32(b, math.Float32bits(ix.data[i])) }, n * ix.dim},
		{"LNK0", 4, func(b []byte, i int) []byte { return le.AppendUint32(b, uint32(ix.links0[i])) }, len(ix.links0)},
		{"LNKU", 4, func(b []byte, i int) []byte { return le.AppendUint32(b, uint32(ix.upper[i])) }, len(ix.upper)},
	}
	buf := make([]byte, 0, 64<<10)
	for _, s := range sections {
		sw, err := w.Begin(s.tag, int64(s.size*s.count))
		if err != nil {
			return fmt.Errorf("hnsw: save: %w", err)
		}
		for i := 0; i < s.count; i++ {
			buf = s.write(buf, i)
			if len(buf) >= 60<<10 || i == s.count-1 {
				if _, err := sw.Write(buf); err != nil {
					return fmt.Errorf("hnsw: save: %w", err)
				}
				buf = buf[:0]
			}
		}
		if err := sw.Close(); err != nil {
			return fmt.Errorf("hnsw: save: %w", err)
		}
	}
	if err := w.Commit(); err != nil {
		return fmt.Errorf("hnsw: save: %w", err)
	}
	return nil
}

// Load reads an index written by Save. Every problem — wrong magic,
// unknown version, truncation, a checksum mismatch, or a checksummed
// payload that does not describe a valid graph — gives an error wrapping
// engine.ErrCorrupt or engine.ErrVersion that names the file, the section
// and its offset. Config.Workers and Config.Codes are not stored: Workers
// is taken from the file's config (callers may rebuild with their own);
// attach codes with AttachCodes.
func Load(fsys vfs.FS, path string) (*Index, error) {
	r, f, err := blockfile.Open(fsys, path, fileMagic, fileVersion)
	if err != nil {
		return nil, fmt.Errorf("hnsw: load: %w", err)
	}
	defer f.Close()
	ix, err := load(r)
	if err != nil {
		return nil, fmt.Errorf("hnsw: load: %w", err)
	}
	return ix, nil
}

// LoadBytes reads an index from the bytes of a saved file (name is used in
// errors).
func LoadBytes(name string, b []byte) (*Index, error) {
	r, err := blockfile.NewReader(name, bytesReaderAt(b), int64(len(b)), fileMagic, fileVersion)
	if err != nil {
		return nil, fmt.Errorf("hnsw: load: %w", err)
	}
	ix, err := load(r)
	if err != nil {
		return nil, fmt.Errorf("hnsw: load: %w", err)
	}
	return ix, nil
}

type bytesReaderAt []byte

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func load(r *blockfile.Reader) (*Index, error) {
	le := binary.LittleEndian
	s, err := r.Expect("CONF")
	if err != nil {
		return nil, err
	}
	cfg, err := ParseConfig(string(s.Data))
	if err == nil {
		cfg = cfg.WithDefaults()
		err = cfg.Validate()
	}
	if err != nil {
		return nil, r.Corrupt(s, fmt.Sprintf("invalid config: %v", err))
	}
	ix, err := New(cfg)
	if err != nil {
		return nil, r.Corrupt(s, err.Error())
	}

	if s, err = r.Expect("META"); err != nil {
		return nil, err
	}
	if len(s.Data) != metaSize {
		return nil, r.Corrupt(s, fmt.Sprintf("%d bytes, want %d", len(s.Data), metaSize))
	}
	n64 := le.Uint64(s.Data)
	entry := engine.ID(le.Uint32(s.Data[8:]))
	maxLevel := int(int32(le.Uint32(s.Data[12:])))
	if err := ix.pcg.UnmarshalBinary(s.Data[16:36]); err != nil {
		return nil, r.Corrupt(s, fmt.Sprintf("level generator state: %v", err))
	}
	ix.minstd.x = le.Uint32(s.Data[36:])
	if ix.minstd.x == 0 || ix.minstd.x >= minstdM {
		return nil, r.Corrupt(s, fmt.Sprintf("level generator state %d out of range", ix.minstd.x))
	}
	if n64 > math.MaxUint32 || n64*uint64(cfg.Dim)*4 > 1<<46 {
		return nil, r.Corrupt(s, fmt.Sprintf("implausible vector count %d", n64))
	}
	n := int(n64)
	if (n == 0) != (maxLevel == -1) || maxLevel < -1 || maxLevel >= MaxLevels || (n > 0 && int(entry) >= n) {
		return nil, r.Corrupt(s, fmt.Sprintf("entry point %d at level %d for %d vectors", entry, maxLevel, n))
	}

	// Each array section must have exactly the expected length; lengths are
	// checked before anything is allocated from them.
	read := func(tag string, want uint64) ([]byte, blockfile.Section, error) {
		s, err := r.Next()
		if err == io.EOF {
			return nil, s, fmt.Errorf("hnsw: %s: section %q missing: %w", r.Name(), tag, engine.ErrCorrupt)
		}
		if err != nil {
			return nil, s, err
		}
		if s.Tag != tag {
			return nil, s, r.Corrupt(s, fmt.Sprintf("found where section %q was expected", tag))
		}
		if uint64(s.Size) != want {
			return nil, s, r.Corrupt(s, fmt.Sprintf("%d bytes, want %d", s.Size, want))
		}
		return s.Data, s, nil
	}

	b, s, err := read("KEYS", 8*n64)
	if err != nil {
		return nil, err
	}
	ix.keys = make([]uint64, n)
	for i := range ix.keys {
		k := le.Uint64(b[8*i:])
		if _, dup := ix.ids[k]; dup {
			return nil, r.Corrupt(s, fmt.Sprintf("key %d appears twice", k))
		}
		ix.keys[i] = k
		ix.ids[k] = engine.ID(i)
	}

	if b, s, err = read("LEVL", n64); err != nil {
		return nil, err
	}
	ix.levels = append([]uint8(nil), b...)
	ix.upperOff = make([]uint32, n)
	var upper uint64
	top := -1
	for i, lv := range ix.levels {
		if int(lv) >= MaxLevels {
			return nil, r.Corrupt(s, fmt.Sprintf("node %d has level %d ≥ %d", i, lv, MaxLevels))
		}
		top = max(top, int(lv))
		ix.upperOff[i] = uint32(upper)
		upper += uint64(lv) * uint64(ix.strideU)
		if upper > math.MaxUint32 {
			return nil, r.Corrupt(s, "upper layers exceed 2³² slots")
		}
	}
	if n > 0 && (top != maxLevel || int(ix.levels[entry]) != maxLevel) {
		return nil, r.Corrupt(s, fmt.Sprintf("top level %d and entry level %d disagree with the recorded %d", top, ix.levels[entry], maxLevel))
	}
	ix.entry, ix.maxLevel = entry, maxLevel

	if b, s, err = read("VECS", 4*n64*uint64(cfg.Dim)); err != nil {
		return nil, err
	}
	ix.data = make([]float32, n*cfg.Dim)
	for i := range ix.data {
		x := math.Float32frombits(le.Uint32(b[4*i:]))
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, r.Corrupt(s, fmt.Sprintf("vector %d component %d is %v", i/cfg.Dim, i%cfg.Dim, x))
		}
		ix.data[i] = x
	}

	readLinks := func(tag string, count uint64) ([]engine.ID, blockfile.Section, error) {
		b, s, err := read(tag, 4*count)
		if err != nil {
			return nil, s, err
		}
		out := make([]engine.ID, count)
		for i := range out {
			out[i] = engine.ID(le.Uint32(b[4*i:]))
		}
		return out, s, nil
	}
	var s0, sU blockfile.Section
	if ix.links0, s0, err = readLinks("LNK0", n64*uint64(ix.stride0)); err != nil {
		return nil, err
	}
	if ix.upper, sU, err = readLinks("LNKU", upper); err != nil {
		return nil, err
	}
	// Every list must fit its capacity and point at existing nodes that
	// reach its layer, never at the node itself: a search on the loaded
	// graph can then never index out of range.
	for id := 0; id < n; id++ {
		for l := 0; l <= int(ix.levels[id]); l++ {
			sec, capacity := s0, ix.m0
			if l > 0 {
				sec, capacity = sU, ix.m
			}
			lst := ix.list(l, engine.ID(id))
			if int(lst[0]) > capacity {
				return nil, r.Corrupt(sec, fmt.Sprintf("node %d has %d links on layer %d, capacity %d", id, lst[0], l, capacity))
			}
			for _, nb := range lst[1 : 1+lst[0]] {
				if int(nb) >= n || int(ix.levels[nb]) < l || int(nb) == id {
					return nil, r.Corrupt(sec, fmt.Sprintf("node %d links to invalid node %d on layer %d", id, nb, l))
				}
			}
		}
	}
	if err := r.Finish(); err != nil {
		return nil, err
	}
	return ix, nil
}
