package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strings"
)

// ErrDiskWatermark is wrapped by every error a [WatermarkFS] returns for a
// write it refused. errors.As with *[WatermarkError] gives the details.
var ErrDiskWatermark = errors.New("vfs: disk watermark reached")

// The default watermarks, Elasticsearch's defaults for
// cluster.routing.allocation.disk.watermark.low, .high and .flood_stage.
const (
	DefaultLow   = 0.85
	DefaultHigh  = 0.90
	DefaultFlood = 0.95
)

// UsageFunc reports the disk holding dir: bytes used and bytes in total.
// [StatfsUsage] is the operating system's answer; [SimulatedDisk.Usage]
// stands in for a nearly full disk in tests.
type UsageFunc func(dir string) (used, total uint64, err error)

// Watermark configures a [WatermarkFS]: the FS it guards and three
// fractions of the disk (0 < Low ≤ High ≤ Flood ≤ 1), after
// Elasticsearch's disk-based shard allocation settings
// cluster.routing.allocation.disk.watermark.{low,high,flood_stage}
// (https://elastic.co/guide/en/elasticsearch/reference/7.6/disk-allocator.html).
// Elasticsearch stops placing shards above high and only logs why; the lab
// refuses the write itself with an error naming the watermark:
//
//   - Low (default 0.85): advisory. Nothing is refused; [WatermarkFS.Level]
//     reports it (Elasticsearch: no new shards on the node).
//   - High (default 0.90): a Create or MkdirAll on a disk already above
//     High, and a Write or WriteAt whose new bytes would take it above
//     High, are refused before anything is written (Elasticsearch: shards
//     are relocated away; a new index's shards stay unassigned).
//   - Flood (default 0.95): above Flood the disk is read-only for the lab:
//     Rename is refused too. Remove stays allowed, as deletes are under
//     Elasticsearch's index.blocks.read_only_allow_delete.
//
// Between High and Flood a Rename is allowed: it commits bytes already
// written (and accepted) and frees the file it replaces, so refusing it
// would only throw finished work away. Exactly at a watermark is not above
// it. A disk whose usage cannot be read refuses writes (the watermark
// cannot be honoured), with the usage error wrapped.
type Watermark struct {
	FS    FS        // the guarded FS; required
	Low   float64   // fraction of the disk; 0 means DefaultLow
	High  float64   // fraction of the disk; 0 means DefaultHigh
	Flood float64   // fraction of the disk; 0 means DefaultFlood
	Usage UsageFunc // nil means StatfsUsage
}

// WithDefaults returns w with zero watermarks and a nil Usage filled in.
func (w Watermark) WithDefaults() Watermark {
	if w.Low == 0 {
		w.Low = DefaultLow
	}
	if w.High == 0 {
		w.High = DefaultHigh
	}
	if w.Flood == 0 {
		w.Flood = DefaultFlood
	}
	if w.Usage == nil {
		w.Usage = StatfsUsage
	}
	return w
}

// Validate reports every problem at once: a nil FS, a watermark outside
// (0, 1], and watermarks out of order (Elasticsearch likewise rejects a low
// watermark above the high one).
func (w Watermark) Validate() error {
	var errs []string
	if w.FS == nil {
		errs = append(errs, "FS is nil")
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"low", w.Low}, {"high", w.High}, {"flood-stage", w.Flood}} {
		if !(f.v > 0 && f.v <= 1) { // also rejects NaN
			errs = append(errs, fmt.Sprintf("%s watermark %v is outside (0, 1]", f.name, f.v))
		}
	}
	if w.Low > w.High {
		errs = append(errs, fmt.Sprintf("low watermark %v is above the high watermark %v", w.Low, w.High))
	}
	if w.High > w.Flood {
		errs = append(errs, fmt.Sprintf("high watermark %v is above the flood-stage watermark %v", w.High, w.Flood))
	}
	if len(errs) > 0 {
		return fmt.Errorf("vfs: invalid watermark: %s", strings.Join(errs, "; "))
	}
	return nil
}

// String prints the watermarks, e.g. "low=85% high=90% flood=95%".
func (w Watermark) String() string {
	return fmt.Sprintf("low=%s high=%s flood=%s", pct(w.Low), pct(w.High), pct(w.Flood))
}

func pct(f float64) string { return fmt.Sprintf("%.4g%%", 100*f) }

// WatermarkFS is an FS that refuses writes near a full disk; see
// [Watermark]. It is safe for concurrent use; its files, like every File,
// are used by one goroutine.
type WatermarkFS struct {
	cfg Watermark
}

// NewWatermark checks cfg (after [Watermark.WithDefaults]) and returns the
// guarded FS.
func NewWatermark(cfg Watermark) (*WatermarkFS, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &WatermarkFS{cfg: cfg}, nil
}

// Config returns the configuration in effect (defaults filled in).
func (w *WatermarkFS) Config() Watermark { return w.cfg }

// WatermarkError describes a refused write. Its Error names the operation,
// the path, the watermark, the disk's usage and the bytes the write would
// have added; it wraps [ErrDiskWatermark].
type WatermarkError struct {
	Op        string  // "create", "write", "mkdir", "rename"
	Path      string  // the file or directory written
	Watermark string  // "high" or "flood-stage"
	Threshold float64 // the watermark's fraction of the disk
	Used      uint64  // bytes used on the disk before the write
	Total     uint64  // bytes on the disk
	Pending   uint64  // bytes the write would have added (0 for create, mkdir, rename)
}

// Error implements error.
func (e *WatermarkError) Error() string {
	before, after := frac(e.Used, e.Total), frac(e.Used+e.Pending, e.Total)
	// Enough decimals that a usage just below or above the watermark does
	// not print as the watermark itself.
	d := 2
	for ; d < 9; d++ {
		p := func(f float64) string { return fmt.Sprintf("%.*f", d, 100*f) }
		thr := p(e.Threshold)
		if p(after) != thr && (before >= e.Threshold || p(before) != thr) {
			break
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%v: %s ", ErrDiskWatermark, e.Op)
	if e.Pending > 0 {
		fmt.Fprintf(&b, "of %d bytes to ", e.Pending)
	}
	fmt.Fprintf(&b, "%s refused: the disk is %.*f%% full (%d of %d bytes used)", e.Path, d, 100*before, e.Used, e.Total)
	if e.Pending > 0 {
		fmt.Fprintf(&b, " and the write would take it to %.*f%%", d, 100*after)
	}
	fmt.Fprintf(&b, ", above the %s watermark (%s)", e.Watermark, pct(e.Threshold))
	if e.Watermark == "flood-stage" {
		b.WriteString("; the disk is read-only until space is freed (deletes are allowed)")
	}
	if e.Op == "rename" {
		b.WriteString("; nothing was renamed")
	} else {
		b.WriteString("; nothing was written")
	}
	return b.String()
}

// Unwrap returns ErrDiskWatermark.
func (e *WatermarkError) Unwrap() error { return ErrDiskWatermark }

func frac(used, total uint64) float64 {
	if total == 0 {
		return math.Inf(1)
	}
	return float64(used) / float64(total)
}

// Level names the highest watermark the disk holding dir is above ("" when
// below all three, "low", "high" or "flood-stage"), with its usage.
func (w *WatermarkFS) Level(dir string) (level string, used, total uint64, err error) {
	used, total, err = w.usage(dir)
	if err != nil {
		return "", 0, 0, err
	}
	u := frac(used, total)
	switch {
	case u > w.cfg.Flood:
		level = "flood-stage"
	case u > w.cfg.High:
		level = "high"
	case u > w.cfg.Low:
		level = "low"
	}
	return level, used, total, nil
}

func (w *WatermarkFS) usage(dir string) (used, total uint64, err error) {
	used, total, err = w.cfg.Usage(dir)
	if err != nil {
		return 0, 0, fmt.Errorf("vfs: disk usage of %s: %w", dir, err)
	}
	if total == 0 || used > total {
		return 0, 0, fmt.Errorf("vfs: disk usage of %s: implausible: %d of %d bytes used", dir, used, total)
	}
	return used, total, nil
}

// check refuses op on path when the disk is above Flood, or (unless
// floodOnly) when used + pending would be above High.
func (w *WatermarkFS) check(op, path string, pending uint64, floodOnly bool) error {
	used, total, err := w.usage(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("%s %s refused: %w", op, path, err)
	}
	e := &WatermarkError{Op: op, Path: path, Used: used, Total: total, Pending: pending}
	switch {
	case frac(used, total) > w.cfg.Flood:
		e.Watermark, e.Threshold = "flood-stage", w.cfg.Flood
		return e
	case !floodOnly && frac(used+pending, total) > w.cfg.High:
		e.Watermark, e.Threshold = "high", w.cfg.High
		return e
	}
	return nil
}

// Create implements FS; it is refused above the high watermark.
func (w *WatermarkFS) Create(name string) (File, error) {
	if err := w.check("create", name, 0, false); err != nil {
		return nil, err
	}
	f, err := w.cfg.FS.Create(name)
	if err != nil {
		return nil, err
	}
	return &watermarkFile{File: f, w: w, name: name}, nil
}

// Open implements FS; reads are never refused.
func (w *WatermarkFS) Open(name string) (File, error) { return w.cfg.FS.Open(name) }

// Rename implements FS; it is refused above the flood-stage watermark only.
func (w *WatermarkFS) Rename(oldname, newname string) error {
	if err := w.check("rename", newname, 0, true); err != nil {
		return err
	}
	return w.cfg.FS.Rename(oldname, newname)
}

// Remove implements FS; it is never refused (it frees space).
func (w *WatermarkFS) Remove(name string) error { return w.cfg.FS.Remove(name) }

// SyncDir implements FS; it is never refused.
func (w *WatermarkFS) SyncDir(dir string) error { return w.cfg.FS.SyncDir(dir) }

// MkdirAll implements FS; it is refused above the high watermark.
func (w *WatermarkFS) MkdirAll(dir string) error {
	if err := w.check("mkdir", dir, 0, false); err != nil {
		return err
	}
	return w.cfg.FS.MkdirAll(dir)
}

// List implements FS.
func (w *WatermarkFS) List(dir string) ([]string, error) { return w.cfg.FS.List(dir) }

type watermarkFile struct {
	File
	w    *WatermarkFS
	name string
}

func (f *watermarkFile) Write(p []byte) (int, error) {
	if len(p) > 0 {
		if err := f.w.check("write", f.name, uint64(len(p)), false); err != nil {
			return 0, err
		}
	}
	return f.File.Write(p)
}

// WriteAt counts only the bytes past the file's current end as new.
func (f *watermarkFile) WriteAt(p []byte, off int64) (int, error) {
	if len(p) > 0 {
		size, err := f.File.Size()
		if err != nil {
			return 0, err
		}
		if grow := off + int64(len(p)) - size; grow > 0 {
			if err := f.w.check("write", f.name, uint64(grow), false); err != nil {
				return 0, err
			}
		}
	}
	return f.File.WriteAt(p, off)
}

// SimulatedDisk stands in for a nearly full disk: Total bytes, of which
// Used are taken by other data, plus the sizes of the files directly in
// the directory asked about, read through FS. Writes through a
// [WatermarkFS] over the same FS therefore fill it as they would a real
// disk. Nothing on the real disk is consumed beyond the files written.
type SimulatedDisk struct {
	FS    FS
	Used  uint64 // bytes used by data outside the directory
	Total uint64 // the disk's size
}

// Usage implements [UsageFunc].
func (d SimulatedDisk) Usage(dir string) (used, total uint64, err error) {
	names, err := d.FS.List(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, 0, err
	}
	used = d.Used
	for _, name := range names {
		f, err := d.FS.Open(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // a subdirectory of a MemFS, or removed since List
		}
		if err != nil {
			return 0, 0, err
		}
		n, err := f.Size()
		f.Close()
		if err != nil {
			return 0, 0, err
		}
		used += uint64(n)
	}
	return used, d.Total, nil
}
