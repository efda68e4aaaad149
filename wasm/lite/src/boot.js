// boot.js loads the Go (veclab) kernel's files and starts its first
// worker as the page loads: index.html runs it (as build/veclab-boot.js)
// before JupyterLab's code (build/lab.js, several MB to fetch and parse),
// so veclab.wasm is fetched and compiled, and the Go program starts in
// its worker, while JupyterLab starts; the kernel (kernel.js) adopts that
// worker. It installs globalThis.veclabBoot = {env, marks, mark, prewarm,
// takeWorker}.
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
	// read once when the page loads, before JupyterLab rewrites the address.
	const env = { VECLAB_SCALE: "small" };
	for (const [k, v] of new URLSearchParams(window.location.search)) {
		if (/^VECLAB_[A-Z0-9_]+$/.test(k)) env[k] = v;
	}
	const url = (p) => new URL(p, document.baseURI).href;

	const text = async (p) => {
		const r = await fetch(url(p));
		if (!r.ok) throw new Error(`${p}: HTTP ${r.status}`);
		return r.text();
	};
	// compile compiles veclab.wasm with the browser's streaming compiler
	// (off the main thread, while the bytes arrive; it is also what makes
	// Chromium keep the compiled code in its cache for the next visit).
	// The module is asked for by its version (veclab.wasm.version; the
	// server sends veclab.wasm?v=VERSION as immutable), so a second visit
	// takes it from the HTTP cache without a revalidation, which would
	// drop Chromium's cache of the compiled code.
	const compile = async () => {
		let wasm = url("veclab.wasm");
		try {
			const v = (await text("veclab.wasm.version")).trim();
			if (v) wasm += "?v=" + encodeURIComponent(v);
		} catch {} // a host without it: revalidate the plain URL
		try {
			return await WebAssembly.compileStreaming(fetch(wasm));
		} catch (err) {
			// A server that sends another Content-Type: compile the bytes.
			const r = await fetch(wasm);
			if (!r.ok) throw new Error(`veclab.wasm: HTTP ${r.status}`);
			return WebAssembly.compile(await r.arrayBuffer());
		}
	};

	// assets fetches, once per page, what every kernel worker needs: the
	// worker's script, wasm_exec.js and veclab.wasm compiled to a
	// WebAssembly.Module. Each worker gets them from the page: a restarted
	// kernel, or a second one, needs no network (the site works offline
	// once loaded) and does not compile the module again.
	let assets = null;
	function loadAssets() {
		if (assets) return assets;
		assets = (async () => {
			const t0 = performance.now();
			let compiledAt = 0;
			mark("wasmRequested", t0);
			const [worker, execJS, module] = await Promise.all([
				text("build/veclab-worker.js"),
				text("wasm_exec.js"),
				compile().then((m) => {
					compiledAt = performance.now();
					mark("wasmCompiled", compiledAt);
					return m;
				}),
			]);
			return {
				workerURL: URL.createObjectURL(new Blob([worker], { type: "text/javascript" })),
				execJS, module, compileMs: compiledAt - t0,
				// milliseconds after navigation (performance's time origin)
				requestedAt: t0, compiledAt,
			};
		})();
		assets.catch(() => { assets = null; }); // a later kernel tries again
		return assets;
	}

	// startWorker starts a kernel worker on the assets. Messages that
	// arrive before a kernel adopts the worker (w.handler) are kept for it.
	function startWorker() {
		const flag = typeof SharedArrayBuffer !== "undefined" && globalThis.crossOriginIsolated
			? new Int32Array(new SharedArrayBuffer(4)) : null;
		const w = { worker: null, flag, kept: [], handler: null, disposed: false };
		const deliver = (m) => (w.handler ? w.handler(m) : w.kept.push(m));
		loadAssets().then((a) => {
			if (w.disposed) return;
			w.compileMs = a.compileMs;
			w.requestedAt = a.requestedAt;
			w.compiledAt = a.compiledAt;
			w.workerAt = performance.now();
			mark("workerStarted", w.workerAt);
			w.worker = new Worker(a.workerURL, { name: "veclab-kernel" });
			w.worker.onmessage = (e) => deliver(e.data);
			w.worker.onerror = (e) => deliver({ type: "failed", error: `veclab worker: ${e.message || "failed to start"}` });
			w.worker.postMessage({ type: "init", module: a.module, execJS: a.execJS, env: { ...env }, flag });
		}, (err) => deliver({ type: "failed", error: `loading veclab.wasm: ${err && err.message ? err.message : err}` }));
		return w;
	}

	// spare is the worker started with the page, before any kernel asks
	// for one; the first kernel takes it, later ones start their own.
	let spare = startWorker();
	globalThis.veclabBoot = {
		env,
		marks,
		mark,
		prewarm() {
			if (!spare) spare = startWorker();
		},
		takeWorker() {
			const w = spare || startWorker();
			spare = null;
			return w;
		},
	};
})();
