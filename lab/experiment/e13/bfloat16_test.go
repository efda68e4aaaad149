package e13

import (
	"math"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
)

// TestE13Originals measures both rescorings at the small scale: a
// bfloat16 original of 768 dims takes 1,536 B measured from the encoded
// slab, both passes read the same candidates, and the bfloat16 pass
// requests half the bytes.
func TestE13Originals(t *testing.T) {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	o, err := MeasureOriginals(env, 100, 10)
	if err != nil {
		t.Fatal(err)
	}
	if o.BytesAt != 1536 || o.F32BytesAt != 3072 || o.AtDim != 768 {
		t.Errorf("at %d dims: %g B bfloat16, %g B float32; want 1536 and 3072 at 768", o.AtDim, o.BytesAt, o.F32BytesAt)
	}
	if o.BF16.Reads != o.F32.Reads || o.F32.Reads == 0 {
		t.Errorf("reads per query: bfloat16 %g, float32 %g: want the same candidates", o.BF16.Reads, o.F32.Reads)
	}
	if math.Abs(o.BF16.KB-o.F32.KB/2) > 1e-9 {
		t.Errorf("KiB per query: bfloat16 %g, float32 %g: want half", o.BF16.KB, o.F32.KB)
	}
	t.Logf("recall@%d: float32 %.3f, bfloat16 %.3f", env.Scale.K, o.F32.Recall, o.BF16.Recall)
	if vs := OriginalsVerdicts(o); len(vs) != 2 || !vs[0].Agrees {
		t.Errorf("verdicts: %v", vs)
	}
}

// TestE13OriginalsVerdicts checks the two verdicts' bands: the size is
// exact, and recall within ± 0.01 in either direction.
func TestE13OriginalsVerdicts(t *testing.T) {
	for _, c := range []struct {
		name       string
		bytes      float64
		f32, bf16  float64
		size, kept bool
	}{
		{"as the article", 1536, 0.95, 0.95, true, true},
		{"a little lower, in the band", 1536, 0.95, 0.942, true, true},
		{"a little higher, in the band", 1536, 0.95, 0.958, true, true},
		{"lower beyond the band", 1536, 0.95, 0.93, true, false},
		{"higher beyond the band", 1536, 0.90, 0.92, true, false},
		{"a byte more per original", 1537, 0.95, 0.95, false, true},
		{"float32's size", 3072, 0.95, 0.95, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := Originals{AtDim: 768, BytesAt: c.bytes, F32BytesAt: 3072,
				F32:  experiment.DiskPoint{K: 10, Recall: c.f32, Reads: 100, KB: 300},
				BF16: experiment.DiskPoint{K: 10, Recall: c.bf16, Reads: 100, KB: 150}}
			vs := OriginalsVerdicts(o)
			if vs[0].Agrees != c.size || vs[1].Agrees != c.kept {
				t.Errorf("size %s, recall %s (%s); want %t, %t", vs[0].Word(), vs[1].Word(), vs[1].Reason, c.size, c.kept)
			}
		})
	}
}
