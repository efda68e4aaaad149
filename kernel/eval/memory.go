package eval

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"
)

// How often the watchdog samples the heap: often while a cell or a
// goroutine a cell started runs, rarely while the kernel idles (no
// wake-ups of an idle kernel parked on one P for nothing).
const (
	memoryPoll     = 50 * time.Millisecond
	memoryPollIdle = time.Second
)

// watchMemory is the memory watchdog of Options.MemoryLimit: the Go
// runtime's soft limit makes the collector work harder near the limit, and
// once the heap's live objects are over it even after a collection, the
// running cell (or, between cells, the goroutines cells left) is stopped
// with a MemoryError naming the sizes. It re-arms when the heap falls
// below nine tenths of the limit, so a cell that keeps a large value does
// not fail every cell after it.
func (s *Session) watchMemory(limit int64, stop, kick <-chan struct{}) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() int64 {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(sample[0].Value.Uint64())
	}
	t := time.NewTimer(memoryPoll)
	defer t.Stop()
	armed := true
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		case <-kick: // a cell starts: sample at the fast rate from now
			t.Stop() // (Go ≥ 1.23: no stale tick after Stop, Reset below is safe)
		}
		if s.guard.busy() {
			t.Reset(memoryPoll)
		} else {
			t.Reset(memoryPollIdle)
		}
		h := heap()
		if h < limit/10*9 {
			armed = true
			continue
		}
		if !armed || h <= limit {
			continue
		}
		runtime.GC() // dead objects count until a collection: only live data trips
		if h = heap(); h <= limit {
			continue
		}
		armed = false
		cause := fmt.Errorf("the heap reached %s, over this kernel's limit of %s (veclab kernel -memory-limit, VECLAB_MEMORY_LIMIT); "+
			"variables that hold large values can be set to nil to free them: %w", Bytes(h), Bytes(limit), errMemoryBase)
		fmt.Fprintf(s.log, "veclab eval: %v\n", cause)
		s.stopWith(cause)
	}
}

// Bytes prints a byte count with a binary unit.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[i])
}

// ParseMemoryLimit reads a memory limit: "" or "off" (none), a byte count
// with an optional unit ("512MiB", "4GiB", "4G" = 4·10⁹, "4096"), or a
// percentage of the machine's memory ("80%": of the cgroup limit when one
// is set and smaller, else of MemTotal in /proc/meminfo).
func ParseMemoryLimit(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" || strings.EqualFold(t, "off") || t == "0" {
		return 0, nil
	}
	if p, ok := strings.CutSuffix(t, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(f > 0 && f <= 100) {
			return 0, fmt.Errorf("eval: memory limit %q: a percentage must be in (0, 100]", s)
		}
		total, err := physicalMemory()
		if err != nil {
			return 0, fmt.Errorf("eval: memory limit %q: %w", s, err)
		}
		return int64(float64(total) * f / 100), nil
	}
	num := strings.TrimRightFunc(t, func(r rune) bool { return r < '0' || r > '9' && r != '.' })
	unit := strings.ToUpper(strings.TrimSpace(t[len(num):]))
	mult := map[string]float64{"": 1, "B": 1, "K": 1e3, "KB": 1e3, "M": 1e6, "MB": 1e6, "G": 1e9, "GB": 1e9, "T": 1e12, "TB": 1e12,
		"KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "TIB": 1 << 40}[unit]
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 || !(f > 0) || f*mult > math.MaxInt64 {
		return 0, fmt.Errorf("eval: memory limit %q: want a size such as 4GiB, 512MiB or 80%%, or off", s)
	}
	return int64(f * mult), nil
}

// physicalMemory is the memory this process may use: the cgroup v2 limit
// when set, else MemTotal.
func physicalMemory() (int64, error) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("no /proc/meminfo to take a percentage of: %w", err)
	}
	var total int64
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			total = kb << 10
		}
	}
	if total == 0 {
		return 0, fmt.Errorf("no MemTotal in /proc/meminfo")
	}
	if c, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(c)), 10, 64); err == nil && v > 0 && v < total {
			total = v
		}
	}
	return total, nil
}

// setMemoryLimit applies the runtime's soft limit and returns a func that
// restores the previous one.
func setMemoryLimit(limit int64) (restore func()) {
	old := debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(old) }
}
