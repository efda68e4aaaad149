//go:build linux

package eval

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// fdStdin is the *os.File of fd 0 that cells read. It is created once and
// never dropped: the finalizer of a collected *os.File would close fd 0.
var (
	fdStdin     *os.File
	fdStdinOnce sync.Once
)

// fdCapture is CaptureFD: fds 0, 1 and 2 are pipes for the whole session.
type fdCapture struct {
	saved    [3]int   // dups of the original fds 0, 1, 2
	oldStdin *os.File // the original os.Stdin, kept alive: its finalizer would close fd 0
	log      *os.File // a dup of the original stderr, for the kernel's own log
	flushed  chan struct{}

	mu     sync.Mutex
	stdinW *os.File // write end of the pipe on fd 0; nil after EOF was given
	used   bool     // stdin was read during this cell
}

func startFDCapture(s *sink) (*fdCapture, error) {
	c := &fdCapture{flushed: make(chan struct{}, 2), saved: [3]int{-1, -1, -1}}
	fail := func(err error) (*fdCapture, error) {
		for _, fd := range c.saved {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
		return nil, fmt.Errorf("eval: capturing file descriptors: %w", err)
	}
	for fd := 0; fd < 3; fd++ {
		d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 10)
		if err == unix.EBADF {
			// Started with this fd closed: save /dev/null in its place.
			d, err = unix.Open(os.DevNull, unix.O_RDWR|unix.O_CLOEXEC, 0)
			if err == nil && d < 10 {
				var moved int
				moved, err = unix.FcntlInt(uintptr(d), unix.F_DUPFD_CLOEXEC, 10)
				unix.Close(d)
				d = moved
			}
		}
		if err != nil {
			return fail(err)
		}
		c.saved[fd] = d
	}
	logfd, err := unix.FcntlInt(uintptr(2), unix.F_DUPFD_CLOEXEC, 10)
	if err != nil {
		return fail(err)
	}
	c.log = os.NewFile(uintptr(logfd), "kernel-log")
	// fd 2 is a pipe read by this process: a fatal error (a panic in a
	// goroutine a cell started) would print its report where nobody reads
	// it. Send crash reports to the real stderr instead.
	if err := debug.SetCrashOutput(c.log, debug.CrashOptions{}); err != nil {
		fmt.Fprintln(c.log, "eval: crash output stays on fd 2:", err)
	}
	for fd, name := range map[int]string{1: "stdout", 2: "stderr"} {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
			return fail(err)
		}
		if err := unix.Dup2(p[1], fd); err != nil {
			return fail(err)
		}
		unix.Close(p[1])
		// The read end is a description of its own: non-blocking, it is
		// served by the runtime's poller (the write end, fd 1 or 2, stays
		// blocking so no writer ever sees EAGAIN).
		if err := unix.SetNonblock(p[0], true); err != nil {
			return fail(err)
		}
		go s.pump(os.NewFile(uintptr(p[0]), name+"-capture"), name, c.flushed)
	}
	if err := c.newStdin(); err != nil {
		return fail(err)
	}
	c.oldStdin = os.Stdin
	fdStdinOnce.Do(func() { fdStdin = os.NewFile(0, "/dev/stdin") })
	os.Stdin = fdStdin // blocking fd: a read is a visible read(0) syscall
	return c, nil
}

// newStdinLocked puts a fresh blocking pipe on fd 0.
func (c *fdCapture) newStdin() error {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return err
	}
	if err := unix.Dup2(p[0], 0); err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return err
	}
	unix.Close(p[0])
	if c.stdinW != nil {
		c.stdinW.Close()
	}
	c.stdinW = os.NewFile(uintptr(p[1]), "stdin-feed")
	return nil
}

func (c *fdCapture) flush() bool {
	unix.Write(1, flushMarker)
	unix.Write(2, flushMarker)
	return waitFlush(c.flushed, 2, 2*time.Second)
}

// watchStdin answers reads of fd 0 by the running cell with out.Input until
// stop is closed.
func (c *fdCapture) watchStdin(out Output, stop <-chan struct{}) {
	t := time.NewTicker(40 * time.Millisecond) // a human types slower; measurements see little of it
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		c.mu.Lock()
		w := c.stdinW
		c.mu.Unlock()
		if w == nil || !readingStdin() {
			continue
		}
		if n, err := unix.IoctlGetInt(0, unix.TIOCINQ); err != nil || n > 0 {
			continue
		}
		c.mu.Lock()
		c.used = true
		c.mu.Unlock()
		line, err := out.Input("", false)
		c.mu.Lock()
		if err != nil {
			c.stdinW.Close() // the reader sees EOF
			c.stdinW = nil
		} else {
			c.stdinW.Write([]byte(line + "\n"))
		}
		c.mu.Unlock()
	}
}

// endCell gives the next cell a fresh, empty stdin if this one used it.
func (c *fdCapture) endCell() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.used || c.stdinW == nil {
		c.used = false
		if err := c.newStdin(); err != nil {
			fmt.Fprintln(c.log, "eval: new stdin pipe:", err)
		}
	}
}

func (c *fdCapture) close() {
	c.flush()
	for fd := 0; fd < 3; fd++ {
		unix.Dup2(c.saved[fd], fd)
		unix.Close(c.saved[fd])
	}
	c.mu.Lock()
	if c.stdinW != nil {
		c.stdinW.Close()
		c.stdinW = nil
	}
	c.mu.Unlock()
	os.Stdin = c.oldStdin
	debug.SetCrashOutput(nil, debug.CrashOptions{})
}

func (c *fdCapture) logFile() *os.File { return c.log }
