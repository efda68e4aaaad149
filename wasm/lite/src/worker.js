// The Web Worker of the Go (veclab) kernel: it runs wasm_exec.js of the Go
// toolchain that built veclab.wasm, the engine's SIMD128 kernels
// (veclab-simd.js; env VECLAB_SIMD=off, from ?VECLAB_SIMD=off, keeps the
// pure-Go ones) and the module, all handed over by the page. The first worker of a page compiles the module from its address
// (init's wasm) and posts it back, so later workers start on it (boot.js
// says why the compilation is here, not on the page). It answers the
// requests of kernel.js through the bridge the module installs
// (globalThis.veclab, wasm/main.go). A cell that computes blocks this
// worker, never the page; outputs are posted as the cell produces them.
//
//	in:  {type: "init", module | wasm, execJS, simdJS, env, flag}
//	     {type: "execute"|"complete"|"inspect"|"isComplete"|"comm"|"commInfo"|"debug", id, …}
//	     {type: "inputReply", input, value | error}  (the line a cell waits for)
//	     {type: "interrupt", input}  (an interrupt while a cell waits for input)
//	out: {type: "compiled", module, requestedAbs, compiledAbs} (init with wasm)
//	     {type: "ready", version, goVersion} | {type: "failed", error}
//	     {type: "output", id, item} | {type: "reply", id, result | error}
//	     {type: "input", id, input, prompt, password}  (a cell reads stdin)
//	     {type: "comm", msgType, content, metadata, buffers, parent}
//	     (what the Go side sends on a comm: kernel/widget's models)

let started = null;

// inputs are the cells' reads of standard input waiting for the page:
// input id → {resolve, reject} of the Promise the Go side waits on
// (wasm/stdin.go). While Go waits, this worker's event loop is free, so
// the answer (and an interrupt) arrives as a plain message.
const inputs = new Map();
let nextInput = 1;

function onInput(id) {
	return (prompt, password) => new Promise((resolve, reject) => {
		const input = nextInput++;
		inputs.set(input, { resolve, reject });
		postMessage({ type: "input", id, input, prompt, password });
	});
}

// compile compiles veclab.wasm with the browser's streaming compiler
// (while the bytes arrive; it is also what makes Chromium keep the
// compiled code in its cache for the next visit).
async function compile(wasm) {
	try {
		return await WebAssembly.compileStreaming(fetch(wasm));
	} catch (err) {
		// A server that sends another Content-Type: compile the bytes.
		const r = await fetch(wasm);
		if (!r.ok) throw new Error(`veclab.wasm: HTTP ${r.status}`);
		return WebAssembly.compile(await r.arrayBuffer());
	}
}

// stderrTail keeps the last 32 KB the Go program wrote to stderr, and
// that text as it was when the latest line like the first of the
// runtime's report of a fatal error (out of memory, a stack overflow)
// was complete: the goroutines the report lists next run to many KB. The
// report goes out as the program ends, during a cell, where the bridge's
// capture (wasm/main.go) keeps a cell's output for the cell's reply that
// never comes; so this wrapper goes around the bridge's, once the bridge
// is installed, and sees every write first. The runtime writes a line in
// pieces; a cell's own "panic: …" line is superseded by a later report.
const stderrTail = { text: "", fatal: "" };
const reportLine = /^(fatal error|panic): /; // a fatal report's first line
function keepStderrTail() {
	const fs = globalThis.fs;
	const inner = fs.writeSync;
	const dec = new TextDecoder("utf-8");
	let line = ""; // the line being written
	fs.writeSync = function (fd, buf) {
		if (fd === 2) {
			const s = dec.decode(buf, { stream: true });
			stderrTail.text = (stderrTail.text + s).slice(-32768);
			const parts = (line + s).split("\n");
			line = parts.pop().slice(0, 200); // its start is what is matched
			if (parts.some((l) => reportLine.test(l))) stderrTail.fatal = stderrTail.text;
		}
		return inner.call(this, fd, buf);
	};
}

// fatalLines picks the first lines of the last fatal report in text
// ("runtime: out of memory: cannot allocate …" then "fatal error: out of
// memory", or "panic: …"), joined by "; "; "" if there is none.
function fatalLines(text) {
	const lines = text.split("\n");
	let last = -1;
	for (let i = 0; i < lines.length; i++) if (reportLine.test(lines[i])) last = i;
	if (last < 0) return "";
	let first = last;
	while (first > 0 && /^runtime: /.test(lines[first - 1])) first--;
	return lines.slice(first, last + 1).join("; ");
}

async function init(m) {
	try {
		if (!m.module) {
			const requestedAbs = performance.timeOrigin + performance.now();
			m.module = await compile(m.wasm);
			postMessage({ type: "compiled", module: m.module, requestedAbs, compiledAbs: performance.timeOrigin + performance.now() });
		}
		// wasm_exec.js of the toolchain that built the module, as text from
		// the page (this worker may start offline): it defines globalThis.Go.
		(0, eval)(m.execJS);
		// veclab-simd.js, the same way: it defines globalThis.veclabSIMD,
		// whose import the module needs before it is instantiated and whose
		// kernels need the instance's memory before go.run.
		(0, eval)(m.simdJS);
		const go = new globalThis.Go();
		let exitCode = null;
		const exit = go.exit.bind(go);
		go.exit = (code) => {
			exitCode = code;
			exit(code);
		};
		go.env = { HOME: "/", ...m.env };
		const ready = new Promise((resolve) => { globalThis.veclabReady = resolve; });
		const t1 = performance.now();
		const simd = globalThis.veclabSIMD.install(go.importObject, { disable: (m.env || {}).VECLAB_SIMD === "off" });
		const instance = await WebAssembly.instantiate(m.module, go.importObject);
		simd.attach(instance); // logs which kernels are in use
		go.run(instance).then(() => {
			// Exit code 2 is the runtime's fatal error (out of memory, a stack
			// overflow) or an unrecovered panic; its report went to stderr,
			// whose tail is kept. Another code is the program's own os.Exit.
			const said = exitCode === 2 ? fatalLines(stderrTail.fatal || stderrTail.text) : "";
			// The whole report (its goroutines' stacks) to the console, where
			// the message below sends the reader: during a cell the bridge's
			// capture took it for a reply that never comes.
			if (exitCode === 2) console.error(`veclab: the Go program's last ${stderrTail.text.length} bytes of stderr:\n${stderrTail.text}`);
			postMessage({ type: "failed", error: `exit code ${exitCode}` + (said ? `: ${said}` : exitCode === 2 ? ", a fatal error of the Go runtime (its report is in the browser's console)" : "") });
		}, (err) => {
			postMessage({ type: "failed", error: `the module stopped: ${err && err.message ? err.message : err}` });
		});
		await ready;
		keepStderrTail();
		if (m.flag) globalThis.veclab.setInterruptFlag(m.flag);
		globalThis.veclab.setCommHandler((c) => {
			const buffers = Array.from(c.buffers || [], (b) => b.buffer);
			postMessage({ type: "comm", msgType: c.msgType, content: c.content, metadata: c.metadata, buffers, parent: c.parent }, buffers);
		});
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
				result = await v.eval(m.code, { parent: m.parent, onOutput: (item) => postMessage({ type: "output", id: m.id, item }), onInput: onInput(m.id) });
				// The items went out one by one; the reply carries only the
				// error (and an inspection cell's page).
				result = { error: result.error, page: result.page, ms: result.ms };
				break;
			case "comm":
				result = await v.comm(m.msgType, m.content, (m.buffers || []).map((b) => new Uint8Array(b)),
					{ parent: m.parent, onOutput: (item) => postMessage({ type: "output", id: m.id, item }) });
				if (result.log) console.info(`veclab kernel: ${m.msgType}: ${result.log}`);
				break;
			case "commInfo":
				result = await v.commInfo(m.target || "");
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
			case "debug":
				// A debug_request's content (JSON text): the variables panel.
				result = await v.debug(m.content);
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
	if (m.type === "inputReply") {
		const p = inputs.get(m.input);
		inputs.delete(m.input);
		if (p && m.error !== undefined) p.reject(new Error(m.error));
		else if (p) p.resolve(m.value);
		return;
	}
	if (m.type === "interrupt") {
		// Only while that input is awaited: the Go side is idle, and the
		// interrupt cannot reach a later cell.
		if (inputs.has(m.input)) globalThis.veclab.interrupt();
		inputs.delete(m.input);
		return;
	}
	if (!started) {
		postMessage({ type: "reply", id: m.id, error: "the kernel worker was not initialised" });
		return;
	}
	started.then(() => handle(m), (err) => postMessage({ type: "reply", id: m.id, error: String(err) }));
};
