package vfs

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// fixedDisk is a 1,000-byte disk whose usage the test sets.
type fixedDisk struct{ used atomic.Uint64 }

func (d *fixedDisk) usage(string) (uint64, uint64, error) { return d.used.Load(), 1000, nil }

func TestWatermarkThresholds(t *testing.T) {
	// Defaults: low 85 %, high 90 %, flood 95 % of a 1,000-byte disk.
	const path = "d/f"
	tests := []struct {
		name    string
		op      string // create, write, writeat-grow, writeat-inplace, rename, mkdir, remove
		used    uint64
		pending int
		want    string // "" (allowed), "high" or "flood-stage"
	}{
		{"create below low", "create", 800, 0, ""},
		{"create between low and high", "create", 870, 0, ""},
		{"create at high", "create", 900, 0, ""},
		{"create above high", "create", 901, 0, "high"},
		{"create at flood", "create", 950, 0, "high"},
		{"create above flood", "create", 951, 0, "flood-stage"},
		{"write below high", "write", 800, 50, ""},
		{"write reaching high exactly", "write", 800, 100, ""},
		{"write crossing high by one byte", "write", 800, 101, "high"},
		{"write of 2 bytes at 89.9 %", "write", 899, 2, "high"},
		{"write crossing high and flood", "write", 800, 190, "high"},
		{"write above flood", "write", 951, 1, "flood-stage"},
		{"writeat growing across high", "writeat-grow", 895, 10, "high"},
		{"writeat in place above high", "writeat-inplace", 940, 10, ""},
		{"rename above high", "rename", 901, 0, ""},
		{"rename at flood", "rename", 950, 0, ""},
		{"rename above flood", "rename", 951, 0, "flood-stage"},
		{"mkdir above high", "mkdir", 901, 0, "high"},
		{"mkdir below high", "mkdir", 899, 0, ""},
		{"remove on a full disk", "remove", 1000, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := NewMem()
			disk := &fixedDisk{}
			w, err := NewWatermark(Watermark{FS: mem, Usage: disk.usage})
			if err != nil {
				t.Fatal(err)
			}
			// Set up below every watermark.
			f, err := w.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(make([]byte, 20)); err != nil {
				t.Fatal(err)
			}
			disk.used.Store(tc.used)
			p := make([]byte, tc.pending)
			switch tc.op {
			case "create":
				_, err = w.Create("d/g")
			case "write":
				_, err = f.Write(p)
			case "writeat-grow":
				_, err = f.WriteAt(p, 20)
			case "writeat-inplace":
				_, err = f.WriteAt(p, 0)
			case "rename":
				err = w.Rename(path, "d/g")
			case "mkdir":
				err = w.MkdirAll("d/sub")
			case "remove":
				err = w.Remove(path)
			default:
				t.Fatalf("unknown op %q", tc.op)
			}
			if tc.want == "" {
				if err != nil {
					t.Fatalf("%s at %d/1000 used: %v, want allowed", tc.op, tc.used, err)
				}
				return
			}
			if !errors.Is(err, ErrDiskWatermark) {
				t.Fatalf("%s at %d/1000 used, +%d: err %v, want ErrDiskWatermark", tc.op, tc.used, tc.pending, err)
			}
			var we *WatermarkError
			if !errors.As(err, &we) {
				t.Fatalf("err %T is not a *WatermarkError", err)
			}
			if we.Watermark != tc.want || we.Used != tc.used || we.Total != 1000 {
				t.Errorf("refused by %q at %d/%d, want %q at %d/1000", we.Watermark, we.Used, we.Total, tc.want, tc.used)
			}
			if strings.HasPrefix(tc.op, "write") && we.Pending != uint64(tc.pending) {
				t.Errorf("pending %d, want %d", we.Pending, tc.pending)
			}
			msg := err.Error()
			thr := map[string]string{"high": "high watermark (90%)", "flood-stage": "flood-stage watermark (95%)"}[tc.want]
			nothing := "nothing was written"
			if tc.op == "rename" {
				nothing = "nothing was renamed"
			}
			for _, s := range []string{"disk watermark", thr, "d/", nothing} {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q does not contain %q", msg, s)
				}
			}
			// Nothing was written: the file keeps its 20 bytes.
			if n, _ := f.Size(); n != 20 {
				t.Errorf("file is %d bytes after a refused %s, want 20", n, tc.op)
			}
		})
	}
}

func TestWatermarkMessage(t *testing.T) {
	e := &WatermarkError{Op: "write", Path: "d/ix.tmp", Watermark: "high", Threshold: 0.9, Used: 899, Total: 1000, Pending: 2}
	want := "vfs: disk watermark reached: write of 2 bytes to d/ix.tmp refused: the disk is 89.90% full (899 of 1000 bytes used) and the write would take it to 90.10%, above the high watermark (90%); nothing was written"
	if got := e.Error(); got != want {
		t.Errorf("message\n got %s\nwant %s", got, want)
	}
}

func TestWatermarkMessageDecimals(t *testing.T) {
	// 89.99975 % + 1 MB of 250 GB: two decimals would print 90.00 % twice.
	e := &WatermarkError{Op: "write", Path: "f", Watermark: "high", Threshold: 0.9, Used: 224999367497, Total: 250000000000, Pending: 1 << 20}
	if msg := e.Error(); !strings.Contains(msg, "89.9997% full") || !strings.Contains(msg, "to 90.0002%") {
		t.Errorf("message %q does not tell the usage from the watermark", msg)
	}
}

func TestWatermarkLevel(t *testing.T) {
	disk := &fixedDisk{}
	w, err := NewWatermark(Watermark{FS: NewMem(), Usage: disk.usage})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		used uint64
		want string
	}{{0, ""}, {850, ""}, {851, "low"}, {900, "low"}, {901, "high"}, {950, "high"}, {951, "flood-stage"}, {1000, "flood-stage"}} {
		disk.used.Store(tc.used)
		got, used, total, err := w.Level("d")
		if err != nil || got != tc.want || used != tc.used || total != 1000 {
			t.Errorf("Level at %d/1000 = %q, %d, %d, %v; want %q", tc.used, got, used, total, err, tc.want)
		}
	}
}

func TestWatermarkConfig(t *testing.T) {
	mem := NewMem()
	tests := []struct {
		name string
		cfg  Watermark
		want string // substring of the error; "" = valid
	}{
		{"defaults", Watermark{FS: mem}, ""},
		{"all at 1", Watermark{FS: mem, Low: 1, High: 1, Flood: 1}, ""},
		{"equal", Watermark{FS: mem, Low: 0.5, High: 0.5, Flood: 0.5}, ""},
		{"nil FS", Watermark{}, "FS is nil"},
		{"negative low", Watermark{FS: mem, Low: -0.1}, "low watermark -0.1 is outside (0, 1]"},
		{"high above 1", Watermark{FS: mem, High: 1.5, Flood: 1.5}, "high watermark 1.5 is outside (0, 1]"},
		{"flood NaN", Watermark{FS: mem, Flood: math.NaN()}, "flood-stage watermark NaN is outside"},
		{"percent not fraction", Watermark{FS: mem, Low: 85, High: 90, Flood: 95}, "outside (0, 1]"},
		{"high above flood", Watermark{FS: mem, High: 0.97}, "high watermark 0.97 is above the flood-stage watermark 0.95"},
		{"low above high", Watermark{FS: mem, Low: 0.92}, "low watermark 0.92 is above the high watermark 0.9"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := NewWatermark(tc.cfg)
			if tc.want == "" {
				if err != nil || w == nil {
					t.Fatalf("NewWatermark: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("NewWatermark(%v) = %v, want an error containing %q", tc.cfg, err, tc.want)
			}
		})
	}
	// Two problems are reported at once.
	_, err := NewWatermark(Watermark{Low: -1})
	if err == nil || !strings.Contains(err.Error(), "FS is nil") || !strings.Contains(err.Error(), "low watermark -1") {
		t.Errorf("got %v, want both problems", err)
	}
	w, _ := NewWatermark(Watermark{FS: mem})
	if got, want := w.Config().String(), "low=85% high=90% flood=95%"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

func TestWatermarkUsageErrors(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name  string
		usage UsageFunc
		want  string
	}{
		{"usage fails", func(string) (uint64, uint64, error) { return 0, 0, boom }, "boom"},
		{"zero total", func(string) (uint64, uint64, error) { return 0, 0, nil }, "implausible"},
		{"used above total", func(string) (uint64, uint64, error) { return 11, 10, nil }, "implausible"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := NewWatermark(Watermark{FS: NewMem(), Usage: tc.usage})
			if err != nil {
				t.Fatal(err)
			}
			_, err = w.Create("d/f")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "create d/f refused") {
				t.Fatalf("Create = %v, want a refusal containing %q", err, tc.want)
			}
			if errors.Is(err, ErrDiskWatermark) {
				t.Error("a usage failure must not claim a watermark was reached")
			}
		})
	}
}

func TestStatfsUsage(t *testing.T) {
	used, total, err := StatfsUsage(t.TempDir())
	if runtime.GOOS != "linux" {
		if !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("StatfsUsage on %s = %v, want ErrUnsupported", runtime.GOOS, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if total < 1<<20 || used > total {
		t.Fatalf("statfs: %d of %d bytes used: implausible", used, total)
	}
	if _, _, err := StatfsUsage("/does/not/exist"); err == nil {
		t.Error("statfs of a missing directory succeeded")
	}
	// The default Watermark uses statfs; at 100 % thresholds a test
	// machine's disk is never above them, so a create passes.
	w, err := NewWatermark(Watermark{FS: Default, Low: 1, High: 1, Flood: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f, err := w.Create(dir + "/f")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestSimulatedDisk(t *testing.T) {
	mem := NewMem()
	disk := SimulatedDisk{FS: mem, Used: 880, Total: 1000}
	w, err := NewWatermark(Watermark{FS: mem, Usage: disk.Usage})
	if err != nil {
		t.Fatal(err)
	}
	f, err := w.Create("d/f")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ { // 880 + 20·1 = 900: at the high watermark
		if _, err := f.Write([]byte{1}); err != nil {
			t.Fatalf("byte %d: %v", i, err)
		}
	}
	if used, _, _ := disk.Usage("d"); used != 900 {
		t.Fatalf("simulated usage %d, want 900", used)
	}
	if _, err := f.Write([]byte{1}); !errors.Is(err, ErrDiskWatermark) {
		t.Fatalf("byte 21: %v, want ErrDiskWatermark", err)
	}
	if err := w.Remove("d/f"); err != nil {
		t.Fatal(err)
	}
	if used, _, _ := disk.Usage("d"); used != 880 {
		t.Fatalf("after Remove: simulated usage %d, want 880", used)
	}
}
