package store

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/veclab/veclab/engine"
)

// Model is a storage latency model: every read completes no earlier than
// Latency after it is issued, and reads are admitted no faster than IOPS
// (and Bandwidth bytes/s) allow, queueing behind each other when the
// ceiling is reached. It models a device's service time, not the host's
// page cache: a File with a Model delays every read, cached or not, so use
// it with Direct or a cold cache. The delay is real (the reading goroutine
// sleeps), so concurrent readers overlap their latencies exactly as they
// would on a device with a deep queue; Go's timer granularity adds some
// tens of microseconds to each sleep.
type Model struct {
	Name      string
	Latency   time.Duration // service time per read
	IOPS      float64       // ceiling on reads per second; 0 = none
	Bandwidth float64       // ceiling in bytes per second; 0 = none
}

// Storage profiles. The figures are assumptions stated for the lab, not
// measurements: EBS gp3's baseline of 3,000 IOPS and 125 MB/s is AWS's
// published baseline (the figure Elastic's reply uses, E13); its latency
// and io2's are AWS's "single-digit millisecond" / "sub-millisecond" class;
// local NVMe is a typical 4 KiB random-read service time.
var (
	Off            = Model{}
	LocalNVMe      = Model{Name: "local-nvme", Latency: 80 * time.Microsecond, IOPS: 500_000, Bandwidth: 3e9}
	GP3Baseline    = Model{Name: "gp3-baseline", Latency: time.Millisecond, IOPS: 3_000, Bandwidth: 125e6}
	IO2Provisioned = Model{Name: "io2-provisioned", Latency: 500 * time.Microsecond, IOPS: 16_000, Bandwidth: 1e9}
)

// Profiles lists the named models ParseModel accepts.
var Profiles = []Model{LocalNVMe, GP3Baseline, IO2Provisioned}

// Enabled reports whether the model adds anything.
func (m Model) Enabled() bool { return m.Latency > 0 || m.IOPS > 0 || m.Bandwidth > 0 }

// Validate checks the fields.
func (m Model) Validate() error {
	if m.Latency < 0 || m.IOPS < 0 || m.Bandwidth < 0 || math.IsNaN(m.IOPS) || math.IsNaN(m.Bandwidth) || math.IsInf(m.IOPS, 0) || math.IsInf(m.Bandwidth, 0) {
		return fmt.Errorf("store: storage model %q: latency %v, IOPS %g, bandwidth %g must be finite and ≥ 0: %w", m.Name, m.Latency, m.IOPS, m.Bandwidth, engine.ErrInvalidArgument)
	}
	return nil
}

// String says what the model adds and that it is simulated.
func (m Model) String() string {
	if !m.Enabled() {
		return "off (real I/O only)"
	}
	name := m.Name
	if name == "" {
		name = "custom"
	}
	s := fmt.Sprintf("simulated %s: %v/read", name, m.Latency)
	if m.IOPS > 0 {
		s += fmt.Sprintf(", %.0f IOPS ceiling", m.IOPS)
	}
	if m.Bandwidth > 0 {
		s += fmt.Sprintf(", %.0f MB/s ceiling", m.Bandwidth/1e6)
	}
	return s
}

// ParseModel returns the profile named s ("off", "local-nvme"/"nvme",
// "gp3-baseline"/"gp3", "io2-provisioned"/"io2").
func ParseModel(s string) (Model, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "off", "none":
		return Off, nil
	case "nvme", "local-nvme":
		return LocalNVMe, nil
	case "gp3", "gp3-baseline", "network":
		return GP3Baseline, nil
	case "io2", "io2-provisioned", "provisioned":
		return IO2Provisioned, nil
	}
	return Off, fmt.Errorf("store: unknown storage model %q (want off, nvme, gp3 or io2): %w", s, engine.ErrInvalidArgument)
}

// simulator admits reads through the model's ceilings.
type simulator struct {
	m    Model
	mu   sync.Mutex
	next time.Time // guarded by mu: earliest admission of the next read
}

// wait delays the caller until the simulated read issued at start and
// really finished at end would complete, and returns the added delay.
func (s *simulator) wait(start, end time.Time, bytes int64) time.Duration {
	s.mu.Lock()
	slot := start
	if s.next.After(slot) {
		slot = s.next
	}
	var gap time.Duration
	if s.m.IOPS > 0 {
		gap = time.Duration(float64(time.Second) / s.m.IOPS)
	}
	if s.m.Bandwidth > 0 {
		gap = max(gap, time.Duration(float64(bytes)/s.m.Bandwidth*float64(time.Second)))
	}
	s.next = slot.Add(gap)
	s.mu.Unlock()
	sleepUntil(slot.Add(s.m.Latency))
	if added := time.Since(end); added > 0 {
		return added
	}
	return 0
}
