//go:build !race

package eval

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// A cell allocating past the limit is stopped with a MemoryError naming
// the sizes, and the session, its variables and later cells are fine.
func TestMemoryLimit(t *testing.T) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limit := int64(ms.HeapAlloc) + 256<<20
	s := newSession(t, Options{Capture: CaptureGo, MemoryLimit: limit})
	if res := s.Eval("keep := 5", &Recorder{}); res.Err != nil {
		t.Fatal(res.Err)
	}
	start := time.Now()
	res := s.Eval("func hog() int {\n\tvar k [][]byte\n\tfor {\n\t\tk = append(k, make([]byte, 8<<20))\n\t}\n\treturn len(k)\n}\nhog()", &Recorder{})
	if res.Err == nil || res.Err.Name != "MemoryError" || !strings.Contains(res.Err.Value, "over this kernel's limit of "+Bytes(limit)) {
		t.Fatalf("want a MemoryError naming the limit, got %+v", res.Err)
	}
	t.Logf("stopped after %v: %s", time.Since(start).Round(time.Millisecond), res.Err.Value)
	if res := s.Eval("keep + 1", &Recorder{}); res.Err != nil || res.Value["text/plain"] != "6" {
		t.Fatalf("after the MemoryError: %+v", res)
	}
}

func TestParseMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  bool
	}{
		{"", 0, false}, {"off", 0, false}, {"0", 0, false},
		{"4096", 4096, false}, {"512MiB", 512 << 20, false}, {"4GiB", 4 << 30, false}, {"4G", 4e9, false},
		{"1.5 GiB", 3 << 29, false}, {"-1", 0, true}, {"lots", 0, true}, {"4XB", 0, true}, {"150%", 0, true}, {"0%", 0, true},
	} {
		got, err := ParseMemoryLimit(tc.in)
		if (err != nil) != tc.err || !tc.err && got != tc.want {
			t.Errorf("ParseMemoryLimit(%q) = %d, %v; want %d (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
	if n, err := ParseMemoryLimit("50%"); err != nil || n <= 0 {
		t.Errorf("50%%: %d, %v", n, err)
	}
}
