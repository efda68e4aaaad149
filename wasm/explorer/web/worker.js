// worker.js runs the explorer's engine-only module (explorer.wasm, built
// from wasm/explorer by `veclab serve`) off the page's main thread. The
// page posts the compiled WebAssembly.Module first, then requests:
//
//	{type: "build", id, params}        → {type: "progress", id, phase, done, total}…, then {type: "built", id, info}
//	{type: "search", id, params}       → {type: "searched", id, result}
//	{type: "acorn", id, gamma}         → {type: "acornBuilt", id, acorn}  (ACORN-γ's own graph)
//	{type: "compare", id, params}      → {type: "compared", id, rows}    (every strategy at one ef)
//	{type: "draw", id, ef, k, seed}    → {type: "drawn", id, picture}
//	{type: "data", id}                 → {type: "data", id, data}   (the built data, for benchmarks)
//
// init's simdOff runs the engine on its pure-Go kernels instead of the
// WebAssembly SIMD128 ones (veclab-simd.js; the worker's console says
// which are in use, and ready's kernels names them).
//
// and any failure as {type: "error", id, what, error} (what: the request). A call runs to its end:
// the page supersedes a running build by terminating this worker.
importScripts("../wasm_exec.js", "../veclab-simd.js");

let ready = null;

// The field each answer's value goes in.
const field = { built: "info", searched: "result", drawn: "picture", acornBuilt: "acorn", compared: "rows" };

function answer(id, type, json, what) {
	const v = JSON.parse(json);
	if (v && v.error) {
		postMessage({ type: "error", id, what, error: v.error });
	} else {
		postMessage({ type, id, [field[type]]: v });
	}
}

onmessage = async (e) => {
	const m = e.data;
	if (m.type === "init") {
		ready = (async () => {
			const go = new Go();
			// The kernels import the Go instance's memory: install before
			// instantiating, attach before go.run (veclab-simd.js).
			const simd = veclabSIMD.install(go.importObject, { disable: !!m.simdOff });
			let kernels = "";
			await new Promise((resolve, reject) => {
				globalThis.veclabExplorerReady = resolve;
				WebAssembly.instantiate(m.module, go.importObject).then((inst) => {
					kernels = simd.attach(inst);
					go.run(inst);
				}, reject);
			});
			postMessage({ type: "ready", version: veclabExplorer.version, strategies: Array.from(veclabExplorer.strategies), kernels, simd: simd.simd });
		})().catch((err) => postMessage({ type: "error", id: 0, error: "explorer: starting the module: " + err, what: "start" }));
		return;
	}
	await ready;
	try {
		switch (m.type) {
			case "build":
				answer(m.id, "built", veclabExplorer.build(JSON.stringify(m.params),
					(phase, done, total) => postMessage({ type: "progress", id: m.id, phase, done, total })), "build");
				break;
			case "search":
				answer(m.id, "searched", veclabExplorer.search(JSON.stringify(m.params)), "search");
				break;
			case "acorn":
				answer(m.id, "acornBuilt", veclabExplorer.acorn(m.gamma), "acorn");
				break;
			case "compare":
				answer(m.id, "compared", veclabExplorer.compare(JSON.stringify(m.params)), "compare");
				break;
			case "draw":
				answer(m.id, "drawn", veclabExplorer.draw(m.ef, m.k, m.seed), "draw");
				break;
			case "data": {
				const d = veclabExplorer.data();
				if (typeof d === "string") {
					postMessage({ type: "error", id: m.id, what: "data", error: JSON.parse(d).error });
				} else {
					postMessage({ type: "data", id: m.id, data: { dim: d.dim, metric: d.metric, base: d.base, queries: d.queries, k: d.k, truth: d.truth } },
						[d.base.buffer, d.queries.buffer, d.truth.buffer]);
				}
				break;
			}
			default:
				postMessage({ type: "error", id: m.id, what: m.type, error: "explorer worker: unknown request " + m.type });
		}
	} catch (err) {
		postMessage({ type: "error", id: m.id, what: m.type, error: String(err && err.stack || err) });
	}
};
