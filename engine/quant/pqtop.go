package quant

import (
	"encoding/binary"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/topk"
)

// pqTop is the flat ADC scan fused with its top-k selection: it sums each
// code's table entries and offers the distance to h (bounded at k, ids
// first, first+1, …) in one loop, with no block of distances written and
// read back and, once h holds k results, one compare per code against the
// furthest kept (PushBounded's test, its threshold in a register).
// FAISS's IndexPQ scan is the same shape
// (faiss/impl/ProductQuantizer.cpp, pq_estimators_from_tables_Mmul4 at
// v1.7.3: sum the code's entries, compare with the heap's top, replace).
//
// For M = 8, 16 and 32 the loop is specialised: the table is a fixed-size
// array, so entry j·256 + code[j] at a constant j needs no bounds check,
// and a code is read 8 bytes at a time as a little-endian uint64 whose
// bytes are shifted out (one load per 8 sub-spaces instead of eight; a
// scan is bound by its loads: a code's M table entries plus its bytes).
// The sums and their order are adcBlock4's, so the distances, and with
// them the heap's contents, are Distances' bit for bit
// (TestPQTopMatchesDistances). Other M go through Distances a block at a
// time.
//
// No partial-sum early reject: under Dot and Cosine the entries are −⟨q_j,
// c⟩, of either sign, so a partial sum bounds nothing; making them
// non-negative (subtracting each row's minimum) would change the rounding
// and so the distances.
func (t *PQTable) top(h *topk.MaxHeap, k int, codes []byte, first int) {
	m := len(t.t) / tableStride
	n := len(codes) / m
	// Fill the heap to k through the block kernel, so the fused loops
	// below only ever compare against a full heap's furthest.
	i := 0
	var d [pqBlock]float32
	for i < n && (h.Len() < k || m&3 != 0 || (m != 8 && m != 16 && m != 32)) {
		hi := min(i+pqBlock, n)
		if h.Len() < k {
			hi = min(hi, i+k-h.Len())
		}
		dd := d[:hi-i]
		t.Distances(dd, codes[i*m:hi*m])
		for j, v := range dd {
			if h.Len() == k && v >= h.Top().Dist {
				continue // cannot enter the top k (PushBounded's test, without its call)
			}
			h.PushBounded(engine.Result{ID: engine.ID(first + i + j), Dist: v}, k)
		}
		i = hi
	}
	if i >= n {
		return
	}
	rest := codes[i*m : n*m]
	id := first + i
	switch m {
	case 8:
		pqTop8(h, t.t, rest, id, t.bias)
	case 16:
		pqTop16(h, t.t, rest, id, t.bias)
	case 32:
		pqTop32(h, t.t, rest, id, t.bias)
	}
}

// pqTop8 is top's loop at M = 8 over a full heap: adcBlock4's sums, two
// codes an iteration (their loads interleaved and one loop step for both:
// 1.13–1.17× the one-code loop by thread CPU time), the first offered to
// the heap first, as a one-code loop would.
func pqTop8(h *topk.MaxHeap, tab []float32, codes []byte, id int, bias float32) {
	const s = tableStride
	t := (*[8 * s]float32)(tab[:8*s])
	worst := h.Top().Dist
	n := len(codes) / 8
	i := 0
	for ; i+2 <= n; i += 2 {
		c := (*[16]byte)(codes[i*8 : i*8+16])
		w := binary.LittleEndian.Uint64(c[:8])
		x := binary.LittleEndian.Uint64(c[8:])
		d0 := t[uint8(w)] + t[4*s+int(uint8(w>>32))]
		e0 := t[uint8(x)] + t[4*s+int(uint8(x>>32))]
		d1 := t[s+int(uint8(w>>8))] + t[5*s+int(uint8(w>>40))]
		e1 := t[s+int(uint8(x>>8))] + t[5*s+int(uint8(x>>40))]
		d2 := t[2*s+int(uint8(w>>16))] + t[6*s+int(uint8(w>>48))]
		e2 := t[2*s+int(uint8(x>>16))] + t[6*s+int(uint8(x>>48))]
		d3 := t[3*s+int(uint8(w>>24))] + t[7*s+int(w>>56)]
		e3 := t[3*s+int(uint8(x>>24))] + t[7*s+int(x>>56)]
		v := (d0 + d1) + (d2 + d3) + bias
		u := (e0 + e1) + (e2 + e3) + bias
		if v < worst {
			h.ReplaceTop(engine.Result{ID: engine.ID(id + i), Dist: v})
			worst = h.Top().Dist
		}
		if u < worst {
			h.ReplaceTop(engine.Result{ID: engine.ID(id + i + 1), Dist: u})
			worst = h.Top().Dist
		}
	}
	if i < n { // an odd last code
		c := (*[8]byte)(codes[i*8 : i*8+8])
		w := binary.LittleEndian.Uint64(c[:])
		d0 := t[uint8(w)] + t[4*s+int(uint8(w>>32))]
		d1 := t[s+int(uint8(w>>8))] + t[5*s+int(uint8(w>>40))]
		d2 := t[2*s+int(uint8(w>>16))] + t[6*s+int(uint8(w>>48))]
		d3 := t[3*s+int(uint8(w>>24))] + t[7*s+int(w>>56)]
		if v := (d0 + d1) + (d2 + d3) + bias; v < worst {
			h.ReplaceTop(engine.Result{ID: engine.ID(id + i), Dist: v})
		}
	}
}

// pqTop16 is top's loop at M = 16 over a full heap: adcBlock4's sums (one
// block of 16 sub-spaces, each sum started from zero as there), two codes
// an iteration as pqTop8.
func pqTop16(h *topk.MaxHeap, tab []float32, codes []byte, id int, bias float32) {
	const s = tableStride
	t := (*[16 * s]float32)(tab[:16*s])
	worst := h.Top().Dist
	n := len(codes) / 16
	i := 0
	for ; i+2 <= n; i += 2 {
		cc := (*[32]byte)(codes[i*16 : i*16+32])
		a := binary.LittleEndian.Uint64(cc[:8])
		b := binary.LittleEndian.Uint64(cc[8:16])
		p := binary.LittleEndian.Uint64(cc[16:24])
		q := binary.LittleEndian.Uint64(cc[24:])
		var d0, d1, d2, d3, e0, e1, e2, e3 float32
		d0 = d0 + t[uint8(a)] + t[4*s+int(uint8(a>>32))] + t[8*s+int(uint8(b))] + t[12*s+int(uint8(b>>32))]
		e0 = e0 + t[uint8(p)] + t[4*s+int(uint8(p>>32))] + t[8*s+int(uint8(q))] + t[12*s+int(uint8(q>>32))]
		d1 = d1 + t[s+int(uint8(a>>8))] + t[5*s+int(uint8(a>>40))] + t[9*s+int(uint8(b>>8))] + t[13*s+int(uint8(b>>40))]
		e1 = e1 + t[s+int(uint8(p>>8))] + t[5*s+int(uint8(p>>40))] + t[9*s+int(uint8(q>>8))] + t[13*s+int(uint8(q>>40))]
		d2 = d2 + t[2*s+int(uint8(a>>16))] + t[6*s+int(uint8(a>>48))] + t[10*s+int(uint8(b>>16))] + t[14*s+int(uint8(b>>48))]
		e2 = e2 + t[2*s+int(uint8(p>>16))] + t[6*s+int(uint8(p>>48))] + t[10*s+int(uint8(q>>16))] + t[14*s+int(uint8(q>>48))]
		d3 = d3 + t[3*s+int(uint8(a>>24))] + t[7*s+int(a>>56)] + t[11*s+int(uint8(b>>24))] + t[15*s+int(b>>56)]
		e3 = e3 + t[3*s+int(uint8(p>>24))] + t[7*s+int(p>>56)] + t[11*s+int(uint8(q>>24))] + t[15*s+int(q>>56)]
		v := (d0 + d1) + (d2 + d3) + bias
		u := (e0 + e1) + (e2 + e3) + bias
		if v < worst {
			h.ReplaceTop(engine.Result{ID: engine.ID(id + i), Dist: v})
			worst = h.Top().Dist
		}
		if u < worst {
			h.ReplaceTop(engine.Result{ID: engine.ID(id + i + 1), Dist: u})
			worst = h.Top().Dist
		}
	}
	if i < n { // an odd last code
		c := (*[16]byte)(codes[i*16 : i*16+16])
		a := binary.LittleEndian.Uint64(c[:8])
		b := binary.LittleEndian.Uint64(c[8:])
		var d0, d1, d2, d3 float32
		d0 = d0 + t[uint8(a)] + t[4*s+int(uint8(a>>32))] + t[8*s+int(uint8(b))] + t[12*s+int(uint8(b>>32))]
		d1 = d1 + t[s+int(uint8(a>>8))] + t[5*s+int(uint8(a>>40))] + t[9*s+int(uint8(b>>8))] + t[13*s+int(uint8(b>>40))]
		d2 = d2 + t[2*s+int(uint8(a>>16))] + t[6*s+int(uint8(a>>48))] + t[10*s+int(uint8(b>>16))] + t[14*s+int(uint8(b>>48))]
		d3 = d3 + t[3*s+int(uint8(a>>24))] + t[7*s+int(a>>56)] + t[11*s+int(uint8(b>>24))] + t[15*s+int(b>>56)]
		if v := (d0 + d1) + (d2 + d3) + bias; v < worst {
			h.ReplaceTop(engine.Result{ID: engine.ID(id + i), Dist: v})
		}
	}
}

// pqTop32 is top's loop at M = 32 over a full heap: adcBlock4's sums (two
// blocks of 16 sub-spaces, the second added to the first's sums).
func pqTop32(h *topk.MaxHeap, tab []float32, codes []byte, id int, bias float32) {
	const s = tableStride
	t := (*[32 * s]float32)(tab[:32*s])
	worst := h.Top().Dist
	for ; len(codes) >= 32; codes, id = codes[32:], id+1 {
		a := binary.LittleEndian.Uint64(codes)
		b := binary.LittleEndian.Uint64(codes[8:])
		c := binary.LittleEndian.Uint64(codes[16:])
		e := binary.LittleEndian.Uint64(codes[24:])
		var d0, d1, d2, d3 float32
		d0 = d0 + t[uint8(a)] + t[4*s+int(uint8(a>>32))] + t[8*s+int(uint8(b))] + t[12*s+int(uint8(b>>32))]
		d1 = d1 + t[s+int(uint8(a>>8))] + t[5*s+int(uint8(a>>40))] + t[9*s+int(uint8(b>>8))] + t[13*s+int(uint8(b>>40))]
		d2 = d2 + t[2*s+int(uint8(a>>16))] + t[6*s+int(uint8(a>>48))] + t[10*s+int(uint8(b>>16))] + t[14*s+int(uint8(b>>48))]
		d3 = d3 + t[3*s+int(uint8(a>>24))] + t[7*s+int(a>>56)] + t[11*s+int(uint8(b>>24))] + t[15*s+int(b>>56)]
		d0 = d0 + t[16*s+int(uint8(c))] + t[20*s+int(uint8(c>>32))] + t[24*s+int(uint8(e))] + t[28*s+int(uint8(e>>32))]
		d1 = d1 + t[17*s+int(uint8(c>>8))] + t[21*s+int(uint8(c>>40))] + t[25*s+int(uint8(e>>8))] + t[29*s+int(uint8(e>>40))]
		d2 = d2 + t[18*s+int(uint8(c>>16))] + t[22*s+int(uint8(c>>48))] + t[26*s+int(uint8(e>>16))] + t[30*s+int(uint8(e>>48))]
		d3 = d3 + t[19*s+int(uint8(c>>24))] + t[23*s+int(c>>56)] + t[27*s+int(uint8(e>>24))] + t[31*s+int(e>>56)]
		if v := (d0 + d1) + (d2 + d3) + bias; v < worst {
			h.ReplaceTop(engine.Result{ID: engine.ID(id), Dist: v})
			worst = h.Top().Dist
		}
	}
}
