// explorer.js drives the explorer page (wasm/explorer, served by `veclab
// serve` at /explorer/) in Debian's chromium through playwright-core, as
// cmd/veclab's TestBrowserExplorer does. It checks, in the real browser:
//
//   - the page loads explorer.wasm, builds a tiny index in its worker and
//     draws the recall and QPS curves (a current point with a recall
//     value), the exact and approximate top-k and the HNSW layers;
//   - moving ef (1 → 200) redraws the recall plot with a new, higher
//     recall value;
//   - a build superseded by another (data size moved during a build)
//     ends with the second index, and a filter strategy searches;
//   - the charts carry a legend naming the curve (strategy and filter)
//     and the current point, axis labels with units, and the layers a
//     legend of their colours;
//   - choosing ACORN-γ (γ 4) says it builds a second, denser graph,
//     builds it in the worker, and then answers with its recall shown on
//     the chart and in the strategies' side-by-side table, its build time
//     and memory beside the HNSW graph's;
//   - an error of the module is shown on the page;
//   - a file dropped on the page (a .npy of 3,000 × 32 clustered vectors
//     the test writes) is advised by advise.wasm: the four stores'
//     recall@10 on their defaults and the knob value reaching 0.95, the
//     sentences, the table and the chart; a file over the stated limit
//     and one with a NaN get one clear line each; "stop" ends a run;
//   - the site's launcher links to the explorer (a command the site
//     registers).
//
//	node explorer.js URL [SCREENSHOT.png]
//
// It prints one line per check and exits 1 at the first failure. The
// browser is $CHROMIUM, default /usr/bin/chromium. No request may leave
// the page's origin.
"use strict";

const browser = require("./chromium.js");
const fs = require("node:fs");
const path = require("node:path");

const base = process.argv[2];
if (!base) {
	console.error("usage: node explorer.js URL");
	process.exit(2);
}
const origin = new URL(base).origin;
const t0 = Date.now();
const secs = (t = t0) => ((Date.now() - t) / 1000).toFixed(1) + " s";
function check(ok, what) {
	if (!ok) throw new Error("check failed: " + what);
}

// npy is a NumPy .npy file (format 1.0, '<f4', C order) of rows × dim
// float32s: `clusters` Gaussian clusters (σ 0.1 around centres drawn in
// [-1, 1]), from a seeded generator (mulberry32, Box–Muller), so the file
// is the same every run. nanAt, if given, puts a NaN at [row, component].
function npy(rows, dim, clusters, seed, nanAt) {
	let a = seed >>> 0;
	const rnd = () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
	const centres = Array.from({ length: clusters }, () => Array.from({ length: dim }, () => 2 * rnd() - 1));
	const data = new Float32Array(rows * dim);
	for (let i = 0; i < rows; i++) {
		const c = centres[Math.floor(rnd() * clusters)];
		for (let j = 0; j < dim; j++) data[i * dim + j] = c[j] + 0.1 * gauss();
	}
	if (nanAt) data[nanAt[0] * dim + nanAt[1]] = NaN;
	let hdr = `{'descr': '<f4', 'fortran_order': False, 'shape': (${rows}, ${dim}), }`;
	hdr += " ".repeat(63 - ((10 + hdr.length) % 64)) + "\n"; // 10 + len(header) is a multiple of 64
	const head = Buffer.alloc(10);
	head.write("\x93NUMPY", 0, "latin1");
	head[6] = 1;
	head[7] = 0;
	head.writeUInt16LE(hdr.length, 8);
	return Buffer.concat([head, Buffer.from(hdr, "latin1"), Buffer.from(data.buffer)]);
}

async function main() {
	const { profile, context } = await browser.launch("veclab-explorer-");
	const foreign = [];
	context.on("request", (r) => {
		if (!r.url().startsWith(origin) && !r.url().startsWith("data:") && !r.url().startsWith("blob:")) foreign.push(r.url());
	});
	try {
		const page = context.pages()[0] || (await context.newPage());
		const errors = [];
		page.on("pageerror", (e) => errors.push(String(e)));
		// n = 1,000 × 16 dimensions, M 8, efConstruction 16: a build of well under a second.
		// n and efc are given as values (as a notebook's link gives them), dim as its
		// slider's step index (both forms preset a stepped slider).
		const t = Date.now();
		await page.goto(new URL("explorer/?n=1000&dim=0&m=8&efc=16", base).href);
		await page.waitForFunction(() => window.explorerState && window.explorerState.searches >= 1 && document.querySelector("#layers svg"), null, { timeout: 60000 });
		const first = await page.evaluate(() => ({
			recall: Number(document.querySelector("#recall circle.current").dataset.value),
			qps: Number(document.querySelector("#qps circle.current").dataset.value),
			points: document.querySelectorAll("#recall circle").length,
			rows: document.querySelectorAll("#topk tr").length,
			hits: document.querySelectorAll("#topk td.hit").length,
			layers: document.querySelectorAll("#layers .layer").length,
			info: window.explorerState.built,
			status: document.getElementById("status").textContent,
		}));
		console.log(`ok: built ${first.info.params.n} × ${first.info.params.dim} and drew the first answer in ${secs(t)}: ${first.status}`);
		check(first.info.params.n === 1000 && first.info.params.dim === 16 && first.info.params.efConstruction === 16 && first.info.params.m === 8,
			`the URL's tiny index was built (n, efConstruction by value, dim by step index): ${JSON.stringify(first.info.params)}`);
		check(first.recall > 0 && first.recall <= 1 && first.qps > 0, `recall ${first.recall} and QPS ${first.qps} at the current ef`);
		check(first.points >= 10, `the recall curve has ${first.points} points`);
		check(first.rows === 11 && first.hits > 0, `top-k table: ${first.rows} rows, ${first.hits} hits`);
		check(first.layers >= 2, `${first.layers} HNSW layers drawn`);

		// Move ef: 1 → 200.
		await page.evaluate(() => {
			const ef = document.getElementById("ef");
			ef.value = "1";
			ef.dispatchEvent(new Event("input"));
		});
		await page.waitForFunction(() => window.explorerState.lastResult && window.explorerState.lastResult.current.ef === 1 && !window.explorerState.searching, null, { timeout: 30000 });
		const low = await page.evaluate(() => Number(document.querySelector("#recall circle.current").dataset.value));
		await page.evaluate(() => {
			const ef = document.getElementById("ef");
			ef.value = "200";
			ef.dispatchEvent(new Event("input"));
		});
		await page.waitForFunction(() => window.explorerState.lastResult && window.explorerState.lastResult.current.ef === 200 && !window.explorerState.searching, null, { timeout: 30000 });
		const high = await page.evaluate(() => ({
			recall: Number(document.querySelector("#recall circle.current").dataset.value),
			label: [...document.querySelectorAll("#recall text")].map((t) => t.textContent).find((s) => s.startsWith("ef 200:")),
		}));
		console.log(`ok: moving ef 1 → 200 redrew the recall plot: ${low} → ${high.recall} (${high.label})`);
		check(high.label && high.recall > low && high.recall > 0.95, `recall at ef 200 (${high.recall}) above recall at ef 1 (${low}) and above 0.95`);

		// Supersede a build: move n twice in a row, the second before the
		// first build is done; the index is the second one's.
		const builds = await page.evaluate(() => window.explorerState.builds);
		await page.evaluate(() => {
			const n = document.getElementById("n");
			n.value = "5"; // 20,000: a build of seconds
			n.dispatchEvent(new Event("input"));
		});
		await page.waitForFunction(() => window.explorerState.building !== 0, null, { timeout: 10000 });
		await page.evaluate(() => {
			const n = document.getElementById("n");
			n.value = "1"; // 2,000
			n.dispatchEvent(new Event("input"));
		});
		await page.waitForFunction((b) => window.explorerState.builds > b && window.explorerState.building === 0 && window.explorerState.lastResult && !window.explorerState.searching, builds, { timeout: 60000 });
		const sup = await page.evaluate(() => ({ n: window.explorerState.built.params.n, builds: window.explorerState.builds }));
		console.log(`ok: a build superseded by another ended with n = ${sup.n} (${sup.builds - builds} build finished)`);
		check(sup.n === 2000 && sup.builds === builds + 1, `superseded build: n ${sup.n}, ${sup.builds - builds} builds finished`);

		// A filter with the Qdrant planner.
		await page.evaluate(() => {
			document.getElementById("strategy").value = "qdrant";
			const sel = document.getElementById("sel");
			sel.value = "4"; // 20 %
			sel.dispatchEvent(new Event("input"));
		});
		await page.waitForFunction(() => window.explorerState.lastResult && window.explorerState.lastResult.filter === "bucket < 20" && !window.explorerState.searching, null, { timeout: 30000 });
		const fr = await page.evaluate(() => window.explorerState.lastResult);
		console.log(`ok: filter ${fr.filter} with ${fr.strategy}: ${fr.matching} match, recall ${fr.current.recall} (${fr.paths})`);
		check(fr.strategy === "qdrant" && fr.matching > 300 && fr.matching < 500 && fr.current.recall > 0, "the filtered search ran");

		// The legends and axis labels.
		const lg = await page.evaluate(() => ({
			recall: [...document.querySelectorAll("#recall g.legend text")].map((t) => t.textContent),
			qps: [...document.querySelectorAll("#qps g.legend text")].map((t) => t.textContent),
			axes: [...document.querySelectorAll("#recall > text, #qps > text, #dist > text")].map((t) => t.textContent),
			layers: document.querySelectorAll("#layers-legend > span").length,
		}));
		console.log(`ok: the recall chart's legend reads "${lg.recall.join('" / "')}"; ${lg.layers} colours in the layers' legend`);
		check(lg.recall.length === 2 && lg.recall[0] === "qdrant, filter bucket < 20" && lg.recall[1].startsWith("the current ef") && lg.qps[0] === lg.recall[0], "the charts' legends name the curve and the current point");
		check(lg.axes.includes("queries per second") && lg.axes.includes("recall@10 (1 = the exact top-10)") && lg.axes.includes("distances computed per query") && lg.axes.some((s) => s.startsWith("ef: ")), "axis labels: " + lg.axes.filter((s) => /[a-z]/.test(s)).join(" | "));
		check(lg.layers >= 8, "the layers' colour legend");

		// ACORN-γ: its own graph is built when the strategy is first chosen.
		const ta = Date.now();
		const building = await page.evaluate(() => {
			document.getElementById("gamma").value = "4";
			document.getElementById("ef").value = "64"; // the strategies' table runs at the current ef
			document.getElementById("strategy").value = "acorn-gamma";
			const sel = document.getElementById("sel");
			sel.value = "6"; // 50 %: above 1/γ, so ACORN walks its graph
			sel.dispatchEvent(new Event("input"));
			return { acorn: window.explorerState.acornBuilding !== 0, state: document.getElementById("state-title").textContent };
		});
		check(building.acorn && building.state.includes("second, denser graph"), `while ACORN-γ builds, the state box says so: "${building.state}"`);
		await page.waitForFunction(() => {
			const s = window.explorerState;
			return s.acornBuilds === 1 && s.lastResult && s.lastResult.strategy === "acorn-gamma" && !s.searching && s.lastCompare && s.lastCompare.params.strategy === "acorn-gamma";
		}, null, { timeout: 60000 });
		const ac = await page.evaluate(() => ({
			r: window.explorerState.lastResult,
			acorn: window.explorerState.acorn,
			drawn: Number(document.querySelector("#recall circle.current").dataset.value),
			legend: document.querySelector("#recall g.legend text").textContent,
			row: [...document.querySelectorAll('#compare tr[data-strategy="acorn-gamma"] td')].map((td) => td.textContent).join(" | "),
			chosen: document.querySelector("#compare tr.chosen").dataset.strategy,
			rows: document.querySelectorAll("#compare tr[data-strategy]").length,
			facts: document.getElementById("acorn-facts").textContent,
		}));
		console.log(`ok: ACORN-γ (γ ${ac.acorn.gamma}) built in ${ac.acorn.seconds.toFixed(2)} s (mean degree ${ac.acorn.meanDegree.toFixed(1)} vs HNSW's ${ac.acorn.hnswMeanDegree.toFixed(1)}), answered ${ac.r.filter} with recall ${ac.r.current.recall} (${ac.r.paths}) in ${secs(ta)}; table row: ${ac.row}`);
		check(ac.acorn.gamma === 4 && ac.acorn.meanDegree > ac.acorn.hnswMeanDegree, "the ACORN-γ graph is the denser one");
		check(ac.r.paths === "acorn-gamma×100" && ac.r.current.recall > 0.8 && ac.drawn === ac.r.current.recall, `ACORN-γ's recall ${ac.r.current.recall} drawn as ${ac.drawn} (${ac.r.paths})`);
		check(ac.legend === "acorn-gamma, filter bucket < 50", "the legend names ACORN-γ: " + ac.legend);
		check(ac.chosen === "acorn-gamma" && ac.rows >= 9 && ac.row.includes(ac.r.current.recall.toFixed(3)), "ACORN-γ beside the other strategies with its recall: " + ac.row);
		check(ac.facts.includes("built in") && ac.facts.includes("MB in all"), "ACORN-γ's build time and memory shown: " + ac.facts);
		check(errors.length === 0, "page errors: " + errors.join("; "));

		// An error of the module reaches the page.
		await page.evaluate(() => window.explorerState.worker.postMessage({ type: "search", id: 0, params: { k: 1000 } }));
		await page.waitForFunction(() => window.explorerState.errors.length > 0, null, { timeout: 30000 });
		const shown = await page.evaluate(() => ({ visible: document.getElementById("error").offsetHeight > 0, text: document.getElementById("error-text").textContent }));
		console.log(`ok: a module error is shown: ${shown.text}`);
		check(shown.visible && shown.text.includes("k 1000 (want 1…100)"), "the error box");

		// Advice on a dropped file: a page whose limit is set to 1 MB
		// (stated on it) refuses a larger file with a clear message; the
		// page with its own limit (32 MB) names the row of a file with a
		// NaN (dropped as a DataTransfer), and advises on
		// a real .npy of 3,000 × 32 clustered vectors (chosen with the
		// file picker) in advise.wasm: the four stores' recall@10 on
		// their defaults and the knob found, the sentences, the chart.
		await page.goto(new URL("explorer/?n=1000&dim=0&m=8&efc=16&adviseLimitMB=1", base).href);
		await page.waitForFunction(() => window.explorerState && window.explorerState.searches >= 1, null, { timeout: 60000 });
		const limit = await page.evaluate(() => document.getElementById("advise-why").textContent);
		check(limit.includes("up to 1 MB"), "the page states its limit: " + limit);
		await page.setInputFiles("#advise-file", { name: "big.npy", mimeType: "application/octet-stream", buffer: Buffer.alloc(1200000) });
		await page.waitForFunction(() => window.explorerState.advise.errors.length > 0, null, { timeout: 10000 });
		const over = await page.evaluate(() => ({ text: document.getElementById("advise-error").textContent, visible: document.getElementById("advise-error").offsetHeight > 0, running: window.explorerState.advise.running }));
		console.log(`ok: a file over the limit: ${over.text}`);
		check(over.visible && !over.running && over.text === "big.npy: 1.1 MB, over this page's limit of 1 MB: drop a sample of its rows, or run veclab advise big.npy on your machine (no limit but its memory).", "the over-limit message");

		// The page's own limit, for the rest.
		await page.goto(new URL("explorer/?n=1000&dim=0&m=8&efc=16", base).href);
		await page.waitForFunction(() => window.explorerState && window.explorerState.searches >= 1, null, { timeout: 60000 });
		const stated = await page.evaluate(() => document.getElementById("advise-limit").textContent);
		check(stated === "32 MB", "the page's own limit: " + stated);
		const tn = Date.now();
		const nanFile = [...npy(500, 8, 4, 7, [17, 3])];
		await page.evaluate((bytes) => {
			const dt = new DataTransfer();
			dt.items.add(new File([new Uint8Array(bytes)], "with-nan.npy"));
			document.getElementById("drop").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
		}, nanFile);
		await page.waitForFunction(() => window.explorerState.advise.errors.some((e) => e.startsWith("with-nan.npy")), null, { timeout: 180000 });
		const nanMsg = await page.evaluate(() => document.getElementById("advise-error").textContent);
		console.log(`ok: a dropped file with a NaN, in ${secs(tn)} (advise.wasm fetched and compiled once): ${nanMsg}`);
		check(/^with-nan\.npy: row 17 at offset \d+: component 3 is NaN: fix or drop that row/.test(nanMsg) && !nanMsg.includes("engine:"), "the NaN row named in the user's terms");

		const tf = Date.now();
		await page.setInputFiles("#advise-file", { name: "clusters.npy", mimeType: "application/octet-stream", buffer: npy(3000, 32, 20, 42) });
		await page.waitForFunction(() => window.explorerState.advise.runs >= 1 || window.explorerState.advise.errors.length > 2, null, { timeout: 600000 });
		const adv = await page.evaluate(() => {
			const a = window.explorerState.advise;
			return {
				errors: a.errors, seconds: a.seconds, moduleSeconds: a.moduleSeconds, state: document.getElementById("advise-state").textContent,
				report: a.answer && a.answer.report,
				sentences: [...document.querySelectorAll("#advise-out li")].map((li) => li.textContent),
				rows: document.querySelectorAll("#advise-out table tr").length,
				charts: document.querySelectorAll("#advise-out svg").length,
				title: document.getElementById("advise-title").textContent,
			};
		});
		check(adv.report, "no advice: " + adv.errors.slice(2).join("; "));
		// The knob that reached the target: the beam's, or (a quantized
		// Elasticsearch at 32 dimensions is int8_hnsw) rescoring's oversample.
		const rs = adv.report.stores.map((r) => {
			const s = r.unfiltered.search.reached || !r.oversample ? r.unfiltered : r.oversample;
			return { store: r.store, def: r.unfiltered.default.recall, found: s.at_found.value, at: s.at_found.recall, reached: s.search.reached, knob: s.knob };
		});
		console.log(`ok: advice on a dropped 3,000 × 32 .npy in ${adv.seconds.toFixed(1)} s in the tab (${secs(tf)} with the test's upload): ${adv.title}; ${adv.state}`);
		for (const r of rs) console.log(`    ${r.store}: default recall@10 ${r.def.toFixed(3)}, ${r.knob} = ${r.found} → ${r.at.toFixed(3)} (reached ${r.reached})`);
		for (const s of adv.sentences) console.log(`    • ${s}`);
		check(adv.report.data.base === 2800 && adv.report.data.queries === 200 && adv.report.data.dim === 32, `2,800 base rows and 200 held-out queries of 32 dimensions: ${JSON.stringify(adv.report.data)}`);
		check(rs.length === 4 && rs.map((r) => r.store).join() === "pgvector,redis,qdrant,elasticsearch", "the four stores: " + rs.map((r) => r.store).join());
		check(rs.every((r) => r.def > 0.5 && r.def <= 1 && r.reached && r.at >= adv.report.target - adv.report.tolerance && r.at <= 1), "plausible recall: every store above 0.5 on its defaults and reaching the target at the value found (its beam, or its oversample)");
		const done = await page.evaluate(() => ({ bar: document.getElementById("advise-progress").offsetHeight, stop: document.getElementById("advise-stop").disabled }));
		check(done.bar === 0 && done.stop, "the finished run hides its progress bar and disables stop");
		check(adv.sentences.length === 4 && adv.rows >= 5 && adv.charts >= 1, `the sentences (${adv.sentences.length}), the table (${adv.rows} rows) and the recall-vs-knob chart (${adv.charts})`);
		if (process.argv[3]) {
			// The page from its top to the advice's end: the drop zone and
			// its state on the left, the advice at the head of the figures.
			await page.setViewportSize({ width: 1400, height: 1000 });
			const bottom = await page.evaluate(() => {
				window.scrollTo(0, 0);
				const r = document.getElementById("advise-fig").getBoundingClientRect();
				return Math.ceil(Math.max(r.bottom, document.getElementById("advise-set").getBoundingClientRect().bottom)) + 8;
			});
			await page.screenshot({ path: process.argv[3], fullPage: true, clip: { x: 0, y: 0, width: 1400, height: bottom } });
			console.log(`ok: screenshot written to ${process.argv[3]}`);
		}
		// Stop: the same file again, stopped once a store is being built;
		// the run ends there (its worker terminated) and counts no advice.
		await page.setInputFiles("#advise-file", []);
		await page.setInputFiles("#advise-file", { name: "clusters.npy", mimeType: "application/octet-stream", buffer: npy(3000, 32, 20, 42) });
		await page.waitForFunction(() => document.getElementById("advise-state").textContent.includes("build"), null, { timeout: 120000 });
		await page.click("#advise-stop");
		const stopped = await page.evaluate(() => ({ a: window.explorerState.advise, state: document.getElementById("advise-state").textContent, worker: window.explorerState.advise.worker }));
		await page.waitForTimeout(1000);
		const runsAfter = await page.evaluate(() => window.explorerState.advise.runs);
		console.log(`ok: stop during a build: "${stopped.state}"`);
		check(!stopped.a.running && stopped.worker === null && runsAfter === 1 && stopped.state.startsWith("stopped"), "stop ends the run and keeps nothing");
		check(errors.length === 0, "page errors: " + errors.join("; "));

		// The site links to the explorer.
		// (Not waiting for "load": the site's large module may take longer
		// than goto's 30 s on a loaded machine; the wait below is for the
		// site being ready.)
		await page.goto(base, { waitUntil: "domcontentloaded", timeout: 120000 });
		await page.waitForFunction(() => document.body.dataset.veclabLite === "ready" && window.jupyterapp, null, { timeout: 120000 });
		const hasCmd = await page.evaluate(() => window.jupyterapp.commands.hasCommand("veclab:open-explorer") && window.jupyterapp.commands.label("veclab:open-explorer"));
		console.log(`ok: the site has the command "${hasCmd}"`);
		check(hasCmd === "veclab explorer", "the site's explorer link");
		check(foreign.length === 0, "requests left the origin: " + foreign.join(", "));
	} finally {
		await context.close();
		fs.rmSync(profile, { recursive: true, force: true });
	}
	console.log(`explorer: all checks passed in ${secs()}`);
}

main().catch((e) => {
	console.error(e.stack || String(e));
	process.exit(1);
});
