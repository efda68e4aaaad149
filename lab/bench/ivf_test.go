package bench

import (
	"errors"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/internal/testenv"
	"github.com/veclab/veclab/lab/dataset"
)

func TestIVFConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*IVFConfig)
		want []string // nil for valid
	}{
		{"defaults", func(*IVFConfig) {}, nil},
		{"float32 only, no I/O table", func(c *IVFConfig) { c.Bits, c.IOBits = []int{0}, 0 }, nil},
		{"bits 3", func(c *IVFConfig) { c.Bits = []int{0, 3} }, []string{"-bits 3: want 0 (float32 lists) or 1, 2, 4, 8"}},
		{"no bits", func(c *IVFConfig) { c.Bits = nil }, []string{"-bits is empty"}},
		{"io-bits not swept", func(c *IVFConfig) { c.Bits = []int{0, 4} }, []string{"-io-bits 2 is not among -bits [0 4]"}},
		{"nprobe", func(c *IVFConfig) { c.Nprobes = []int{4, 0} }, []string{"-nprobe 0 < 1"}},
		{"no nprobe", func(c *IVFConfig) { c.Nprobes = nil }, []string{"-nprobe is empty"}},
		{"visit", func(c *IVFConfig) { c.Visits = []float64{0, 150} }, []string{"-visit 0 outside", "-visit 150 outside"}},
		{"oversample", func(c *IVFConfig) { c.Oversample = 0.5 }, []string{"-oversample 0.5"}},
		{"oversample inf", func(c *IVFConfig) { c.Oversample = math.Inf(1) }, []string{"-oversample +Inf"}},
		{"peer oversample", func(c *IVFConfig) { c.PeerOversample = []float64{3, 0} }, []string{"-peer-oversample 0"}},
		{"faiss, no peer oversample", func(c *IVFConfig) { c.Faiss, c.PeerOversample = true, nil }, []string{"-peer-oversample is empty"}},
		{"counts", func(c *IVFConfig) { c.Iters, c.Conc, c.Warmup = 0, 0, -1 }, []string{"-iters 0", "-conc 0", "-warmup -1"}},
		{"model", func(c *IVFConfig) { c.Model = store.Model{Name: "bad", IOPS: -1} }, []string{`storage model "bad"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultIVFConfig()
			tc.edit(&c)
			err := c.Validate()
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, engine.ErrInvalidArgument) || !strings.HasPrefix(err.Error(), "bench: ivf: ") {
				t.Fatalf("Validate: %v, want a bench: ivf: … ErrInvalidArgument", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate: %v, want %q", err, w)
				}
			}
		})
	}
}

// ivfSet is a data set small enough for the I/O table's cold and O_DIRECT
// passes, with the truth IVF needs (100 neighbours).
func ivfSet(t *testing.T, n, queries, dim, clusters int) (*dataset.Dataset, *dataset.GroundTruth) {
	t.Helper()
	ds, err := dataset.Generate(dataset.Config{N: n, Queries: queries, Dim: dim, Clusters: clusters, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	truth, err := dataset.Truth(ds, 100, engine.Cosine, "")
	if err != nil {
		t.Fatal(err)
	}
	return ds, truth
}

func smallIVFConfig() IVFConfig {
	c := DefaultIVFConfig()
	c.Bits, c.Nprobes, c.Visits, c.Warmup, c.Conc, c.Model = []int{0, 2}, []int{1, 4}, []float64{5, 50}, 2, 4, store.LocalNVMe
	return c
}

// TestIVF measures a small set end to end and checks what the figures
// must satisfy whatever the machine's load: one build and one sweep row
// per setting, float32 lists exact once every list is probed, quantized
// lists rescoring from the file and float32 lists never reading it,
// every I/O mode and list mode reading the same vectors, and the recall
// of a second run with the same seed unchanged.
func TestIVF(t *testing.T) {
	ds, truth := ivfSet(t, 1500, 10, 32, 5)
	cfg := smallIVFConfig()
	rep, err := IVF(ds, truth, engine.Cosine, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Config.Nlist != 4 || len(rep.Builds) != 2 || len(rep.Sweep) != 2*4 {
		t.Fatalf("nlist %d, %d builds, %d sweep points", rep.Config.Nlist, len(rep.Builds), len(rep.Sweep))
	}
	if b := rep.Builds[1]; b.Bits != 2 || b.Codes >= rep.Builds[0].Codes || b.DiskPerVec != rep.VectorFileBPV || b.TrainCPU <= 0 {
		t.Errorf("builds %+v (vector file %.0f B/vector)", rep.Builds, rep.VectorFileBPV)
	}
	for _, p := range rep.Sweep {
		if (p.IO.Reads > 0) != (p.Bits > 0) || p.Recall10 < 0 || p.Recall10 > 1 || !(p.QPS > 0) || !(p.CPUQPS > 0) {
			t.Errorf("%s %s: %+v", CodesName(p.Bits), p.Setting, p)
		}
		if p.Bits == 0 && p.Setting == "nprobe=4" && (p.Recall10 != 1 || p.Recall100 != 1) {
			t.Errorf("float32 lists, every list probed: recall@10 %v, recall@100 %v, want 1", p.Recall10, p.Recall100)
		}
	}
	if rep.IO == nil || len(rep.IO.Modes) != 8 || len(rep.IO.DiskLists) != 4 {
		t.Fatalf("I/O table %+v", rep.IO)
	}
	reads := rep.IO.Modes[0].Point.IO.Reads
	for _, m := range append(rep.IO.Modes, ioModes(rep.IO.DiskLists)...) {
		if m.Point.IO.Reads != reads || m.Point.Recall10 != rep.IO.Modes[0].Point.Recall10 {
			t.Errorf("%s: %d reads, recall %v; warm sequential %d, %v", m.Name, m.Point.IO.Reads, m.Point.Recall10, reads, rep.IO.Modes[0].Point.Recall10)
		}
	}
	if d := rep.IO.DiskLists[0]; d.Lists.Reads == 0 || rep.IO.Resident >= rep.Builds[1].Resident {
		t.Errorf("lists on disk: %+v, resident %.1f B/vector (in RAM %.1f)", d, rep.IO.Resident, rep.Builds[1].Resident)
	}
	s := rep.String()
	for _, want := range []string{"recall@100", "osq-2bit", "nprobe=4", "visit=50%", "cold page cache, sequential", "O_DIRECT, concurrent(4)",
		"simulated local-nvme", "E13 budget", "E27, posting lists on disk", "list reads/q"} {
		if !strings.Contains(s, want) {
			t.Errorf("text lacks %q:\n%s", want, s)
		}
	}
	if md, h := rep.Markdown(), rep.HTML(); !strings.Contains(md, "| osq-2bit | visit=50% |") || !strings.Contains(h, ">O_DIRECT, sequential</td>") {
		t.Errorf("Markdown or HTML lacks the rows:\n%s\n%s", md, h)
	}

	cfg.IOBits = 0
	again, err := IVF(ds, truth, engine.Cosine, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.IO != nil {
		t.Errorf("IOBits 0 measured an I/O table")
	}
	for i, p := range again.Sweep {
		if q := rep.Sweep[i]; p.Recall10 != q.Recall10 || p.Recall100 != q.Recall100 || p.Scanned != q.Scanned {
			t.Errorf("%s %s: second run recall %v/%v, scanned %v; first %v/%v, %v", CodesName(p.Bits), p.Setting,
				p.Recall10, p.Recall100, p.Scanned, q.Recall10, q.Recall100, q.Scanned)
		}
	}
}

func ioModes(ms []IVFListsMode) []IVFIOMode {
	out := make([]IVFIOMode, len(ms))
	for i, m := range ms {
		out[i] = IVFIOMode{Name: m.Name, Point: m.Point}
	}
	return out
}

// TestIVFSpillHierarchical: DiskBBQ's hierarchical k-means with spilled
// assignments, no I/O table.
func TestIVFSpillHierarchical(t *testing.T) {
	ds, truth := ivfSet(t, 2000, 5, 16, 4)
	cfg := DefaultIVFConfig()
	cfg.Bits, cfg.Nprobes, cfg.Visits, cfg.Warmup, cfg.Spill, cfg.Hierarchical, cfg.IOBits = []int{1}, []int{2}, []float64{50}, 1, true, true, 0
	rep, err := IVF(ds, truth, engine.Cosine, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Builds) != 1 || rep.Builds[0].Spilled == 0 || rep.IO != nil {
		t.Fatalf("builds %+v, I/O %+v", rep.Builds, rep.IO)
	}
	if s := rep.String(); !strings.Contains(s, "hierarchical k-means") || !strings.Contains(s, "osq-1bit") {
		t.Fatalf("unexpected text:\n%s", s)
	}
}

// TestIVFBadInput: a bad configuration or data set is refused before any
// work.
func TestIVFBadInput(t *testing.T) {
	ds, truth := tinySet(t) // truth of 10 neighbours: IVF needs 100
	for _, tc := range []struct {
		name string
		ds   *dataset.Dataset
		gt   *dataset.GroundTruth
		cfg  IVFConfig
		want string
	}{
		{"bits", ds, truth, IVFConfig{}, "-bits is empty"},
		{"no data", nil, nil, DefaultIVFConfig(), "no data set"},
		{"short truth", ds, truth, DefaultIVFConfig(), "truth has 5 queries of 10 neighbours, need 5 of 100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := IVF(tc.ds, tc.gt, engine.Cosine, tc.cfg, nil)
			if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("IVF: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestIVFFaiss runs the FAISS peer at a small scale: every sweep is there,
// the ratio lines of the quantized lists against IVF-SQ8 and against
// float32 lists are there, and FAISS's IVF-Flat, probing every list,
// finds what our float32 lists find.
func TestIVFFaiss(t *testing.T) {
	testenv.Need(t, testenv.FAISS)
	ds, truth := ivfSet(t, 2000, 20, 32, 6)
	cfg := DefaultIVFConfig()
	cfg.Bits, cfg.Nprobes, cfg.Visits, cfg.Warmup, cfg.IOBits, cfg.Faiss, cfg.PeerOversample = []int{0, 2}, []int{2, 8}, []float64{10}, 2, 0, true, []float64{3, 5}
	rep, err := IVF(ds, truth, engine.Cosine, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Faiss
	if f == nil || len(f.Peer) != 2 || len(f.Ours) != 4 || len(f.Ratios) != 3+2+2 {
		t.Fatalf("FAISS comparison %+v", f)
	}
	if n := len(f.Ours[2].Wall); n != 2*2 || f.Ours[2].Name != "osq-2bit + rescoring (file)" || f.Ours[3].Name != "osq-2bit + rescoring (RAM)" {
		t.Errorf("2-bit sweeps %+v", f.Ours[2:])
	}
	ours, peer := f.Ours[0].Wall[1], f.Peer[0].Wall[1]
	if d := ours.Recall - peer.Recall; d > 0.02 || d < -0.02 {
		t.Errorf("nprobe=8 of 8 lists: float32 lists recall %.3f, FAISS %s %.3f", ours.Recall, f.Peer[0].Name, peer.Recall)
	}
	if !(f.KmeansS > 0) || f.TrainCPU <= 0 || f.Trained == 0 {
		t.Errorf("training %+v", f)
	}
	s := rep.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`veclab osq-2bit \+ rescoring \(file\) +nprobe=8 os=5 +[01]\.\d{3} +\d+ +\d+`),
		regexp.MustCompile(`veclab osq-2bit \+ rescoring \(RAM\) +nprobe=8 os=5 +[01]\.\d{3} +\d+ +\d+`),
		regexp.MustCompile(`osq-2bit \+ rescoring \(file\) +FAISS IndexIVFScalarQuantizer\(QT_8bit\) +(not reached|\d+ \(nprobe=\d os=\d+\))`),
		regexp.MustCompile(`osq-2bit \+ rescoring \(RAM\) +veclab float32 lists +(not reached|\d+ \(nprobe=\d os=\d+\))`),
		regexp.MustCompile(`FAISS Kmeans +\d+\.\d{3} +\d+\.\d{2}`),
		regexp.MustCompile(`generic x86-64 build`),
	} {
		if !want.MatchString(s) {
			t.Errorf("text lacks %v:\n%s", want, s)
		}
	}
}
