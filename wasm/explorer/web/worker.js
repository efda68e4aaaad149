// worker.js runs the explorer's engine-only module (explorer.wasm, built
// from wasm/explorer by `veclab serve`) off the page's main thread. The
// page posts the compiled WebAssembly.Module first, then requests:
//
//	{type: "build", id, params}        → {type: "progress", id, phase, done, total}…, then {type: "built", id, info}
//	{type: "search", id, params}       → {type: "searched", id, result}
//	{type: "draw", id, ef, k, seed}    → {type: "drawn", id, picture}
//	{type: "data", id}                 → {type: "data", id, data}   (the built data, for benchmarks)
//
// and any failure as {type: "error", id, error}. A call runs to its end:
// the page supersedes a running build by terminating this worker.
importScripts("../wasm_exec.js");

let ready = null;

function answer(id, type, json) {
	const v = JSON.parse(json);
	if (v && v.error) {
		postMessage({ type: "error", id, error: v.error });
	} else {
		postMessage({ type, id, [type === "built" ? "info" : type === "searched" ? "result" : "picture"]: v });
	}
}

onmessage = async (e) => {
	const m = e.data;
	if (m.type === "init") {
		ready = (async () => {
			const go = new Go();
			await new Promise((resolve) => {
				globalThis.veclabExplorerReady = resolve;
				WebAssembly.instantiate(m.module, go.importObject).then((inst) => go.run(inst));
			});
			postMessage({ type: "ready", version: veclabExplorer.version, strategies: Array.from(veclabExplorer.strategies) });
		})().catch((err) => postMessage({ type: "error", id: 0, error: "explorer: starting the module: " + err }));
		return;
	}
	await ready;
	try {
		switch (m.type) {
			case "build":
				answer(m.id, "built", veclabExplorer.build(JSON.stringify(m.params),
					(phase, done, total) => postMessage({ type: "progress", id: m.id, phase, done, total })));
				break;
			case "search":
				answer(m.id, "searched", veclabExplorer.search(JSON.stringify(m.params)));
				break;
			case "draw":
				answer(m.id, "drawn", veclabExplorer.draw(m.ef, m.k, m.seed));
				break;
			case "data": {
				const d = veclabExplorer.data();
				if (typeof d === "string") {
					postMessage({ type: "error", id: m.id, error: JSON.parse(d).error });
				} else {
					postMessage({ type: "data", id: m.id, data: { dim: d.dim, metric: d.metric, base: d.base, queries: d.queries, k: d.k, truth: d.truth } },
						[d.base.buffer, d.queries.buffer, d.truth.buffer]);
				}
				break;
			}
			default:
				postMessage({ type: "error", id: m.id, error: "explorer worker: unknown request " + m.type });
		}
	} catch (err) {
		postMessage({ type: "error", id: m.id, error: String(err && err.stack || err) });
	}
};
