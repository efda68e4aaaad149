package store

import (
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/veclab/veclab/engine"
)

// BenchmarkReadVectorParts times the parts of one warm read of a 384-dim
// row: the whole ReadVector with and without the mincore probe, and its
// pieces alone (mincore of one row's pages, the pread, the CRC, the
// decode), over random ids of a 30k-row file.
func BenchmarkReadVectorParts(b *testing.B) {
	const n, dim = 30000, 384
	p := filepath.Join(b.TempDir(), "v.vec")
	if err := WriteMatrix(p, randMatrix(n, dim, 1), engine.L2); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	ids := make([]engine.ID, 4096)
	for i := range ids {
		ids[i] = engine.ID(rng.IntN(n))
	}
	for _, opt := range []Options{{}, {NoCacheProbe: true}} {
		f, err := Open(p, opt)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		f.Warm()
		dst := make([]float32, dim)
		b.Run("ReadVector/"+opt.String(), func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, err := f.ReadVector(dst, ids[i%len(ids)], nil); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
	// A rescoring batch: 200 random ids in ascending order (what
	// engine/rescore hands over), ns per vector.
	batch := make([]engine.ID, 200)
	for i := range batch {
		batch[i] = engine.ID(rng.IntN(n))
	}
	slices.Sort(batch)
	for _, opt := range []Options{{}, {NoCacheProbe: true}} {
		f, err := Open(p, opt)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		f.Warm()
		dst := make([]float32, len(batch)*dim)
		b.Run("ReadVectors-200/"+opt.String(), func(b *testing.B) {
			for b.Loop() {
				if err := f.ReadVectors(dst, batch, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/vector")
		})
	}
	f, _ := Open(p, Options{})
	defer f.Close()
	rb := int64(f.h.rowBytes)
	off := func(id engine.ID) int64 { return int64(f.h.dataOff) + int64(id)*rb }
	b.Run("mincore", func(b *testing.B) {
		var res [2]byte
		i := 0
		for b.Loop() {
			o := off(ids[i%len(ids)])
			first := o / pageSize
			sysMincore(f.mapped[first*pageSize:(first+2)*pageSize], res[:])
			i++
		}
	})
	b.Run("mincore-whole-file-touched", func(b *testing.B) {
		var sink byte
		for o := 0; o < len(f.mapped); o += pageSize {
			sink += f.mapped[o]
		}
		_ = sink
		res := make([]byte, len(f.mapped)/pageSize+1)
		for b.Loop() {
			sysMincore(f.mapped, res)
		}
	})
	b.Run("mincore-touched", func(b *testing.B) {
		var res [2]byte
		i := 0
		for b.Loop() {
			o := off(ids[i%len(ids)])
			first := o / pageSize
			sysMincore(f.mapped[first*pageSize:(first+2)*pageSize], res[:])
			i++
		}
	})
	b.Run("mincore-whole-file", func(b *testing.B) {
		res := make([]byte, len(f.mapped)/pageSize+1)
		for b.Loop() {
			sysMincore(f.mapped, res)
		}
		b.ReportMetric(float64(len(f.mapped)/pageSize), "pages")
	})
	buf := make([]byte, rb)
	b.Run("pread", func(b *testing.B) {
		i := 0
		for b.Loop() {
			f.f.ReadAt(buf, off(ids[i%len(ids)]))
			i++
		}
	})
	b.Run("mmap-copy", func(b *testing.B) {
		i := 0
		for b.Loop() {
			o := off(ids[i%len(ids)])
			copy(buf, f.mapped[o:o+rb])
			i++
		}
	})
	b.Run("crc", func(b *testing.B) {
		for b.Loop() {
			crc32.Checksum(buf[:4*dim], castagnoli)
		}
	})
	b.Run("decode", func(b *testing.B) {
		dst := make([]float32, dim)
		for b.Loop() {
			for i := range dst {
				dst[i] = float32(binary.LittleEndian.Uint32(buf[4*i:]))
			}
		}
	})
}
