// Package comm keeps the comms of Jupyter's comm protocol: named,
// bidirectional channels between kernel-side objects and their front-end
// twins (ipywidgets' models talk over them). See the messaging spec,
// "Custom Messages" (jupyter-client docs, messaging.html#custom-messages).
//
// A [Manager] holds the registry of targets (name → [OpenHandler]) and
// the open comms. The kernel feeds it what the front end sends
// ([Manager.HandleOpen], [Manager.HandleMsg], [Manager.HandleClose]) and
// answers comm_info_request from [Manager.Info]; what the kernel side
// sends ([Manager.Open], [Comm.Send], [Comm.Close]) goes out through the
// [Transport] the kernel installs. [Default] is the process's manager:
// kernel/widget (bound for cells) and the kernel meet there, as the
// display package and the evaluation core meet in kernel/internal/hook.
//
// # Protocol rules kept here
//
//   - A comm_open for a target nobody registered is answered with a
//     comm_close for that comm id, so the front end does not wait on a
//     comm that will never answer; so is an open whose handler fails.
//   - A comm_msg or comm_close for an unknown comm id is dropped with an
//     error ([ErrNoComm]); the spec says such messages are ignored.
//   - After Close (either side), Send fails with [ErrClosed] and the comm
//     leaves Info.
//   - comm ids from the kernel side are fresh UUIDs.
//
// # Concurrency
//
// A Manager and its Comms are safe for concurrent use. Handlers
// (OpenHandler, OnMsg, OnClose) run on the goroutine that called Handle…,
// without the manager's lock held, so they may send, open and close
// comms. The kernel calls Handle… on its shell goroutine inside the
// evaluation core's Call, so a handler runs like a cell: its output goes
// to the front end as a child of the triggering message, an interrupt
// stops it, and a panic becomes an error ([*PanicError]).
package comm
