package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Reference signature computed with Python's hmac module (what
// jupyter_client uses): hmac.new(key, h+p+m+c, sha256).hexdigest().
func TestSignMatchesPythonHMAC(t *testing.T) {
	s, err := NewSigner("hmac-sha256", "secret-key")
	if err != nil {
		t.Fatal(err)
	}
	got := s.Sign([]byte(`{"msg_id":"1"}`), []byte(`{}`), []byte(`{}`), []byte(`{"code":"1+1"}`))
	const want = "f29edc2ae347e99e996cf426a9068abd72bbac08f131d7b7d863f0430600434a"
	if got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
}

func TestNewSigner(t *testing.T) {
	for _, tc := range []struct {
		scheme, key string
		err         error
	}{
		{"hmac-sha256", "k", nil},
		{"", "", nil},         // signing disabled
		{"hmac-md5", "", nil}, // scheme irrelevant without a key
		{"hmac-md5", "k", ErrScheme},
		{"", "k", ErrScheme},
	} {
		_, err := NewSigner(tc.scheme, tc.key)
		if !errors.Is(err, tc.err) {
			t.Errorf("NewSigner(%q, %q) = %v, want %v", tc.scheme, tc.key, err, tc.err)
		}
	}
}

func sample(t *testing.T) *Message {
	m, err := New("execute_request", "sess", nil, map[string]any{"code": "1+1"})
	if err != nil {
		t.Fatal(err)
	}
	m.Identities = [][]byte{[]byte("peer-1"), []byte("peer-2")}
	m.Buffers = [][]byte{[]byte("buf")}
	return m
}

func TestRoundTrip(t *testing.T) {
	s, _ := NewSigner("hmac-sha256", "k")
	m := sample(t)
	frames, err := Encode(m, s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(frames, s)
	if err != nil {
		t.Fatal(err)
	}
	if got.Header != m.Header || got.ParentHeader != (Header{}) {
		t.Errorf("headers: got %+v / %+v", got.Header, got.ParentHeader)
	}
	if len(got.Identities) != 2 || string(got.Identities[1]) != "peer-2" {
		t.Errorf("identities: %q", got.Identities)
	}
	if string(got.Content) != `{"code":"1+1"}` || string(got.Metadata) != "{}" {
		t.Errorf("content %s metadata %s", got.Content, got.Metadata)
	}
	if len(got.Buffers) != 1 || string(got.Buffers[0]) != "buf" {
		t.Errorf("buffers: %q", got.Buffers)
	}
	reply, err := New("execute_reply", "kern", got, map[string]any{"status": "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if reply.ParentHeader != m.Header || string(reply.Identities[0]) != "peer-1" {
		t.Errorf("reply does not point at its parent: %+v", reply)
	}
}

func TestDecodeRejects(t *testing.T) {
	s, _ := NewSigner("hmac-sha256", "k")
	frames, err := Encode(sample(t), s)
	if err != nil {
		t.Fatal(err)
	}
	d := 2 // index of the delimiter in frames
	mod := func(f func(fs [][]byte) [][]byte) [][]byte {
		c := make([][]byte, len(frames))
		for i := range frames {
			c[i] = bytes.Clone(frames[i])
		}
		return f(c)
	}
	other, _ := NewSigner("hmac-sha256", "other")
	resign := func(fs [][]byte) [][]byte {
		fs[d+1] = []byte(s.Sign(fs[d+2], fs[d+3], fs[d+4], fs[d+5]))
		return fs
	}
	for _, tc := range []struct {
		name   string
		frames [][]byte
		signer *Signer
		err    error
	}{
		{"no delimiter", mod(func(fs [][]byte) [][]byte { return append(fs[:d], fs[d+1:]...) }), s, ErrFrames},
		{"too few frames", frames[:d+4], s, ErrFrames},
		{"missing signature", mod(func(fs [][]byte) [][]byte { fs[d+1] = nil; return fs }), s, ErrSignature},
		{"wrong key", frames, other, ErrSignature},
		{"tampered content", mod(func(fs [][]byte) [][]byte { fs[d+5] = []byte(`{"code":"os.Exit(1)"}`); return fs }), s, ErrSignature},
		{"signature present but signing disabled", frames, &Signer{}, ErrSignature},
		{"header not JSON", mod(func(fs [][]byte) [][]byte { fs[d+2] = []byte("{"); return resign(fs) }), s, ErrFrames},
		{"no msg_type", mod(func(fs [][]byte) [][]byte { fs[d+2] = []byte(`{"msg_id":"x"}`); return resign(fs) }), s, ErrFrames},
		{"content not an object", mod(func(fs [][]byte) [][]byte { fs[d+5] = []byte(`[1]`); return resign(fs) }), s, ErrFrames},
		{"metadata not JSON", mod(func(fs [][]byte) [][]byte { fs[d+4] = []byte(`x`); return resign(fs) }), s, ErrFrames},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.frames, tc.signer)
			if !errors.Is(err, tc.err) {
				t.Fatalf("Decode error = %v, want %v", err, tc.err)
			}
		})
	}
	// Uppercase hex is the same signature.
	up := mod(func(fs [][]byte) [][]byte { fs[d+1] = bytes.ToUpper(fs[d+1]); return fs })
	if _, err := Decode(up, s); err != nil {
		t.Errorf("uppercase signature rejected: %v", err)
	}
}

func TestParseConnection(t *testing.T) {
	good := `{"transport":"tcp","ip":"127.0.0.1","shell_port":1,"control_port":2,"iopub_port":3,"stdin_port":4,"hb_port":5,"signature_scheme":"hmac-sha256","key":"k"}`
	c, err := ParseConnection([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Endpoint(c.IOPubPort); got != "tcp://127.0.0.1:3" {
		t.Errorf("Endpoint = %s", got)
	}
	c.Transport = "ipc"
	if got := c.Endpoint(4); got != "ipc://127.0.0.1-4" {
		t.Errorf("ipc Endpoint = %s", got)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"bad json", "{", "[", "connection file"},
		{"transport", `"tcp"`, `"udp"`, "transport"},
		{"port", `"hb_port":5`, `"hb_port":0`, "hb_port"},
		{"scheme", `hmac-sha256`, `hmac-md5`, "signature scheme"},
		{"ip", `"127.0.0.1"`, `""`, "no ip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConnection([]byte(strings.Replace(good, tc.from, tc.to, 1)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestNewID(t *testing.T) {
	a, b := NewID(), NewID()
	if a == b || len(a) != 36 || a[14] != '4' {
		t.Fatalf("NewID: %s %s", a, b)
	}
}

// FuzzDecode: Decode never panics, and whatever it accepts re-encodes to
// frames it accepts again with the same header and content.
func FuzzDecode(f *testing.F) {
	s, _ := NewSigner("hmac-sha256", "k")
	m, _ := New("kernel_info_request", "s", nil, nil)
	frames, _ := Encode(m, s)
	f.Add(bytes.Join(frames, []byte{0}), true)
	f.Add([]byte("<IDS|MSG>\x00\x00{}\x00{}\x00{}\x00{}"), false)
	f.Fuzz(func(t *testing.T, data []byte, signed bool) {
		signer := &Signer{}
		if signed {
			signer = s
		}
		fs := bytes.Split(data, []byte{0})
		msg, err := Decode(fs, signer)
		if err != nil {
			return
		}
		out, err := Encode(msg, signer)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Decode(out, signer)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if again.Header != msg.Header || !json.Valid(again.Content) {
			t.Fatalf("round trip changed the message")
		}
	})
}
