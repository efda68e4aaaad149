package main

import (
	"bytes"
	"net"
	"strings"
	"testing"
)

// TestReproducePGErrors: a -pg that cannot be used stops reproduce before
// any experiment runs, with a message naming the flag and what to do.
func TestReproducePGErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	for _, tc := range []struct{ pg, want string }{
		{"postgres://lab:secret@" + closed + "/db?connect_timeout=3", "nothing listens"},
		{"postgres://lab:secret@[::1", "PostgreSQL URL"},
	} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"reproduce", "-scale", "small", "-only", "E07", "-pg", tc.pg}, &stdout, &stderr)
		msg := stderr.String()
		if code == 0 || !strings.Contains(msg, "-pg ") || !strings.Contains(msg, tc.want) || strings.Contains(msg, "secret") {
			t.Errorf("-pg %s: exit %d, stderr %q; want a failure naming -pg and %q, without the password", tc.pg, code, msg, tc.want)
		}
		if strings.Contains(stdout.String(), "E07  ran") {
			t.Errorf("-pg %s: E07 ran", tc.pg)
		}
	}
}
