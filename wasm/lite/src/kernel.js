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
// COOP/COEP headers); without it interrupt is not available and a
// notice says so.
import { PageConfig, URLExt } from "@jupyterlab/coreutils";
import { BaseKernel, IKernelClient, IKernelSpecs } from "@jupyterlite/services";

const KERNEL_NAME = "veclab";

// The loading of veclab.wasm and the kernel workers are boot.js's
// (build/veclab-boot.js, run by index.html before JupyterLab's code, so
// that the module loads and Go starts while JupyterLab does).
const boot = globalThis.veclabBoot;

const kernels = new Map(); // id → VeclabKernel, for the interrupt hook

// prewarm starts a spare worker if boot.js has none (it starts one with
// the page).
export function prewarm() {
	boot.prewarm();
}

export class VeclabKernel extends BaseKernel {
	constructor(options) {
		super(options);
		this._pending = new Map(); // request id → {resolve, reject, onOutput}
		this._next = 1;
		this._ready = new Promise((resolve, reject) => {
			this._readyResolve = resolve;
			this._readyReject = reject;
		});
		boot.mark("kernelCreated"); // JupyterLab asked for a kernel
		const w = boot.takeWorker();
		this._w = w;
		this._flag = w.flag;
		w.handler = (m) => this._onMessage(m);
		for (const m of w.kept.splice(0)) this._onMessage(m);
		kernels.set(this.id, this);
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

	// interrupt asks the running cell to stop (see the note above).
	interrupt() {
		if (this._flag) {
			Atomics.store(this._flag, 0, 1);
			return true;
		}
		return false;
	}

	_fail(err) {
		this._readyReject?.(err);
		for (const p of this._pending.values()) p.reject(err);
		this._pending.clear();
	}

	_onMessage(m) {
		switch (m.type) {
			case "ready":
				this._info = m;
				{
					const w = this._w, at = (abs) => Math.round(abs - performance.timeOrigin);
					// The Go side's milestones, in the page's time base.
					boot.mark("goInstantiated", at(m.instantiatedAbs));
					if (m.mainAbs) boot.mark("goMain", at(m.mainAbs));
					if (m.sessionAbs) boot.mark("goSession", at(m.sessionAbs));
					boot.mark("goReady", at(m.readyAbs));
					boot.mark("kernelHeard");
					console.info(`veclab kernel: ${m.version}: veclab.wasm fetched and compiled in ${Math.round(w.compileMs)} ms (once per page), the Go program started in ${Math.round(m.startMs)} ms (init ${Math.round(m.initMs)} ms, session ${Math.round(m.sessionMs)} ms); after navigation: requested at ${Math.round(w.requestedAt)} ms, compiled at ${Math.round(w.compiledAt)} ms, worker at ${Math.round(w.workerAt)} ms, instantiated at ${at(m.instantiatedAbs)} ms, Go ready at ${at(m.readyAbs)} ms, the page heard at ${Math.round(performance.now())} ms`);
				}
				this._readyResolve();
				return;
			case "failed":
				this._fail(new Error(m.error));
				return;
			case "output": {
				const p = this._pending.get(m.id);
				p?.onOutput?.(m.item);
				return;
			}
			case "reply": {
				const p = this._pending.get(m.id);
				if (!p) return;
				this._pending.delete(m.id);
				if (m.error) p.reject(new Error(m.error));
				else p.resolve(m.result);
				return;
			}
		}
	}

	_request(type, args, onOutput) {
		const id = this._next++;
		return new Promise((resolve, reject) => {
			if (!this._w.worker) {
				reject(new Error("the kernel's worker has not started"));
				return;
			}
			this._pending.set(id, { resolve, reject, onOutput });
			this._w.worker.postMessage({ type, id, ...args });
		});
	}

	async kernelInfoRequest() {
		const info = this._info || {};
		return {
			status: "ok",
			protocol_version: "5.3",
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

	async executeRequest(content) {
		const parent = this.parentHeader;
		const count = this.executionCount;
		const onOutput = (item) => {
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
		let res;
		try {
			res = await this._request("execute", { code: content.code }, onOutput);
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
		return { status: "ok", execution_count: count, user_expressions: {} };
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

	async commInfoRequest() {
		return { status: "ok", comms: {} };
	}

	inputReply() {}

	async commOpen(msg) {
		// No comm targets: answer with comm_close, as the native kernel does.
		this.handleComm("comm_close", { comm_id: msg.content.comm_id, data: {} }, {}, [], this.parentHeader);
	}

	async commMsg() {}

	async commClose() {}
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
				spec: { argv: [], env: {}, display_name: "Go (veclab)", language: "go", interrupt_mode: "message", metadata: {} },
				resources: {
					"logo-32x32": URLExt.join(base, "build/veclab-logo.svg"),
					"logo-64x64": URLExt.join(base, "build/veclab-logo.svg"),
				},
			},
			create: async (options) => new VeclabKernel(options),
		});
		const interrupt = client.interrupt.bind(client);
		client.interrupt = async (id) => {
			const k = kernels.get(id);
			if (k && !k.interrupt()) {
				console.warn("veclab: interrupt needs a cross-origin isolated page (SharedArrayBuffer); only the queued cells are cancelled");
			}
			return interrupt(id);
		};
	},
};

export default plugin;
