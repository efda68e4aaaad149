package quant

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/f32"
	"github.com/veclab/veclab/engine/internal/topk"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/internal/testenv"
)

// TestPQByHand checks codes, tables and both distances against values
// worked out by hand on the golden quantizer: sub-space 0 has centroids
// (0,0) and (1,1), sub-space 1 has (−0.5,0.25) and (2,−2).
func TestPQByHand(t *testing.T) {
	p := goldenQuantizers(t)[3].(*PQ)
	code := make([]byte, 2)
	if err := p.Encode(code, []float32{0.9, 0.7, 1.5, -1}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(code, []byte{1, 1}) {
		t.Fatalf("code %v, want [1 1]", code)
	}
	// Table of q = (0, 0, 0, 0) under L2: ‖c‖² per centroid.
	qc := make([]byte, p.QueryCodeSize())
	if err := p.EncodeQuery(qc, []float32{0, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	want := []float32{0, 2, 0.3125, 8}
	for i, w := range want {
		if got := getF32(qc[4*i:]); got != w {
			t.Errorf("table entry %d = %v, want %v", i, got, w)
		}
	}
	// ADC of code (1, 0): 2 + 0.3125.
	if d := p.Distance(qc, []byte{1, 0}); d != 2.3125 {
		t.Errorf("ADC %v, want 2.3125", d)
	}
	// SDC between (0, 0) and (1, 1): ‖(0,0)−(1,1)‖² + ‖(−0.5,0.25)−(2,−2)‖² = 2 + 6.25 + 5.0625.
	if d := p.CodeDistance([]byte{0, 0}, []byte{1, 1}); d != 13.3125 {
		t.Errorf("SDC %v, want 13.3125", d)
	}
	dec := make([]float32, 4)
	if err := p.Decode(dec, []byte{1, 0}); err != nil || fmt.Sprint(dec) != "[1 1 -0.5 0.25]" {
		t.Errorf("decode %v, %v", dec, err)
	}
	if err := p.Decode(dec, []byte{2, 0}); !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "byte 0 is 2") {
		t.Errorf("code beyond the codebook: %v", err)
	}
}

// TestPQDistancesAreReconstructions checks the estimators against their
// definitions on trained codebooks: ADC is the metric between the query
// and the decoded code, SDC the metric between two decoded codes, the
// table kernel, the byte-level Distance and the naive loop agree, and
// every code is the nearest centroid in each sub-space.
func TestPQDistancesAreReconstructions(t *testing.T) {
	data := clustered(300, 48, 6, 2)
	metrics := metrics
	if testenv.ShrinkUnderRace(t, "one metric: the training's workers and the tables are the same under each") {
		metrics = metrics[1:2]
	}
	for _, metric := range metrics {
		for _, m := range []int{1, 3, 4, 8, 12, 16, 48} {
			t.Run(fmt.Sprintf("%v/M=%d", metric, m), func(t *testing.T) {
				p, err := TrainPQ(data, metric, PQConfig{M: m, Bits: 8, Iters: 5, Seed: 3})
				if err != nil {
					t.Fatal(err)
				}
				dist := vec.Distance(metric)
				n := 40
				codes := make([]byte, n*m)
				for i := 0; i < n; i++ {
					if err := p.Encode(codes[i*m:(i+1)*m], data.Row(i)); err != nil {
						t.Fatal(err)
					}
				}
				q := data.Row(299)
				qc := make([]byte, p.QueryCodeSize())
				_ = p.EncodeQuery(qc, q)
				tab, err := p.NewTable(q)
				if err != nil {
					t.Fatal(err)
				}
				fast, naive := make([]float32, n), make([]float32, n)
				tab.Distances(fast, codes)
				tab.DistancesNaive(naive, codes)
				xa, xb := make([]float32, 48), make([]float32, 48)
				for i := 0; i < n; i++ {
					c := codes[i*m : (i+1)*m]
					_ = p.Decode(xa, c)
					want := dist(q, xa)
					if math.Abs(float64(fast[i]-want)) > 1e-4 || math.Abs(float64(naive[i]-want)) > 1e-4 {
						t.Fatalf("code %d: ADC %v (naive %v), metric to the reconstruction %v", i, fast[i], naive[i], want)
					}
					if d := p.Distance(qc, c); d != fast[i] {
						t.Fatalf("code %d: Distance %v, table kernel %v (must agree bit for bit)", i, d, fast[i])
					}
					if d := tab.Distance(c); d != fast[i] {
						t.Fatalf("code %d: PQTable.Distance %v, Distances %v", i, d, fast[i])
					}
					c2 := codes[((i+1)%n)*m : ((i+1)%n+1)*m]
					_ = p.Decode(xb, c2)
					if got, want := p.CodeDistance(c, c2), dist(xa, xb); math.Abs(float64(got-want)) > 1e-4 {
						t.Fatalf("SDC %v, metric between reconstructions %v", got, want)
					}
					// Nearest centroid in every sub-space.
					ds := 48 / m
					x := data.Row(i)
					for j := 0; j < m; j++ {
						got := vec.L2Sq(x[j*ds:(j+1)*ds], p.Codebook(j, int(c[j])))
						for k := 0; k < p.Centroids(); k++ {
							if d := vec.L2Sq(x[j*ds:(j+1)*ds], p.Codebook(j, k)); d < got {
								t.Fatalf("vector %d sub-space %d: centroid %d at %v is nearer than the coded %d at %v", i, j, k, d, c[j], got)
							}
						}
					}
				}
			})
		}
	}
}

// TestPQTraining checks that more sub-spaces lower the quantization
// error (the paper's Fig. 2/3 trend), that the same seed gives the same
// bytes whatever the workers, and that another seed gives other codebooks.
func TestPQTraining(t *testing.T) {
	data := clustered(1500, 64, 10, 5)
	prev := math.Inf(1)
	ms := []int{2, 4, 8, 16}
	if testenv.ShrinkUnderRace(t, "two sub-space counts: the training's workers are the same at every M") {
		ms = ms[:2]
	}
	for _, m := range ms {
		p, err := TrainPQ(data, engine.L2, PQConfig{M: m, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		code := make([]byte, m)
		x := make([]float32, 64)
		var mse float64
		for i := 0; i < data.N; i++ {
			_ = p.Encode(code, data.Row(i))
			_ = p.Decode(x, code)
			mse += float64(vec.L2Sq(x, data.Row(i)))
		}
		mse /= float64(data.N)
		if mse >= prev {
			t.Fatalf("M=%d: quantization MSE %g not below the fewer sub-spaces' %g", m, mse, prev)
		}
		prev = mse
		t.Logf("M=%d: MSE %.4f", m, mse)
	}
	a, _ := TrainPQ(data, engine.Dot, PQConfig{M: 8, Seed: 1})
	b, _ := TrainPQ(data, engine.Dot, PQConfig{M: 8, Seed: 1})
	c, _ := TrainPQ(data, engine.Dot, PQConfig{M: 8, Seed: 2})
	ba, _ := a.MarshalBinary()
	bb, _ := b.MarshalBinary()
	bc, _ := c.MarshalBinary()
	if !bytes.Equal(ba, bb) {
		t.Fatal("same seed, different codebooks")
	}
	if bytes.Equal(ba, bc) {
		t.Fatal("another seed, the same codebooks")
	}
}

// TestPQErrors is the table of bad configurations and inputs, each with
// the words its error must say.
func TestPQErrors(t *testing.T) {
	data := clustered(300, 40, 3, 1)
	small := clustered(100, 40, 3, 1)
	for _, tc := range []struct {
		name   string
		sample *vec.Matrix
		cfg    PQConfig
		want   []string
		is     error
	}{
		{"M not dividing dim", data, PQConfig{M: 16}, []string{"M = 16", "dimension 40", "10, 20"}, engine.ErrInvalidArgument},
		{"bits 9", data, PQConfig{Bits: 9}, []string{"Bits must be 1 to 8, got 9"}, engine.ErrInvalidArgument},
		{"negative M and iters", data, PQConfig{M: -1, Iters: -2}, []string{"M (sub-spaces) must be ≥ 1", "Iters must be ≥ 1"}, engine.ErrInvalidArgument},
		{"too few vectors", small, PQConfig{M: 4}, []string{"256 centroids", "at least 256 training vectors, got 100"}, engine.ErrInvalidArgument},
		{"nil sample", nil, PQConfig{}, []string{"sample is nil"}, engine.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TrainPQ(tc.sample, engine.L2, tc.cfg)
			if !errors.Is(err, tc.is) {
				t.Fatalf("error %v, want %v", err, tc.is)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	p, err := TrainPQ(data, engine.L2, PQConfig{M: 4, Bits: 4})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Encode(make([]byte, 4), make([]float32, 39)); !errors.Is(err, engine.ErrDimension) {
		t.Errorf("short vector: %v", err)
	}
	if err := p.Encode(make([]byte, 3), make([]float32, 40)); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("short code buffer: %v", err)
	}
	nan := make([]float32, 40)
	nan[7] = float32(math.NaN())
	if _, err := p.NewTable(nan); !errors.Is(err, engine.ErrInvalidVector) || !strings.Contains(err.Error(), "component 7") {
		t.Errorf("NaN query: %v", err)
	}
	if err := p.EncodeQuery(make([]byte, 10), make([]float32, 40)); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("short table buffer: %v", err)
	}
}

// BenchmarkPQScan scores a slab of codes against one query's table: the
// unrolled kernel (four independent sums, bounds-check-free row lookups)
// beside the textbook loop, and the byte-level Quantizer.Distance, per
// code. Hypothesis: the kernel is well under the naive loop's time at
// every M, since the naive loop waits on one accumulator per lookup.
func BenchmarkPQScan(b *testing.B) {
	data := clustered(2000, 128, 20, 1)
	const n = 4096
	for _, m := range []int{8, 16, 32} {
		p, err := TrainPQ(data, engine.L2, PQConfig{M: m, Iters: 4})
		if err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		codes := make([]byte, n*m)
		for i := range codes {
			codes[i] = byte(r.IntN(256))
		}
		tab, _ := p.NewTable(data.Row(0))
		qc := make([]byte, p.QueryCodeSize())
		_ = p.EncodeQuery(qc, data.Row(0))
		dst := make([]float32, n)
		b.Run(fmt.Sprintf("M=%d/unrolled", m), func(b *testing.B) {
			for b.Loop() {
				tab.Distances(dst, codes)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/code")
		})
		b.Run(fmt.Sprintf("M=%d/naive", m), func(b *testing.B) {
			for b.Loop() {
				tab.DistancesNaive(dst, codes)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/code")
		})
		b.Run(fmt.Sprintf("M=%d/bytes", m), func(b *testing.B) {
			for b.Loop() {
				for i := range dst {
					dst[i] = p.Distance(qc, codes[i*m:(i+1)*m])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/code")
		})
	}
}

// BenchmarkPQSearch is the flat ADC search of Store (table, scan, top 10)
// over 4,000 codes of 64 dimensions, per query: at this size the table
// costs about as much as the scan.
func BenchmarkPQSearch(b *testing.B) {
	data := clustered(4000, 64, 20, 1)
	for _, m := range []int{8, 16, 32} {
		p, err := TrainPQ(data, engine.Cosine, PQConfig{M: m, Iters: 4})
		if err != nil {
			b.Fatal(err)
		}
		s := fill(b, p, data)
		b.Run(fmt.Sprintf("M=%d", m), func(b *testing.B) {
			i := 0
			for b.Loop() {
				_, _ = s.Search(data.Row(i%100), 10, nil)
				i++
			}
		})
	}
}

// FuzzPQDecode decodes arbitrary bytes with the golden product quantizer
// (2 sub-spaces, 2 centroids each): a code of M bytes below 2 decodes to
// its centroids, any other input is an error, never a panic.
func FuzzPQDecode(f *testing.F) {
	f.Add([]byte{0, 1})
	f.Add([]byte{1})
	f.Add([]byte{2, 0})
	f.Add([]byte{255, 255, 255})
	p := goldenQuantizers(f)[3].(*PQ)
	f.Fuzz(func(t *testing.T, code []byte) {
		dst := make([]float32, p.Dim())
		err := p.Decode(dst, code)
		valid := len(code) >= p.M() && code[0] < 2 && code[1] < 2
		if valid != (err == nil) {
			t.Fatalf("code %v: error %v", code, err)
		}
		if err == nil && (dst[0] != p.Codebook(0, int(code[0]))[0] || dst[3] != p.Codebook(1, int(code[1]))[1]) {
			t.Fatalf("code %v decodes to %v", code, dst)
		}
	})
}

// TestPQTopMatchesDistances: the fused scan-and-select loop (PQTable.top,
// specialised at M = 8, 16, 32) keeps the same results, ids and distance
// bits, as Distances followed by PushBounded, at every M the kernels
// treat differently (a multiple of 16, 8, a multiple of 4, neither), k
// below, at and above the number of codes, under each metric; codes are
// drawn from few values so that distances tie, and ties must break the
// same way (the code offered first is kept).
func TestPQTopMatchesDistances(t *testing.T) {
	for _, metric := range []engine.Metric{engine.L2, engine.Cosine, engine.Dot} {
		for _, m := range []int{8, 16, 32, 64, 12, 6} {
			data := clustered(600, 192, 8, uint64(m))
			p, err := TrainPQ(data, metric, PQConfig{M: m, Bits: 4, Iters: 2, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(uint64(m), 7))
			const n = 1500
			codes := make([]byte, n*m)
			for i := range codes {
				codes[i] = byte(r.IntN(3)) // few values: many equal distances
			}
			for q := 0; q < 3; q++ {
				tab, err := p.NewTable(data.Row(q))
				if err != nil {
					t.Fatal(err)
				}
				want := make([]float32, n)
				tab.Distances(want, codes)
				for _, k := range []int{1, 10, 300, n, n + 5} {
					var ref, got topk.MaxHeap
					for i, v := range want {
						ref.PushBounded(engine.Result{ID: engine.ID(40 + i), Dist: v}, k)
					}
					tab.top(&got, k, codes, 40)
					a := ref.Sorted(nil)
					b := got.Sorted(nil)
					if len(a) != len(b) {
						t.Fatalf("%v M=%d k=%d: %d results, want %d", metric, m, k, len(b), len(a))
					}
					for i := range a {
						if a[i].ID != b[i].ID || math.Float32bits(a[i].Dist) != math.Float32bits(b[i].Dist) {
							t.Fatalf("%v M=%d k=%d query %d: result %d is %v, want %v", metric, m, k, q, i, b[i], a[i])
						}
					}
				}
			}
		}
	}
}

// BenchmarkPQTop is the flat scan with its top 10 over 10,000 codes of
// clustered 384-d data (the size `veclab bench pq` measures), table not
// included: the fused loop (PQTable.top) against the block kernel whose
// distances are then offered to the heap (the loop searchPQ ran before),
// in alternating rounds of 64 queries on one locked thread, each timed by
// the thread's CPU clock (a shared machine moves wall time, not this).
// It reports the CPU µs per query of each and their ratio. Hypothesis:
// the fused loop is faster at every M, since it writes and rereads no
// distances and reads a code's bytes 8 at a time.
func BenchmarkPQTop(b *testing.B) {
	const n, k, round = 10000, 10, 64
	data := clustered(n, 384, 40, 1)
	for _, m := range []int{8, 16, 32} {
		p, err := TrainPQ(data, engine.Cosine, PQConfig{M: m, Iters: 2})
		if err != nil {
			b.Fatal(err)
		}
		codes := make([]byte, n*m)
		for i := 0; i < n; i++ {
			p.encode(codes[i*m:(i+1)*m], data.Row(i))
		}
		tabs := make([]*PQTable, round)
		for i := range tabs {
			tabs[i], _ = p.NewTable(data.Row(i * 7))
		}
		var h topk.MaxHeap
		var dist [pqBlock]float32
		fused := func(t *PQTable) {
			h.Reset()
			t.top(&h, k, codes, 0)
		}
		blocks := func(t *PQTable) {
			h.Reset()
			for lo := 0; lo < n; lo += pqBlock {
				d := dist[:min(lo+pqBlock, n)-lo]
				t.Distances(d, codes[lo*m:(lo+len(d))*m])
				for j, v := range d {
					if h.Len() == k && v >= h.Top().Dist {
						continue
					}
					h.PushBounded(engine.Result{ID: engine.ID(lo + j), Dist: v}, k)
				}
			}
		}
		b.Run(fmt.Sprintf("M=%d", m), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var cpu [2]time.Duration
			rounds := 0
			for b.Loop() {
				for v, scan := range []func(*PQTable){fused, blocks} {
					c0 := threadCPU()
					for _, t := range tabs {
						scan(t)
					}
					cpu[v] += threadCPU() - c0
				}
				rounds++
			}
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 / float64(rounds*round) }
			b.ReportMetric(per(cpu[0]), "fused-cpu-µs/query")
			b.ReportMetric(per(cpu[1]), "blocks-cpu-µs/query")
			b.ReportMetric(per(cpu[1])/per(cpu[0]), "speedup")
		})
	}
}

// BenchmarkPQTable builds one query's distance table of 384-d codebooks
// of 256 centroids (cosine) at M = 8, 16, 32, sub-space by sub-space: from
// the transposed codebook by f32.Cols256 (the path PQ takes where that is
// a SIMD kernel) beside a dot product per centroid (f32.DotRows, the path
// elsewhere), in alternating rounds on one locked thread timed by its CPU
// clock. Hypothesis: Cols256 is several times faster, since it keeps the
// 256 sums of a row in registers and reduces nothing, where DotRows sums
// each centroid's short dot product horizontally.
func BenchmarkPQTable(b *testing.B) {
	const round = 64
	data := clustered(3000, 384, 40, 1)
	for _, m := range []int{8, 16, 32} {
		p, err := TrainPQ(data, engine.Cosine, PQConfig{M: m, Iters: 2})
		if err != nil {
			b.Fatal(err)
		}
		row := make([]float32, 256)
		ds := p.dsub
		cols := func(q []float32) {
			for j := 0; j < m; j++ {
				f32.Cols256(q[j*ds:(j+1)*ds], p.cols[j*ds*256:(j+1)*ds*256], row)
			}
		}
		rows := func(q []float32) {
			for j := 0; j < m; j++ {
				f32.DotRows(q[j*ds:(j+1)*ds], p.cents[j*256*ds:(j+1)*256*ds], ds, row)
			}
		}
		b.Run(fmt.Sprintf("M=%d", m), func(b *testing.B) {
			if !f32.Cols256Fast() {
				b.Skip("f32.Cols256 is the pure-Go loop on this machine")
			}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var cpu [2]time.Duration
			rounds := 0
			for b.Loop() {
				for v, build := range []func([]float32){cols, rows} {
					c0 := threadCPU()
					for i := 0; i < round; i++ {
						build(data.Row(i))
					}
					cpu[v] += threadCPU() - c0
				}
				rounds++
			}
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 / float64(rounds*round) }
			b.ReportMetric(per(cpu[0]), "cols256-cpu-µs/table")
			b.ReportMetric(per(cpu[1]), "dotrows-cpu-µs/table")
			b.ReportMetric(per(cpu[1])/per(cpu[0]), "speedup")
		})
	}
}
