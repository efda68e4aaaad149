package segment

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/blockfile"
)

// The commit point, after Lucene's segments_N: the list of live segments
// (with the generation of each one's deletions) and the next segment id,
// written to a temporary file, fsynced and renamed, then the directory
// fsynced. Opening reads the highest generation; files no commit names are
// leftovers of work that never committed and are removed.
const (
	commitMagic   = "VLCOMMIT"
	commitVersion = 1
	commitPrefix  = "segments_"
)

type commitSeg struct {
	id     uint64
	n      int
	delGen int
}

type commitPoint struct {
	gen    uint64
	nextID uint64
	dim    int
	metric engine.Metric
	segs   []commitSeg
}

func commitName(dir string, gen uint64) string { return fmt.Sprintf("%s/%s%d", dir, commitPrefix, gen) }

func (cp *commitPoint) write(cfg Config) error {
	path := commitName(cfg.Dir, cp.gen)
	w, err := blockfile.Create(cfg.FS, path, commitMagic, commitVersion)
	if err != nil {
		return fmt.Errorf("segment: commit: %w", err)
	}
	defer w.Abort()
	le := binary.LittleEndian
	meta := le.AppendUint64(nil, cp.gen)
	meta = le.AppendUint64(meta, cp.nextID)
	meta = le.AppendUint32(meta, uint32(cp.dim))
	meta = append(meta, byte(cp.metric))
	segs := le.AppendUint32(nil, uint32(len(cp.segs)))
	for _, s := range cp.segs {
		segs = le.AppendUint64(segs, s.id)
		segs = le.AppendUint32(segs, uint32(s.n))
		segs = le.AppendUint32(segs, uint32(s.delGen))
	}
	if err := w.Section("META", meta); err != nil {
		return fmt.Errorf("segment: commit: %w", err)
	}
	if err := w.Section("SEGS", segs); err != nil {
		return fmt.Errorf("segment: commit: %w", err)
	}
	if err := w.Commit(); err != nil {
		return fmt.Errorf("segment: commit: %w", err)
	}
	return nil
}

func readCommit(cfg Config, gen uint64) (*commitPoint, error) {
	r, f, err := blockfile.Open(cfg.FS, commitName(cfg.Dir, gen), commitMagic, commitVersion)
	if err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	defer f.Close()
	return decodeCommit(r, gen)
}

func decodeCommit(r *blockfile.Reader, gen uint64) (*commitPoint, error) {
	le := binary.LittleEndian
	sec, err := r.Expect("META")
	if err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	if len(sec.Data) != 21 {
		return nil, fmt.Errorf("segment: %w", r.Corrupt(sec, fmt.Sprintf("is %d bytes, want 21", len(sec.Data))))
	}
	cp := &commitPoint{gen: le.Uint64(sec.Data), nextID: le.Uint64(sec.Data[8:]),
		dim: int(le.Uint32(sec.Data[16:])), metric: engine.Metric(sec.Data[20])}
	if cp.gen != gen {
		return nil, fmt.Errorf("segment: %w", r.Corrupt(sec, fmt.Sprintf("records generation %d in file of generation %d", cp.gen, gen)))
	}
	if sec, err = r.Expect("SEGS"); err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	if len(sec.Data) < 4 {
		return nil, fmt.Errorf("segment: %w", r.Corrupt(sec, "too short"))
	}
	n := le.Uint32(sec.Data)
	if uint64(len(sec.Data)-4) != uint64(n)*16 {
		return nil, fmt.Errorf("segment: %w", r.Corrupt(sec, fmt.Sprintf("is %d bytes for %d segments", len(sec.Data), n)))
	}
	seen := map[uint64]bool{}
	for i := 0; i < int(n); i++ {
		b := sec.Data[4+16*i:]
		s := commitSeg{id: le.Uint64(b), n: int(le.Uint32(b[8:])), delGen: int(le.Uint32(b[12:]))}
		if s.id >= cp.nextID || seen[s.id] {
			return nil, fmt.Errorf("segment: %w", r.Corrupt(sec, fmt.Sprintf("segment %d is listed twice or beyond the next id %d", s.id, cp.nextID)))
		}
		seen[s.id] = true
		cp.segs = append(cp.segs, s)
	}
	if err := r.Finish(); err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	return cp, nil
}

// commitGens lists the generations of the commit points in dir, ascending.
func commitGens(names []string) []uint64 {
	var gens []uint64
	for _, n := range names {
		base := n[strings.LastIndexByte(n, '/')+1:]
		if !strings.HasPrefix(base, commitPrefix) {
			continue
		}
		g, err := strconv.ParseUint(base[len(commitPrefix):], 10, 64)
		if err == nil {
			gens = append(gens, g)
		}
	}
	sort.Slice(gens, func(i, j int) bool { return gens[i] < gens[j] })
	return gens
}

// referenced returns the file names (base names) a commit point and a set
// of extra segments need.
func referenced(cp *commitPoint, extra []*segment) map[string]bool {
	keep := map[string]bool{}
	add := func(id uint64, delGen int) {
		keep[base(segName("", id))] = true
		keep[base(graphName("", id))] = true
		if delGen > 0 {
			keep[base(liveName("", id, delGen))] = true
		}
	}
	if cp != nil {
		keep[base(commitName("", cp.gen))] = true
		for _, s := range cp.segs {
			add(s.id, s.delGen)
		}
	}
	for _, s := range extra {
		add(s.id, s.delGen)
	}
	return keep
}

func base(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }
