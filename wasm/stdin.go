//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"sync"
	"syscall/js"
)

// Standard input in the browser.
//
// A cell that reads os.Stdin (fmt.Scanln, bufio.Scanner) reads file
// descriptor 0, which Go on js/wasm reads through fs.read of wasm_exec.js
// (syscall/fs_js.go's Read, an asynchronous call whose goroutine waits on
// a channel for the callback). wasm_exec.js answers ENOSYS; the capture
// (captureJS) sends reads of fd 0 to readStdin instead, which answers them
// a line at a time from the cell's Input: the page (worker.js, kernel.js)
// turns that into Jupyter's input_request and the front end's input_reply
// into the line, as the native kernel does (kernel/execute.go).
//
// JupyterLite's Pyodide kernel needs more for the same: Python's input() is
// synchronous, so its worker blocks in Atomics.wait on a SharedArrayBuffer
// (pyodide-kernel's coincident.worker.ts, sendInputRequest) or in a
// synchronous XMLHttpRequest that JupyterLite's service worker answers
// (/api/stdin), either of which needs the page's help. Go's runtime needs
// neither: a goroutine waiting on a channel returns the thread to the
// worker's event loop, where the page's answer arrives as a plain message.
// So input works on every page, cross-origin isolated or not, and an
// interrupt reaches a cell waiting for input (the worker is idle then).
//
// The line read ends with "\n"; what the reader does not take stays for its
// next read, within the cell. When no input can be had (the front end does
// not allow stdin, the read is not in a cell, an interrupt) the cell's
// standard error says why and the read sees end of file until the cell ends,
// as natively; the next cell starts with a fresh, empty stdin.
type stdinState struct {
	mu      sync.Mutex
	pending []byte // the rest of the last line
	eof     bool   // an Input failed: end of file until the cell ends
	intr    chan struct{}
}

// interrupt interrupts the running cell and any Input it waits in.
func (b *bridge) interrupt() {
	b.sess.Interrupt()
	b.stdin.mu.Lock()
	if b.stdin.intr != nil {
		close(b.stdin.intr)
	}
	b.stdin.intr = make(chan struct{})
	b.stdin.mu.Unlock()
}

func (b *bridge) interrupted() chan struct{} {
	b.stdin.mu.Lock()
	defer b.stdin.mu.Unlock()
	if b.stdin.intr == nil {
		b.stdin.intr = make(chan struct{})
	}
	return b.stdin.intr
}

// resetStdin gives the next cell an empty stdin.
func (b *bridge) resetStdin() {
	b.stdin.mu.Lock()
	b.stdin.pending, b.stdin.eof = nil, false
	b.stdin.mu.Unlock()
}

// readStdin is the capture's stdinRead(buffer, offset, length, callback):
// fs.read of fd 0, answered with callback(null, n) (n = 0: end of file). It
// must not block (it runs on the event loop's call into Go), so the wait
// for a line is a goroutine's.
func (b *bridge) readStdin(_ js.Value, args []js.Value) any {
	buffer, offset, length, callback := args[0], args[1].Int(), args[2].Int(), args[3]
	go func() {
		n, err := b.stdinBytes(buffer, offset, length)
		if err != nil {
			callback.Invoke(js.Global().Get("Error").New(err.Error()))
			return
		}
		callback.Invoke(js.Null(), n)
	}()
	return nil
}

func (b *bridge) stdinBytes(buffer js.Value, offset, length int) (n int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("veclab: reading standard input: %v", r)
		}
	}()
	b.stdin.mu.Lock()
	if len(b.stdin.pending) == 0 && !b.stdin.eof {
		b.stdin.mu.Unlock()
		out := b.current()
		var line string
		if out == nil {
			err = errors.New("no cell is running")
		} else {
			b.drain(out) // a prompt printed before the read comes first
			line, err = out.Input("", false)
		}
		b.stdin.mu.Lock()
		if err != nil {
			b.stdin.eof = true
			if out != nil {
				out.stream("stderr", fmt.Sprintf("veclab: standard input: %v; the cell reads end of file\n", err))
			}
		} else {
			b.stdin.pending = append(b.stdin.pending, line+"\n"...)
		}
	}
	defer b.stdin.mu.Unlock()
	if b.stdin.eof && len(b.stdin.pending) == 0 {
		return 0, nil
	}
	n = min(length, len(b.stdin.pending))
	js.CopyBytesToJS(buffer.Call("subarray", offset, offset+n), b.stdin.pending[:n])
	b.stdin.pending = b.stdin.pending[n:]
	return n, nil
}

// Input implements eval.Output: the page's onInput(prompt, password), a
// Promise of the line (kernel.js sends input_request); without onInput
// (a caller that is not a Jupyter front end) there is no input. An
// interrupt ends the wait.
func (o *cellOutput) Input(prompt string, password bool) (string, error) {
	if o.onInput.Type() != js.TypeFunction {
		return "", errors.New("this page gives the kernel no standard input (veclab.eval without opts.onInput)")
	}
	intr := o.b.interrupted()
	type answer struct {
		line string
		err  error
	}
	ch := make(chan answer, 1)
	ok := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- answer{line: args[0].String()}
		return nil
	})
	fail := js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "no input"
		if len(args) > 0 {
			if m := args[0].Get("message"); m.Type() == js.TypeString {
				msg = m.String()
			} else {
				msg = args[0].String()
			}
		}
		ch <- answer{err: errors.New(msg)}
		return nil
	})
	var p js.Value
	func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- answer{err: fmt.Errorf("onInput: %v", r)}
			}
		}()
		p = o.onInput.Invoke(prompt, password)
		p.Call("then", ok, fail)
	}()
	select {
	case a := <-ch:
		ok.Release()
		fail.Release()
		return a.line, a.err
	case <-intr:
		// ok and fail stay: the page may still settle the Promise.
		return "", errors.New("interrupted while waiting for input")
	}
}
