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
//   - the site's launcher links to the explorer (a command the site
//     registers).
//
//	node explorer.js URL
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
