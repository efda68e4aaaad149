package kernel

import (
	"bufio"
	"context"
	"encoding/binary"
	"net"
	"strings"
	"sync"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/transport"
)

// bufTCPScheme names the transport the kernel binds its tcp sockets with:
// the same ZMTP over TCP as zmq4's "tcp" (front ends still connect with
// tcp://), but every accepted connection reads through a bufio.Reader.
//
// Why: zmq4 v0.17.0 (conn.go, Conn.read) reads each frame with two
// io.ReadFull calls straight on the net.Conn, a header then a body, so a
// Jupyter message of 7 frames costs 14 read syscalls; buffered, it is
// usually one. Writes are coalesced into whole messages (see bufConn).
// Bytes left in the buffer when a connection closes are dropped exactly as
// unread bytes in the kernel's socket buffer would be.
const bufTCPScheme = "veclab-tcp"

func init() {
	// zmq4's registry is process-wide; the name is ours alone.
	if err := zmq4.RegisterTransport(bufTCPScheme, bufTCP{transport.New("tcp")}); err != nil {
		panic("kernel: registering the " + bufTCPScheme + " zmq4 transport: " + err.Error())
	}
}

// bindEndpoint is where a kernel socket listens: a tcp:// endpoint is
// served by bufTCPScheme, any other (ipc://) as written.
func bindEndpoint(ep string) string {
	if rest, ok := strings.CutPrefix(ep, "tcp://"); ok {
		return bufTCPScheme + "://" + rest
	}
	return ep
}

// bufTCP is zmq4's tcp transport with buffered reads on accepted
// connections (Dial and Addr are tcp's own).
type bufTCP struct{ transport.Transport }

func (t bufTCP) Listen(ctx context.Context, addr string) (net.Listener, error) {
	l, err := t.Transport.Listen(ctx, addr)
	if err != nil {
		return nil, err
	}
	return bufListener{l}, nil
}

type bufListener struct{ net.Listener }

func (l bufListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &bufConn{Conn: c, r: bufio.NewReaderSize(c, 32<<10)}, nil
}

// bufConn reads through r and coalesces writes into whole ZMTP messages.
//
// zmq4 v0.17.0 sends a ROUTER's messages frame by frame (router.go rebuilds
// the message without its multipart mark, so Conn.SendMsg writes each
// frame's header and body separately): a Jupyter reply of 6 frames was 12
// write syscalls and as many TCP segments. bufConn parses the ZMTP 3 frame
// headers it is given (after the 64-byte greeting, which passes straight
// through) and hands the bytes to the socket when a message's last frame
// or a command is complete, so a reply is one write. Embedding net.Conn
// (not *net.TCPConn) keeps zmq4's multipart writev (net.Buffers.WriteTo)
// on this path too: it falls back to Write per buffer, coalesced here.
// Anything it cannot parse (reserved flag bits) turns coalescing off for
// the connection: bytes are then written as they come.
type bufConn struct {
	net.Conn
	r *bufio.Reader

	wmu      sync.Mutex
	wbuf     []byte
	greet    int    // greeting bytes still to pass through
	hdr      []byte // frame header bytes collected so far
	body     uint64 // body bytes of the current frame still expected
	last     bool   // the current frame ends a message (no MORE) or is a command
	passThru bool
}

const (
	zmtpGreetingLen = 64
	zmtpMore        = 0x01
	zmtpLong        = 0x02
	zmtpCommand     = 0x04
	maxCoalesce     = 64 << 10 // beyond this, write what is buffered
)

func (c *bufConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c *bufConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.passThru {
		return c.Conn.Write(p)
	}
	c.wbuf = append(c.wbuf, p...)
	flush := false
	for q := p; len(q) > 0; {
		switch {
		case c.greet < zmtpGreetingLen:
			n := min(len(q), zmtpGreetingLen-c.greet)
			c.greet += n
			q = q[n:]
			flush = true
		case c.body > 0:
			n := uint64(len(q))
			if n > c.body {
				n = c.body
			}
			c.body -= n
			q = q[n:]
			if c.body == 0 && c.last {
				flush = true
			}
		default: // a frame header
			c.hdr = append(c.hdr, q[0])
			q = q[1:]
			flags := c.hdr[0]
			if flags&^(zmtpMore|zmtpLong|zmtpCommand) != 0 {
				c.passThru = true
				return c.flushAll(len(p))
			}
			need := 2
			if flags&zmtpLong != 0 {
				need = 9
			}
			if len(c.hdr) < need {
				continue
			}
			if need == 2 {
				c.body = uint64(c.hdr[1])
			} else {
				c.body = binary.BigEndian.Uint64(c.hdr[1:9])
			}
			c.last = flags&zmtpMore == 0 || flags&zmtpCommand != 0
			c.hdr = c.hdr[:0]
			if c.body == 0 && c.last {
				flush = true
			}
		}
	}
	if flush || len(c.wbuf) >= maxCoalesce {
		return c.flushAll(len(p))
	}
	return len(p), nil
}

// flushAll writes the buffered bytes; n is what Write reports on success.
func (c *bufConn) flushAll(n int) (int, error) {
	if len(c.wbuf) == 0 {
		return n, nil
	}
	_, err := c.Conn.Write(c.wbuf)
	if cap(c.wbuf) > maxCoalesce {
		c.wbuf = nil
	} else {
		c.wbuf = c.wbuf[:0]
	}
	if err != nil {
		return 0, err
	}
	return n, nil
}
