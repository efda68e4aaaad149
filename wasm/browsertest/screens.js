// screens.js takes the screenshots of docs/course-screenshots: what a
// learner sees on opening a notebook in veclab's JupyterLite site
// (wasm/lite, served by `veclab serve`), in Debian's chromium through
// playwright-core, without running it (issue 31's before/after).
//
//	node screens.js URL OUTDIR SIDE [NN ...]     (or: npm run screens -- URL OUTDIR SIDE)
//
// For each notebook NN (its file name's prefix before "-"; default 00,
// 00b, 00d, 00e, 01 and 04), found in the site's notebooks/ folder, it starts
// chromium on a new profile (a first visit: no tabs restored), opens the
// notebook's shared link (URL?path=notebooks/NAME.ipynb), waits for it and
// its saved outputs, and takes up to four screenshots of the window as it
// is (1280 × 900 CSS pixels, the file browser open as the site starts),
// each with one cell scrolled to the top, scrolled again until pictures
// above it stop moving it:
//
//	OUTDIR/SIDE-NN-1-top.png      the first cell
//	OUTDIR/SIDE-NN-2-figure.png   the first cell whose saved output is a picture
//	OUTDIR/SIDE-NN-3-table.png    the first cell whose saved output is an HTML table
//	OUTDIR/SIDE-NN-4-end.png      the takeaways box, or the third cell from the end
//
// The cells are chosen from the notebook's model, so both sides are shot
// alike; a shot whose cell is one already taken is skipped. Each PNG is a
// palette image of at most 256 colours (png.js), about 40–100 kB. It
// prints, per shot, what the page shows in that cell — a type name shown
// instead of a picture, each figure's width against its output area,
// each table's and whether it scrolls, lines starting with a stray comma —
// and per notebook the counts of the whole notebook (every cell scrolled
// into view): type names, stray-comma lines, figures and the widest,
// figures wider than their area, wide tables scrolling or clipped, links
// to the explorer, links JupyterLab left empty (a relative link it could
// not resolve), and whether the notebook has takeaways, try-this prompts
// and previous/next links. OUTDIR/SIDE.json keeps all of it.
"use strict";

const fs = require("fs");
const path = require("path");
const browser = require("./chromium.js");
const { encodePalette } = require("./png.js");

const [base, outDir, side, ...rest] = process.argv.slice(2);
if (!base || !outDir || !side) {
	console.error("usage: node screens.js URL OUTDIR SIDE [NN ...]");
	process.exit(2);
}
const prefixes = rest.length ? rest : ["00", "00b", "00d", "00e", "01", "04"];

const width = 1280, height = 900;

// inspect runs in the page: it finds the notebook's cells of interest
// (from the model, so both sides are chosen alike) and describes what the
// page shows in each when scrolled to it.
async function locate() {
	const app = window.jupyterapp;
	const panel = app.shell.currentWidget;
	const nb = panel.content;
	const has = (cell, test) => {
		const outs = cell.model.outputs;
		if (!outs) return false;
		for (let j = 0; j < outs.length; j++) if (test(outs.get(j).data || {})) return true;
		return false;
	};
	const html = (d) => {
		const h = d["text/html"];
		return (Array.isArray(h) ? h.join("") : String(h || "")).includes("<table");
	};
	let figure = -1, table = -1, end = nb.widgets.length - 1;
	nb.widgets.forEach((cell, i) => {
		if (figure < 0 && has(cell, (d) => d["image/svg+xml"] || d["image/png"])) figure = i;
		if (table < 0 && has(cell, html)) table = i;
	});
	const take = nb.widgets.findIndex((c) => c.model.type === "markdown" && /Takeaways/.test(c.model.sharedModel.getSource()));
	if (take >= 0) end = take;
	else end = Math.max(0, nb.widgets.length - 3);
	return { cells: nb.widgets.length, figure, table, end };
}

// describe runs in the page with cell i scrolled to the top: what the
// visible cells' outputs show.
async function describe(i) {
	const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
	const panel = window.jupyterapp.shell.currentWidget;
	const nb = panel.content;
	const cell = nb.widgets[i];
	// Pictures above the cell (Vega-Lite charts drawn by vega-embed,
	// images decoded) change its place as they render: scroll again until
	// the cell's top stays at the top of the notebook.
	let top = NaN;
	for (let tries = 0; tries < 12; tries++) {
		await nb.scrollToItem(i, "start").catch(() => {});
		cell.node.scrollIntoView({ block: "start" });
		await Promise.all([...nb.node.querySelectorAll(".jp-OutputArea-output img")].map((im) => im.decode().catch(() => {})));
		await sleep(500);
		const t = cell.node.getBoundingClientRect().top - nb.node.getBoundingClientRect().top;
		if (Math.abs(t - top) < 1 && Math.abs(t) < 40) break;
		top = t;
	}
	const r = { cell: i, kind: cell.model.type, typeNames: [], strayCommas: 0, figures: [], tables: [] };
	const typeName = /^\*?[a-z]\w*\.[A-Z]\w*$/;
	for (const el of cell.node.querySelectorAll(".jp-OutputArea-output, .jp-MarkdownOutput")) {
		for (const l of (el.innerText || "").split("\n")) if (/^\s*,/.test(l)) r.strayCommas++;
	}
	for (const out of cell.node.querySelectorAll(".jp-OutputArea-output")) {
		const area = out.getBoundingClientRect().width;
		const t = (out.innerText || "").trim();
		if (!out.querySelector("img, svg, table") && typeName.test(t)) r.typeNames.push(t);
		for (const f of out.querySelectorAll("img, svg, canvas")) {
			if (f.tagName.toLowerCase() === "svg" && f.parentElement.closest("svg")) continue;
			const w = f.getBoundingClientRect().width;
			if (w >= 40) r.figures.push({ tag: f.tagName.toLowerCase(), width: Math.round(w), area: Math.round(area) }); // not vega-embed's menu icon
		}
		for (const tb of out.querySelectorAll("table")) {
			// A table wider than its area is read whole only when a box
			// inside the area scrolls it (as lite.js's savedOutputs checks).
			let scrolls = false;
			for (let e = tb.parentElement; e && e !== out.parentElement; e = e.parentElement) {
				const o = getComputedStyle(e).overflowX;
				if ((o === "auto" || o === "scroll") && e.getBoundingClientRect().width <= area + 1) scrolls = true;
			}
			r.tables.push({ width: Math.round(tb.getBoundingClientRect().width), area: Math.round(area), scrolls });
		}
	}
	return r;
}

// survey runs in the page: the whole notebook's counts, every cell
// scrolled into view once (the notebook renders lazily).
async function survey() {
	const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
	const nb = window.jupyterapp.shell.currentWidget.content;
	const typeName = /^\*?[a-z]\w*\.[A-Z]\w*$/;
	const s = { typeNames: 0, strayCommaLines: 0, figures: 0, widestFigure: 0, overflowing: 0, tables: 0, wideTablesScrolling: 0, wideTablesClipped: 0,
		explorerLinks: 0, notebookLinks: 0, emptyLinks: [], takeaways: false, tryThis: false, navigation: false };
	for (let i = 0; i < nb.widgets.length; i++) {
		const cell = nb.widgets[i];
		await nb.scrollToItem(i, "start").catch(() => {});
		cell.node.scrollIntoView({ block: "start" });
		await sleep(40);
		await Promise.all([...cell.node.querySelectorAll(".jp-OutputArea-output img")].map((im) => im.decode().catch(() => {})));
		const src = cell.model.sharedModel.getSource();
		if (cell.model.type === "markdown") {
			if (/Takeaways/.test(src)) s.takeaways = true;
			if (/Try this/.test(src)) s.tryThis = true;
			if (/previous:|next:/.test(src)) s.navigation = true;
		}
		for (const el of cell.node.querySelectorAll(".jp-OutputArea-output, .jp-MarkdownOutput")) {
			for (const l of (el.innerText || "").split("\n")) if (/^\s*,/.test(l)) s.strayCommaLines++;
		}
		for (const a of cell.node.querySelectorAll(".jp-MarkdownOutput a")) {
			// JupyterLab resolves a relative link to the file's download
			// URL and leaves href empty when that fails.
			const h = a.getAttribute("href") || "";
			if (h.includes("explorer/")) s.explorerLinks++;
			else if (/\.ipynb|README\.md/.test(h)) s.notebookLinks++;
			else if (h === "") s.emptyLinks.push(a.textContent.trim().slice(0, 40));
		}
		for (const out of cell.node.querySelectorAll(".jp-OutputArea-output")) {
			const area = out.getBoundingClientRect().width;
			const t = (out.innerText || "").trim();
			if (!out.querySelector("img, svg, table") && typeName.test(t)) s.typeNames++;
			for (const f of out.querySelectorAll("img, svg, canvas")) {
				if (f.tagName.toLowerCase() === "svg" && f.parentElement.closest("svg")) continue;
				const w = f.getBoundingClientRect().width;
				if (w < 40) continue; // vega-embed's menu icon
				s.figures++;
				s.widestFigure = Math.max(s.widestFigure, Math.round(w));
				if (w > area + 1) s.overflowing++;
			}
			for (const tb of out.querySelectorAll("table")) {
				s.tables++;
				if (tb.getBoundingClientRect().width <= area + 1) continue;
				let scrolls = false;
				for (let e = tb.parentElement; e && e !== out.parentElement; e = e.parentElement) {
					const o = getComputedStyle(e).overflowX;
					if ((o === "auto" || o === "scroll") && e.getBoundingClientRect().width <= area + 1) scrolls = true;
				}
				if (scrolls) s.wideTablesScrolling++;
				else s.wideTablesClipped++;
			}
		}
	}
	s.outputArea = Math.round(nb.node.querySelector(".jp-OutputArea-output")?.getBoundingClientRect().width || 0);
	return s;
}

// launch starts chromium on a new profile, so every notebook opens as on
// a first visit (no tabs restored from the one before).
async function launch() {
	const { profile, context } = await browser.launch("veclab-screens-", { viewport: { width, height }, deviceScaleFactor: 1 });
	return {
		context,
		close: async () => {
			await context.close();
			fs.rmSync(profile, { recursive: true, force: true });
		},
	};
}

async function appReady(page) {
	await page.waitForFunction(() => document.body.dataset.veclabLite === "ready" && window.jupyterapp, null, { timeout: 180000 });
}

async function main() {
	fs.mkdirSync(outDir, { recursive: true });
	const report = {};
	let b = await launch();
	let files;
	try {
		const first = await b.context.newPage();
		await first.goto(base);
		await appReady(first);
		files = await first.evaluate(async () => (await window.jupyterapp.serviceManager.contents.get("notebooks", { content: true })).content.map((f) => f.name));
	} finally {
		await b.close();
	}
	const notebooks = prefixes.map((p) => {
		const f = files.find((n) => n.startsWith(p + "-") && n.endsWith(".ipynb"));
		if (!f) throw new Error(`no notebook named ${p}-….ipynb in the site's notebooks/ (${files.join(", ")})`);
		return f;
	});
	for (const name of notebooks) {
		const nn = name.split("-")[0];
		b = await launch();
		try {
			const page = await b.context.newPage();
			const u = new URL(base);
			u.searchParams.set("path", "notebooks/" + name);
			await page.goto(u.href);
			await appReady(page);
			await page.waitForFunction((p) => {
				const w = window.jupyterapp.shell.currentWidget;
				return w && w.context && w.context.path === p && w.context.isReady && w.content && w.content.widgets && w.content.widgets.length > 0;
			}, "notebooks/" + name, { timeout: 120000 });
			await page.waitForTimeout(1500);
			const where = await page.evaluate(locate);
			const shots = [["1-top", 0], ["2-figure", where.figure], ["3-table", where.table], ["4-end", where.end]];
			const taken = new Set();
			const nbReport = { cells: where.cells, shots: [] };
			for (const [label, i] of shots) {
				if (i < 0 || taken.has(i)) continue;
				taken.add(i);
				const d = await page.evaluate(describe, i);
				const file = `${side}-${nn}-${label}.png`;
				const png = encodePalette(await page.screenshot({ fullPage: true }));
				fs.writeFileSync(path.join(outDir, file), png);
				d.file = file;
				d.bytes = png.length;
				nbReport.shots.push(d);
				console.log(`${side} ${name} ${label}: cell ${i} (${d.kind}), ${png.length} B; figures ${JSON.stringify(d.figures)}, tables ${JSON.stringify(d.tables)}, type names ${JSON.stringify(d.typeNames)}, stray-comma lines ${d.strayCommas}`);
			}
			nbReport.survey = await page.evaluate(survey);
			console.log(`${side} ${name}: ${JSON.stringify(nbReport.survey)}`);
			report[name] = nbReport;
			// The kernel the notebook started, once it is up: shut down
			// while it starts, JupyterLite's kernel client fails unhandled
			// (as lite.js's savedOutputs does).
			await page.evaluate(async () => {
				const panel = window.jupyterapp.shell.currentWidget;
				for (let t = Date.now(); Date.now() - t < 60000 && panel.sessionContext.session?.kernel?.status !== "idle"; ) await new Promise((r) => setTimeout(r, 100));
				await panel.sessionContext.shutdown().catch(() => {});
				panel.context.model.dirty = false;
			}).catch(() => {});
		} finally {
			await b.close();
		}
	}
	fs.writeFileSync(path.join(outDir, side + ".json"), JSON.stringify(report, null, 1) + "\n");
}

main().catch((e) => {
	console.error(e);
	process.exit(1);
});
