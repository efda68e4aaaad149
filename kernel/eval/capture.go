package eval

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
	"unicode/utf8"
)

// Capture says how a Session captures what cells write.
type Capture int

const (
	// CaptureGo replaces the os.Stdout and os.Stderr variables with pipes:
	// fmt and os.Stdout writes are captured, log, println and writes to
	// the raw file descriptors are not. Works everywhere pipes do.
	CaptureGo Capture = iota
	// CaptureFD makes file descriptors 0, 1 and 2 pipes for the life of
	// the session (Linux only): everything is captured, and stdin reads
	// are answered through Output.Input. Process-wide: one session at a
	// time.
	CaptureFD
	// CaptureNone captures nothing (the wasm build hooks output itself).
	CaptureNone
)

func (c Capture) String() string {
	switch c {
	case CaptureGo:
		return "go"
	case CaptureFD:
		return "fd"
	case CaptureNone:
		return "none"
	}
	return fmt.Sprintf("Capture(%d)", int(c))
}

// flushMarker is written to the captured stdout and stderr at the end of
// a cell; the pumps strip it and signal that everything before it has been
// delivered. Shorter than PIPE_BUF, so the write is atomic.
var flushMarker = []byte("\x00\x1bveclab-flush\x1b\x00")

// sink routes captured text to the Output of the current (or last) cell and
// enforces the per-cell output limit.
type sink struct {
	mu        sync.Mutex
	out       Output
	limit     int
	written   int
	truncated bool
	log       io.Writer
	transient []string // ids of the transient displays out showed
}

func (s *sink) set(out Output) {
	s.mu.Lock()
	s.out, s.written, s.truncated, s.transient = out, 0, false, nil
	s.mu.Unlock()
}

func (s *sink) emit(name string, p []byte) {
	if len(p) == 0 {
		return
	}
	s.mu.Lock()
	out := s.out
	text := ""
	notice := ""
	switch {
	case s.truncated:
	case s.limit > 0 && s.written+len(p) > s.limit:
		keep := s.limit - s.written
		for keep > 0 && !utf8.RuneStart(p[keep]) {
			keep--
		}
		text = string(p[:keep])
		s.written = s.limit
		s.truncated = true
		notice = fmt.Sprintf("\n[veclab: output truncated: this cell wrote more than %d bytes; the rest is dropped]\n", s.limit)
	default:
		text = string(p)
		s.written += len(p)
	}
	s.mu.Unlock()
	if out == nil {
		if s.log != nil && (text != "" || notice != "") {
			fmt.Fprintf(s.log, "[%s, no cell] %s%s", name, text, notice)
		}
		return
	}
	if text != "" {
		out.Stream(name, text)
	}
	if notice != "" {
		out.Stream("stderr", notice)
	}
}

// pump copies r to the sink as stream name until r fails, stripping flush
// markers (each is acknowledged on flushed) and never splitting a UTF-8
// sequence across two stream messages.
func (s *sink) pump(r io.Reader, name string, flushed chan<- struct{}) {
	buf := make([]byte, 64<<10)
	var pending []byte
	for {
		n, err := r.Read(buf)
		if n > 0 {
			pending = append(pending, buf[:n]...)
			for {
				i := bytes.Index(pending, flushMarker)
				if i < 0 {
					break
				}
				s.emit(name, pending[:i])
				pending = append([]byte(nil), pending[i+len(flushMarker):]...)
				select {
				case flushed <- struct{}{}:
				default:
				}
			}
			keep := markerPrefix(pending)
			if keep == 0 {
				keep = incompleteRune(pending)
			}
			s.emit(name, pending[:len(pending)-keep])
			pending = append([]byte(nil), pending[len(pending)-keep:]...)
		}
		if err != nil {
			s.emit(name, pending)
			return
		}
	}
}

// markerPrefix returns the length of the longest proper prefix of
// flushMarker that p ends with.
func markerPrefix(p []byte) int {
	for k := len(flushMarker) - 1; k > 0; k-- {
		if bytes.HasSuffix(p, flushMarker[:k]) {
			return k
		}
	}
	return 0
}

// incompleteRune returns how many trailing bytes of p start a UTF-8
// sequence that is not complete yet.
func incompleteRune(p []byte) int {
	for k := 1; k <= 3 && k <= len(p); k++ {
		c := p[len(p)-k]
		if utf8.RuneStart(c) {
			if c >= 0x80 && !utf8.FullRune(p[len(p)-k:]) {
				return k
			}
			return 0
		}
	}
	return 0
}

// waitFlush waits for n acknowledgements, at most d.
func waitFlush(flushed <-chan struct{}, n int, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for i := 0; i < n; i++ {
		select {
		case <-flushed:
		case <-t.C:
			return false
		}
	}
	return true
}

// goCapture is CaptureGo: os.Stdout and os.Stderr replaced by pipes.
type goCapture struct {
	oldOut, oldErr *os.File
	outW, errW     *os.File
	flushed        chan struct{}
}

func startGoCapture(s *sink) (*goCapture, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	c := &goCapture{oldOut: os.Stdout, oldErr: os.Stderr, outW: outW, errW: errW, flushed: make(chan struct{}, 2)}
	os.Stdout, os.Stderr = outW, errW
	go s.pump(outR, "stdout", c.flushed)
	go s.pump(errR, "stderr", c.flushed)
	return c, nil
}

func (c *goCapture) flush() bool {
	c.outW.Write(flushMarker)
	c.errW.Write(flushMarker)
	return waitFlush(c.flushed, 2, 2*time.Second)
}

func (c *goCapture) close() {
	c.flush()
	os.Stdout, os.Stderr = c.oldOut, c.oldErr
	c.outW.Close()
	c.errW.Close()
}
