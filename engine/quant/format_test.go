package quant

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
)

func TestRestoreRoundTrip(t *testing.T) {
	data := clustered(100, 40, 3, 4)
	for _, metric := range metrics {
		for _, mk := range makers {
			q, err := mk.train(data, metric)
			if err != nil {
				t.Fatal(err)
			}
			b, err := q.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			r, err := Restore(b)
			if err != nil {
				t.Fatalf("%s: %v", mk.name, err)
			}
			b2, _ := r.MarshalBinary()
			if !bytes.Equal(b, b2) {
				t.Fatalf("%s %v: re-marshalled bytes differ", mk.name, metric)
			}
			if r.String() != q.String() {
				t.Errorf("restored %q, want %q", r, q)
			}
			c1, c2 := make([]byte, q.CodeSize()), make([]byte, r.CodeSize())
			q1, q2 := make([]byte, q.QueryCodeSize()), make([]byte, r.QueryCodeSize())
			for i := 0; i < 10; i++ {
				_ = q.Encode(c1, data.Row(i))
				_ = r.Encode(c2, data.Row(i))
				_ = q.EncodeQuery(q1, data.Row(99-i))
				_ = r.EncodeQuery(q2, data.Row(99-i))
				if !bytes.Equal(c1, c2) || !bytes.Equal(q1, q2) {
					t.Fatalf("%s %v: restored quantizer encodes differently", mk.name, metric)
				}
				if q.Distance(q1, c1) != r.Distance(q2, c2) {
					t.Fatalf("%s: restored distances differ", mk.name)
				}
			}
		}
	}
}

func TestRestoreCorrupt(t *testing.T) {
	data := clustered(100, 40, 3, 4)
	sq, _ := TrainScalar(data, engine.Dot, ScalarConfig{})
	oq, _ := TrainOSQ(data, engine.L2, OSQConfig{Bits: 2})
	for _, q := range []Quantizer{sq, oq} {
		good, _ := q.MarshalBinary()
		name := strings.Fields(q.String())[0]
		// Every truncation is an error naming an offset, never a panic.
		for n := 0; n < len(good); n++ {
			_, err := Restore(good[:n])
			if !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "offset") {
				t.Fatalf("%s truncated to %d: %v", name, n, err)
			}
		}
		// Every single flipped byte is caught (by magic, version or CRC).
		for i := 0; i < len(good); i++ {
			bad := bytes.Clone(good)
			bad[i] ^= 0x5A
			_, err := Restore(bad)
			if err == nil {
				t.Fatalf("%s: flipped byte %d accepted", name, i)
			}
			if !errors.Is(err, engine.ErrCorrupt) && !errors.Is(err, engine.ErrVersion) {
				t.Fatalf("%s: flipped byte %d: %v", name, i, err)
			}
		}
		// A newer version is refused as such, before the checksum is read.
		v2 := bytes.Clone(good)
		binary.LittleEndian.PutUint16(v2[4:], 2)
		if _, err := Restore(v2); !errors.Is(err, engine.ErrVersion) || !strings.Contains(err.Error(), "offset 4") {
			t.Errorf("%s version 2: %v", name, err)
		}
		// Trailing garbage breaks the checksum.
		if _, err := Restore(append(bytes.Clone(good), 0)); !errors.Is(err, engine.ErrCorrupt) {
			t.Errorf("%s trailing byte: %v", name, err)
		}
	}
	// A well-formed file with a nonsensical field (re-checksummed) names it.
	good, _ := sq.MarshalBinary()
	bad := bytes.Clone(good[:len(good)-4])
	bad[13] = 5 // bits
	bad = (&encoder{b: bad}).finish()
	if _, err := Restore(bad); !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "Bits 5") {
		t.Errorf("bits 5: %v", err)
	}
	if _, err := Restore([]byte("XXXXabcdefgh")); !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "magic") {
		t.Errorf("bad magic: %v", err)
	}
	if _, err := RestoreOSQ(good); !errors.Is(err, engine.ErrCorrupt) {
		t.Errorf("scalar bytes read as OSQ: %v", err)
	}
}

func FuzzRestore(f *testing.F) {
	data := clustered(50, 16, 2, 4)
	sq, _ := TrainScalar(data, engine.Cosine, ScalarConfig{Bits: 4})
	oq, _ := TrainOSQ(data, engine.Cosine, OSQConfig{})
	for _, q := range []Quantizer{sq, oq} {
		b, _ := q.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		q, err := Restore(b)
		if err != nil {
			return
		}
		c := make([]byte, q.CodeSize())
		qc := make([]byte, q.QueryCodeSize())
		v := make([]float32, q.Dim())
		v[0] = 1
		if err := q.Encode(c, v); err != nil {
			t.Fatal(err)
		}
		if err := q.EncodeQuery(qc, v); err != nil {
			t.Fatal(err)
		}
		_ = q.Distance(qc, c)
	})
}
