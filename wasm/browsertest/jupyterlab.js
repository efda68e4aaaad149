// jupyterlab.js drives JupyterLab (its front end built by
// wasm/lite/jupyterlab.mjs, served by Debian's jupyterlab_server over
// jupyter_server with the native veclab kernel, by the kernel package's
// TestJupyterLab) in Debian's chromium through playwright-core. It opens
// NOTEBOOK (an empty notebook on the Go kernel) and checks, through the
// app (window.jupyterapp) and the page's DOM:
//
//   - %timeit prints IPython's line (mean ± std. dev. per loop);
//   - a cell reading standard input (fmt.Scanln) shows JupyterLab's input
//     box after the cell's printed prompt; the line typed there and Enter
//     reach the cell;
//   - the notebook's bug button starts the debugger (initialize, attach,
//     debugInfo) and its Variables panel lists the Go variables a cell
//     defined, with their types and values (the debugger's model, which
//     the panel's table view draws; the tree view's names and details);
//   - a breakpoint set by a click in a cell's gutter dumps the cell
//     (dumpCell) and is answered unverified; the Breakpoints panel lists
//     it, the Kernel Sources panel lists the cell, and a click on either
//     asks for its source (the source request, answered with the cell's
//     code);
//   - the page has no error other than jupyter_server 1.23's two missing
//     APIs (see below).
//
//	node jupyterlab.js LAB_URL NOTEBOOK [SCREENSHOT.png]
//
// It prints one line per check and exits 1 at the first failure.
//
// jupyter_server 1.23 (Debian 12) has two APIs JupyterLab 4.6's
// services ask for that came with jupyter_server 2.0: /api/me (the
// user's identity: JupyterLab's UserManager never becomes ready, and
// nothing of this front end waits for it) and /api/events (the event
// bus: its socket is refused and retried). The page's errors for those
// two are counted and printed, not failed; any other is a failure.
"use strict";

const browser = require("./chromium.js");

const [lab, notebook, screenshot] = process.argv.slice(2);
if (!lab || !notebook) {
	console.error("usage: node jupyterlab.js LAB_URL NOTEBOOK [SCREENSHOT.png]  (http://127.0.0.1:PORT/lab/ and a notebook's path under the server's root)");
	process.exit(2);
}
const t0 = Date.now();

function check(ok, what) {
	if (!ok) throw new Error(what);
}

// known are the page's errors jupyter_server 1.23's missing APIs cause.
const known = [
	["/api/events/subscribe", /\/api\/events\/subscribe/],
	["/api/me", /\/api\/me\b/],
];

// start puts code in a new cell at the end of the notebook and runs it;
// the cell's index and the execution's promise (an execute_reply's
// content status, the outputs) are kept in the page (window.runs).
async function start(page, code) {
	return page.evaluate(async (code) => {
		const panel = window.jupyterapp.shell.currentWidget;
		const nb = panel.content;
		let cell = nb.widgets[nb.widgets.length - 1];
		if (cell.model.sharedModel.getSource() !== "") {
			nb.activeCellIndex = nb.widgets.length - 1;
			await window.jupyterapp.commands.execute("notebook:insert-cell-below");
			cell = nb.widgets[nb.widgets.length - 1];
		}
		cell.model.sharedModel.setSource(code);
		nb.activeCellIndex = nb.widgets.length - 1;
		const i = nb.widgets.length - 1;
		window.runs = window.runs || {};
		window.runs[i] = cell.constructor.execute(cell, panel.sessionContext).then((reply) => ({ status: reply?.content?.status, outputs: cell.model.outputs.toJSON() }));
		return i;
	}, code);
}

// done waits for the execution of cell i to end and returns its status
// and outputs.
async function done(page, i, timeout = 60000) {
	return page.evaluate(({ i, timeout }) => Promise.race([
		window.runs[i],
		new Promise((_, rej) => setTimeout(() => rej(new Error(`cell ${i} did not finish in ${timeout} ms`)), timeout)),
	]), { i, timeout });
}

const run = async (page, code, timeout) => done(page, await start(page, code), timeout);
const text = (outs) => outs.map((o) => o.text || (o.data && (o.data["text/plain"] || "")) || (o.traceback || []).join("\n")).join("");

async function main() {
	const { profile, context } = await browser.launch("veclab-jupyterlab-", { viewport: { width: 1280, height: 760 } });
	const problems = [];
	const gaps = new Map(); // known error → count
	try {
		const page = await context.newPage();
		const seen = (what) => {
			const k = known.find(([, re]) => re.test(what));
			if (k) gaps.set(k[0], (gaps.get(k[0]) || 0) + 1);
			else problems.push(what);
		};
		page.on("pageerror", (e) => seen(`page error: ${e.message}`));
		page.on("console", (m) => {
			if (m.type() === "error") seen(`console error: ${m.text()} (${m.location().url})`);
		});
		page.on("response", (r) => {
			if (r.status() >= 400) seen(`HTTP ${r.status()} ${r.url()}`);
		});
		await page.goto(new URL("tree/" + notebook, lab).href);
		await page.waitForFunction(() => document.body.dataset.jupyterlab === "ready", null, { timeout: 90000 });
		const info = await page.evaluate(async (path) => {
			const t = Date.now();
			let panel;
			while (!(panel = [...window.jupyterapp.shell.widgets("main")].find((w) => w.context?.path === path))) {
				if (Date.now() - t > 60000) throw new Error(`${path} did not open`);
				await new Promise((r) => setTimeout(r, 50));
			}
			window.jupyterapp.shell.activateById(panel.id);
			await panel.sessionContext.ready;
			const kernel = panel.sessionContext.session.kernel;
			// Every debug_request and its reply, for the checks below.
			window.debugLog = [];
			kernel.anyMessage.connect((_, { msg, direction }) => {
				if (msg.header.msg_type === "debug_request" || msg.header.msg_type === "debug_reply") window.debugLog.push({ direction, type: msg.header.msg_type, parent: msg.parent_header?.msg_id, id: msg.header.msg_id, content: msg.content });
			});
			const reply = await kernel.info;
			return { version: window.jupyterapp.version, name: kernel.name, implementation: reply.implementation, protocol: reply.protocol_version, debugger: reply.debugger, id: panel.id };
		}, notebook);
		check(info.name === "veclab" && info.implementation === "veclab", `the notebook's kernel: ${JSON.stringify(info)}`);
		console.log(`ok   JupyterLab ${info.version}: ${notebook} on the Go (veclab) kernel (protocol ${info.protocol}, debugger ${info.debugger}) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

		const timeit = /per loop \(mean ± std\. dev\. of 3 runs, 20 loops each\)/;
		let r = await run(page, "%timeit -n 20 -r 3 6*7");
		check(r.status === "ok" && timeit.test(text(r.outputs)), `%timeit: ${JSON.stringify(r)}`);
		console.log(`ok   %timeit: ${JSON.stringify(text(r.outputs).trim())}`);

		// Standard input: JupyterLab's input box (@jupyterlab/outputarea's
		// Stdin widget) in the cell's output area, after its prompt.
		const i = await start(page, 'var first, last string\nfmt.Print("your name? ")\nfmt.Scanln(&first, &last)\n"hello " + first + " " + last');
		const cell = page.locator(`[id="${info.id}"] .jp-Notebook .jp-Cell`).nth(i);
		const box = cell.locator("input.jp-Stdin-input");
		await box.waitFor({ timeout: 60000 });
		const prompt = await cell.locator(".jp-OutputArea").innerText();
		check(prompt.includes("your name?"), `the input box came without the cell's prompt: ${JSON.stringify(prompt)}`);
		await box.fill("Ada Lovelace");
		await box.press("Enter");
		r = await done(page, i);
		check(r.status === "ok" && text(r.outputs).includes("hello Ada Lovelace"), `the answered cell: ${JSON.stringify(r)}`);
		console.log(`ok   stdin: fmt.Scanln showed JupyterLab's input box after ${JSON.stringify(prompt.trim())}; typed "Ada Lovelace" and Enter: ${JSON.stringify(text(r.outputs).trim().split("\n").pop())}`);

		// The debugger's Variables panel.
		r = await run(page, `import "github.com/veclab/veclab/lab/table"\nef := 80\nstore := "redis"\nrecalls := []float64{0.616, 0.952}\nbest := table.New("best", table.Col("store", ""), table.Col("recall@10", ""))\nbest.AddValues("qdrant", 1.0)\nbest.AddValues("pgvector", 0.952)`, 90000);
		check(r.status === "ok", `the cell defining the variables: ${JSON.stringify(r).slice(0, 800)}`);
		const nb = `[id="${info.id}"]`;
		const bug = page.locator(`${nb} .jp-DebuggerBugButton`);
		await bug.waitFor({ timeout: 60000 });
		await page.waitForFunction((sel) => {
			const b = document.querySelector(sel);
			return b && !b.querySelector("[disabled]") && !b.hasAttribute("disabled") && b.getAttribute("aria-disabled") !== "true";
		}, `${nb} .jp-DebuggerBugButton`, { timeout: 60000 });
		await bug.locator("jp-button, button").first().click();
		const names = "#jp-debugger-sidebar .jp-DebuggerVariables-body .jp-DebuggerVariables-name";
		await page.waitForFunction((sel) => [...document.querySelectorAll(sel)].some((e) => e.textContent === "best"), names, { timeout: 60000 });
		// The panel's model: what its table view draws (name, type, value).
		// The sidebar keeps the debugger service it was made with.
		const model = await page.evaluate(() => {
			const sidebar = [...window.jupyterapp.shell.widgets("right")].find((w) => w.id === "jp-debugger-sidebar");
			const service = sidebar._sourcesOptions.service;
			return Object.fromEntries(service.model.variables.scopes.flatMap((s) => s.variables).map((v) => [v.name, { type: v.type, value: v.value }]));
		});
		const want = { ef: ["int", "80"], store: ["string", '"redis"'], recalls: ["[]float64", "[0.616 0.952]"], best: ["*table.Table", null] };
		for (const [n, [type, value]] of Object.entries(want)) {
			const v = model[n];
			check(v && v.type === type && (value === null ? v.value.length > 0 : v.value === value), `the Variables panel's ${n}: ${JSON.stringify(v)}, want type ${type} value ${value} (all: ${JSON.stringify(model)})`);
		}
		check(!Object.keys(model).some((n) => n.startsWith("__veclab")), `the panel lists the session's own names: ${Object.keys(model)}`);
		const listed = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll("#jp-debugger-sidebar .jp-DebuggerVariables-body .jp-TreeItem")]
			.map((t) => [t.querySelector(".jp-DebuggerVariables-name")?.textContent, t.querySelector(".jp-DebuggerVariables-detail")?.textContent])));
		for (const [n, d] of Object.entries({ ef: "80", store: "string", recalls: "[]float64", best: "*table.Table" })) check(listed[n] === d, `the Variables tree shows ${n} as ${JSON.stringify(listed[n])}, want ${JSON.stringify(d)}`);
		console.log(`ok   debugger: the bug button started it; the Variables panel lists ${Object.entries(want).map(([n]) => `${n} ${model[n].type} = ${model[n].value.slice(0, 40)}`).join(", ")}`);

		if (screenshot) {
			// The table view: name, type and value of each variable, in a
			// side panel made 200 px wider (the split's last handle).
			await page.locator("#jp-debugger-sidebar .jp-TableView-Button").first().click();
			const handle = await page.evaluate(() => {
				const edge = document.getElementById("jp-right-stack").getBoundingClientRect().left;
				const near = [...document.querySelectorAll(".lm-SplitPanel-handle")].map((h) => h.getBoundingClientRect())
					.filter((r) => r.height > 0 && Math.abs(r.right - edge) < 8);
				return near.length ? { x: near[0].x, y: near[0].y, width: near[0].width, height: near[0].height } : null;
			});
			if (handle) {
				await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
				await page.mouse.down();
				await page.mouse.move(handle.x + handle.width / 2 - 200, handle.y + handle.height / 2, { steps: 5 });
				await page.mouse.up();
			}
			await page.waitForTimeout(1000);
			await page.screenshot({ path: screenshot });
			console.log(`ok   screenshot of the Variables panel (table view) in ${screenshot}`);
		}

		// answered waits for the n-th debug_request of command (from 0)
		// to be answered, and returns the request's and reply's contents.
		const answered = (command, n = 0) => page.waitForFunction(({ command, n }) => {
			const req = window.debugLog.filter((m) => m.direction === "send" && m.content.command === command)[n];
			const rep = req && window.debugLog.find((m) => m.direction === "recv" && m.parent === req.id);
			return rep ? { req: req.content, rep: rep.content } : null;
		}, { command, n }, { timeout: 30000 }).then((h) => h.jsonValue());

		// A breakpoint by a click in the gutter of the variables' cell,
		// on its second line: dumpCell, then setBreakpoints (answered
		// unverified); the Breakpoints panel lists it, and a click on it
		// asks for the cell's source.
		const code = await page.evaluate(() => window.jupyterapp.shell.currentWidget.content.widgets.at(-1).model.sharedModel.getSource());
		const last = page.locator(`${nb} .jp-Notebook .jp-Cell`).last();
		// The breakpoint gutter's column, at the height of the cell's
		// second line.
		const gutter = await last.locator(".cm-gutters .cm-gutter.cm-breakpoint-gutter").boundingBox();
		const line2 = await last.locator(".cm-content .cm-line").nth(1).boundingBox();
		check(gutter && line2, `no breakpoint gutter or second line in the cell: ${JSON.stringify({ gutter, line2 })}`);
		await page.mouse.click(gutter.x + gutter.width / 2, line2.y + line2.height / 2);
		const dumped = (await answered("dumpCell")).rep;
		check(dumped.success && /\/veclab-cells\/\d+\.go$/.test(dumped.body.sourcePath), `dumpCell: ${JSON.stringify(dumped)}`);
		const bps = (await answered("setBreakpoints")).rep;
		check(bps.success && bps.body.breakpoints.length === 1 && bps.body.breakpoints[0].verified === false && bps.body.breakpoints[0].line === 2 && bps.body.breakpoints[0].source?.path === dumped.body.sourcePath,
			`setBreakpoints: ${JSON.stringify(bps)}`);
		const bp = page.locator("#jp-debugger-sidebar .jp-DebuggerBreakpoint");
		await bp.first().waitFor({ timeout: 30000 });
		const bpTitle = await bp.first().getAttribute("title");
		check(bpTitle === dumped.body.sourcePath, `the Breakpoints panel's breakpoint names ${bpTitle}, want ${dumped.body.sourcePath}`);
		await bp.first().click();
		let got = await answered("source", 0);
		check(got.req.arguments.source.path === dumped.body.sourcePath && got.rep.success && got.rep.body.content === code, `source (Breakpoints panel): ${JSON.stringify(got).slice(0, 600)}`);
		console.log(`ok   debugger: a click in the cell's gutter dumped it to ${dumped.body.sourcePath}, the breakpoint answered unverified (${JSON.stringify(bps.body.breakpoints[0].message.slice(0, 48))}…); a click on it in the Breakpoints panel asked for its source, answered with the cell's ${code.split("\n").length} lines`);

		// The Kernel Sources panel lists the dumped cell (the modules
		// request after the next cell); a click on it asks for its source
		// again.
		r = await run(page, "k := ef * 2\nk");
		check(r.status === "ok" && text(r.outputs).trim() === "160", `k := ef * 2: ${JSON.stringify(r)}`);
		// The panel starts collapsed: its title opens it.
		const title = page.locator("#jp-debugger-sidebar .lm-AccordionPanel-title", { hasText: "Kernel Sources" });
		if ((await title.getAttribute("aria-expanded")) !== "true") await title.click();
		const src = page.locator("#jp-debugger-sidebar .jp-DebuggerKernelSource-source", { hasText: /^cell \d+$/ }).first();
		await src.waitFor({ timeout: 30000 }).catch(async (e) => {
			const mods = await page.evaluate(() => window.debugLog.filter((m) => m.content.command === "modules").slice(-2));
			throw new Error(`the Kernel Sources panel lists no cell: ${e.message.split("\n")[0]}; the last modules request and reply: ${JSON.stringify(mods).slice(-800)}`);
		});
		await src.scrollIntoViewIfNeeded();
		await src.click();
		got = await answered("source", 1);
		check(got.req.arguments.source.path === dumped.body.sourcePath && got.rep.success && got.rep.body.content === code, `source (Kernel Sources panel): ${JSON.stringify(got).slice(0, 600)}`);
		console.log(`ok   debugger: the Kernel Sources panel lists ${JSON.stringify(await src.innerText())}; a click asked for its source, answered with the cell's code`);

		check(problems.length === 0, problems.join("; "));
		console.log(`ok   no page error; jupyter_server 1.23's missing APIs: ${[...gaps].map(([k, n]) => `${k} ${n}×`).join(", ") || "none asked for"}`);
		console.log(`PASS (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
	} catch (e) {
		// What the page showed when a check failed, beside the screenshot.
		if (screenshot && context.pages()[0]) await context.pages()[0].screenshot({ path: screenshot.replace(/\.png$/, "") + "-failed.png" }).catch(() => {});
		throw e;
	} finally {
		await context.close();
		require("fs").rmSync(profile, { recursive: true, force: true });
	}
}

main().catch((e) => {
	console.error(`FAIL (${((Date.now() - t0) / 1000).toFixed(1)} s): ${e.message}`);
	process.exit(1);
});
