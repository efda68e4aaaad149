// The Web Worker of the Go (veclab) kernel: it runs wasm_exec.js of the Go
// toolchain that built veclab.wasm and the module, both handed over by the
// page (kernel.js compiles the module once per page), and answers the
// requests of kernel.js through the bridge the module installs
// (globalThis.veclab, wasm/main.go). A cell that computes blocks this
// worker, never the page; outputs are posted as the cell produces them.
//
//	in:  {type: "init", module, execJS, env, flag}
//	     {type: "execute"|"complete"|"inspect"|"isComplete", id, …}
//	out: {type: "ready", version, goVersion} | {type: "failed", error}
//	     {type: "output", id, item} | {type: "reply", id, result | error}

let started = null;

async function init(m) {
	try {
		// wasm_exec.js of the toolchain that built the module, as text from
		// the page (this worker may start offline): it defines globalThis.Go.
		(0, eval)(m.execJS);
		const go = new globalThis.Go();
		go.env = { HOME: "/", ...m.env };
		const ready = new Promise((resolve) => { globalThis.veclabReady = resolve; });
		const t1 = performance.now();
		const instance = await WebAssembly.instantiate(m.module, go.importObject);
		go.run(instance).then(() => {
			postMessage({ type: "failed", error: "the Go program ended (exit code " + go.exitCode + ")" });
		});
		await ready;
		if (m.flag) globalThis.veclab.setInterruptFlag(m.flag);
		postMessage({
			type: "ready", version: globalThis.veclab.version, goVersion: globalThis.veclab.goVersion,
			// milliseconds from instantiating the module to the bridge, and
			// of that: to Go's main (instantiation, the runtime's and every
			// package's init) and in eval.New (the interpreter's session)
			startMs: performance.now() - t1,
			// when the module was instantiated and the bridge was ready,
			// as absolute times (the page subtracts its time origin)
			instantiatedAbs: performance.timeOrigin + t1, readyAbs: performance.timeOrigin + performance.now(),
			// when Go's main began (the runtime's and every package's init,
			// gomacro's binding tables among them, done) and when the
			// interpreter's session was made, as absolute times
			mainAbs: globalThis.veclab.startup ? performance.timeOrigin + globalThis.veclab.startup.mainAt : 0,
			sessionAbs: globalThis.veclab.startup ? performance.timeOrigin + globalThis.veclab.startup.sessionAt : 0,
			initMs: globalThis.veclab.startup ? globalThis.veclab.startup.mainAt - t1 : NaN,
			sessionMs: globalThis.veclab.startup ? globalThis.veclab.startup.sessionAt - globalThis.veclab.startup.mainAt : NaN,
		});
	} catch (err) {
		postMessage({ type: "failed", error: `starting veclab.wasm: ${err && err.message ? err.message : err}` });
		throw err;
	}
}

async function handle(m) {
	const v = globalThis.veclab;
	let result;
	try {
		switch (m.type) {
			case "execute":
				result = await v.eval(m.code, { onOutput: (item) => postMessage({ type: "output", id: m.id, item }) });
				// The items went out one by one; the reply carries only the error.
				result = { error: result.error, ms: result.ms };
				break;
			case "complete":
				result = await v.complete(m.code, m.pos);
				break;
			case "inspect":
				result = await v.inspect(m.code, m.pos);
				break;
			case "isComplete":
				result = await v.isComplete(m.code);
				break;
			default:
				throw new Error(`unknown request ${m.type}`);
		}
		postMessage({ type: "reply", id: m.id, result });
	} catch (err) {
		postMessage({ type: "reply", id: m.id, error: String(err && err.message ? err.message : err) });
	}
}

onmessage = (e) => {
	const m = e.data;
	if (m.type === "init") {
		started = init(m);
		return;
	}
	if (!started) {
		postMessage({ type: "reply", id: m.id, error: "the kernel worker was not initialised" });
		return;
	}
	started.then(() => handle(m), (err) => postMessage({ type: "reply", id: m.id, error: String(err) }));
};
