package kernel

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/go-zeromq/zmq4"

	"github.com/veclab/veclab/kernel/eval"
	"github.com/veclab/veclab/kernel/internal/wire"
)

// The debug protocol, as much of it as JupyterLab's variables panel uses:
// eval.Debugger answers each request (the browser kernel's too); the
// kernel sends its reply on the control channel and its event on IOPub.
// Requests come on the control goroutine while a cell may run: the
// debugger reads the interpreter only when the shell's evalMu is free,
// and answers the variables of the last cell's end otherwise.

// newDebugger returns the kernel's debugger over interp, whose reads wait
// for evalMu.
func newDebugger(interp eval.Interpreter, evalMu *sync.Mutex) *eval.Debugger {
	l, _ := interp.(eval.Lister)
	return eval.NewDebugger(l, evalMu, filepath.Join(os.TempDir(), "veclab-cells")+string(filepath.Separator))
}

// debugRequest answers a debug_request.
func (k *kernel) debugRequest(sock zmq4.Socket, msg *wire.Message) {
	reply, event := k.dbg.Answer(msg.Content)
	if reply["success"] != true && reply["command"] == "" {
		k.logf("debug_request: %v", reply["message"])
	}
	k.reply(sock, msg, "debug_reply", reply)
	if event != nil {
		k.publish("debug_event", msg, event)
	}
}
