// bench.js measures, in one chromium page, the HNSW build time and the
// queries per second of veclab's engine-only WebAssembly module
// (explorer.wasm, served by `veclab serve` at /explorer/) against
// hnswlib-wasm from npm (this directory's lock file: hnswlib's C++ compiled
// by Emscripten), on the same data: the vectors veclab's module generates
// (uniform in [−1, 1]^dim, squared L2) are handed to hnswlib-wasm, and both
// are scored against the same exact top-10. Both run on the page's main
// thread, one after the other, single-threaded, with the same M,
// efConstruction and ef sweep. veclab's module runs twice, as two
// instances: on its pure-Go kernels (VECLAB_SIMD off) and with the
// WebAssembly SIMD128 kernels of veclab-simd.js; each also times the
// exhaustive scans of every query (explore.Scan: exact float32, 4-bit and
// 1-bit OSQ codes).
//
//	node bench.js URL [n dim M efConstruction queries seed]
//
// It prints one JSON object: for each engine its build seconds and, per
// ef, recall@10 and QPS (veclab's: "veclab" with SIMD128, "fallback"
// without, each with its scans and the console line naming its kernels); cmd/veclab's BenchmarkBrowserHNSW reads it. The
// hnswlib-wasm files are served to the page from node_modules through a
// route of the page's own origin (veclab serve does not serve them).
"use strict";

const browser = require("./chromium.js");
const fs = require("node:fs");
const path = require("node:path");

const [base, ...rest] = process.argv.slice(2);
if (!base) {
	console.error("usage: node bench.js URL [n dim M efConstruction queries seed]");
	process.exit(2);
}
const [n, dim, m, efc, queries, seed] = [20000, 128, 16, 200, 200, 1].map((d, i) => (rest[i] ? Number(rest[i]) : d));
const efs = [10, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768];
const dist = path.dirname(require.resolve("hnswlib-wasm/dist/hnswlib.js"));

async function main() {
	const { profile, context } = await browser.launch("veclab-bench-");
	try {
		const page = context.pages()[0] || (await context.newPage());
		await page.route("**/hnswlib-wasm/*", (route) => {
			const f = path.join(dist, path.basename(new URL(route.request().url()).pathname));
			if (!fs.existsSync(f)) return route.fulfill({ status: 404, body: "not found" });
			route.fulfill({
				status: 200, body: fs.readFileSync(f),
				headers: { "content-type": "text/javascript; charset=utf-8", "cross-origin-resource-policy": "same-origin" },
			});
		});
		const logs = [];
		page.on("console", (msg) => logs.push(msg.text()));
		// A page of the origin that draws nothing: the explorer's own page
		// would build its default index first.
		await page.goto(new URL("explorer/worker.js", base).href);
		const out = await page.evaluate(async ({ n, dim, m, efc, queries, seed, efs }) => {
			const load = (src) => new Promise((resolve, reject) => {
				const s = document.createElement("script");
				s.src = src;
				s.onload = resolve;
				s.onerror = () => reject(new Error("loading " + src));
				document.head.appendChild(s);
			});
			await load("/wasm_exec.js");
			await load("/veclab-simd.js");
			const module = await WebAssembly.compileStreaming(fetch("/explorer/explorer.wasm"));
			const answer = (s) => {
				const v = JSON.parse(s);
				if (v.error) throw new Error(v.error);
				return v;
			};
			// run starts one instance of the module, with the SIMD128
			// kernels or on its pure-Go fallback (simd false), builds the
			// index, sweeps ef and times the exhaustive scans.
			const run = async (simd) => {
				const go = new Go();
				const kernels = veclabSIMD.install(go.importObject, { disable: !simd });
				let line = "";
				await new Promise(async (resolve) => {
					globalThis.veclabExplorerReady = resolve;
					const instance = await WebAssembly.instantiate(module, go.importObject);
					line = kernels.attach(instance);
					go.run(instance);
				});
				const X = globalThis.veclabExplorer;
				const info = answer(X.build(JSON.stringify({ n, dim, queries, m, efConstruction: efc, seed, uniform: true, pictureN: 2 })));
				const ours = answer(X.search(JSON.stringify({ k: 10, ef: efs[0], efs })));
				const scans = [32, 4, 1].map((bits) => answer(X.scan(JSON.stringify({ bits, k: 10 }))));
				return {
					X, r: { module: X.version, kernels: line, simd: kernels.simd, buildSeconds: info.buildSeconds,
						curve: ours.curve.map((p) => ({ ef: p.ef, recall: p.recall, qps: p.qps })),
						scans: scans.map((s) => ({ bits: s.bits, recall: s.recall, qps: s.qps })) },
				};
			};
			const fallback = await run(false);
			const simd = await run(true);
			const X = simd.X;
			const d = X.data();
			const k = d.k;

			const { loadHnswlib } = await import("/hnswlib-wasm/hnswlib.js");
			const lib = await loadHnswlib();
			const ix = new lib.HierarchicalNSW("l2", dim, "");
			ix.initIndex(n, m, efc, 100);
			const rows = [];
			for (let i = 0; i < n; i++) rows.push(d.base.subarray(i * dim, (i + 1) * dim));
			const labels = Array.from({ length: n }, (_, i) => i);
			let t = performance.now();
			ix.addPoints(rows, labels, false);
			const hBuild = (performance.now() - t) / 1000;
			const qs = [];
			for (let i = 0; i < queries; i++) qs.push(d.queries.subarray(i * dim, (i + 1) * dim));
			const hCurve = [];
			for (const ef of efs) {
				ix.setEfSearch(ef);
				// Timed as veclab's sweep is (lab/explore's timing, lab/metrics' loop):
				// every query once untimed, then whole passes until at least 5 and
				// 40 ms have run; the QPS is the best pass's.
				const got = [];
				for (const q of qs) got.push(ix.searchKnn(q, k, undefined).neighbors);
				let best = Infinity, spent = 0;
				for (let pass = 0; pass < 5 || (spent < 40 && pass < 200); pass++) {
					t = performance.now();
					for (const q of qs) ix.searchKnn(q, k, undefined);
					const d = performance.now() - t;
					spent += d;
					best = Math.min(best, d);
				}
				const el = best / 1000;
				let hits = 0;
				got.forEach((g, i) => {
					const truth = new Set(d.truth.subarray(i * k, (i + 1) * k));
					for (const id of g) if (truth.has(id)) hits++;
				});
				hCurve.push({ ef, recall: hits / (queries * k), qps: queries / el });
			}
			return {
				params: { n, dim, m, efConstruction: efc, queries, seed, k },
				veclab: simd.r,
				fallback: fallback.r,
				hnswlib: { module: "hnswlib-wasm", buildSeconds: hBuild, curve: hCurve },
			};
		}, { n, dim, m, efc, queries, seed, efs });
		out.userAgent = await page.evaluate(() => navigator.userAgent);
		console.log(JSON.stringify(out));
	} finally {
		await context.close();
		fs.rmSync(profile, { recursive: true, force: true });
	}
}

main().catch((e) => {
	console.error(e.stack || String(e));
	process.exit(1);
});
