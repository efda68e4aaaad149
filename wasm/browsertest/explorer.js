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
//   - the site's launcher links to the explorer (a command the site
//     registers).
//
//	node explorer.js URL
//
// It prints one line per check and exits 1 at the first failure. The
// browser is $CHROMIUM, default /usr/bin/chromium. No request may leave
// the page's origin.
"use strict";

const { chromium } = require("playwright-core");
const fs = require("node:fs");
const os = require("node:os");
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
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), "veclab-explorer-"));
	const context = await chromium.launchPersistentContext(profile, {
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		headless: true,
		args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking"],
	});
	const foreign = [];
	context.on("request", (r) => {
		if (!r.url().startsWith(origin) && !r.url().startsWith("data:") && !r.url().startsWith("blob:")) foreign.push(r.url());
	});
	try {
		const page = context.pages()[0] || (await context.newPage());
		const errors = [];
		page.on("pageerror", (e) => errors.push(String(e)));
		// n = 1,000 × 16 dimensions, M 8, efConstruction 16: a build of well under a second.
		const t = Date.now();
		await page.goto(new URL("explorer/?n=0&dim=0&m=8&efc=0", base).href);
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
		check(first.info.params.n === 1000 && first.info.params.dim === 16, "the URL's tiny index was built");
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
		check(errors.length === 0, "page errors: " + errors.join("; "));

		// The site links to the explorer.
		await page.goto(base);
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
