package wire

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"time"
)

// ProtocolVersion is the Jupyter messaging protocol version spoken: the
// highest whose required messages the native kernel answers (jupyter_client
// docs/messaging.rst, Changelog). 5.4 asks that shutdown_request be
// answered on the control channel, which the kernel does (and still on
// shell). 5.5 (not said) replaces IOPub's PUB socket with an XPUB that
// sends iopub_welcome to each new subscriber: go-zeromq/zmq4 v0.17's XPUB
// consumes subscriptions inside the socket (pubQReader.listen) and shows
// only the merged topic set (Topics), so the kernel cannot see a second
// client subscribe and cannot welcome it. 5.5's other additions are
// answered already: kernel_info on the control channel, supported_features
// (JEP 92), the debug messages (the "debugger" feature); subshells are an
// optional feature the kernel does not claim.
const ProtocolVersion = "5.4"

// Delimiter separates routing identities from the message proper.
const Delimiter = "<IDS|MSG>"

// Errors returned by Decode and NewSigner.
var (
	ErrSignature = errors.New("wire: bad message signature")
	ErrFrames    = errors.New("wire: malformed message frames")
	ErrScheme    = errors.New("wire: unsupported signature scheme")
)

// Header is a message header (and the parent_header of a reply).
type Header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

// Message is one decoded Jupyter message. Metadata and Content stay raw
// JSON objects; handlers decode Content into their request types.
type Message struct {
	Identities   [][]byte
	Header       Header
	ParentHeader Header // zero when the message has no parent
	Metadata     json.RawMessage
	Content      json.RawMessage
	Buffers      [][]byte
}

// Signer signs and verifies messages. The zero Signer (empty key) signs
// nothing and accepts only an empty signature.
type Signer struct {
	key []byte
	new func() hash.Hash
}

// NewSigner returns the signer of a connection file's signature_scheme and
// key. Only "hmac-sha256" is supported; an empty key disables signing.
func NewSigner(scheme, key string) (*Signer, error) {
	if key == "" {
		return &Signer{}, nil
	}
	if scheme != "hmac-sha256" {
		return nil, fmt.Errorf("wire: %q (want hmac-sha256): %w", scheme, ErrScheme)
	}
	return &Signer{key: []byte(key), new: sha256.New}, nil
}

// Sign returns the hex signature of the four JSON frames.
func (s *Signer) Sign(header, parent, metadata, content []byte) string {
	if s == nil || len(s.key) == 0 {
		return ""
	}
	m := hmac.New(s.new, s.key)
	m.Write(header)
	m.Write(parent)
	m.Write(metadata)
	m.Write(content)
	return hex.EncodeToString(m.Sum(nil))
}

func (s *Signer) verify(sig []byte, header, parent, metadata, content []byte) bool {
	if s == nil || len(s.key) == 0 {
		return len(sig) == 0
	}
	want := s.Sign(header, parent, metadata, content)
	return hmac.Equal(bytes.ToLower(sig), []byte(want))
}

// Decode parses and verifies a multipart message. The signature is checked
// before any JSON is parsed; a bad or missing signature gives ErrSignature.
func Decode(frames [][]byte, s *Signer) (*Message, error) {
	d := -1
	for i, f := range frames {
		if string(f) == Delimiter {
			d = i
			break
		}
	}
	if d < 0 {
		return nil, fmt.Errorf("wire: no %s delimiter in %d frames: %w", Delimiter, len(frames), ErrFrames)
	}
	rest := frames[d+1:]
	if len(rest) < 5 {
		return nil, fmt.Errorf("wire: %d frames after the delimiter, want at least 5: %w", len(rest), ErrFrames)
	}
	sig, header, parent, metadata, content := rest[0], rest[1], rest[2], rest[3], rest[4]
	if !s.verify(sig, header, parent, metadata, content) {
		return nil, ErrSignature
	}
	m := &Message{Identities: cloneFrames(frames[:d])}
	if err := json.Unmarshal(header, &m.Header); err != nil {
		return nil, fmt.Errorf("wire: header: %v: %w", err, ErrFrames)
	}
	if m.Header.MsgType == "" {
		return nil, fmt.Errorf("wire: header has no msg_type: %w", ErrFrames)
	}
	if err := json.Unmarshal(parent, &m.ParentHeader); err != nil {
		return nil, fmt.Errorf("wire: parent_header: %v: %w", err, ErrFrames)
	}
	var err error
	if m.Metadata, err = object(metadata, "metadata"); err != nil {
		return nil, err
	}
	if m.Content, err = object(content, "content"); err != nil {
		return nil, err
	}
	m.Buffers = cloneFrames(rest[5:])
	return m, nil
}

func object(b []byte, what string) (json.RawMessage, error) {
	var v map[string]json.RawMessage
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("wire: %s is not a JSON object: %v: %w", what, err, ErrFrames)
	}
	if v == nil { // JSON null
		return json.RawMessage("{}"), nil
	}
	return json.RawMessage(bytes.Clone(b)), nil
}

func cloneFrames(fs [][]byte) [][]byte {
	if len(fs) == 0 {
		return nil
	}
	out := make([][]byte, len(fs))
	for i, f := range fs {
		out[i] = bytes.Clone(f)
	}
	return out
}

// Encode returns the signed frames of m. A zero ParentHeader encodes as {},
// nil Metadata or Content as {}.
func Encode(m *Message, s *Signer) ([][]byte, error) {
	header, err := json.Marshal(m.Header)
	if err != nil {
		return nil, err
	}
	parent := []byte("{}")
	if m.ParentHeader != (Header{}) {
		if parent, err = json.Marshal(m.ParentHeader); err != nil {
			return nil, err
		}
	}
	metadata, content := []byte(m.Metadata), []byte(m.Content)
	if len(metadata) == 0 {
		metadata = []byte("{}")
	}
	if len(content) == 0 {
		content = []byte("{}")
	}
	frames := make([][]byte, 0, len(m.Identities)+6+len(m.Buffers))
	frames = append(frames, m.Identities...)
	frames = append(frames, []byte(Delimiter), []byte(s.Sign(header, parent, metadata, content)),
		header, parent, metadata, content)
	frames = append(frames, m.Buffers...)
	return frames, nil
}

// NewID returns a random UUID (version 4) string.
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("wire: crypto/rand failed: " + err.Error())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// New returns a message of type msgType in session, child of parent when
// parent is not nil (it then inherits parent's routing identities), with
// content marshalled from content (nil gives {}).
func New(msgType, session string, parent *Message, content any) (*Message, error) {
	m := &Message{Header: Header{
		MsgID:    NewID(),
		Session:  session,
		Username: "kernel",
		Date:     time.Now().UTC().Format(time.RFC3339Nano),
		MsgType:  msgType,
		Version:  ProtocolVersion,
	}}
	if parent != nil {
		m.ParentHeader = parent.Header
		m.Identities = parent.Identities
	}
	if content != nil {
		raw, err := json.Marshal(content)
		if err != nil {
			return nil, fmt.Errorf("wire: %s content: %w", msgType, err)
		}
		m.Content = raw
	}
	return m, nil
}
