package comm

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
)

// Sentinel errors.
var (
	ErrNoTarget   = errors.New("comm: no such target")
	ErrNoComm     = errors.New("comm: no such comm")
	ErrClosed     = errors.New("comm: comm is closed")
	ErrNoKernel   = errors.New("comm: no kernel is connected (comms need a Jupyter front end)")
	ErrBadMessage = errors.New("comm: bad message")
)

// Msg is what a comm message carries: the JSON data, the message metadata
// and binary buffers (sent as extra frames, not as JSON).
type Msg struct {
	Data     map[string]any
	Metadata map[string]any
	Buffers  [][]byte
}

// Transport sends the kernel side's comm messages to the front end; the
// kernel implements it.
type Transport interface {
	// Send publishes msgType (comm_open, comm_msg or comm_close) with
	// this content on IOPub, as a child of the request being handled.
	Send(msgType string, content map[string]any, metadata map[string]any, buffers [][]byte) error
	// Preempt stops the running handler as an interrupt_request does.
	Preempt()
	// ParentID is the msg_id of the request being handled (an
	// execute_request or the comm_msg whose callback runs): an Output
	// widget captures the outputs that are its children.
	ParentID() string
}

// OpenHandler accepts a comm the front end opened for its target, with the
// comm_open's data; an error closes the comm again.
type OpenHandler func(c *Comm, open Msg) error

// Manager is a registry of targets and the open comms.
type Manager struct {
	mu        sync.Mutex
	targets   map[string]OpenHandler // guarded by mu
	comms     map[string]*Comm       // open comms by id, guarded by mu
	transport Transport              // guarded by mu
	// preemptible is the set of comm ids whose messages preempt the
	// running handler (Preemptible); preempted says one did. Guarded by mu.
	preemptible map[string]bool
	preempted   bool
}

// NewManager returns an empty manager with no transport.
func NewManager() *Manager {
	return &Manager{targets: map[string]OpenHandler{}, comms: map[string]*Comm{}}
}

// Default is the process's manager: the kernel's and the cells'.
var Default = NewManager()

// SetTransport installs t (nil disconnects) and returns the previous one.
func (m *Manager) SetTransport(t Transport) Transport {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.transport
	m.transport = t
	return old
}

// Connected reports whether a transport is installed.
func (m *Manager) Connected() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.transport != nil
}

// ParentID is the msg_id of the request the kernel is handling, "" with
// no transport.
func (m *Manager) ParentID() string {
	m.mu.Lock()
	t := m.transport
	m.mu.Unlock()
	if t == nil {
		return ""
	}
	return t.ParentID()
}

// Register makes h the handler of comms the front end opens for target;
// nil removes the target. An empty target name is an error.
func (m *Manager) Register(target string, h OpenHandler) error {
	if target == "" {
		return fmt.Errorf("comm: empty target name: %w", ErrBadMessage)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if h == nil {
		delete(m.targets, target)
		return nil
	}
	m.targets[target] = h
	return nil
}

// Targets lists the registered target names, sorted.
func (m *Manager) Targets() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.targets))
	for t := range m.targets {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Open opens a comm from the kernel side: it sends comm_open for target
// with data, metadata and buffers and returns the comm, open at once (the
// protocol has no acknowledgement; a front end without the target closes
// it again).
func (m *Manager) Open(target string, msg Msg) (*Comm, error) {
	if target == "" {
		return nil, fmt.Errorf("comm: empty target name: %w", ErrBadMessage)
	}
	m.mu.Lock()
	t := m.transport
	m.mu.Unlock()
	if t == nil {
		return nil, ErrNoKernel
	}
	c := &Comm{id: NewID(), target: target, m: m}
	m.mu.Lock()
	m.comms[c.id] = c
	m.mu.Unlock()
	content := map[string]any{"comm_id": c.id, "target_name": target, "data": nonNil(msg.Data)}
	if err := t.Send("comm_open", content, msg.Metadata, msg.Buffers); err != nil {
		m.forget(c.id)
		return nil, err
	}
	return c, nil
}

// Get returns the open comm with this id, or nil.
func (m *Manager) Get(id string) *Comm {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.comms[id]
}

// Info lists the open comms, id → {"target_name": …}, those of target
// only when target is not "" (comm_info_reply's comms).
func (m *Manager) Info(target string) map[string]map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]map[string]string{}
	for id, c := range m.comms {
		if target == "" || c.target == target {
			out[id] = map[string]string{"target_name": c.target}
		}
	}
	return out
}

// HandleOpen handles a comm_open from the front end. With no handler for
// the target, or when the handler fails, it sends comm_close for the
// comm id and returns the reason. A panic in the handler is returned as a
// *PanicError.
func (m *Manager) HandleOpen(id, target string, msg Msg) (err error) {
	if id == "" {
		return fmt.Errorf("comm: comm_open without a comm_id: %w", ErrBadMessage)
	}
	m.mu.Lock()
	h := m.targets[target]
	_, dup := m.comms[id]
	var c *Comm
	if h != nil && !dup {
		c = &Comm{id: id, target: target, m: m}
		m.comms[id] = c
	}
	m.mu.Unlock()
	switch {
	case dup:
		return fmt.Errorf("comm: comm_open for %s, which is open already: %w", id, ErrBadMessage)
	case h == nil:
		m.sendClose(id)
		return fmt.Errorf("comm: %q (comm %s closed): %w", target, id, ErrNoTarget)
	}
	defer func() {
		if err != nil {
			m.forget(id)
			m.sendClose(id)
		}
	}()
	return protect(func() error { return h(c, msg) })
}

// HandleMsg delivers a comm_msg from the front end to its comm's OnMsg
// handler. A panic in the handler is returned as a *PanicError.
func (m *Manager) HandleMsg(id string, msg Msg) error {
	c := m.Get(id)
	if c == nil {
		return fmt.Errorf("comm: comm_msg for %q: %w", id, ErrNoComm)
	}
	if c.pending.Add(-1) < 0 {
		c.pending.Store(0) // delivered without Arrived (a test, the wasm kernel)
	}
	c.mu.Lock()
	f := c.onMsg
	c.mu.Unlock()
	if f == nil {
		return nil
	}
	return protect(func() error { f(msg); return nil })
}

// HandleClose handles a comm_close from the front end: the comm is closed
// (no comm_close is sent back) and its OnClose handler runs.
func (m *Manager) HandleClose(id string, msg Msg) error {
	c := m.Get(id)
	if c == nil {
		return fmt.Errorf("comm: comm_close for %q: %w", id, ErrNoComm)
	}
	f := c.markClosed()
	if f == nil {
		return nil
	}
	return protect(func() error { f(msg); return nil })
}

func (m *Manager) forget(id string) {
	m.mu.Lock()
	delete(m.comms, id)
	m.mu.Unlock()
}

func (m *Manager) sendClose(id string) {
	m.mu.Lock()
	t := m.transport
	m.mu.Unlock()
	if t != nil {
		t.Send("comm_close", map[string]any{"comm_id": id, "data": map[string]any{}}, nil, nil)
	}
}

// Comm is one open comm.
type Comm struct {
	id, target string
	m          *Manager
	mu         sync.Mutex
	closed     bool      // guarded by mu
	onMsg      func(Msg) // guarded by mu
	onClose    func(Msg) // guarded by mu
	pending    atomic.Int64
}

// ID returns the comm id.
func (c *Comm) ID() string { return c.id }

// Target returns the target name.
func (c *Comm) Target() string { return c.target }

// Closed reports whether either side closed the comm.
func (c *Comm) Closed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// OnMsg sets the handler of comm_msg from the front end (nil: drop them).
func (c *Comm) OnMsg(f func(Msg)) {
	c.mu.Lock()
	c.onMsg = f
	c.mu.Unlock()
}

// OnClose sets the handler run when the front end closes the comm.
func (c *Comm) OnClose(f func(Msg)) {
	c.mu.Lock()
	c.onClose = f
	c.mu.Unlock()
}

// Send sends a comm_msg to the front end.
func (c *Comm) Send(msg Msg) error {
	if c.Closed() {
		return fmt.Errorf("comm: %s: %w", c.id, ErrClosed)
	}
	c.m.mu.Lock()
	t := c.m.transport
	c.m.mu.Unlock()
	if t == nil {
		return ErrNoKernel
	}
	return t.Send("comm_msg", map[string]any{"comm_id": c.id, "data": nonNil(msg.Data)}, msg.Metadata, msg.Buffers)
}

// Close closes the comm from the kernel side (comm_close with data);
// closing a closed comm is a no-op.
func (c *Comm) Close(data map[string]any) error {
	c.mu.Lock()
	was := c.closed
	c.closed = true
	c.mu.Unlock()
	if was {
		return nil
	}
	c.m.forget(c.id)
	c.m.mu.Lock()
	t := c.m.transport
	c.m.mu.Unlock()
	if t == nil {
		return ErrNoKernel
	}
	return t.Send("comm_close", map[string]any{"comm_id": c.id, "data": nonNil(data)}, nil, nil)
}

// markClosed closes the comm on the front end's word and returns its
// OnClose handler (nil when closed already).
func (c *Comm) markClosed() func(Msg) {
	c.mu.Lock()
	was := c.closed
	c.closed = true
	f := c.onClose
	c.mu.Unlock()
	c.m.forget(c.id)
	if was {
		return nil
	}
	return f
}

// PanicError is a panic in a handler, returned instead of raised.
type PanicError struct {
	Value any    // what the handler panicked with
	Stack string // the goroutine's stack at the panic
}

func (e *PanicError) Error() string { return fmt.Sprintf("comm: handler panicked: %v", e.Value) }

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

func protect(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: string(debug.Stack())}
		}
	}()
	return f()
}

func nonNil(d map[string]any) map[string]any {
	if d == nil {
		return map[string]any{}
	}
	return d
}

// NewID returns a random UUID (version 4) in the 32-hex-digit form
// Jupyter uses for comm and model ids.
func NewID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x", b[:])
}

// Decode reads a comm message's content (comm_open, comm_msg or
// comm_close) into its comm id, target name (comm_open only) and data.
func Decode(content []byte) (id, target string, data map[string]any, err error) {
	var c struct {
		CommID string         `json:"comm_id"`
		Target string         `json:"target_name"`
		Data   map[string]any `json:"data"`
	}
	if err := json.Unmarshal(content, &c); err != nil {
		return "", "", nil, fmt.Errorf("comm: %v: %w", err, ErrBadMessage)
	}
	if c.CommID == "" {
		return "", "", nil, fmt.Errorf("comm: no comm_id: %w", ErrBadMessage)
	}
	return c.CommID, c.Target, nonNil(c.Data), nil
}

// Arrived tells the manager that a comm_msg for comm id has been received
// and waits to be handled (the kernel calls it from its socket reader,
// before queueing the message). It feeds [Comm.Pending], and preempts a
// handler running under [Manager.Preemptible] for that comm.
func (m *Manager) Arrived(id string) {
	m.mu.Lock()
	c := m.comms[id]
	t := m.transport
	preempt := false
	if c != nil {
		c.pending.Add(1)
		if m.preemptible != nil && m.preemptible[id] && !m.preempted {
			m.preempted, preempt = true, true
		}
	}
	m.mu.Unlock()
	if preempt && t != nil {
		t.Preempt()
	}
}

// Pending returns how many comm_msg for this comm have been received and
// not yet handled: a handler that only needs the latest state (a redraw)
// can leave the work to the last of them.
func (c *Comm) Pending() int { return int(c.pending.Load()) }

// Preemptible runs f, a redraw that a newer message makes stale: when a
// comm_msg for one of the comms ids arrives while f runs, the kernel stops
// f as an interrupt does (f panics out of this call with the interrupt)
// and does not report that as an error ([Manager.TakePreempted]). Without
// a kernel, f just runs.
func (m *Manager) Preemptible(ids []string, f func()) {
	m.mu.Lock()
	set := make(map[string]bool, len(ids))
	pending := false
	for _, id := range ids {
		set[id] = true
		if c := m.comms[id]; c != nil && c.pending.Load() > 0 {
			pending = true
		}
	}
	old := m.preemptible
	m.preemptible = set
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.preemptible = old
		m.mu.Unlock()
	}()
	if pending {
		return // stale before it starts: the queued message redraws
	}
	f()
}

// TakePreempted reports whether a handler was preempted since the last
// call, and resets that: the kernel asks after each callback, to leave an
// interrupt it caused unreported.
func (m *Manager) TakePreempted() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.preempted
	m.preempted = false
	return p
}
