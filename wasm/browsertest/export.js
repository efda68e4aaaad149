// export.js opens a page written by `veclab export -html` from a file: URL
// in Debian's chromium through playwright-core, with every request that is
// not file:, data:, blob: or loopback blocked (and counted: one fails the
// test), and checks what the page shows once its script is done
// (<body data-widgets="rendered N">):
//
//   - the widgets were drawn by @jupyter-widgets/html-manager from the
//     notebook's saved state: an IntSlider whose readout is WANT_VALUE,
//     and an Output whose text contains WANT_OUTPUT (its last content);
//   - the text fallback of each drawn widget is gone;
//   - the Markdown cells became HTML (an <h1>);
//   - with WANT_CHARTS, vega-embed drew that many Vega-Lite charts as SVG
//     (<body data-charts="rendered N">) in place of their pictures;
//   - no page error.
//
//	node export.js PAGE.html WANT_VALUE WANT_OUTPUT [WANT_CHARTS]
//
// It prints one line per check and exits 1 at the first failure. The
// browser is $CHROMIUM, default /usr/bin/chromium.
"use strict";

const browser = require("./chromium.js");
const fs = require("node:fs");
const path = require("node:path");
const { pathToFileURL } = require("node:url");

const [pagePath, wantValue, wantOutput, wantCharts] = process.argv.slice(2);
if (!pagePath || wantValue === undefined || wantOutput === undefined) {
	console.error("usage: node export.js PAGE.html WANT_VALUE WANT_OUTPUT [WANT_CHARTS]");
	process.exit(2);
}
const t0 = Date.now();
const secs = (t = t0) => ((Date.now() - t) / 1000).toFixed(1) + " s";
function check(ok, what) {
	if (!ok) throw new Error("check failed: " + what);
	console.log("ok: " + what);
}

// local reports whether a URL may be fetched: the page's own file, data:
// and blob: URLs, and the loopback interface.
function local(u) {
	const url = new URL(u);
	if (["file:", "data:", "blob:", "about:"].includes(url.protocol)) return true;
	return ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
}

async function main() {
	const { profile, context } = await browser.launch("veclab-export-");
	const foreign = [];
	await context.route("**/*", (route) => {
		const u = route.request().url();
		if (local(u)) return route.continue();
		foreign.push(u);
		return route.abort("blockedbyclient");
	});
	context.on("request", (r) => {
		if (!local(r.url()) && !foreign.includes(r.url())) foreign.push(r.url());
	});
	try {
		const page = context.pages()[0] || (await context.newPage());
		const errors = [];
		page.on("pageerror", (e) => errors.push(String(e)));
		page.on("console", (m) => {
			if (m.type() === "error") errors.push("console: " + m.text());
		});
		await page.goto(pathToFileURL(path.resolve(pagePath)).href);
		await page.waitForFunction(
			(charts) => document.body && document.body.dataset.widgets && (!charts || document.body.dataset.charts),
			wantCharts, { timeout: 30000 });
		const seen = await page.evaluate(() => ({
			status: document.body.dataset.widgets,
			readouts: [...document.querySelectorAll(".widget-slider .widget-readout")].map((e) => e.textContent.trim()),
			sliders: document.querySelectorAll(".widget-slider").length,
			outputs: [...document.querySelectorAll(".widget-output")].map((e) => e.innerText),
			fallbacks: [...document.querySelectorAll("pre.vl-widget-text")].map((e) => e.textContent),
			views: document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length,
			h1: [...document.querySelectorAll(".vl-markdown h1")].map((e) => e.textContent),
			charts: document.body.dataset.charts,
			chartSVGs: document.querySelectorAll(".vl-vega-chart svg.marks").length,
			chartFallbacks: document.querySelectorAll(".vl-vega-fallback").length,
		}));
		console.log(`page done in ${secs()}: ${JSON.stringify(seen)}`);
		check(seen.status === "rendered " + seen.views && seen.views > 0, `html-manager drew all ${seen.views} widget views ("${seen.status}")`);
		check(seen.sliders === 1 && seen.readouts.includes(wantValue), `the slider shows its saved value ${wantValue} (readouts ${JSON.stringify(seen.readouts)})`);
		check(seen.outputs.some((t) => t.includes(wantOutput)), `the Output shows its last content ${JSON.stringify(wantOutput)}`);
		check(seen.fallbacks.length === 0, "the text fallbacks of the drawn widgets are gone");
		check(seen.h1.length > 0, `the Markdown cells are HTML (h1 ${JSON.stringify(seen.h1)})`);
		if (wantCharts) {
			const n = Number(wantCharts);
			check(seen.charts === "rendered " + n && seen.chartSVGs === n && seen.chartFallbacks === 0,
				`vega-embed drew ${n} chart(s) in place of their pictures ("${seen.charts}", ${seen.chartSVGs} SVGs, ${seen.chartFallbacks} pictures left)`);
		}
		check(errors.length === 0, `no page errors (${errors.join("; ")})`);
		check(foreign.length === 0, `no request left the machine (${foreign.join(", ")})`);
	} finally {
		await context.close();
		fs.rmSync(profile, { recursive: true, force: true });
	}
}

main().then(
	() => console.log(`export.js: all checks passed in ${secs()}`),
	(e) => {
		console.error(String(e && e.stack ? e.stack : e));
		process.exit(1);
	},
);
