// The Go (veclab) kernel of the site. The evaluation core (kernel/eval:
// gomacro with the lab and engine bound, compiled to veclab.wasm) runs in a
// Web Worker (worker.js); this side turns Jupyter messages into requests to
// the worker and its answers back into Jupyter messages, on JupyterLite's
// BaseKernel (as @jupyterlite/javascript-kernel does for its iframe).
//
// Interrupt: JupyterLite's kernel client only cancels the queued cells
// (it has no way into a kernel), so the plugin wraps its interrupt to
// first set a flag in a SharedArrayBuffer shared with the worker, which
// the Go side polls while a cell runs (wasm/main.go); the running cell
// then ends with an Interrupted error and the worker lives on. Shared
// memory needs a cross-origin isolated page (`veclab serve` sends the
// COOP/COEP headers; on a host that does not, the site's service worker
// adds them: src/isolation-sw.js).
//
// The kernel survives what its worker cannot: Go on js/wasm has one
// thread and no preemption, so the poll runs only when the cell blocks or
// waits, and a loop that calls nothing that does (n++ forever) never
// sees the flag. A cell still running interruptGrace after an interrupt
// (or after any interrupt, on a page without shared memory) has its
// worker ended and a new one started on the page's compiled module: the
// cell ends with an error saying so, and the next cell runs in a new Go
// session. A Go program that ends (a fatal error, a panic in a
// goroutine) is replaced the same way.
//
// Standard input: a cell that reads os.Stdin asks the worker's page for a
// line ({type: "input"}, wasm/stdin.go); the kernel sends input_request
// on the stdin channel as a child of the cell's execute_request and
// answers the worker with the front end's input_reply. JupyterLite's
// kernel client hands input_reply to handleMessage at once, outside the
// queue that holds the running execute_request (@jupyterlite/services
// 0.8.4, lib/kernel/client.js: "Stdin handled by SharedArrayBuffer …
// we cannot use processMsg as the mutex is already held"), so no service
// worker is involved. A request with allow_stdin false gets an error (the
// cell reads end of file, and its stderr says why), as ipykernel's
// StdinNotImplementedError; an interrupt while a cell waits for input
// reaches the Go side as a message (the worker is idle then), on any page.
//
// Comms (Jupyter widgets): comm_open, comm_msg and comm_close of the front
// end go to the worker's Go side (kernel/comm's registry, kernel/widget's
// targets; wasm/comm.go), whose handler runs as a cell runs, its outputs
// children of the comm message; what the Go side sends comes back as
// "comm" messages, published under the request they belong to.
// comm_info_request, which JupyterLite's BaseKernel does not dispatch, is
// answered here. A comm_msg is not waited for (see handleMessage), so a
// widget's change reaches the Go side while the last change's callback
// runs, and preempts a stale redraw there when that redraw lets the Go
// scheduler run (time.Sleep, channels, the engine's long operations: Go
// on js/wasm has one thread and no preemption, as for the interrupt).
//
// The debugger: kernel_info says debugger (and the kernel spec's
// metadata), so JupyterLab's debugger extension enables its bug button and
// side panel; its debug_request messages (control channel) go to the Go
// side's eval.Debugger, which answers as the native kernel does: the
// session's variables with their Go types and values, a variable rendered
// as a cell would show it, breakpoints answered as unsupported (_debug).
import { PageConfig, URLExt } from "@jupyterlab/coreutils";
import { KernelMessage } from "@jupyterlab/services";
import { deserialize } from "@jupyterlab/services/lib/kernel/serialize";
import { BaseKernel, IKernelClient, IKernelSpecs } from "@jupyterlite/services";

const KERNEL_NAME = "veclab";

// The loading of veclab.wasm and the kernel workers are boot.js's
// (build/veclab-boot.js, run by index.html before JupyterLab's code, so
// that the module loads and Go starts while JupyterLab does).
const boot = globalThis.veclabBoot;

const kernels = new Map(); // id → VeclabKernel, for the interrupt hook

// interruptGrace is how long a running cell has to stop after an
// interrupt before its Go session is replaced (see above).
const interruptGrace = 3000;

// prewarm starts a spare worker if boot.js has none (it starts one with
// the page).
export function prewarm() {
	boot.prewarm();
}

export class VeclabKernel extends BaseKernel {
	constructor(options) {
		super(options);
		this._pending = new Map(); // request id → {resolve, reject, onOutput}
		this._headers = new Map(); // msg_id → header of recent requests: the parents of what comms send
		this._next = 1;
		this._ready = new Promise((resolve, reject) => {
			this._readyResolve = resolve;
			this._readyReject = reject;
		});
		boot.mark("kernelCreated"); // JupyterLab asked for a kernel
		this._adopt(boot.takeWorker());
		kernels.set(this.id, this);
	}

	// _adopt makes w the kernel's worker: requests wait for its Go
	// program's ready (w.started); messages of a worker no longer the
	// kernel's are dropped.
	_adopt(w) {
		this._w = w;
		this._flag = w.flag;
		w.started = new Promise((resolve, reject) => {
			w.startedResolve = resolve;
			w.startedReject = reject;
		});
		w.started.catch(() => {}); // a request that waits on it reports it
		w.handler = (m) => w === this._w && this._onMessage(w, m);
		for (const m of w.kept.splice(0)) w.handler(m);
	}

	// _replace ends the worker and its Go session and starts a new one;
	// every pending request fails with why.
	_replace(why) {
		this._input = null;
		this._w.dispose();
		const err = new Error(`${why}. The kernel started a new Go session: the variables and imports of earlier cells are gone.`);
		this._rejectPending(err);
		this._adopt(boot.takeWorker());
	}

	_rejectPending(err) {
		for (const p of this._pending.values()) {
			clearTimeout(p.grace);
			p.reject(err);
		}
		this._pending.clear();
	}

	get ready() {
		return this._ready;
	}

	dispose() {
		if (this.isDisposed) return;
		kernels.delete(this.id);
		this._w.dispose();
		this._fail(new Error("the kernel was shut down"));
		super.dispose();
	}

	// interrupt asks the running cell to stop, and replaces the Go session
	// if it has not stopped interruptGrace later (see the note above). It
	// says whether the page has the shared flag.
	interrupt() {
		if (this._flag) Atomics.store(this._flag, 0, 1);
		if (this._input) {
			// A cell waiting for input: its worker is idle and hears this.
			this._input.w.worker.postMessage({ type: "interrupt", input: this._input.input });
			this._input = null;
		}
		const running = [...this._pending.values()].find((p) => p.type === "execute" || p.type === "comm");
		if (running && !running.grace) {
			running.grace = setTimeout(() => {
				if (this._pending.get(running.id) !== running) return;
				this._replace(this._flag
					? `The cell did not stop within ${interruptGrace / 1000} s of the interrupt (in a browser a loop that calls nothing that waits, such as n++ forever, cannot see it)`
					: `The cell did not stop within ${interruptGrace / 1000} s of the interrupt (this page is not cross-origin isolated, so no interrupt reaches a running cell)`);
			}, interruptGrace);
		}
		return !!this._flag;
	}

	_fail(err) {
		this._readyReject?.(err);
		this._w.startedReject?.(err);
		this._rejectPending(err);
	}

	_onMessage(w, m) {
		switch (m.type) {
			case "input": {
				// A cell reads standard input.
				const p = this._pending.get(m.id);
				if (!p || !p.parent) {
					w.worker.postMessage({ type: "inputReply", input: m.input, error: "standard input is only for a running cell" });
					return;
				}
				if (!p.allowStdin) {
					w.worker.postMessage({ type: "inputReply", input: m.input, error: "this front end does not allow standard input (its execute_request has allow_stdin false)" });
					return;
				}
				this._input = { w, input: m.input };
				this.inputRequest({ prompt: m.prompt, password: m.password }, p.parent);
				return;
			}
			case "ready":
				w.ready = true;
				w.startedResolve();
				if (this._info) return; // a replaced session's worker
				this._info = m;
				{
					const at = (abs) => Math.round(abs - performance.timeOrigin);
					boot.markReady(m); // the Go side's milestones, in the page's time base
					boot.mark("kernelHeard");
					console.info(`veclab kernel: ${m.version}: veclab.wasm fetched and compiled in ${Math.round(w.compileMs)} ms (once per page), the Go program started in ${Math.round(m.startMs)} ms (init ${Math.round(m.initMs)} ms, session ${Math.round(m.sessionMs)} ms); after navigation: requested at ${Math.round(w.requestedAt)} ms, compiled at ${Math.round(w.compiledAt)} ms, worker at ${Math.round(w.workerAt)} ms, instantiated at ${at(m.instantiatedAbs)} ms, Go ready at ${at(m.readyAbs)} ms, the page heard at ${Math.round(performance.now())} ms`);
				}
				this._readyResolve();
				return;
			case "failed":
				// A Go program that ran and ended is replaced; one that
				// never started fails the kernel (another would fail too).
				if (w.ready && !this.isDisposed) this._replace(`The Go program ended: ${m.error}`);
				else this._fail(new Error(m.error));
				return;
			case "comm": {
				// A comm message from the Go side (a widget's comm_open,
				// update, comm_close), child of the request it belongs to.
				this.handleComm(m.msgType, m.content, m.metadata || {}, m.buffers || [], this._headers.get(m.parent) || this.parentHeader);
				return;
			}
			case "output": {
				const p = this._pending.get(m.id);
				p?.onOutput?.(m.item);
				return;
			}
			case "reply": {
				const p = this._pending.get(m.id);
				if (!p) return;
				this._pending.delete(m.id);
				clearTimeout(p.grace);
				if (m.error) p.reject(new Error(m.error));
				else p.resolve(m.result);
				return;
			}
		}
	}

	// _request sends a request to the worker once its Go program is ready
	// and resolves with the worker's reply.
	// (stdin: {parent, allowStdin} of an execute_request, for its input).
	async _request(type, args, onOutput, stdin) {
		const w = this._w;
		await w.started;
		if (w !== this._w) throw new Error("the kernel's Go session was replaced before this request was sent");
		const id = this._next++;
		return new Promise((resolve, reject) => {
			this._pending.set(id, { id, type, resolve, reject, onOutput, ...stdin });
			w.worker.postMessage({ type, id, ...args });
		});
	}

	async kernelInfoRequest() {
		const info = this._info || {};
		return {
			status: "ok",
			// 5.3, where the native kernel says 5.4 (kernel/internal/wire's
			// ProtocolVersion): 5.4 asks that shutdown_request be answered
			// on the control channel, and JupyterLite has no such message
			// (@jupyterlite/services 0.8.4: its kernel manager disposes a
			// kernel without one, and BaseKernel.handleMessage answers
			// none; its kernel_info_reply goes out on shell whatever the
			// request's channel, so 5.5's kernel_info on control would not
			// be answered either).
			protocol_version: "5.3",
			// JEP 92's list (protocol 5.5) and the older flag: JupyterLab shows
			// its debugger (the variables panel) for a kernel that says it.
			supported_features: ["debugger"],
			debugger: true,
			implementation: "veclab",
			implementation_version: info.version || "",
			language_info: {
				name: "go",
				version: (info.goVersion || "").replace(/^go/, ""),
				mimetype: "text/x-go",
				file_extension: ".go",
				pygments_lexer: "go",
				codemirror_mode: "go",
				nbconvert_exporter: "",
			},
			banner: `${info.version || "veclab"} — Go cells (gomacro interpreter) over the compiled veclab lab and engine, in a Web Worker of this page.`,
			help_links: [
				{ text: "veclab lab packages", url: "https://pkg.go.dev/github.com/veclab/veclab/lab" },
				{ text: "Go language", url: "https://go.dev/ref/spec" },
				{ text: "gomacro interpreter", url: "https://github.com/cosmos72/gomacro" },
			],
		};
	}

	// _remember keeps header as a parent for comm messages of the Go side
	// (the last few hundred requests).
	_remember(header) {
		this._headers.set(header.msg_id, header);
		if (this._headers.size > 256) this._headers.delete(this._headers.keys().next().value);
	}

	// _publisher returns the onOutput that publishes a request's outputs as
	// children of parent (count: the execution count of a result).
	_publisher(parent, count) {
		return (item) => {
			switch (item.type) {
				case "stream":
					this.stream({ name: item.name, text: item.text }, parent);
					break;
				case "display":
					this.displayData({ data: item.data, metadata: {}, transient: item.id ? { display_id: item.id } : {} }, parent);
					break;
				case "update":
					this.updateDisplayData({ data: item.data, metadata: {}, transient: { display_id: item.id } }, parent);
					break;
				case "clear":
					this.clearOutput({ wait: item.wait }, parent);
					break;
				case "result":
					this.publishExecuteResult({ execution_count: count, data: item.data, metadata: {} }, parent);
					break;
				case "error":
					this.publishExecuteError({ ename: item.name, evalue: item.value, traceback: item.traceback }, parent);
					break;
			}
		};
	}

	async executeRequest(content) {
		const parent = this.parentHeader;
		const count = this.executionCount;
		this._remember(parent);
		const onOutput = this._publisher(parent, count);
		let res;
		try {
			res = await this._request("execute", { code: content.code, parent: parent.msg_id }, onOutput,
				{ parent, allowStdin: content.allow_stdin !== false });
		} catch (err) {
			const e = { ename: "KernelError", evalue: String(err.message || err), traceback: [String(err.message || err)] };
			this.publishExecuteError(e, parent);
			return { status: "error", execution_count: count, ...e };
		}
		if (res.error) {
			return {
				status: "error", execution_count: count,
				ename: res.error.name, evalue: res.error.value, traceback: res.error.traceback,
			};
		}
		// An inspection cell (x?): the documentation in the pager.
		const payload = res.page ? [{ source: "page", data: res.page, start: 0 }] : [];
		return { status: "ok", execution_count: count, user_expressions: {}, payload };
	}

	async completeRequest(content) {
		const r = await this._request("complete", { code: content.code, pos: content.cursor_pos });
		return { status: "ok", matches: r.matches, cursor_start: r.start, cursor_end: r.end, metadata: {} };
	}

	async inspectRequest(content) {
		const r = await this._request("inspect", { code: content.code, pos: content.cursor_pos });
		return { status: "ok", found: r.found, data: r.found ? r.data : {}, metadata: {} };
	}

	async isCompleteRequest(content) {
		const r = await this._request("isComplete", { code: content.code });
		return r.status === "incomplete" ? { status: r.status, indent: r.indent } : { status: r.status };
	}

	async commInfoRequest(content) {
		const comms = await this._request("commInfo", { target: (content && content.target_name) || "" });
		return { status: "ok", comms };
	}

	// handleMessage adds comm_info_request, which JupyterLite's BaseKernel
	// (0.8) does not dispatch: the widget manager asks it when a page
	// reloads, to find the widgets the kernel still has.
	//
	// A comm_msg is handed to the worker and not waited for: JupyterLite's
	// kernel client gives a kernel its next message only when handleMessage
	// returns, and the Go side must see a widget's next change while the
	// callback of the last one runs, to skip or preempt a stale redraw
	// (kernel/widget's Interact). The worker runs its requests in order, and
	// the comm_msg's idle status follows its callback's outputs.
	async handleMessage(msg) {
		if (msg.header.msg_type === "comm_msg") {
			this._busy(msg);
			this._comm(msg).finally(() => this._idle(msg));
			return;
		}
		if (msg.header.msg_type === "input_reply") {
			// Not BaseKernel's: that publishes busy and idle and makes the
			// reply the parent of what follows; ipykernel does neither.
			this.inputReply(msg.content);
			return;
		}
		if (msg.header.msg_type === "debug_request") return this._debug(msg); // not reached: see answerDebugAtOnce
		if (msg.header.msg_type !== "comm_info_request") return super.handleMessage(msg);
		this._busy(msg);
		let content;
		try {
			content = await this.commInfoRequest(msg.content);
		} catch (err) {
			content = { status: "ok", comms: {} }; // the Go session is being replaced: nothing is open
		}
		this._sendMessage(KernelMessage.createMessage({
			msgType: "comm_info_reply", channel: "shell", session: msg.header.session, parentHeader: msg.header, content,
		}));
		this._idle(msg);
	}

	// _debug answers a debug_request (control channel) as the native
	// kernel does: the Go side's eval.Debugger makes the reply (the
	// variables panel of JupyterLab's debugger: debugInfo, initialize,
	// attach, inspectVariables, richInspectVariables, disconnect;
	// breakpoints answered unverified), and the event it asks for (the
	// initialized event after initialize) follows it on IOPub.
	// JupyterLite's BaseKernel (0.8) dispatches no debug_request, and its
	// kernel client would queue it behind the running cell (one lock for
	// all requests); answerDebugAtOnce hands it here at once instead, and
	// the Go side answers at once too (wasm/main.go's debug: the variables
	// of the last cell while one runs).
	async _debug(msg) {
		this._busy(msg);
		let reply, event;
		try {
			const r = await this._request("debug", { content: JSON.stringify(msg.content) });
			reply = JSON.parse(r.reply);
			event = r.event && JSON.parse(r.event);
		} catch (err) {
			const c = msg.content || {};
			reply = { seq: c.seq, type: "response", request_seq: c.seq, success: false, command: c.command, message: String(err.message || err) };
		}
		this._sendMessage(KernelMessage.createMessage({
			msgType: "debug_reply", channel: "control", session: msg.header.session, parentHeader: msg.header, content: reply,
		}));
		if (event) {
			this._sendMessage(KernelMessage.createMessage({
				msgType: "debug_event", channel: "iopub", session: msg.header.session, parentHeader: msg.header, content: event,
			}));
		}
		this._idle(msg);
	}

	// inputReply answers the cell waiting for input with the front end's
	// line (content.value); a reply with status error gives it end of file.
	inputReply(content) {
		const i = this._input;
		this._input = null;
		if (!i || i.w !== this._w) return;
		if (content && content.status === "error") i.w.worker.postMessage({ type: "inputReply", input: i.input, error: "the front end answered the input request with an error" });
		else i.w.worker.postMessage({ type: "inputReply", input: i.input, value: String((content && content.value) ?? "") });
	}

	// A comm message of the front end goes to the Go side's comm registry
	// (kernel/comm, where kernel/widget serves jupyter.widget and
	// jupyter.widget.control); its handler runs as a cell runs, its outputs
	// children of msg.
	async _comm(msg) {
		this._remember(msg.header);
		const buffers = (msg.buffers || []).map((b) => {
			const u = ArrayBuffer.isView(b) ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : new Uint8Array(b);
			return u.slice().buffer; // a copy the worker can take
		});
		try {
			await this._request("comm", { msgType: msg.header.msg_type, content: JSON.stringify(msg.content), buffers, parent: msg.header.msg_id },
				this._publisher(msg.header, this.executionCount));
		} catch (err) {
			this.stream({ name: "stderr", text: `veclab: ${msg.header.msg_type}: ${err.message || err}\n` }, msg.header);
		}
	}

	async commOpen(msg) {
		return this._comm(msg);
	}

	async commMsg(msg) {
		return this._comm(msg);
	}

	async commClose(msg) {
		return this._comm(msg);
	}
}

// answerDebugAtOnce makes the page's kernel sockets (JupyterLite's
// mock-socket WebSocket) hand a debug_request to its veclab kernel
// directly, as input_reply is, outside the kernel client's lock
// (@jupyterlite/services 0.8.4 lib/kernel/client.js: processMsg runs every
// other message under one Mutex). Under the lock a debug_request waited
// for every cell queued before it: JupyterLab's debugger sends one
// (modules) as each execute_reply arrives and inspectVariables on a
// cell's outputs, so with Run All they waited until the last cell (4.7 to
// 10.8 s for notebooks 02 and 13 at small scale), and a notebook closed
// meanwhile cancelled them, a page error ("Canceled future for
// debug_request message before replies were done"). ipykernel answers the
// control channel while a cell runs; so does this kernel now (1 to 31 ms
// once the kernel had started, Run All of notebook 13). A
// message for another kernel, or any other message, goes on to the lock as
// before.
function answerDebugAtOnce(WebSocket) {
	if (!WebSocket || WebSocket.prototype.veclabDebug) return;
	const send = WebSocket.prototype.send;
	WebSocket.prototype.veclabDebug = true;
	WebSocket.prototype.send = function (data) {
		const m = /\/api\/kernels\/([^/?#]+)\/channels/.exec(this.url || "");
		const k = m && kernels.get(decodeURIComponent(m[1]));
		if (k && this.readyState === 1) {
			let msg = null;
			try {
				msg = deserialize(data, this.protocol);
			} catch (err) {
				// not a kernel message this code can read: the client's
			}
			if (msg && msg.header && msg.header.msg_type === "debug_request") {
				void k._debug(msg);
				return;
			}
		}
		return send.call(this, data);
	};
}

const plugin = {
	id: "veclab-kernel:plugin",
	description: "The Go (veclab) kernel: veclab's evaluation core as WebAssembly in a Web Worker",
	autoStart: true,
	requires: [IKernelSpecs, IKernelClient],
	activate: (app, kernelspecs, client) => {
		const base = PageConfig.getBaseUrl();
		kernelspecs.register({
			spec: {
				name: KERNEL_NAME,
				display_name: "Go (veclab)",
				language: "go",
				argv: [],
				// metadata.debugger: JupyterLab's debugger offers its bug
				// button and side panel for a kernel whose spec says it. It
				// reads the spec model's metadata, which JupyterLite's spec
				// manager hands over as registered (the server's form, spec,
				// has it too).
				metadata: { debugger: true },
				spec: { argv: [], env: {}, display_name: "Go (veclab)", language: "go", interrupt_mode: "message", metadata: { debugger: true } },
				resources: {
					"logo-32x32": URLExt.join(base, "build/veclab-logo.svg"),
					"logo-64x64": URLExt.join(base, "build/veclab-logo.svg"),
				},
			},
			create: async (options) => new VeclabKernel(options),
		});
		// The kernel connections' WebSocket class (mock-socket's) is in the
		// kernel and session managers' server settings; the app's own
		// settings hold the browser's WebSocket, which is left alone.
		const sm = app.serviceManager;
		const classes = new Set([sm?.kernels?.serverSettings?.WebSocket, sm?.sessions?.serverSettings?.WebSocket, client?.serverSettings?.WebSocket]);
		classes.delete(undefined);
		classes.delete(globalThis.WebSocket);
		if (classes.size === 0) console.warn("veclab: no kernel WebSocket class found: debug requests wait for the running cell");
		for (const c of classes) answerDebugAtOnce(c);
		// A debug_request answered while a cell runs publishes busy then
		// idle (as ipykernel's control channel does); the kernel connection
		// would take that idle for the kernel's and show it idle while the
		// cell still runs. untracked_message_types (read by
		// @jupyterlab/services' KernelConnection for each status message)
		// makes it ignore the status of these requests.
		const untracked = JSON.parse(PageConfig.getOption("untracked_message_types") || "[]");
		if (!untracked.includes("debug_request")) PageConfig.setOption("untracked_message_types", JSON.stringify([...untracked, "debug_request"]));
		const interrupt = client.interrupt.bind(client);
		client.interrupt = async (id) => {
			const k = kernels.get(id);
			if (k && !k.interrupt()) {
				console.warn(`veclab: this page is not cross-origin isolated (no SharedArrayBuffer), so no interrupt reaches a running cell: its Go session is replaced if it has not ended ${interruptGrace / 1000} s from now`);
			}
			return interrupt(id);
		};
	},
};

export default plugin;
