// advise-worker.js runs advise.wasm (lab/advise, built from
// wasm/explorer/advise by `veclab serve`) off the page's main thread, on
// a file dropped on the explorer page. The page posts the compiled
// WebAssembly.Module, then one request:
//
//	{type: "init", module, simdOff}
//	{type: "run", bytes, name, options}  → {type: "progress", done, total, what}…, then {type: "advised", answer} or {type: "error", error}
//
// The page stops a run by terminating this worker: the call is
// synchronous, and a terminated worker's memory goes with it.
importScripts("../wasm_exec.js", "../veclab-simd.js");

let ready = null;

onmessage = async (e) => {
	const m = e.data;
	if (m.type === "init") {
		ready = (async () => {
			const go = new Go();
			const simd = veclabSIMD.install(go.importObject, { disable: !!m.simdOff });
			await new Promise((resolve, reject) => {
				globalThis.veclabAdviseReady = resolve;
				WebAssembly.instantiate(m.module, go.importObject).then((inst) => {
					simd.attach(inst);
					go.run(inst);
				}, reject);
			});
			postMessage({ type: "ready", version: veclabAdvise.version });
		})().catch((err) => postMessage({ type: "error", error: "starting advise.wasm: " + err }));
		return;
	}
	await ready;
	if (m.type !== "run") {
		postMessage({ type: "error", error: "advise worker: unknown request " + m.type });
		return;
	}
	try {
		const out = JSON.parse(veclabAdvise.run(m.bytes, m.name, JSON.stringify(m.options || {}),
			(done, total, what) => postMessage({ type: "progress", done, total, what })));
		if (out.error) postMessage({ type: "error", error: out.error });
		else postMessage({ type: "advised", answer: out });
	} catch (err) {
		postMessage({ type: "error", error: String(err && err.stack || err) });
	}
};
