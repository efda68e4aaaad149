package kernel

import (
	"bytes"
	"encoding/binary"
	"net"
	"testing"
)

// recConn records what bufConn hands to the socket, one entry per Write.
type recConn struct {
	net.Conn
	writes [][]byte
}

func (c *recConn) Write(p []byte) (int, error) {
	c.writes = append(c.writes, append([]byte(nil), p...))
	return len(p), nil
}

func frame(flags byte, body []byte) [][]byte {
	if len(body) > 255 {
		h := make([]byte, 9)
		h[0] = flags | zmtpLong
		binary.BigEndian.PutUint64(h[1:], uint64(len(body)))
		return [][]byte{h, body}
	}
	return [][]byte{{flags, byte(len(body))}, body}
}

func TestBufConnCoalescesMessages(t *testing.T) {
	greeting := bytes.Repeat([]byte{0xff}, zmtpGreetingLen)
	long := bytes.Repeat([]byte("x"), 300)
	var msg [][]byte // a 3-frame message, written piece by piece
	msg = append(msg, frame(zmtpMore, []byte("<IDS|MSG>"))...)
	msg = append(msg, frame(zmtpMore, long)...)
	msg = append(msg, frame(0, []byte("{}"))...)
	tests := []struct {
		name   string
		pieces [][]byte
		want   [][]byte // the socket writes expected
	}{
		{"greeting passes through", [][]byte{greeting}, [][]byte{greeting}},
		{"multipart message is one write", append([][]byte{greeting}, msg...),
			[][]byte{greeting, bytes.Join(msg, nil)}},
		{"command is flushed", append([][]byte{greeting}, frame(zmtpCommand, []byte("\x05READY"))...),
			[][]byte{greeting, append([]byte{zmtpCommand, 6}, "\x05READY"...)}},
		{"empty last frame flushes", append([][]byte{greeting}, frame(0, nil)...),
			[][]byte{greeting, {0, 0}}},
		{"whole message in one call", [][]byte{greeting, bytes.Join(msg, nil)},
			[][]byte{greeting, bytes.Join(msg, nil)}},
		{"reserved flag bits turn coalescing off", [][]byte{greeting, {0x80, 1}, {'a'}},
			[][]byte{greeting, {0x80, 1}, {'a'}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := &recConn{}
			c := &bufConn{Conn: rc}
			for _, p := range tt.pieces {
				if n, err := c.Write(p); err != nil || n != len(p) {
					t.Fatalf("Write(%d bytes) = %d, %v", len(p), n, err)
				}
			}
			if len(rc.writes) != len(tt.want) {
				t.Fatalf("%d socket writes, want %d: %q", len(rc.writes), len(tt.want), rc.writes)
			}
			for i := range tt.want {
				if !bytes.Equal(rc.writes[i], tt.want[i]) {
					t.Errorf("write %d = %q, want %q", i, rc.writes[i], tt.want[i])
				}
			}
		})
	}
}

func TestBindEndpoint(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"tcp://127.0.0.1:5555", bufTCPScheme + "://127.0.0.1:5555"},
		{"ipc://kernel-1", "ipc://kernel-1"},
	} {
		if got := bindEndpoint(tt.in); got != tt.want {
			t.Errorf("bindEndpoint(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
