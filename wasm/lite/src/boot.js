// boot.js loads the Go (veclab) kernel's files and starts its first
// worker before a kernel is asked for: index.html runs it (as
// build/veclab-boot.js) before JupyterLab's code (build/lab.js), and it
// starts the worker once that code has run (see spare below), so
// veclab.wasm is fetched and compiled, and the Go program starts in its
// worker, while JupyterLab starts; the kernel (kernel.js) adopts that
// worker. It installs globalThis.veclabBoot = {env, marks, mark,
// markReady, prewarm, takeWorker}.
// A plain script: no imports, URLs relative to the page.
(() => {
	// marks are the load's milestones in milliseconds after navigation
	// (performance's time origin), for the load breakdown the browser test
	// prints (wasm/browsertest/lite.js): this script's start, the module's
	// request and compilation, the worker's start, and, from main.js,
	// kernel.js and the worker, JupyterLab's and the Go program's start. The
	// first of each name is kept (a restarted kernel leaves them).
	const marks = {};
	const mark = (name, at = performance.now()) => {
		if (!(name in marks)) marks[name] = Math.round(at);
	};
	mark("boot");
	// The environment of the Go program: VECLAB_SCALE=small (the
	// notebooks' small scale: one thread in a browser tab), overridden by
	// $VECLAB_* from the page's query string (…/?VECLAB_SCALE=article),
	// read once when the page loads, before JupyterLab rewrites the address;
	// also GODEBUG and GOGC, the Go runtime's own settings, for
	// diagnosing the runtime in a tab (…/?GODEBUG=gccheckmark=1).
	const env = { VECLAB_SCALE: "small" };
	for (const [k, v] of new URLSearchParams(window.location.search)) {
		if (/^VECLAB_[A-Z0-9_]+$/.test(k) || k === "GODEBUG" || k === "GOGC") env[k] = v;
	}
	const url = (p) => new URL(p, document.baseURI).href;

	const text = async (p) => {
		const r = await fetch(url(p));
		if (!r.ok) throw new Error(`${p}: HTTP ${r.status}`);
		return r.text();
	};
	// wasmURL is veclab.wasm's address, asked for by its version
	// (veclab.wasm.version; the server sends veclab.wasm?v=VERSION as
	// immutable), so a second visit takes it from the HTTP cache without
	// a revalidation, which would drop Chromium's cache of the compiled
	// code.
	const wasmURL = async () => {
		const wasm = url("veclab.wasm");
		try {
			const v = (await text("veclab.wasm.version")).trim();
			if (v) return wasm + "?v=" + encodeURIComponent(v);
		} catch {} // a host without it: revalidate the plain URL
		return wasm;
	};

	// assets fetches, once per page, what every kernel worker needs: the
	// worker's script, wasm_exec.js, the engine's SIMD128 kernels
	// (veclab-simd.js) and veclab.wasm's address. Each worker
	// gets them from the page: a restarted kernel, or a second one, needs
	// no network (the site works offline once loaded).
	let assets = null;
	function loadAssets() {
		if (assets) return assets;
		assets = (async () => {
			const [worker, execJS, simdJS, wasm] = await Promise.all([
				text("build/veclab-worker.js"), text("wasm_exec.js"), text("veclab-simd.js"), wasmURL(),
			]);
			return { workerURL: URL.createObjectURL(new Blob([worker], { type: "text/javascript" })), execJS, simdJS, wasm };
		})();
		assets.catch(() => { assets = null; }); // a later kernel tries again
		return assets;
	}

	// The module is compiled once per page, by the first worker, with the
	// browser's streaming compiler (while the bytes arrive), and handed
	// back to the page for every later worker. In the worker, not on the
	// page: Chromium feeds a streaming compilation, and reads a module
	// back from its code cache on a warm visit, on the calling thread,
	// which took the page's main thread for 1.3 s of a warm load (2.0 s of
	// a cold one) while JupyterLab's code waited to run. module is
	// {module, times: {compileMs, requestedAt, compiledAt}} once a worker has
	// compiled it; compiler is the worker doing so.
	let module = null, compiler = null;
	const waiting = []; // workers waiting for the compiler's module

	const at = (abs) => abs - performance.timeOrigin;
	function init(w, a) {
		const m = module;
		Object.assign(w, m.times);
		w.worker.postMessage({ type: "init", module: m.module, execJS: a.execJS, simdJS: a.simdJS, env: { ...env }, flag: w.flag });
	}

	// startWorker starts a kernel worker on the assets. Messages that
	// arrive before a kernel adopts the worker (w.handler) are kept for it.
	function startWorker() {
		const flag = typeof SharedArrayBuffer !== "undefined" && globalThis.crossOriginIsolated
			? new Int32Array(new SharedArrayBuffer(4)) : null;
		const w = { worker: null, flag, kept: [], handler: null, disposed: false };
		const deliver = (m) => (w.handler ? w.handler(m) : w.kept.push(m));
		// dispose ends the worker; if it was compiling the module, the next
		// worker compiles it.
		w.dispose = () => {
			w.disposed = true;
			w.worker?.terminate();
			if (compiler === w) {
				compiler = null;
				const next = waiting.shift();
				if (next) next();
			}
		};
		loadAssets().then((a) => {
			if (w.disposed) return;
			w.workerAt = performance.now();
			mark("workerStarted", w.workerAt);
			w.worker = new Worker(a.workerURL, { name: "veclab-kernel" });
			w.worker.onmessage = (e) => {
				const m = e.data;
				if (m.type !== "compiled") return deliver(m);
				mark("wasmRequested", at(m.requestedAbs));
				mark("wasmCompiled", at(m.compiledAbs));
				module = { module: m.module, times: { compileMs: m.compiledAbs - m.requestedAbs, requestedAt: at(m.requestedAbs), compiledAt: at(m.compiledAbs) } };
				compiler = null;
				Object.assign(w, module.times);
				for (const f of waiting.splice(0)) f();
			};
			w.worker.onerror = (e) => deliver({ type: "failed", error: `veclab worker: ${e.message || "failed to start"}` });
			const go = () => {
				if (w.disposed) return;
				if (module) return init(w, a);
				if (compiler) return waiting.push(go);
				compiler = w; // this worker compiles, then starts on the module
				w.worker.postMessage({ type: "init", wasm: a.wasm, execJS: a.execJS, simdJS: a.simdJS, env: { ...env }, flag });
			};
			go();
		}, (err) => deliver({ type: "failed", error: `loading veclab.wasm: ${err && err.message ? err.message : err}` }));
		return w;
	}

	// spare is the worker started before any kernel asks for one; the
	// first kernel takes it, later ones start their own. When it starts
	// comes from the page's query string (…/?veclab_boot=page): "lab",
	// once JupyterLab's code has run (main.js calls prewarm; the
	// default); "page", as this script runs; or "kernel", when a kernel
	// is first asked for. On this project's 2-core machine the module's
	// compilation and JupyterLab's start compete for the cores, and "lab"
	// gave the first result soonest, cold and warm (cmd/veclab's
	// BenchmarkBrowserLoad measures the three side by side); "page" starts
	// the download sooner, which a slow network may favour.
	let when = new URLSearchParams(window.location.search).get("veclab_boot") || "lab";
	if (!["page", "lab", "kernel"].includes(when)) {
		console.warn(`veclab: ?veclab_boot=${when}: want page, lab or kernel; starting once JupyterLab's code has run`);
		when = "lab";
	}
	let spare = when === "page" ? startWorker() : null;
	globalThis.veclabBoot = {
		env,
		marks,
		mark,
		// markReady marks the Go program's milestones that a worker's ready
		// message carries as absolute times: instantiated, Go's main (the
		// runtime's and the packages' init done), the session, ready.
		markReady(m) {
			mark("goInstantiated", at(m.instantiatedAbs));
			if (m.mainAbs) mark("goMain", at(m.mainAbs));
			if (m.sessionAbs) mark("goSession", at(m.sessionAbs));
			mark("goReady", at(m.readyAbs));
		},
		prewarm() {
			if (when === "kernel") return;
			if (!spare) spare = startWorker();
		},
		takeWorker() {
			const w = spare || startWorker();
			spare = null;
			return w;
		},
	};
})();
