// lite.js drives veclab's JupyterLite site (wasm/lite, served by `veclab
// serve`) in Debian's chromium through playwright-core, as cmd/veclab's
// TestBrowser does. It checks, in the real browser:
//
//   - the page is cross-origin isolated (the kernel's interrupt needs it)
//     and the kernel list has "Go (veclab)";
//   - the file browser holds the repository's notebooks, each row with
//     a real modification time (not 1970);
//   - a shared link, …/?path=notebooks/NAME.ipynb or JupyterLite's
//     …/lab/index.html?path=…, opens that notebook (its first cell shown);
//   - the launcher's card for the explorer page has an SVG icon;
//   - every notebook, opened without running it, shows its saved
//     pictures (no type name in their place), no line with a stray comma,
//     and no figure or table wider than its output area (savedOutputs);
//   - navigation → first cell result (1+1 in a new Go notebook), with a
//     cold browser cache (a new profile) and a warm one (the same profile,
//     loaded again); the times and the bytes over the wire are printed;
//   - (every notebook run whole at small scale is the -notebooks form's);
//   - offline once loaded: a second kernel starts with the network off;
//   - a lab/chart chart shows as Vega-Lite (a vega-embed element drawn,
//     no wider than its output area) and its bundle keeps the PNG;
//   - stdout streamed while a cell runs, complete, inspect, is_complete,
//     kernel_info's language_info, an error naming its cell line;
//   - interrupt of a running index build through the kernel's interrupt
//     (the SharedArrayBuffer flag): the cell ends Interrupted within
//     seconds and the next cell runs; an endless loop that never sees the
//     flag ends 3 s after the interrupt in a new Go session; a restart
//     gives a fresh session;
//   - the settings registry's compiled validators agree with JupyterLab's.
//
//	node lite.js URL [SCREENSHOT.png]
//	node lite.js [-json] -load N [-alone] URL
//	node lite.js -outputs URL
//	node lite.js -cell FILE URL
//	node lite.js -widgets URL
//	node lite.js -links URL
//	node lite.js -stdin URL
//	node lite.js -static URL
//	node lite.js -notebooks URL
//	node lite.js -debugger URL [SCREENSHOT.png]
//
// The third form runs only the check of the notebooks' saved outputs.
// The fourth runs the Go code of FILE as one cell of a new notebook, on
// the engine's WebAssembly SIMD128 kernels, then on a new page with
// ?VECLAB_SIMD=off (the pure-Go fallback), and prints each cell's output,
// its wall time and a last line "JSON {simd, fallback}" (seconds) for
// cmd/veclab's BenchmarkBrowserCell.
// The fifth checks Jupyter widgets (widgetsOnly): a Go cell's Interact
// over a slider is drawn by the bundled widget manager, the slider moved
// with the keyboard redraws the output in place, and the kernel has the
// new value; a redraw that never ends is preempted by the next change;
// and the saved notebook keeps the widgets' state.
// The sixth follows the course's links (linksOnly): notebook 01, opened
// by its shared link and not run, its "next" link clicked: notebook 02
// opens in the app, in the same browser tab, its first heading shown;
// then 02's link to the reading order (notebooks/README.md) opens the
// README rendered, and its link to a notebook opens that notebook.
// The seventh checks standard input (stdinOnly): a Go cell's fmt.Scanln
// shows JupyterLab's input box under the cell's printed prompt, the text
// typed there and Enter reach the cell, which prints it; a cell waiting
// for input is interrupted (it ends Interrupted in the same Go session);
// an execute_request with allow_stdin false gets the reason on the cell's
// stderr and end of file.
// The eighth is for a site on a host that sends no COOP/COEP headers
// (staticOnly, cmd/veclab's TestBrowserStaticHost): the first visit
// registers the site's service worker and reloads once, then the page is
// cross-origin isolated; a second visit is isolated without a reload; a
// running loop is interrupted through the shared flag (it ends
// Interrupted before the kernel would replace its Go session, and the
// session keeps its variables).
// The ninth runs notebooks whole (notebooksOnly): each of notebooks/*.ipynb
// that LITE_NOTEBOOKS picks (a regular expression; "." is every one), in
// name order by LITE_NOTEBOOK_WORKERS browsers at once (default 2), each
// notebook opened in its browser's page at ?VECLAB_SCALE=small with a new
// Go kernel and run whole, cell after cell; a notebook stops at its first
// cell that does not end "ok", the run goes on with the next and fails at
// its end naming each notebook that stopped, the cell and the error, and
// any page error (printed when it happens). It prints each notebook's
// code cells and wall time, checks that the disk notebooks' tables say
// their disk is simulated, and checks notebook 02 further: its E02 table
// (HTML) shows recall values, its charts are drawn by vega-embed, and
// cell 4's progress bar is shown while it runs and gone after it. Right
// after each knob cell it turns the knobs as a learner would (knobHooks):
// notebook 00's ef slider 10 → 15 redraws the search that now finds all
// of the true top 5 and the kernel has 15; notebook 00b's bits dropdown
// set to 8 redraws the 8-bit code; notebook 04's relaxed_order button and
// its selectivity slider moved to 0.1 % redraw the filtered search.
// LITE_QUERY adds to the page's query string (…&VECLAB_SIMD=off,
// …&GODEBUG=gccheckmark=1: boot.js hands VECLAB_*, GODEBUG and GOGC to
// the Go program); VECLAB_CHROMIUM_FLAGS adds to chromium's command line
// (chromium.js; e.g. --js-flags=--liftoff-only).
// The tenth checks JupyterLab's debugger on the Go kernel
// (debuggerOnly): the notebook's bug button is enabled (kernel_info says
// debugger), a click on it starts the debugger (initialize, attach,
// debugInfo), and its side panel lists the variables a cell defined, with
// their values or Go types; a cell run after that adds its variable to
// the list; a variable opened from the panel (richInspectVariables) shows
// as the cell would show it, a lab table as HTML; debugInfo says
// breakpoints are not supported and setBreakpoints answers unverified;
// source answers the code of a cell dumpCell named. With SCREENSHOT.png it saves the panel in its table view.
// The second form measures only the load: N times, a new profile (cold
// cache), then the same profile twice (warm), each to the first result,
// with the breakdown of each load (the milestones of build/veclab-boot.js's
// veclabBoot.marks), the CPU the machine spent on it and the browser's
// own CPU by thread (browserCPU: the kernel's worker, the page, V8's
// compile threads, the network service); -json adds a
// last line "JSON {runs, loadavg}" for cmd/veclab's BenchmarkBrowserLoad.
// With -alone the kernel loads without JupyterLab (see kernelAlone), which
// shows what the kernel's path costs on its own.
//
// It prints one line per check and exits 1 at the first failure. The
// browser is $CHROMIUM, default /usr/bin/chromium. No request may leave
// the page's origin: one that does fails the test.
"use strict";

const browser = require("./chromium.js");

let args = process.argv.slice(2);
let loadRuns = 0;
let jsonOut = false;
if (args[0] === "-json") {
	jsonOut = true;
	args = args.slice(1);
}
if (args[0] === "-load") {
	loadRuns = Number(args[1]);
	args = args.slice(2);
	if (!(loadRuns >= 1)) {
		console.error("lite.js: -load wants a number of runs ≥ 1");
		process.exit(2);
	}
}
let outputsOnly = false;
if (!loadRuns && args[0] === "-outputs") {
	outputsOnly = true;
	args = args.slice(1);
}
let cellFile = "";
if (!loadRuns && !outputsOnly && args[0] === "-cell") {
	cellFile = args[1];
	args = args.slice(2);
}
let widgetsMode = false;
if (!loadRuns && !outputsOnly && !cellFile && args[0] === "-widgets") {
	widgetsMode = true;
	args = args.slice(1);
}
let linksMode = false;
if (!loadRuns && !outputsOnly && !cellFile && !widgetsMode && args[0] === "-links") {
	linksMode = true;
	args = args.slice(1);
}
let stdinMode = false;
if (!loadRuns && !outputsOnly && !cellFile && !widgetsMode && !linksMode && args[0] === "-stdin") {
	stdinMode = true;
	args = args.slice(1);
}
let staticMode = false;
if (!loadRuns && !outputsOnly && !cellFile && !widgetsMode && !linksMode && !stdinMode && args[0] === "-static") {
	staticMode = true;
	args = args.slice(1);
}
let notebooksMode = false;
if (!loadRuns && !outputsOnly && !cellFile && !widgetsMode && !linksMode && !stdinMode && !staticMode && args[0] === "-notebooks") {
	notebooksMode = true;
	args = args.slice(1);
}
let debuggerMode = false;
if (!loadRuns && !outputsOnly && !cellFile && !widgetsMode && !linksMode && !stdinMode && !staticMode && !notebooksMode && args[0] === "-debugger") {
	debuggerMode = true;
	args = args.slice(1);
}
let alone = false;
if (loadRuns && args[0] === "-alone") {
	alone = true;
	args = args.slice(1);
}
const base = args[0];
const screenshot = args[1];
const usage = "usage: node lite.js URL [SCREENSHOT.png] | node lite.js [-json] -load N [-alone] URL | node lite.js -outputs URL | node lite.js -cell FILE URL | node lite.js -widgets URL | node lite.js -links URL | node lite.js -stdin URL | node lite.js -static URL | node lite.js -notebooks URL | node lite.js -debugger URL [SCREENSHOT.png]";
if (!base) {
	console.error(usage);
	process.exit(2);
}
if (base.startsWith("-")) {
	console.error(`lite.js: ${base}: not an option here (-json and -alone go with -load N, in that order)\n${usage}`);
	process.exit(2);
}
try {
	new URL(base);
} catch {
	console.error(`lite.js: ${base}: not an absolute URL (the site's address, such as http://127.0.0.1:8080/)\n${usage}`);
	process.exit(2);
}
const origin = new URL(base).origin;
const t0 = Date.now();
const secs = (t = t0) => ((Date.now() - t) / 1000).toFixed(1) + " s";

// ok prints a check that passed with the seconds since the previous one
// (or the start): where a run's time goes, step by step.
let tStep = t0;
function ok(what) {
	const now = Date.now();
	console.log(`ok   ${what} [+${((now - tStep) / 1000).toFixed(1)} s]`);
	tStep = now;
}

class CheckError extends Error {}
function check(ok, what) {
	if (!ok) throw new CheckError(what);
}

// page helpers, run in the page: the app is window.jupyterapp.
async function appReady(page, timeout) {
	await page.waitForFunction(() => document.body.dataset.veclabLite === "ready" && window.jupyterapp, null, { timeout });
}

// newNotebook opens a new notebook on the Go kernel and waits for the
// kernel to be idle; it returns the panel's id.
async function newNotebook(page, timeout) {
	return page.evaluate(async (timeout) => {
		const app = window.jupyterapp;
		const panel = await app.commands.execute("notebook:create-new", { kernelName: "veclab" });
		await panel.sessionContext.ready;
		globalThis.veclabBoot?.mark?.("notebookOpened");
		const t = Date.now();
		while (!panel.sessionContext.session?.kernel || panel.sessionContext.session.kernel.status !== "idle") {
			if (Date.now() - t > timeout) throw new Error(`kernel not idle after ${timeout} ms: ${panel.sessionContext.session?.kernel?.status}`);
			await new Promise((r) => setTimeout(r, 20));
		}
		globalThis.veclabBoot?.mark?.("kernelIdle");
		return panel.id;
	}, timeout);
}

// runCell puts code into the last cell of the notebook (a new one when
// that is not empty), runs it and returns its outputs (as nbformat JSON)
// and the reply's status, after the kernel is idle again.
async function runCell(page, id, code, timeout) {
	return page.evaluate(async ({ id, code, timeout }) => {
		const app = window.jupyterapp;
		const panel = app.shell.widgets ? [...app.shell.widgets("main")].find((w) => w.id === id) : null;
		if (!panel) throw new Error(`no notebook panel ${id}`);
		const nb = panel.content;
		let cell = nb.widgets[nb.widgets.length - 1];
		if (cell.model.sharedModel.getSource() !== "") {
			nb.activeCellIndex = nb.widgets.length - 1;
			await app.commands.execute("notebook:insert-cell-below");
			cell = nb.widgets[nb.widgets.length - 1];
		}
		cell.model.sharedModel.setSource(code);
		nb.activeCellIndex = nb.widgets.length - 1;
		const CodeCell = cell.constructor; // @jupyterlab/cells' CodeCell, with its static execute
		globalThis.veclabBoot?.mark?.("executeSent");
		const reply = await Promise.race([
			CodeCell.execute(cell, panel.sessionContext),
			new Promise((_, rej) => setTimeout(() => rej(new Error(`cell did not finish in ${timeout} ms: ${code.slice(0, 80)}`)), timeout)),
		]);
		globalThis.veclabBoot?.mark?.("executeReply");
		return { status: reply?.content?.status, outputs: cell.model.outputs.toJSON() };
	}, { id, code, timeout });
}

const text = (outs) => outs.map((o) => o.text || (o.data && (o.data["text/plain"] || "")) || (o.traceback || []).join("\n")).join("");

// stages are the load's milestones (veclabBoot.marks, milliseconds after
// navigation), in the order of the two paths that run side by side and
// meet at the kernel's idle: JupyterLab's (its bundle, its plugins, the
// shell, the notebook) and the kernel's (veclab.wasm compiled, the worker,
// the Go program's init and session). Each is [mark, what it ends].
const stages = [
	["boot", "veclab-boot.js runs"],
	["labEvaluated", "lab.js fetched, parsed, run"],
	["labServices", "plugins registered, services made"],
	["labStarted", "plugins activated, shell attached"],
	["labRestored", "layout restored"],
	["notebookOpened", "notebook created"],
	["kernelCreated", "kernel asked for"],
	["wasmRequested", "veclab.wasm requested"],
	["wasmCompiled", "veclab.wasm fetched and compiled"],
	["workerStarted", "kernel worker started"],
	["goInstantiated", "module instantiated"],
	["goMain", "Go runtime and package init done"],
	["goSession", "interpreter session made"],
	["goReady", "bridge ready"],
	["kernelHeard", "the page heard ready"],
	["kernelIdle", "kernel idle"],
	["executeSent", "1+1 sent"],
	["executeReply", "execute_reply"],
];

// breakdown prints the marks in time order, each with the time since the
// previous mark of its own path.
function breakdown(marks) {
	const lab = new Set(["boot", "labEvaluated", "labServices", "labStarted", "labRestored", "notebookOpened", "kernelCreated"]);
	let prevLab = 0, prevKernel = 0;
	const parts = [];
	for (const [name] of [...stages].sort((a, b) => (marks[a[0]] ?? 1e12) - (marks[b[0]] ?? 1e12))) {
		const at = marks[name];
		if (at === undefined) continue;
		let d;
		if (lab.has(name)) {
			d = at - prevLab;
			prevLab = at;
		} else if (name.startsWith("wasm") || name.startsWith("worker") || name.startsWith("go")) {
			d = at - (prevKernel || marks.boot || 0);
			prevKernel = at;
		} else {
			d = at - Math.max(prevLab, prevKernel);
			prevLab = prevKernel = at;
		}
		parts.push(`${name} ${(at / 1000).toFixed(2)} (+${(d / 1000).toFixed(2)})`);
	}
	return "breakdown, s after navigation (+ since the previous step of its path): " + parts.join(", ");
}

async function firstResult(context, label, profile) {
	const page = await context.newPage();
	let load = "";
	page.on("console", (m) => {
		if (m.text().startsWith("veclab kernel:")) load = m.text().replace(/^veclab kernel: [^:]*: /, "");
	});
	// Bytes over the wire: the encoded bodies received (0 for a response
	// revalidated with 304 or taken from the cache).
	let bytes = 0, wasmBytes = 0, n = 0;
	const sizes = [];
	const onFinished = (req) => sizes.push(req.sizes().then((z) => {
		n++;
		const got = Math.max(0, z.responseBodySize); // -1: none (from the cache)
		bytes += got;
		if (new URL(req.url()).pathname.endsWith("/veclab.wasm")) wasmBytes = got;
	}, () => {}));
	page.on("requestfinished", onFinished);
	const cpu = cpuWatch();
	const threads = browserThreads(profile);
	const t = Date.now();
	await page.goto(base);
	await appReady(page, 120000);
	const tApp = Date.now() - t;
	const id = await newNotebook(page, 120000);
	const tKernel = Date.now() - t;
	const r = await runCell(page, id, "1+1", 60000);
	const tFirst = Date.now() - t;
	cpu.stop();
	page.browserCpu = browserCPU(threads, browserThreads(profile));
	await Promise.all(sizes);
	check(r.status === "ok" && text(r.outputs).trim() === "2", `${label}: 1+1 gave ${JSON.stringify(r)}`);
	page.notebookId = id;
	page.tFirst = tFirst;
	page.marks = await page.evaluate(() => ({ ...(globalThis.veclabBoot?.marks || {}) }));
	page.plugins = await page.evaluate(() => [...(globalThis.veclabBoot?.plugins || [])]);
	page.bytes = bytes;
	page.wasmBytes = wasmBytes;
	// The CPU spent to the first result, and to JupyterLab's asking for
	// the kernel (with ?veclab_boot=kernel, JupyterLab's own).
	page.cpuS = cpu.busyAt(tFirst);
	page.cpuLabS = page.marks.kernelCreated !== undefined ? cpu.busyAt(page.marks.kernelCreated) : NaN;
	ok(`${label}: navigation → app ${(tApp / 1000).toFixed(2)} s, → kernel idle ${(tKernel / 1000).toFixed(2)} s, → first result (1+1 = 2) ${(tFirst / 1000).toFixed(2)} s (${load}), ${page.cpuS.toFixed(2)} s of CPU; ${n} responses, ${(bytes / 1e6).toFixed(1)} MB over the wire, veclab.wasm ${(wasmBytes / 1e6).toFixed(1)} MB${cpuText(page.browserCpu)}`);
	console.log(`     ${label}: ${breakdown(page.marks)}`);
	if (page.plugins.length) {
		const slow = [...page.plugins].sort((a, b) => b[1] - a[1]).slice(0, 8);
		console.log(`     ${label}: ${page.plugins.length} plugins activated, the slowest (ms, including what each waits for): ${slow.map(([id, ms]) => `${id} ${ms}`).join(", ")}`);
	}
	return page;
}

// cpuBusy is the CPU time, in seconds, the machine's cores have spent
// busy since it booted (/proc/stat's first line: every state but idle
// and iowait), or NaN where there is no /proc/stat. The load's figures
// take differences of it: on a machine kept for the test, the browser's
// processes are nearly all of it.
function cpuBusy() {
	try {
		const f = require("fs").readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
		const hz = 100; // USER_HZ, the unit of /proc/stat on Linux
		return (f.reduce((a, b) => a + b, 0) - f[3] - f[4]) / hz;
	} catch {
		return NaN;
	}
}

// cpuWatch samples cpuBusy every 50 ms from now until stop; busyAt(ms)
// is the busy seconds from the start to ms after it (the last sample at
// or before), so a load's marks (ms after navigation) can be priced.
function cpuWatch() {
	const t0 = Date.now(), samples = [[0, cpuBusy()]];
	const timer = setInterval(() => samples.push([Date.now() - t0, cpuBusy()]), 50);
	return {
		stop() {
			clearInterval(timer);
			samples.push([Date.now() - t0, cpuBusy()]);
		},
		busyAt(ms) {
			let v = samples[0][1];
			for (const [t, b] of samples) if (t <= ms) v = b;
			return v - samples[0][1];
		},
	};
}

// browserThreads is the CPU time, in clock ticks, of every thread of the
// browser that runs on profile (its processes name the profile directory
// in --user-data-dir), keyed "pid/tid", each with its class: "worker"
// (the kernel's Web Worker: the Go program's init and session, and the
// module's lazy compilation), "page" (a renderer's main thread: JupyterLab),
// "compile" (a renderer's thread pool: V8's streaming compilation of
// veclab.wasm, its optimising tier, script parsing, garbage collection),
// "network" (the network service: the HTTP cache and the brotli decoding
// of responses) or "other" (the browser process, the GPU process, I/O
// threads). An empty map where there is no /proc.
function browserThreads(profile) {
	const fs = require("fs");
	const m = new Map();
	let pids = [];
	try {
		pids = fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d));
	} catch {
		return m;
	}
	for (const pid of pids) {
		let cmd, tids;
		try {
			cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
			// (a child process's command line is one string, its
			// arguments separated by spaces)
			const at = cmd.indexOf(`--user-data-dir=${profile}`);
			const next = cmd[at + `--user-data-dir=${profile}`.length];
			if (at < 0 || (next !== undefined && next !== "\0" && next !== " ")) continue;
			tids = fs.readdirSync(`/proc/${pid}/task`);
		} catch {
			continue; // gone meanwhile
		}
		const type = (/--type=([\w-]+)/.exec(cmd) || [, "browser"])[1];
		const network = /--utility-sub-type=network\./.test(cmd);
		for (const tid of tids) {
			try {
				const st = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
				const comm = st.slice(st.indexOf("(") + 1, st.lastIndexOf(")"));
				const f = st.slice(st.lastIndexOf(")") + 2).split(" "); // f[11], f[12]: utime, stime
				let cls = "other";
				if (network) cls = "network";
				else if (type === "renderer" && comm.startsWith("DedicatedWorker")) cls = "worker";
				else if (type === "renderer" && tid === pid) cls = "page";
				else if (type === "renderer" && comm.startsWith("ThreadPool")) cls = "compile";
				m.set(`${pid}/${tid}`, { cls, ticks: Number(f[11]) + Number(f[12]) });
			} catch {}
		}
	}
	return m;
}

// browserCPU returns the browser's own CPU seconds between two
// browserThreads snapshots, in total and by class: unlike cpuWatch's
// figure it leaves out what other processes of the machine do, so it
// stays comparable on a loaded machine (a thread that ended between the
// two is not counted; the kernel's worker lives on). null without /proc.
const cpuClasses = ["worker", "page", "compile", "network", "other"];
function browserCPU(before, after) {
	if (!after.size) return null;
	const hz = 100; // USER_HZ, the unit of /proc/PID/stat
	const out = { total: 0 };
	for (const c of cpuClasses) out[c] = 0;
	for (const [k, v] of after) {
		const d = (v.ticks - (before.get(k)?.ticks || 0)) / hz;
		out[v.cls] += d;
		out.total += d;
	}
	return out;
}

// cpuText formats browserCPU's result for a load's line.
function cpuText(c) {
	if (!c) return "";
	return `; the browser's own CPU ${c.total.toFixed(2)} s (${cpuClasses.map((k) => `${k} ${c[k].toFixed(2)}`).join(", ")})`;
}

// kernelAlone loads the Go kernel the way the site does, but with no
// JupyterLab: on a page of the site's origin (its 404 page, which carries
// the cross-origin isolation headers of every response) it runs
// build/veclab-boot.js, takes the kernel's first worker, waits for the
// Go program's ready and asks for 1+1, as kernel.js would. Its time and CPU
// are the kernel path's own: the module fetched and compiled, Go's init,
// the interpreter's session. It resolves to firstResult's fields.
async function kernelAlone(context, label, profile) {
	const page = await context.newPage();
	const cpu = cpuWatch();
	const threads = browserThreads(profile);
	const t = Date.now();
	await page.goto(new URL("veclab-no-page-here", base).href);
	const r = await page.evaluate(async () => {
		await new Promise((resolve, reject) => {
			const s = document.createElement("script");
			s.src = "build/veclab-boot.js";
			s.onload = resolve;
			s.onerror = () => reject(new Error("build/veclab-boot.js did not load"));
			document.head.appendChild(s);
		});
		const boot = globalThis.veclabBoot;
		const w = boot.takeWorker();
		const got = await new Promise((resolve) => {
			setTimeout(() => resolve({ error: "no reply to 1+1 within 120 s", items: [] }), 120000);
			const items = [];
			w.handler = (m) => {
				if (m.type === "ready") {
					boot.markReady(m);
					boot.mark("executeSent");
					w.worker.postMessage({ type: "execute", id: 1, code: "1+1" });
				} else if (m.type === "output") items.push(m.item);
				else if (m.type === "reply" || m.type === "failed") resolve({ error: m.error || m.result?.error, items });
			};
			for (const m of w.kept.splice(0)) w.handler(m);
		});
		boot.mark("executeReply");
		return { ...got, marks: { ...boot.marks } };
	});
	const tFirst = Date.now() - t;
	cpu.stop();
	const browserCpu = browserCPU(threads, browserThreads(profile));
	const two = r.items.map((i) => i.data?.["text/plain"] || "").join("").trim();
	check(!r.error && two === "2", `${label}: the kernel alone's 1+1 gave ${JSON.stringify(r)}`);
	Object.assign(page, { tFirst, navAt: t, marks: r.marks, plugins: [], bytes: NaN, wasmBytes: NaN, cpuS: cpu.busyAt(tFirst), browserCpu });
	ok(`${label}: the kernel alone (no JupyterLab): navigation → first result (1+1 = 2) ${(tFirst / 1000).toFixed(2)} s, ${page.cpuS.toFixed(2)} s of CPU${cpuText(browserCpu)}`);
	console.log(`     ${label}: ${breakdown(page.marks)}`);
	return page;
}

// sharedLink checks, on a new page of the context, that a link naming a
// notebook with ?path= (form: the link relative to the site's root) opens
// it: the notebook is the current document and its first cell's text
// (the first line, Markdown's # taken off) is visible. With more, on that
// page: every row of the file browser's root and notebooks/ has a real
// modification time (the site's contents said 1970, shown as "56 years
// ago"), and the launcher's card for the explorer shows an SVG icon. It
// reports every failure of these at once, then closes the notebook, so
// that a later page does not restore it (and start its kernel).
async function sharedLink(context, form, name, more) {
	const nb = "notebooks/" + name;
	const cells = JSON.parse(require("fs").readFileSync(require("path").join(__dirname, "..", "..", nb), "utf8")).cells;
	const firstLine = [].concat(cells[0].source).join("").split("\n")[0].replace(/^#+\s*/, "").trim();
	const page = await context.newPage();
	const fails = [];
	try {
		const link = new URL(form + "?path=" + nb, base).href;
		const shown = new URL(link).pathname + new URL(link).search;
		const resp = await page.goto(link);
		check(resp && resp.ok(), `the shared link ${link}: HTTP ${resp && resp.status()}`);
		await appReady(page, 120000);
		// In front: its tab is the current one of the main area, so its
		// panel is visible. (The shell's currentWidget follows the focus,
		// which a dialog may hold: the restored layout's untitled notebooks
		// of the earlier pages ask for a kernel.)
		const opened = await page.waitForFunction((nb) => [...window.jupyterapp.shell.widgets("main")].some((w) => w.context?.path === nb && w.isVisible), nb, { timeout: 60000 })
			.then(() => true, () => false);
		if (!opened) {
			const front = await page.evaluate(() => [...window.jupyterapp.shell.widgets("main")].filter((w) => w.isVisible).map((w) => w.title.label));
			fails.push(`the shared link ${shown} did not open ${nb}: the main area shows ${JSON.stringify(front)}`);
		} else {
			const id = await page.evaluate((nb) => [...window.jupyterapp.shell.widgets("main")].find((w) => w.context?.path === nb && w.isVisible).id, nb);
			// (A rendered Markdown cell also holds its source, hidden.)
			const cell = page.locator(`[id="${id}"] .jp-Cell`).first().getByText(firstLine).filter({ visible: true }).first();
			if (await cell.waitFor({ state: "visible", timeout: 30000 }).then(() => true, () => false)) {
				ok(`shared link ${shown}: opens ${nb}, its first cell "${firstLine}" shown`);
			} else {
				fails.push(`the shared link ${shown} opened ${nb}, but its first cell's "${firstLine}" is not visible`);
			}
		}
		if (more) {
			// Rows of the file browser, read from the DOM once the
			// listing of dir holds want.
			const rows = async (dir, want) => {
				await page.evaluate(async (dir) => {
					await window.jupyterapp.commands.execute("filebrowser:go-to-path", { path: dir });
				}, dir);
				await page.waitForFunction((want) => [...document.querySelectorAll(".jp-FileBrowser .jp-DirListing-item .jp-DirListing-itemText")].some((e) => e.textContent.trim() === want), want, { timeout: 20000 });
				return page.evaluate(() => [...document.querySelectorAll(".jp-FileBrowser .jp-DirListing-item")].map((el) => {
					const m = el.querySelector(".jp-DirListing-itemModified");
					return { name: el.querySelector(".jp-DirListing-itemText")?.textContent.trim(), shown: m?.textContent || "", title: m?.title || "" };
				}));
			};
			const listed = [...await rows("", "notebooks"), ...await rows("notebooks", name)];
			// Decades ago, or 1970 in the date's title (en-US short: 1/1/70).
			const old = (r) => {
				const y = /(\d+)\s*(?:y|yr|yrs|years?)\b/.exec(r.shown);
				return (y && Number(y[1]) >= 20) || /\b1970\b|\/70,/.test(r.title) || !r.shown;
			};
			const models = await page.evaluate(async () => {
				const c = window.jupyterapp.serviceManager.contents;
				return [...(await c.get("", { content: true })).content, ...(await c.get("notebooks", { content: true })).content]
					.map((m) => ({ name: m.name, last_modified: m.last_modified, created: m.created }));
			});
			const early = (m) => !(new Date(m.last_modified).getFullYear() >= 2000 && new Date(m.created).getFullYear() >= 2000);
			if (listed.some(old) || models.some(early)) {
				fails.push(`file browser: modification times from 1970: ${JSON.stringify(listed.filter(old))}; contents: ${JSON.stringify(models.filter(early))}`);
			} else {
				const row = (n) => listed.find((r) => r.name === n) || {};
				ok(`file browser: ${listed.length} rows with real modification times (notebooks/ "${row("notebooks").shown}", ${name} "${row(name).shown}", ${row(name).title})`);
			}

			// The launcher's card for the explorer page has an icon, an SVG.
			// The command resolves to the Launcher widget; returned from
			// evaluate, playwright would serialize its whole object graph
			// (the application, every extension's state), which with the
			// widget manager and vega bundled took minutes: return nothing.
			await page.evaluate(async () => {
				await window.jupyterapp.commands.execute("launcher:create");
			});
			const card = page.locator(".jp-LauncherCard", { has: page.locator(".jp-LauncherCard-label", { hasText: "veclab explorer" }) }).first();
			await card.waitFor({ state: "visible", timeout: 20000 });
			const icon = await card.evaluate((el) => {
				const svg = el.querySelector(".jp-LauncherCard-icon svg");
				const box = svg?.getBoundingClientRect();
				return svg ? { shapes: svg.querySelectorAll("path, circle, rect, polygon, line").length, width: Math.round(box.width), height: Math.round(box.height) } : null;
			});
			if (icon && icon.shapes > 0 && icon.width > 0 && icon.height > 0) {
				ok(`launcher: the "veclab explorer" card shows an SVG icon (${icon.shapes} shapes, ${icon.width}×${icon.height} px)`);
			} else {
				fails.push(`the launcher's "veclab explorer" card has no SVG icon: ${JSON.stringify(icon)}`);
			}
		}
		check(fails.length === 0, fails.join("; "));
	} finally {
		// The notebook's kernel, once it is up, is shut down before the
		// notebook closes: closed while it starts, its pending kernel_info
		// fails unhandled in JupyterLite's kernel client (a "Disposed" page
		// error, seen on a loaded machine), as savedOutputs also avoids.
		await page.evaluate(async (nb) => {
			const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
			for (const w of [...window.jupyterapp.shell.widgets("main")]) {
				if (w.context?.path !== nb) continue;
				for (let t = Date.now(); Date.now() - t < 60000 && w.sessionContext?.session?.kernel?.status !== "idle"; ) await sleep(100);
				await w.sessionContext?.shutdown().catch(() => {});
				w.close();
			}
		}, nb).catch(() => {});
		await page.waitForTimeout(1000); // the layout restorer saves the layout without it
		await page.close();
	}
}

// savedOutputs opens every notebook of the repository in the site, on a
// new page of the context, as a learner first finds it: not run, its
// saved outputs untrusted (JupyterLite has no server to trust a
// notebook). It fails, naming each notebook and cell, on
//
//   - a type name shown where a picture should be (a text output such
//     as "*chart.Grid": the value's only picture was SVG, which JupyterLab
//     does not show from an untrusted notebook), or JupyterLab's "Cannot
//     display an untrusted SVG";
//   - a rendered line of an output or a Markdown cell that starts with a
//     stray comma (a list of strings of the .ipynb shown joined by ",");
//   - a figure (img, svg, or the canvas vega-embed draws a Vega-Lite
//     spec on) that does not load or is wider than its output
//     area, or a table wider than it that does not scroll inside it, both
//     as saved and once the notebook's outputs are trusted (as after a
//     run: then JupyterLab shows SVG, in an img its own CSS does not
//     confine).
//
// Each notebook's kernel is shut down when it has been checked (and has
// started).
async function savedOutputs(context) {
	const names = require("fs").readdirSync(require("path").join(__dirname, "..", "..", "notebooks")).filter((f) => f.endsWith(".ipynb")).sort();
	const page = await context.newPage();
	const fails = [];
	let figures = 0, tables = 0, explorerLinks = 0;
	try {
		await page.goto(base);
		await appReady(page, 120000);
		for (const name of names) {
			const r = await page.evaluate(async (path) => {
				const app = window.jupyterapp;
				const panel = await app.commands.execute("docmanager:open", { path, factory: "Notebook" });
				await panel.context.ready;
				await panel.revealed;
				const nb = panel.content;
				const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
				const typeName = /^\*?[a-z]\w*\.[A-Z]\w*$/;
				const found = [];
				const links = [];
				let figures = 0, tables = 0;
				// scan looks at every cell, each scrolled into view (the
				// notebook renders what is off screen lazily), its images
				// decoded.
				const scan = async (when) => {
					for (let i = 0; i < nb.widgets.length; i++) {
						const cell = nb.widgets[i];
						await nb.scrollToItem(i, "start").catch(() => {});
						cell.node.scrollIntoView({ block: "start" });
						await sleep(30);
						await Promise.all([...cell.node.querySelectorAll(".jp-OutputArea-output img")].map((im) => im.decode().catch(() => {})));
						// A Vega-Lite output is drawn by vega-embed once its
						// chunk has loaded and the spec has run: wait (up to
						// 20 s) for each one's canvas (or SVG) to be drawn.
						for (let t = Date.now(); Date.now() - t < 20000; await sleep(50)) {
							const embeds = [...cell.node.querySelectorAll(".jp-OutputArea-output .jp-RenderedVegaCommon5")];
							if (embeds.every((e) => [...e.querySelectorAll("canvas, svg.marks")].some((p) => p.getBoundingClientRect().width >= 2))) break;
						}
						const at = `cell ${i}`;
						const texts = [...cell.node.querySelectorAll(".jp-OutputArea-output, .jp-MarkdownOutput")];
						for (const el of texts) {
							const t = el.innerText || "";
							const line = t.split("\n").find((l) => /^\s*,/.test(l));
							if (line !== undefined) found.push(`${at}${when}: a line starts with a stray comma: ${JSON.stringify(line.slice(0, 60))}`);
						}
						if (!when) {
							for (const a of cell.node.querySelectorAll(".jp-MarkdownOutput a[href*='explorer/']")) {
								links.push({ at, href: a.getAttribute("href"), url: a.href, target: a.target });
							}
						}
						for (const el of cell.node.querySelectorAll(".jp-OutputArea-output")) {
							const t = (el.innerText || "").trim();
							if (el.querySelector("img, svg, table")) continue;
							if (typeName.test(t) || /\*(chart|picture)\./.test(t) || t.includes("Cannot display an untrusted")) found.push(`${at}${when}: ${JSON.stringify(t.slice(0, 80))} is shown instead of a picture`);
						}
						for (const out of cell.node.querySelectorAll(".jp-OutputArea-output")) {
							const box = out.getBoundingClientRect();
							// img and svg: the PNG and SVG pictures; canvas (and
							// svg.marks, its SVG renderer's): vega-embed's
							// drawing of a Vega-Lite spec, at the spec's size
							// (no CSS scales it down to the area).
							for (const f of out.querySelectorAll("img, svg, canvas")) {
								if (f.tagName.toLowerCase() === "svg" && (f.parentElement.closest("svg") || f.closest(".vega-actions, .vega-embed > details"))) continue; // an svg inside an svg; vega-embed's menu icon
								if (f.tagName === "IMG" && f.complete && f.naturalWidth === 0) {
									found.push(`${at}${when}: a figure that does not load (${f.src.slice(0, 40)}…)`);
									continue;
								}
								const w = f.getBoundingClientRect().width;
								if (w < 2) continue;
								figures++;
								if (w > box.width + 1) found.push(`${at}${when}: a figure (${f.tagName.toLowerCase()}) ${Math.round(w)} px wide in an output area ${Math.round(box.width)} px wide`);
							}
							for (const t of out.querySelectorAll("table")) {
								tables++;
								const w = t.getBoundingClientRect().width;
								if (w <= box.width + 1) continue;
								let scrolls = false;
								for (let e = t.parentElement; e && e !== out.parentElement; e = e.parentElement) {
									const o = getComputedStyle(e).overflowX;
									if ((o === "auto" || o === "scroll") && e.getBoundingClientRect().width <= box.width + 1) scrolls = true;
								}
								if (!scrolls) found.push(`${at}${when}: a table ${Math.round(w)} px wide in an output area ${Math.round(box.width)} px wide, not scrolling (${JSON.stringify(t.innerText.split("\n")[0].slice(0, 60))}…)`);
							}
						}
					}
				};
				await scan("");
				const saved = { figures, tables };
				figures = tables = 0;
				for (const c of nb.widgets) if (c.model.type === "code") c.model.trusted = true;
				await sleep(200);
				await scan(" (trusted)");
				// The kernel the notebook started, once it is up: shut
				// down while it starts, its pending kernel_info fails
				// unhandled in JupyterLite's kernel client (a page error).
				for (let t = Date.now(); Date.now() - t < 60000 && panel.sessionContext.session?.kernel?.status !== "idle"; ) await sleep(100);
				await panel.sessionContext.shutdown().catch(() => {});
				panel.context.model.dirty = false;
				panel.close();
				return { found, links, figures: saved.figures, tables: saved.tables, trustedFigures: figures };
			}, "notebooks/" + name);
			figures += r.figures;
			tables += r.tables;
			// A link to the explorer opens the site's explorer page in a new
			// tab (JupyterLab would open a relative link as a file of the
			// notebook's drive), with knobs the page has.
			for (const l of r.links) {
				explorerLinks++;
				if (l.target !== "_blank") r.found.push(`${l.at}: the explorer link ${l.href} does not open a page (target ${JSON.stringify(l.target)})`);
				const u = new URL(l.url);
				if (u.origin !== new URL(base).origin || !u.pathname.endsWith("/explorer/")) r.found.push(`${l.at}: the explorer link ${l.href} resolves to ${l.url}, not the site's explorer`);
				const res = await fetch(u.href).catch((e) => ({ ok: false, status: String(e) }));
				const html = res.ok ? await res.text() : "";
				if (!html.includes("explorer.js")) r.found.push(`${l.at}: the explorer link ${l.url} answers ${res.status}, not the explorer page`);
				for (const k of u.searchParams.keys()) if (!html.includes(`id="${k}"`)) r.found.push(`${l.at}: the explorer link sets ${k}, which the page has no control for`);
			}
			for (const f of r.found) fails.push(`${name} ${f}`);
			const line = `saved outputs of ${name}: ${r.figures} figures (${r.trustedFigures} trusted), ${r.tables} tables${r.found.length ? `: ${r.found.length} problems` : ""}`;
			if (r.found.length) console.log(`FAIL ${line}`);
			else ok(line);
		}
		check(fails.length === 0, `the saved outputs, not run, untrusted and trusted:\n  ${fails.join("\n  ")}`);
		check(explorerLinks > 0, "the notebooks link to the explorer");
		ok(`saved outputs: ${names.length} notebooks opened without running, ${figures} figures and ${tables} tables shown, no type name for a picture, no stray comma, nothing wider than its output area; ${explorerLinks} links open the explorer with knobs it has`);
	} finally {
		await page.close();
	}
}

// lastVega measures the vega-embed drawing in the last code cell of
// notebook id, as a reader sees it: the notebook's tab in front and the
// cell scrolled into view first. JupyterLab 4's notebook (windowingMode
// "contentVisibility", its default) gives each cell content-visibility:
// auto, so the browser may skip the layout of a cell outside the viewport:
// chromium 156.0.8078.129 reports 0 × 0 for everything inside it until it
// is scrolled to (the returned "unscrolled" says what the cell measured
// with the notebook scrolled to its top). The check stays a real one: a drawing that is not there, or
// wider than its output area, fails after 30 s in view. It returns the
// picture's tag and size and the output area's width, or what was found
// when nothing was drawn.
async function lastVega(page, id) {
	return page.evaluate(async (id) => {
		window.jupyterapp.shell.activateById(id); // a hidden tab's outputs measure 0 × 0
		const last = () => {
			const cells = document.getElementById(id).querySelectorAll(".jp-CodeCell");
			return cells[cells.length - 1];
		};
		// The cause, shown on every run: the notebook scrolled to its top,
		// as a reader who has not scrolled down sees it, and the cell
		// measured out of view.
		const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
		const top = document.getElementById(id).querySelector(".jp-Cell");
		top.scrollIntoView({ block: "start" });
		await frames();
		const cv = getComputedStyle(last()).contentVisibility;
		const box0 = last().getBoundingClientRect();
		const inView = box0.bottom > 0 && box0.top < window.innerHeight;
		const first = last().querySelector(".jp-OutputArea-output .vega-embed canvas, .jp-OutputArea-output .vega-embed svg.marks");
		const b0 = first && first.getBoundingClientRect();
		const unscrolled = `${b0 ? `${Math.round(b0.width)}×${Math.round(b0.height)}` : "no drawing"} with the cell ${inView ? "in" : "out of"} view, content-visibility ${cv}`;
		const t = Date.now();
		for (;;) {
			const cell = last();
			cell.scrollIntoView({ block: "start" });
			const el = cell.querySelector(".jp-OutputArea-output .vega-embed");
			const pic = el && el.querySelector("canvas, svg.marks");
			const box = pic && pic.getBoundingClientRect();
			if (box && box.width > 100 && box.height > 100) {
				return { tag: pic.tagName.toLowerCase(), width: Math.round(box.width), height: Math.round(box.height), area: Math.round(el.closest(".jp-OutputArea-output").getBoundingClientRect().width), unscrolled };
			}
			if (Date.now() - t > 30000) {
				return { found: !!el, pic: !!pic, width: box && box.width, height: box && box.height, contentVisibility: getComputedStyle(cell).contentVisibility, unscrolled };
			}
			await new Promise((r) => setTimeout(r, 100));
		}
	}, id);
}

// launch starts chromium on a new persistent profile (see main).
async function launch() {
	return browser.launch("veclab-lite-");
}

// dirSize is the bytes of the files under dir (0 if there is none).
function dirSize(dir) {
	const fs = require("fs");
	let n = 0;
	try {
		for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
			const p = require("path").join(dir, e.name);
			n += e.isDirectory() ? dirSize(p) : fs.statSync(p).size;
		}
	} catch {
		return 0;
	}
	return n;
}

// loadOnly measures navigation → first result loadRuns times cold and
// twice warm after each, and prints the median of each.
async function loadOnly() {
	const cold = [], warm = [];
	const runs = []; // for -json: {cache, firstMs, cpuS, cpuLabS, browserCpu, bytes, wasmBytes, marks, plugins}
	const load = alone ? kernelAlone : firstResult;
	const keep = (cache, p) => runs.push({ cache, firstMs: p.tFirst, cpuS: p.cpuS, cpuLabS: p.cpuLabS, browserCpu: p.browserCpu, bytes: p.bytes, wasmBytes: p.wasmBytes, marks: p.marks, plugins: p.plugins });
	for (let i = 0; i < loadRuns; i++) {
		const { profile, context } = await launch();
		try {
			let p = await load(context, `run ${i + 1} cold cache`, profile);
			cold.push(p.tFirst);
			keep("cold", p);
			for (let j = 0; j < 2; j++) {
				// V8 writes the compiled module to the code cache once
				// enough of it is optimised: a reader stays longer than 1+1.
				await new Promise((r) => setTimeout(r, 10000));
				console.log(`     the profile's wasm code cache: ${(dirSize(require("path").join(profile, "Default", "Code Cache", "wasm")) / 1e6).toFixed(1)} MB`);
				await p.close();
				p = await load(context, `run ${i + 1} warm cache ${j + 1}`, profile);
				warm.push(p.tFirst);
				keep("warm", p);
			}
		} finally {
			await context.close();
			require("fs").rmSync(profile, { recursive: true, force: true });
		}
	}
	const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] / 1000;
	console.log(`load: navigation → first result, median of ${cold.length} cold ${median(cold).toFixed(2)} s, of ${warm.length} warm ${median(warm).toFixed(2)} s (load average ${require("os").loadavg().map((x) => x.toFixed(2)).join(" ")})`);
	if (jsonOut) console.log("JSON " + JSON.stringify({ runs, loadavg: require("os").loadavg() }));
}

// cellOnly runs cellFile's code in a new notebook twice, with the SIMD128
// kernels and with ?VECLAB_SIMD=off, each on a page of its own (a new
// kernel), and prints the times.
async function cellOnly() {
	const code = require("fs").readFileSync(cellFile, "utf8");
	const { profile, context } = await launch();
	const secsOf = {};
	try {
		for (const [mode, query] of [["simd", ""], ["fallback", "?VECLAB_SIMD=off"]]) {
			const page = await context.newPage();
			let kernels = "";
			page.on("console", (m) => {
				if (m.text().startsWith("veclab: kernels:")) kernels = m.text();
			});
			await page.goto(new URL(query, base).href);
			await appReady(page, 120000);
			const id = await newNotebook(page, 120000);
			const t = Date.now();
			const r = await runCell(page, id, code, 60 * 60 * 1000);
			const s = (Date.now() - t) / 1000;
			check(r.status === "ok", `${mode}: the cell failed: ${text(r.outputs)}`);
			check(mode === "simd" ? /SIMD128/.test(kernels) : /pure Go/.test(kernels), `${mode}: the worker said ${JSON.stringify(kernels)}`);
			ok(`${mode}: ${kernels}; the cell took ${s.toFixed(1)} s:\n${text(r.outputs).trim()}`);
			secsOf[mode] = s;
			await page.close();
		}
		console.log("JSON " + JSON.stringify(secsOf));
	} finally {
		await context.close();
		require("fs").rmSync(profile, { recursive: true, force: true });
	}
}

// widgetsOnly: an IntSlider under Interact in a new Go notebook. The
// widget manager (@jupyter-widgets/jupyterlab-manager, bundled by
// build.mjs) draws the slider and the output area; two ArrowRight presses
// on the slider's handle move it from 3 to 5, the kernel reruns the
// function, and the output area says 25 in place of 9.
async function widgetsOnly() {
	const { profile, context } = await launch();
	const problems = [];
	try {
		const page = await context.newPage();
		page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
		await page.goto(base);
		await appReady(page, 120000);
		const id = await newNotebook(page, 120000);
		const r = await runCell(page, id, `import "github.com/veclab/veclab/kernel/widget"
import "time"
k := widget.NewIntSlider("k", 3, 0, 10)
j := widget.NewIntSlider("j", 0, 0, 10)
widget.Interact(func() {
	if k.Value() == 7 && j.Value() == 0 { // a redraw that never ends unless a newer change stops it
		for {
			time.Sleep(time.Millisecond)
		}
	}
	fmt.Println("square", k.Value()*k.Value(), "j", j.Value())
}, k, j)`, 120000);
		check(r.status === "ok", `the widget cell failed: ${JSON.stringify(r).slice(0, 1000)}`);
		const view = r.outputs.find((o) => o.data && o.data["application/vnd.jupyter.widget-view+json"]);
		check(view && /VBox/.test(view.data["text/plain"] || ""), `no widget view in the outputs: ${JSON.stringify(r.outputs).slice(0, 1000)}`);
		const panel = `#${id}`;
		const outText = () => page.evaluate((sel) => [...document.querySelectorAll(`${sel} .jp-OutputArea-output .widget-output`)].map((e) => e.textContent).join("|"), panel);
		await page.waitForSelector(`${panel} .widget-slider .noUi-handle`, { timeout: 60000 });
		await page.waitForFunction((sel) => [...document.querySelectorAll(`${sel} .widget-output`)].some((e) => e.textContent.includes("square 9")), panel, { timeout: 30000 });
		ok(`widgets: the slider is drawn and the output area says ${JSON.stringify(await outText())}`);
		const handle = page.locator(`${panel} .widget-slider .noUi-handle`).first();
		await handle.focus();
		const t = Date.now();
		await handle.press("ArrowRight");
		await handle.press("ArrowRight");
		await page.waitForFunction((sel) => [...document.querySelectorAll(`${sel} .widget-output`)].some((e) => e.textContent.includes("square 25")), panel, { timeout: 30000 });
		const redraw = Date.now() - t;
		const shown = await outText();
		check(!shown.includes("square 9"), `the old output is still there: ${JSON.stringify(shown)}`);
		const v = await runCell(page, id, "k.Value()", 60000);
		check(v.status === "ok" && text(v.outputs).trim() === "5", `the kernel's value after the move: ${JSON.stringify(v)}`);
		ok(`widgets: two ArrowRight presses moved the slider to 5; the output area says ${JSON.stringify(shown)} ${redraw} ms after the first press; the kernel has 5`);
		// A redraw that does not end (k = 7) is preempted by a change of the
		// other slider (j = 1). (The widget manager sends a model's next
		// change only once the kernel is idle after its last, merging the
		// changes between: of one slider's changes the last wins by
		// construction; another control's change arrives at once.)
		// kernel.js does not hold a comm_msg until its callback ends, so
		// the change reaches the Go side while the redraw sleeps.
		await handle.press("ArrowRight");
		await handle.press("ArrowRight");
		await new Promise((r) => setTimeout(r, 500));
		const other = page.locator(`${panel} .widget-slider .noUi-handle`).nth(1);
		await other.focus();
		const tj = Date.now();
		await other.press("ArrowRight");
		await page.waitForFunction((sel) => [...document.querySelectorAll(`${sel} .widget-output`)].some((e) => e.textContent.includes("square 49 j 1")), panel, { timeout: 30000 });
		ok(`widgets: a redraw that never ends (k = 7) was preempted by the other slider's change: the output area says 'square 49 j 1' ${Date.now() - tj} ms after it`);
		const v8 = await runCell(page, id, "k.Value()*10 + j.Value()", 60000);
		check(v8.status === "ok" && text(v8.outputs).trim() === "71", `the kernel's values after the preemption: ${JSON.stringify(v8)}`);
		// Saved, the notebook keeps the widgets' state (the site's saveState
		// default, build.mjs), for a static view of it.
		const saved = await page.evaluate(async (id) => {
			const app = window.jupyterapp;
			const panel = [...app.shell.widgets("main")].find((w) => w.id === id);
			await panel.context.save();
			const m = await app.serviceManager.contents.get(panel.context.path, { content: true });
			return m.content.metadata.widgets || null;
		}, id);
		const st = saved && saved["application/vnd.jupyter.widget-state+json"];
		const models = st ? Object.values(st.state) : [];
		const sliders = models.filter((m) => m.model_name === "IntSliderModel").map((m) => m.state.value).sort();
		const slider = sliders.join() === "1,7" ? { state: { value: 7 } } : null;
		const out = models.find((m) => m.model_name === "OutputModel");
		check(slider && out && JSON.stringify(out.state.outputs).includes("square 49 j 1"),
			`the saved notebook's widget state (sliders ${sliders}): ${JSON.stringify(saved).slice(0, 1500)}`);
		ok(`widgets: the saved notebook keeps the state of its ${models.length} widget models (sliders at 7 and 1, output 'square 49 j 1')`);
		check(problems.length === 0, problems.join("; "));
	} finally {
		await context.close();
		require("fs").rmSync(profile, { recursive: true, force: true });
	}
}

// mdLinks returns the relative links [text, target] of the Markdown
// cells of the notebook file (relative to the repository's notebooks/),
// or of the Markdown file itself, in order: what a learner can click.
// With before, only the links whose preceding text on their line matches
// it.
function mdLinks(name, before) {
	const fs = require("fs");
	const path = require("path");
	const file = path.join(__dirname, "..", "..", "notebooks", name);
	let md = fs.readFileSync(file, "utf8");
	if (name.endsWith(".ipynb")) md = JSON.parse(md).cells.filter((c) => c.cell_type === "markdown").map((c) => [].concat(c.source).join("")).join("\n");
	return [...md.matchAll(/\[([^\]]+)\]\(([^)\s:]+)\)/g)]
		.filter((m) => !before || before.test(md.slice(md.lastIndexOf("\n", m.index) + 1, m.index)))
		.map((m) => [m[1], m[2]]).filter(([, t]) => !t.startsWith("/") && !t.startsWith("#"));
}

// firstHeading is the text of the first Markdown heading of a notebook
// file, as JupyterLab shows it (Markdown's # and emphasis taken off).
function firstHeading(name) {
	const cells = JSON.parse(require("fs").readFileSync(require("path").join(__dirname, "..", "..", "notebooks", name), "utf8")).cells;
	for (const c of cells) {
		if (c.cell_type !== "markdown") continue;
		const h = [].concat(c.source).join("").split("\n").find((l) => /^#+\s/.test(l));
		if (h) return h.replace(/^#+\s*/, "").replace(/[*`]/g, "").trim();
	}
	throw new CheckError(`${name} has no Markdown heading`);
}

// readmeHeading is the first heading of notebooks/README.md, as shown.
function readmeHeading() {
	const md = require("fs").readFileSync(require("path").join(__dirname, "..", "..", "notebooks", "README.md"), "utf8");
	const h = md.split("\n").find((l) => /^#\s/.test(l));
	if (!h) throw new CheckError("notebooks/README.md has no heading");
	return h.replace(/^#\s*/, "").replace(/[*`]/g, "").trim();
}

// linksOnly checks that the course's relative links work in the site as
// they do in JupyterLab with a Jupyter server: a click on one opens the
// linked file inside the app, in the same browser tab. Before, every
// relative link of a Markdown cell had an empty href (src/process.js says
// why) and a click opened the site's root in a new tab, and README.md had
// no viewer. It opens notebook 01 by its shared link, not run, clicks its
// "next" link (the link and its target read from the .ipynb), and checks
// that the target notebook is in front with its first heading visible,
// that no browser tab opened and no page loaded; then, from
// there, the link to the reading order (README.md) opens it rendered, and
// its link to notebook 00 opens 00. Every link of 01's Markdown must have
// a non-empty href.
// stdinOnly checks a Go cell's standard input in JupyterLab (see the
// eighth form above).
async function stdinOnly() {
	const { profile, context } = await launch();
	const problems = [];
	try {
		const page = await context.newPage();
		page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
		await page.goto(base);
		await appReady(page, 120000);
		const id = await newNotebook(page, 120000);
		await page.evaluate(() => {
			window.kernelOf = (id) => [...window.jupyterapp.shell.widgets("main")].find((w) => w.id === id).sessionContext.session.kernel;
		});
		// The open input box (one answered stays 500 ms, hiding).
		const box = `[id="${id}"] .jp-OutputArea-stdin-item:not(.jp-OutputArea-stdin-hiding) .jp-Stdin-input`;
		// answer waits for the input box of the running cell, types line
		// and Enter, and returns the text shown before the box.
		const answer = async (line) => {
			await page.waitForSelector(box, { timeout: 60000 });
			const shown = await page.evaluate((id) => {
				const cells = [...document.querySelectorAll(`[id="${id}"] .jp-CodeCell`)];
				return cells[cells.length - 1].querySelector(".jp-OutputArea").innerText;
			}, id);
			await page.locator(box).fill(line);
			await page.locator(box).press("Enter");
			return shown;
		};

		let r = await runCell(page, id, `kept := 5\nkept`, 60000);
		check(r.status === "ok" && text(r.outputs).trim() === "5", `before the input: ${JSON.stringify(r)}`);
		const cell = runCell(page, id, `var first, last string\nfmt.Print("your name? ")\nn, err := fmt.Scanln(&first, &last)\nfmt.Printf("hello, %s %s (%d words, %v)\\n", first, last, n, err)`, 90000);
		const shown = await answer("Ada Lovelace");
		r = await cell;
		const said = text(r.outputs);
		check(shown.includes("your name?"), `the input box came without the cell's prompt before it: ${JSON.stringify(shown)}`);
		check(r.status === "ok" && said.includes("hello, Ada Lovelace (2 words, <nil>)"), `the answered cell: ${JSON.stringify(r)}`);
		ok(`stdin: fmt.Scanln showed JupyterLab's input box after the prompt ${JSON.stringify(shown.trim())}; typed "Ada Lovelace" and Enter: the cell printed ${JSON.stringify(said.trim().split("\n").slice(-1)[0])}`);

		// Two reads in one cell, each answered in its own box.
		const two = runCell(page, id, `var a, b int\nfmt.Print("a? ")\nfmt.Scanln(&a)\nfmt.Print("b? ")\nfmt.Scanln(&b)\na + b`, 90000);
		await answer("40");
		await page.waitForFunction((id) => [...document.querySelectorAll(`[id="${id}"] .jp-OutputArea`)].pop().innerText.includes("b?"), id, { timeout: 60000 });
		await answer("2");
		r = await two;
		check(r.status === "ok" && text(r.outputs).includes("42"), `two reads (40, 2): ${JSON.stringify(r)}`);
		ok("stdin: two reads in one cell, 40 and 2, give 42");

		// Interrupt while the cell waits for input: it ends Interrupted
		// soon, in the same Go session.
		const waiting = runCell(page, id, `var s string\nfmt.Print("never answered: ")\nfmt.Scanln(&s)\nfmt.Println("read", s)`, 90000);
		await page.waitForSelector(box, { timeout: 60000 });
		const tInt = Date.now();
		await page.evaluate((id) => window.kernelOf(id).interrupt(), id);
		r = await waiting;
		const took = (Date.now() - tInt) / 1000;
		const out = text(r.outputs);
		check(r.status === "error" && /Interrupted|interrupted/.test(out) && !out.includes("new Go session"), `the cell interrupted while waiting for input: ${JSON.stringify(r).slice(0, 1000)}`);
		check(took < 10, `the cell waiting for input ended ${took.toFixed(1)} s after the interrupt`);
		r = await runCell(page, id, `kept * 2`, 60000);
		check(r.status === "ok" && text(r.outputs).trim() === "10", `after the interrupted input, the session lost kept: ${JSON.stringify(r)}`);
		ok(`stdin: interrupted while waiting for input, the cell ended ${took.toFixed(1)} s later (${JSON.stringify(out.trim().split("\n").filter(Boolean).slice(-2).join(" | ").slice(0, 200))}); the same session goes on (kept * 2 = 10)`);

		// A front end that allows no input (allow_stdin false).
		const noStdin = await page.evaluate(async (id) => {
			const f = window.kernelOf(id).requestExecute({ code: `var s string\n_, err := fmt.Scanln(&s)\nerr`, allow_stdin: false });
			const got = [];
			f.onIOPub = (m) => {
				if (m.header.msg_type === "stream") got.push(m.content.name + ": " + m.content.text);
				if (m.header.msg_type === "execute_result") got.push("result: " + m.content.data["text/plain"]);
			};
			f.onStdin = (m) => got.push("input_request: " + JSON.stringify(m.content));
			const reply = await f.done;
			return { status: reply.content.status, got };
		}, id);
		const ns = noStdin.got.join("");
		check(noStdin.status === "ok" && ns.includes("stderr: veclab: standard input: this front end does not allow standard input") && ns.includes("result: EOF") && !ns.includes("input_request"), `allow_stdin false: ${JSON.stringify(noStdin)}`);
		ok(`stdin: with allow_stdin false no input_request is sent; the cell's stderr says ${JSON.stringify(noStdin.got.find((g) => g.startsWith("stderr")).trim())} and the read gives EOF`);
		check(problems.length === 0, problems.join("; "));
	} finally {
		await context.close();
		require("fs").rmSync(profile, { recursive: true, force: true });
	}
}

// staticOnly checks the site on a host without COOP/COEP headers (see
// the ninth form above).
async function staticOnly() {
	const { profile, context } = await launch();
	const problems = [];
	try {
		context.on("request", (req) => {
			const u = new URL(req.url());
			if (u.protocol.startsWith("http") && u.origin !== origin) problems.push(`request to another origin: ${req.url()}`);
		});
		// visit loads the site in a new page and returns it with the
		// number of times its main frame navigated, once the page is
		// isolated (or not) and JupyterLab is up.
		const visit = async () => {
			const page = await context.newPage();
			page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
			let navigations = 0;
			page.on("framenavigated", (f) => {
				if (f === page.mainFrame()) navigations++;
			});
			const t = Date.now();
			await page.goto(base);
			// The reload comes once the service worker controls the page.
			await page.waitForFunction(() => window.crossOriginIsolated === true, null, { timeout: 60000 }).catch(() => {});
			await appReady(page, 120000);
			const st = await page.evaluate(() => ({
				iso: window.crossOriginIsolated, sab: typeof SharedArrayBuffer,
				sw: navigator.serviceWorker.controller ? new URL(navigator.serviceWorker.controller.scriptURL).pathname : "",
			}));
			return { page, navigations, st, ms: Date.now() - t };
		};
		const first = await visit();
		check(first.st.iso === true && first.st.sab === "function", `first visit: the page is not cross-origin isolated through the service worker: ${JSON.stringify(first.st)}`);
		check(first.st.sw.endsWith("/veclab-sw.js") && first.navigations === 2, `first visit: want veclab-sw.js controlling the page after one reload, got ${JSON.stringify(first.st)} after ${first.navigations} navigations`);
		ok(`static host (no COOP/COEP): the first visit registered ${first.st.sw}, reloaded once and is cross-origin isolated (app up ${(first.ms / 1000).toFixed(1)} s after navigation)`);
		await first.page.close();
		const { page, navigations, st, ms } = await visit();
		check(st.iso === true && navigations === 1, `second visit: isolated ${st.iso} after ${navigations} navigations, want isolated without a reload`);
		ok(`static host: a second visit is isolated at once, with no reload (app up ${(ms / 1000).toFixed(1)} s after navigation)`);

		const id = await newNotebook(page, 120000);
		await page.evaluate(() => {
			window.kernelOf = (id) => [...window.jupyterapp.shell.widgets("main")].find((w) => w.id === id).sessionContext.session.kernel;
		});
		let r = await runCell(page, id, `import "time"\nkept := 5\nkept`, 60000);
		check(r.status === "ok" && text(r.outputs).trim() === "5", `before the loop: ${JSON.stringify(r)}`);
		const tLoop = Date.now();
		const loop = runCell(page, id, `n := 0\nfor {\n\tn++\n\ttime.Sleep(time.Millisecond)\n}`, 60000);
		loop.catch(() => {}); // a failed check below closes the page under it
		await page.waitForFunction((id) => window.kernelOf(id).status === "busy", id, { timeout: 60000 });
		await page.waitForTimeout(1500);
		const tInt = Date.now();
		await page.evaluate((id) => window.kernelOf(id).interrupt(), id);
		r = await loop;
		const took = (Date.now() - tInt) / 1000;
		const out = text(r.outputs);
		check(r.status === "error" && out.includes("Interrupted") && !out.includes("new Go session"), `the interrupted loop: ${JSON.stringify(r).slice(0, 1000)}`);
		check(took < 3, `the loop ended ${took.toFixed(1)} s after the interrupt: not through the shared flag (the kernel replaces a session 3 s after an interrupt)`);
		r = await runCell(page, id, `kept * 2`, 60000);
		check(r.status === "ok" && text(r.outputs).trim() === "10", `after the interrupt the session lost kept: ${JSON.stringify(r)}`);
		ok(`static host: a running loop (${((tInt - tLoop) / 1000).toFixed(1)} s in) ended Interrupted ${took.toFixed(2)} s after the interrupt, in the same Go session (kept * 2 = 10)`);
		check(problems.length === 0, problems.join("; "));
	} finally {
		await context.close();
		require("fs").rmSync(profile, { recursive: true, force: true });
	}
}

// debuggerOnly checks JupyterLab's debugger side panel on the Go kernel
// (see the eleventh form above).
async function debuggerOnly() {
	const { profile, context } = await launch();
	const problems = [];
	try {
		const page = await context.newPage();
		await page.setViewportSize({ width: 1280, height: 760 });
		page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
		page.on("console", (m) => {
			if (m.type() === "error" && /debugger|Debugger|plugin/.test(m.text())) problems.push(`console error: ${m.text()}`);
		});
		await page.goto(base);
		await appReady(page, 120000);
		const id = await newNotebook(page, 120000);
		const nb = `[id="${id}"]`;
		let r = await runCell(page, id, `import "github.com/veclab/veclab/lab/table"\nef := 80\nstore := "redis"\nrecalls := []float64{0.616, 0.952}\nbest := table.New("best", table.Col("store", ""), table.Col("recall@10", ""))\nbest.AddValues("qdrant", 1.0)\nbest.AddValues("pgvector", 0.952)`, 90000);
		check(r.status === "ok", `the cell defining the variables: ${JSON.stringify(r).slice(0, 800)}`);

		// The bug button: enabled once the debugger service has read
		// kernel_info's debugger flag.
		const bug = page.locator(`${nb} .jp-DebuggerBugButton`);
		await bug.waitFor({ timeout: 60000 });
		await page.waitForFunction((sel) => {
			const b = document.querySelector(sel);
			return b && !b.querySelector("[disabled]") && !b.hasAttribute("disabled") && b.getAttribute("aria-disabled") !== "true";
		}, `${nb} .jp-DebuggerBugButton`, { timeout: 60000 });
		await page.evaluate((id) => window.jupyterapp.shell.activateById(id), id);
		await bug.locator("jp-button, button").first().click();
		// The initialized event opens the side panel; the variables come
		// with inspectVariables.
		const names = `#jp-debugger-sidebar .jp-DebuggerVariables-body .jp-DebuggerVariables-name`;
		await page.waitForFunction((sel) => [...document.querySelectorAll(sel)].some((e) => e.textContent === "best"), names, { timeout: 60000 });
		const listed = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll("#jp-debugger-sidebar .jp-DebuggerVariables-body .jp-TreeItem")]
			.map((t) => [t.querySelector(".jp-DebuggerVariables-name")?.textContent, t.querySelector(".jp-DebuggerVariables-detail")?.textContent])));
		// JupyterLab's tree shows an int's value and other variables' types
		// (its convertType); the table view shows every value.
		const want = { ef: "80", store: "string", recalls: "[]float64", best: "*table.Table" };
		for (const [n, d] of Object.entries(want)) check(listed[n] === d, `the variables panel shows ${n} as ${JSON.stringify(listed[n])}, want ${JSON.stringify(d)} (all: ${JSON.stringify(listed)})`);
		check(!Object.keys(listed).some((n) => n.startsWith("__veclab")), `the panel lists the session's own names: ${Object.keys(listed)}`);
		ok(`debugger: the bug button started the debugger; its variables panel lists ${Object.entries(listed).map(([n, d]) => `${n} (${d})`).join(", ")}`);

		r = await runCell(page, id, `k := ef * 2\nk`, 60000);
		check(r.status === "ok" && text(r.outputs).trim() === "160", `k := ef * 2: ${JSON.stringify(r)}`);
		await page.waitForFunction((sel) => [...document.querySelectorAll(sel)].some((e) => e.textContent === "k"), names, { timeout: 60000 });
		ok("debugger: a cell run with the debugger on adds its variable (k) to the panel");

		// Rich inspection: the "Render variable" button that shows on a
		// variable under the mouse opens best's table as HTML in the main
		// area.
		const item = page.locator("#jp-debugger-sidebar .jp-DebuggerVariables-body .jp-TreeItem", { has: page.locator(".jp-DebuggerVariables-name", { hasText: /^best$/ }) });
		await item.hover();
		await item.locator(".jp-DebuggerVariables-renderVariable").click();
		const rendered = await page.waitForFunction(() => {
			const w = document.querySelector('[id^="jp-debugger-variable-mime-best-"]');
			return w && w.querySelector("table") ? w.innerText : null;
		}, null, { timeout: 60000 });
		const shown = await rendered.jsonValue();
		check(shown.includes("qdrant") && shown.includes("pgvector"), `richInspectVariables of best: ${JSON.stringify(shown).slice(0, 400)}`);
		ok(`debugger: best opened from the panel (richInspectVariables) shows its table: ${JSON.stringify(shown.replace(/\s+/g, " ").trim().slice(0, 80))}`);

		// Breakpoints: stated unsupported in debugInfo, answered unverified.
		const dbg = await page.evaluate(async (id) => {
			const k = [...window.jupyterapp.shell.widgets("main")].find((w) => w.id === id).sessionContext.session.kernel;
			const req = async (command, args) => (await k.requestDebug({ seq: 900, type: "request", command, arguments: args || {} }).done).content;
			return {
				info: await req("debugInfo"),
				bps: await req("setBreakpoints", { source: { path: "/veclab-cells/1.go" }, breakpoints: [{ line: 1 }], sourceModified: false }),
				dumped: await req("dumpCell", { code: "k := ef * 2\nk" }),
			};
		}, id);
		check(dbg.info.success && dbg.info.body.isStarted === true && dbg.info.body.breakpointsSupported === false && /not supported/.test(dbg.info.body.message),
			`debugInfo: ${JSON.stringify(dbg.info)}`);
		check(dbg.bps.body.breakpoints.length === 1 && dbg.bps.body.breakpoints[0].verified === false, `setBreakpoints: ${JSON.stringify(dbg.bps)}`);
		// The source request (the Breakpoints and Kernel Sources panels
		// open a cell's source with it): the code dumpCell was given.
		const src = await page.evaluate(async ({ id, path }) => {
			const k = [...window.jupyterapp.shell.widgets("main")].find((w) => w.id === id).sessionContext.session.kernel;
			return (await k.requestDebug({ seq: 901, type: "request", command: "source", arguments: { source: { path }, sourceReference: 0 } }).done).content;
		}, { id, path: dbg.dumped.body.sourcePath });
		check(dbg.dumped.success && /^\/veclab-cells\/\d+\.go$/.test(dbg.dumped.body.sourcePath) && src.success && src.body.content === "k := ef * 2\nk",
			`dumpCell then source: ${JSON.stringify({ dumped: dbg.dumped, src })}`);
		ok(`debugger: source answers the cell dumpCell named (${dbg.dumped.body.sourcePath})`);
		ok(`debugger: debugInfo says ${JSON.stringify(dbg.info.body.message)}; setBreakpoints answers the breakpoint unverified`);

		if (screenshot) {
			// The table view: name, type and value of each variable.
			await page.locator("#jp-debugger-sidebar .jp-TableView-Button").first().click();
			await page.waitForTimeout(1000);
			await page.screenshot({ path: screenshot });
			ok(`debugger: screenshot of the variables panel (table view) in ${screenshot}`);
		}
		check(problems.length === 0, problems.join("; "));
	} finally {
		await context.close();
		require("fs").rmSync(profile, { recursive: true, force: true });
	}
}

async function linksOnly() {
	const { profile, context } = await launch();
	const problems = [];
	try {
		const page = await context.newPage();
		page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
		const start = "01-four-stores-on-defaults.ipynb";
		await page.goto(new URL("?path=notebooks/" + start, base).href);
		await appReady(page, 120000);

		// front waits until the document at path is the visible widget
		// of the main area, and returns its id.
		const front = async (path, what) => {
			const ok = await page.waitForFunction((p) => [...window.jupyterapp.shell.widgets("main")].some((w) => w.context?.path === p && w.isVisible), path, { timeout: 60000 })
				.then(() => true, () => false);
			if (!ok) {
				const shown = await page.evaluate(() => [...window.jupyterapp.shell.widgets("main")].filter((w) => w.isVisible).map((w) => w.context?.path || w.title.label));
				throw new CheckError(`${what}: ${path} is not in front; the main area shows ${JSON.stringify(shown)}`);
			}
			return page.evaluate((p) => [...window.jupyterapp.shell.widgets("main")].find((w) => w.context?.path === p && w.isVisible).id, path);
		};
		// follow finds, in the widget id, the rendered link to target whose
		// text starts with label, checks its href, clicks it and checks
		// that path opens in the same tab, showing heading. A notebook
		// draws what is off screen lazily and renders Markdown
		// asynchronously, so the cell whose source holds the link is
		// scrolled to and the link waited for (up to 30 s, scrolling again
		// each second: a slow machine renders late — a 30 ms look once per
		// cell missed the last cell's link in a CI run).
		const follow = async (id, label, target, path, heading, what) => {
			const sel = `[id="${id}"] a[href]`;
			const findLink = () => page.evaluate(({ sel, label }) => [...document.querySelectorAll(sel)].findIndex((a) => a.textContent.trim().startsWith(label)), { sel, label });
			const cellOf = await page.evaluate(({ id, label }) => {
				const w = [...window.jupyterapp.shell.widgets("main")].find((w) => w.id === id);
				const nb = w && w.content;
				if (!nb || !nb.widgets) return -2; // not a notebook: a rendered Markdown file
				return nb.widgets.findIndex((c) => c.model.sharedModel.getSource().includes(label));
			}, { id, label });
			if (cellOf === -1) throw new CheckError(`${what}: no cell's source has a link "${label}…"`);
			let link = null;
			for (const t = Date.now(); Date.now() - t < 30000; ) {
				if (cellOf >= 0) {
					await page.evaluate(({ id, i }) => {
						const nb = [...window.jupyterapp.shell.widgets("main")].find((w) => w.id === id).content;
						nb.scrollToItem(i, "center").catch(() => {});
						nb.widgets[i].node.scrollIntoView({ block: "center" });
					}, { id, i: cellOf });
				}
				for (const s = Date.now(); Date.now() - s < 1000; await page.waitForTimeout(50)) {
					const found = await findLink();
					if (found >= 0) {
						link = page.locator(sel).nth(found);
						break;
					}
				}
				if (link) break;
			}
			if (!link) throw new CheckError(`${what}: no rendered link "${label}…" within 30 s of scrolling to ${cellOf >= 0 ? "cell " + cellOf : "it"}`);
			await link.scrollIntoViewIfNeeded();
			// JupyterLab sets the href once it has resolved the link (the
			// file's download URL).
			const href = await page.waitForFunction((el) => el.getAttribute("href") || null, await link.elementHandle(), { timeout: 10000 }).then((h) => h.jsonValue(), () => "");
			check(href && new URL(href, base).pathname.endsWith("/files/notebooks/" + target), `${what}: the link "${label}…" (${target}) has href ${JSON.stringify(href)}, want the file's URL (…/files/notebooks/${target})`);
			const tabs = context.pages().length;
			// A mark in the page's window: gone if the click loads a page.
			await page.evaluate(() => { window.veclabLinkMark = true; });
			await link.click();
			const to = await front(path, `${what}: after the click on "${label}…"`);
			const title = page.locator(`[id="${to}"]`).getByText(heading, { exact: false }).filter({ visible: true }).first();
			check(await title.waitFor({ state: "visible", timeout: 30000 }).then(() => true, () => false), `${what}: ${path} opened but "${heading}" is not visible`);
			await page.waitForTimeout(500); // a new tab would have opened by now
			check(context.pages().length === tabs, `${what}: the click opened ${context.pages().length - tabs} browser tab(s)`);
			check(await page.evaluate(() => window.veclabLinkMark === true), `${what}: the click loaded a page (${page.url()})`);
			ok(`${what}: "${label}…" (href ${new URL(href, base).pathname}) opens ${path} in the app, same tab, "${heading}" shown`);
			return to;
		};

		const id01 = await front("notebooks/" + start, "the shared link");
		// Every relative link of 01 rendered with an href (it was "").
		// Each Markdown cell scrolled into view (a notebook renders what
		// is off screen lazily), its links read once JupyterLab has
		// resolved them (up to 5 s: it sets every href, or "" on failure).
		const rendered = await page.evaluate(async (id) => {
			const panel = [...window.jupyterapp.shell.widgets("main")].find((w) => w.id === id);
			await panel.context.ready;
			const nb = panel.content;
			const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
			const out = [];
			for (let i = 0; i < nb.widgets.length; i++) {
				const cell = nb.widgets[i];
				if (cell.model.type !== "markdown") continue;
				await nb.scrollToItem(i, "start").catch(() => {});
				cell.node.scrollIntoView({ block: "start" });
				const md = cell.model.sharedModel.getSource();
				const want = [...md.matchAll(/\]\(([^)\s:]+)\)/g)].filter((m) => !m[1].startsWith("/") && !m[1].startsWith("#")).length;
				let links = [];
				for (let t = Date.now(); Date.now() - t < 5000; await sleep(50)) {
					links = [...cell.node.querySelectorAll(".jp-MarkdownOutput a:not(.jp-InternalAnchorLink)")].filter((a) => !(a.getAttribute("href") || "").startsWith("/") && !(a.getAttribute("href") || "").startsWith("#"));
					if (links.length >= want && links.every((a) => a.getAttribute("href"))) break;
				}
				for (const a of links) out.push([i, a.textContent.trim(), a.getAttribute("href")]);
			}
			return out;
		}, id01);
		const links01 = mdLinks(start);
		const empty = rendered.filter(([, , h]) => !h);
		check(empty.length === 0 && rendered.length >= links01.length, `01: ${empty.length} of ${rendered.length} rendered links have an empty href (${JSON.stringify(empty)}); its Markdown has ${links01.length} relative links`);
		ok(`01: ${rendered.length} rendered links, none with an empty href (${links01.length} relative in its Markdown)`);

		// The notebooks end "… · next: [02 · Redis EF_RUNTIME](02-….ipynb) →".
		const next = mdLinks(start, /next:\s*$/i)[0];
		check(next && next[1].endsWith(".ipynb"), `01 has no "next: [...](….ipynb)" link: ${JSON.stringify(links01)}`);
		const id02 = await follow(id01, next[0], next[1], "notebooks/" + next[1], firstHeading(next[1]), `01's "next"`);

		const all = mdLinks(next[1]).find(([t, u]) => u === "README.md");
		check(all, `${next[1]} has no link to README.md`);
		const idReadme = await follow(id02, all[0], "README.md", "notebooks/README.md", readmeHeading(), `${next[1]}'s link to the reading order`);
		const first = mdLinks("README.md").find(([, u]) => u.endsWith(".ipynb"));
		check(first, "README.md links to no notebook");
		const label = first[0].replace(/[*_`]/g, "").trim();
		await follow(idReadme, label, first[1], "notebooks/" + first[1], firstHeading(first[1]), `README.md's link to ${first[1]}`);
		check(problems.length === 0, `the page reported: ${problems.join("; ")}`);
	} finally {
		await context.close();
		require("fs").rmSync(profile, { recursive: true, force: true });
	}
}

// knobHooks are the checks of the notebooks' knobs, run in the
// notebooks' whole run (notebooksOnly) right after each knob cell, by its
// cell id: the widgets are turned as a learner would, and the area below
// them must redraw with the view the new value gives (runNotebook's hooks).
const knobHooks = {
	// Notebook 00's ef slider: five ArrowRight presses, 10 → 15, redraw the
	// search between the clusters, which now finds all of the true top 5.
	"hnsw-pic-knobs-ef": async (page, id, cellId) => {
		const cell = await markCell(page, id, cellId, "ef");
		const outText = () => page.evaluate((sel) => [...document.querySelectorAll(`${sel} .widget-output`)].map((e) => e.textContent).join("|"), cell);
		await page.waitForSelector(`${cell} .widget-slider .noUi-handle`, { timeout: 60000 });
		check((await outText()).trim() === "", `notebook 00: the area below the ef knob is not empty before a change: ${JSON.stringify(await outText())}`);
		const handle = page.locator(`${cell} .widget-slider .noUi-handle`).first();
		await handle.focus();
		const t = Date.now();
		for (let i = 0; i < 5; i++) await handle.press("ArrowRight");
		await page.waitForFunction((sel) => [...document.querySelectorAll(`${sel} .widget-output`)].some((e) => e.textContent.includes("ef = 15: 5 of the true top 5 found")
			&& e.querySelector("svg, canvas, img")), cell, { timeout: 60000 });
		const redraw = Date.now() - t;
		const v = await runCell(page, id, "efSlider.Value()", 60000);
		check(v.status === "ok" && text(v.outputs).trim() === "15", `notebook 00: the kernel's ef after the presses: ${JSON.stringify(v)}`);
		ok(`knobs: five ArrowRight presses moved notebook 00's ef to 15; the area below the knobs shows the search finding 5 of 5 and its picture ${redraw} ms after the first press; the kernel has 15`);
	},
	// Notebook 00b's bits dropdown set to 8 redraws the 8-bit code.
	"quant-pic-knobs": async (page, id, cellId) => {
		const cell = await markCell(page, id, cellId, "bits");
		await page.waitForSelector(`${cell} .widget-dropdown select`, { timeout: 60000 });
		const t = Date.now();
		await page.locator(`${cell} .widget-dropdown select`).selectOption({ label: "8" });
		await page.waitForFunction((sel) => [...document.querySelectorAll(`${sel} .widget-output`)].some((e) => e.textContent.includes("8-bit OSQ, plain mean: 400 B/vector")
			&& e.querySelector("svg, canvas, img")), cell, { timeout: 60000 });
		ok(`knobs: bits set to 8 in notebook 00b's dropdown; the area below the knobs shows the 8-bit code and its pictures ${Date.now() - t} ms after`);
	},
	// Notebook 04 (no PostgreSQL in a tab: its first cell says so and every
	// pgvector figure is the emulation's): relaxed_order chosen in the
	// strategy buttons, then the selectivity slider moved three steps
	// left, from the article's filter (4.0 %) to 0.1 %.
	"pgvector-filters-knobs": async (page, id, cellId) => {
		const cell = await markCell(page, id, cellId, "filters");
		const out = (want) => page.waitForFunction(([sel, want]) => [...document.querySelectorAll(`${sel} .widget-output`)].some((e) => e.textContent.includes(want)
			&& e.querySelector("svg, canvas, img")), [cell, want], { timeout: 60000 });
		await page.waitForSelector(`${cell} .widget-toggle-buttons button`, { timeout: 60000 });
		const ts = Date.now();
		await page.locator(`${cell} .widget-toggle-buttons button`, { hasText: "relaxed_order" }).click();
		await out("relaxed_order at s = 4.0 % (category == 'c3' && year >= 2022): recall@10 1.000, 10.0 rows of 10");
		const strategyRedraw = Date.now() - ts;
		const h = page.locator(`${cell} .widget-slider .noUi-handle`).first();
		await h.focus();
		const tf = Date.now();
		for (let i = 0; i < 3; i++) await h.press("ArrowLeft");
		await out("relaxed_order at s = 0.1 % (category == 'c3' && year == 2025 && region == 'latam'): recall@10 1.000, 3.0 rows of 10");
		const selRedraw = Date.now() - tf;
		const v = await runCell(page, id, "selSlider.Value() + \" \" + strategySel.Value()", 60000);
		check(v.status === "ok" && text(v.outputs).includes("0.1 % relaxed_order"), `notebook 04: the kernel's knobs after the changes: ${JSON.stringify(v)}`);
		ok(`knobs: relaxed_order chosen in notebook 04's strategy buttons redrew the table, story and charts ${strategyRedraw} ms after the click; three ArrowLeft presses on the selectivity slider (4.0 % → 0.1 %) ${selRedraw} ms after the first; the kernel has 0.1 % relaxed_order`);
	},
};

// markCell marks the node of the code cell cellId of notebook panel id
// with data-veclab-knobs=label and returns a selector for it.
async function markCell(page, id, cellId, label) {
	await page.evaluate(({ id, cellId, label }) => {
		const panel = [...window.jupyterapp.shell.widgets("main")].find((w) => w.id === id);
		panel.content.widgets.find((c) => c.model.id === cellId).node.dataset.veclabKnobs = label;
	}, { id, cellId, label });
	return `#${id} [data-veclab-knobs="${label}"]`;
}

// runNotebook runs the notebook at path (under the site's root) whole in
// page, with a new kernel, and returns each code cell's status, wall time,
// outputs and the displays shown while it ran, and the text of its HTML
// tables; it stops at the first cell that does not end "ok". With charts
// it also waits for vega-embed to draw and counts the pictures. hooks maps
// a code cell's id (nbformat's) to a check run right after that cell ends
// ok, with the page and the notebook panel's id, before the cells after it
// run (a knob cell's widgets are turned there: a later cell may close the
// stores they draw from). The kernel is shut down and the notebook closed
// unsaved at the end, whatever happened.
async function runNotebook(page, path, timeout, charts, hooks = {}) {
	const opened = await page.evaluate(async ({ path, timeout }) => {
		const app = window.jupyterapp;
		const panel = await app.commands.execute("docmanager:open", { path, factory: "Notebook", kernel: { name: "veclab" } });
		// The debug_requests sent to the kernel and not yet answered
		// (msg_id → command): JupyterLab's debugger sends one (modules) as
		// each execute_reply arrives (@jupyterlab/debugger-extension 4.6:
		// handler.executionDone → displayModules), a few milliseconds
		// before the kernel's reply can come back; a notebook closed in
		// between cancels it, a page error. A user is not that quick; this
		// run waits for the replies before it closes the notebook, and fails
		// if one does not come (closeNotebook).
		const run = { debugPending: new Map(), kernel: null };
		run.track = (_, { msg, direction }) => {
			if (direction === "send" && msg.header.msg_type === "debug_request") run.debugPending.set(msg.header.msg_id, msg.content.command);
			if (direction === "recv" && msg.header.msg_type === "debug_reply") run.debugPending.delete(msg.parent_header.msg_id);
		};
		(window.veclabRuns ||= {})[path] = run;
		await panel.context.ready;
		await panel.sessionContext.ready;
		run.kernel = panel.sessionContext.session?.kernel;
		run.kernel?.anyMessage.connect(run.track);
		const t = Date.now();
		while (panel.sessionContext.session?.kernel?.status !== "idle") {
			if (Date.now() - t > timeout) throw new Error(`kernel not idle after ${timeout} ms`);
			await new Promise((r) => setTimeout(r, 100));
		}
		const nb = panel.content;
		const codeCells = nb.widgets.filter((c) => c.model.type === "code");
		for (const c of codeCells) c.model.outputs.clear(); // only what this run produces counts
		return { id: panel.id, cells: codeCells.length, all: nb.widgets.length, ids: codeCells.map((c) => c.model.id) };
	}, { path, timeout }).catch(async (e) => {
		await closeNotebook(page, path).catch(() => {});
		throw e;
	});
	try {
		const results = [];
		for (let i = 0; i < opened.cells; i++) {
			const r = await runCodeCell(page, opened.id, i, timeout);
			results.push(r);
			if (r.status !== "ok") break;
			const hook = hooks[opened.ids[i]];
			if (hook) await hook(page, opened.id, opened.ids[i]);
		}
		const shown = await page.evaluate(async ({ id, charts, timeout }) => {
			const panel = [...window.jupyterapp.shell.widgets("main")].find((w) => w.id === id);
			const tabs = [...panel.node.querySelectorAll(".jp-OutputArea-output table")];
			const html = tabs.map((t) => t.textContent);
			// Each table's cells, row by row, so a check can read a column by its header.
			const tableCells = tabs.map((t) => [...t.rows].map((r) => [...r.cells].map((c) => c.textContent.trim())));
			if (!charts) return { html, tableCells };
			// A chart is a Vega-Lite picture once vega-embed has drawn it
			// (it loads and draws after the cell's reply); a picture
			// without a spec is an svg or img.
			const t = Date.now();
			while (panel.node.querySelectorAll(".jp-OutputArea-output .vega-embed").length !== panel.node.querySelectorAll(".jp-OutputArea-output .vega-embed :is(canvas, svg.marks)").length) {
				if (Date.now() - t > timeout) throw new Error(`vega-embed did not draw after ${timeout} ms`);
				await new Promise((r) => setTimeout(r, 100));
			}
			const vegas = panel.node.querySelectorAll(".jp-OutputArea-output .vega-embed :is(canvas, svg.marks)").length;
			const svgs = vegas + [...panel.node.querySelectorAll(".jp-OutputArea-output svg, .jp-OutputArea-output img")].filter((e) => !e.closest(".vega-embed")).length;
			return { html, tableCells, svgs, vegas };
		}, { id: opened.id, charts, timeout });
		return { results, cells: opened.cells, all: opened.all, ...shown };
	} finally {
		await closeNotebook(page, path);
	}
}

// runCodeCell runs the i-th code cell (0-based, in the file's order) of
// the notebook panel id and returns its status, error, place among all
// cells (1-based), wall time, outputs and the displays shown while it
// ran, including the progress bar the kernel takes away when it ends. A
// cell that does not end in timeout ms (a loop on a clock that never
// moves) is interrupted and ends "timeout", rather than the run.
async function runCodeCell(page, id, i, timeout) {
	return page.evaluate(async ({ id, i, timeout }) => {
		const panel = [...window.jupyterapp.shell.widgets("main")].find((w) => w.id === id);
		const nb = panel.content;
		const c = nb.widgets.filter((w) => w.model.type === "code")[i];
		const CodeCell = c.constructor; // @jupyterlab/cells' CodeCell, with its static execute
		const t = Date.now();
		const shown = [];
		const seen = (_, args) => {
			for (const o of args.newValues || []) {
				const j = o.toJSON();
				if (j.output_type === "display_data" || j.output_type === "update_display_data") shown.push(j);
			}
		};
		c.model.outputs.changed.connect(seen);
		let timer;
		const late = new Promise((r) => (timer = setTimeout(() => r({ content: { status: "timeout", ename: "Timeout", evalue: `no reply in ${timeout / 1000} s` } }), timeout)));
		const reply = await Promise.race([CodeCell.execute(c, panel.sessionContext), late]);
		clearTimeout(timer);
		if (reply?.content?.status === "timeout") await panel.sessionContext.session?.kernel?.interrupt().catch(() => {});
		c.model.outputs.changed.disconnect(seen);
		return { status: reply?.content?.status, ename: reply?.content?.ename, evalue: reply?.content?.evalue, cell: nb.widgets.indexOf(c) + 1, ms: Date.now() - t, outputs: c.model.outputs.toJSON(), shown };
	}, { id, i, timeout });
}

// closeNotebook closes the notebook at path unsaved (no dialog), after the
// kernel has answered every debug_request sent to it (10 s at most), and
// shuts its kernel down: shut down first, the widget manager of a notebook
// with widgets (00b's knobs) walks the cells on the kernel's change after
// the panel is gone, a page error.
async function closeNotebook(page, path) {
	return page.evaluate(async (path) => {
		const app = window.jupyterapp;
		const panel = [...app.shell.widgets("main")].find((w) => w.context?.path === path);
		const run = (window.veclabRuns || {})[path];
		delete (window.veclabRuns || {})[path];
		if (!panel) return;
		const session = panel.sessionContext.session?.id;
		const since = Date.now();
		while (run && run.debugPending.size > 0 && Date.now() - since < 10000) await new Promise((r) => setTimeout(r, 10));
		const unanswered = run ? [...run.debugPending.values()] : [];
		run?.kernel?.anyMessage.disconnect(run.track);
		panel.context.model.dirty = false;
		panel.close();
		await new Promise((r) => setTimeout(r, 500));
		if (session) await app.serviceManager.sessions.shutdown(session).catch(() => {});
		if (unanswered.length > 0) throw new Error(`${path}: the kernel did not answer ${unanswered.length} debug_request(s) (${unanswered.join(", ")}) within 10 s of the notebook's last cell`);
	}, path);
}

// notebooksOnly runs every notebook whole at small scale (see the ninth
// form above), in LITE_NOTEBOOK_WORKERS browsers at once (default 2), each
// taking the next notebook from one queue: the notebooks are independent
// (each gets a new kernel, nbconvert runs them one by one natively too),
// and one notebook's Go kernel keeps one core busy, so on two cores two
// browsers halve the run when the machine has nothing else to do
// (cmd/veclab's TestBrowserNotebooks is the suite's last long test).
async function notebooksOnly() {
	const fs = require("fs"), path = require("path");
	// Every notebook, and every notebook added later; LITE_NOTEBOOKS (a
	// regular expression over the file names) picks fewer.
	// LITE_NOTEBOOKS_OUT=DIR saves each notebook run whole there, with
	// the outputs the tab gave (saveRun).
	const pick = new RegExp(process.env.LITE_NOTEBOOKS || ".");
	const names = fs.readdirSync(path.join(__dirname, "..", "..", "notebooks")).filter((f) => f.endsWith(".ipynb") && pick.test(f)).sort();
	check(names.length > 0, "no notebooks in notebooks/");
	const want = process.env.LITE_NOTEBOOK_WORKERS || "2";
	const workers = Number.parseInt(want, 10);
	check(String(workers) === want.trim() && workers >= 1, `LITE_NOTEBOOK_WORKERS=${JSON.stringify(want)}: want a whole number of browsers ≥ 1`);
	const run = { queue: [...names], problems: [], rows: [], failures: [], crashes: [] };
	await Promise.all(Array.from({ length: Math.min(workers, names.length) }, (_, w) => notebookWorker(w + 1, run)));
	const { rows, problems, failures, crashes } = run;
	rows.sort((x, y) => (x.name < y.name ? -1 : 1));
	console.log(`notebook                                      code cells   wall time   result   (${Math.min(workers, names.length)} browsers at once)`);
	for (const r of rows) console.log(`${r.name.padEnd(46)}${String(r.cells).padStart(10)}${r.s.toFixed(1).padStart(10)} s   ${r.failed ? (typeof r.failed === "number" ? `stopped at code cell ${r.failed}` : `failed ${r.failed}`) : "ok"}`);
	console.log(`${rows.filter((r) => !r.failed).length} of ${names.length} notebooks ran whole; ${(rows.reduce((a, r) => a + r.s, 0) / 60).toFixed(1)} min in the notebooks, ${secs()} in all${crashes.length ? `; a Go runtime crash, the notebook rerun: ${crashes.join("; ")}` : ""}`);
	check(failures.length === 0, `${failures.length} of ${names.length} notebooks stopped: ${failures.join("; ")}`);
	check(problems.length === 0, `the page reported: ${problems.join("; ")}`);
}

// notebookWorker is one browser of notebooksOnly: a profile of its own,
// one page, and the next notebook of run.queue until it is empty; what it
// finds goes into run's rows, failures, problems and crashes.
async function notebookWorker(w, run) {
	const fs = require("fs");
	// The notebooks whose disk tables run in the tab (lab/scratch): 06's
	// E12, 07, 12, 13 and 14's E26.
	const diskNotebooks = /^(06|07|12|13|14)-/;
	const { problems, rows, failures, crashes } = run;
	const { profile, context } = await launch();
	try {
		context.on("request", (req) => {
			const u = new URL(req.url());
			if (u.protocol.startsWith("http") && u.origin !== origin) problems.push(`request to another origin: ${req.url()}`);
		});
		const page = await context.newPage();
		let current = "the site";
		page.on("pageerror", (e) => {
			const p = `page error while running ${current} (browser ${w}): ${e.message}\n${e.stack || ""}`.slice(0, 1500);
			problems.push(p);
			console.log(`FAIL ${p}`); // at once: the run goes on to its table
		});
		// The kernels' workers' console, the last 400 lines: a Go runtime's
		// fatal error prints its report there (the kernel's reply keeps
		// only its first line), shown when a notebook's Go program ended.
		// playwright-core's Worker has no console event: chromium reports a
		// dedicated worker's console on its page's.
		const workerLog = [];
		const keep = (m) => {
			workerLog.push(m.text());
			if (workerLog.length > 400) workerLog.shift();
		};
		page.on("console", keep);
		// LITE_QUERY adds to the page's query string (&VECLAB_SIMD=off,
		// &GODEBUG=…: boot.js hands both to the Go program).
		const query = "?VECLAB_SCALE=small" + (process.env.LITE_QUERY || "");
		await page.goto(base + query);
		await appReady(page, 120000);
		// crashes are the notebooks whose Go program ended in a fatal error
		// of the runtime ("found pointer to free object", "found bad
		// pointer in Go heap"): a Go defect on js/wasm, where a function's
		// address lies in the range of heap addresses above 256 MB and
		// reflect's Method keeps one in a pointer-typed cell, which the
		// collector then takes for a heap pointer (docs/testing.md; seen in
		// about half the runs of notebooks 00 to 03, mostly at notebook 03).
		// The first such crash of a run (in either browser) is printed
		// with the kernel's console and that notebook is run once more, in
		// a new browser; a second crash anywhere, or the rerun's own
		// failure, fails the run.
		while (run.queue.length > 0) {
			const name = run.queue.shift();
			current = name;
			const t = Date.now();
			let nb;
			try {
				nb = await runNotebook(page, "notebooks/" + name, 600000, name.startsWith("02-"), knobHooks);
			} catch (e) {
				// a knob's check (knobHooks) or the page: the run goes on
				const why = `${name}: ${e.message}`.slice(0, 1500);
				failures.push(why);
				rows.push({ name, cells: 0, ran: 0, s: (Date.now() - t) / 1000, failed: "a check" });
				console.log(`FAIL ${why}`);
				continue;
			}
			const crashed = nb.results.find((x) => x.status !== "ok" && /The Go program ended: exit code 2: fatal error/.test(`${x.evalue || ""}`));
			if (crashed && crashes.length === 0) {
				const i = nb.results.indexOf(crashed) + 1;
				crashes.push(`${name} code cell ${i}: ${crashed.evalue.split(". ")[0]}`);
				const from = workerLog.findIndex((l) => /fatal error|^panic|^runtime:/.test(l));
				console.log(`CRASH ${name}: code cell ${i} of ${nb.cells}: ${crashed.evalue}\n     the kernel's console, from the runtime's report:\n${workerLog.slice(from < 0 ? -60 : from).join("\n").slice(0, 20000)}\n     ${name} runs once more, in a new browser`);
				// In a new browser: a new kernel in the same page crashed again
				// (a run of 00 to 03, and the rerun of 03), where 03 in a page
				// of its own has not.
				const fresh = await launch();
				try {
					const p2 = await fresh.context.newPage();
					p2.on("pageerror", (e) => problems.push(`page error while rerunning ${name}: ${e.message}`.slice(0, 1500)));
					p2.on("console", keep);
					await p2.goto(base + query);
					await appReady(p2, 120000);
					nb = await runNotebook(p2, "notebooks/" + name, 600000, name.startsWith("02-"), knobHooks);
				} finally {
					await fresh.context.close();
					fs.rmSync(fresh.profile, { recursive: true, force: true });
				}
			}
			console.log(`     ${name}: seconds per code cell: ${nb.results.map((x) => (x.ms / 1000).toFixed(1)).join(" ")}`);
			// A notebook stops at its first cell that does not end ok; the
			// run goes on to the next notebook and fails at its end, naming
			// every notebook that stopped, its cell and the message.
			const failed = nb.results.find((x) => x.status !== "ok");
			if (failed) {
				const i = nb.results.indexOf(failed) + 1;
				const msg = failed.ename ? `${failed.ename}: ${failed.evalue}` : text(failed.outputs);
				const why = `${name}: code cell ${i} of ${nb.cells} (cell ${failed.cell} of ${nb.all}) ended ${failed.status}: ${msg.slice(0, 1500)}`;
				failures.push(why);
				rows.push({ name, cells: nb.cells, ran: nb.results.length, s: (Date.now() - t) / 1000, failed: i });
				console.log(`FAIL ${why}`);
				if (/The Go program ended/.test(msg)) {
					const from = workerLog.findIndex((l) => /fatal error|^panic|^runtime:/.test(l));
					console.log(`     the kernel's console, from the runtime's report:\n${workerLog.slice(from < 0 ? -60 : from).join("\n").slice(0, 20000)}`);
				}
				continue;
			}
			if (nb.results.length !== nb.cells) {
				failures.push(`${name}: ran ${nb.results.length} of ${nb.cells} code cells`);
				continue;
			}
			if (process.env.LITE_NOTEBOOKS_OUT) saveRun(name, nb, process.env.LITE_NOTEBOOKS_OUT);
			const slow = nb.results.reduce((a, x) => (x.ms > a.ms ? x : a), { ms: 0 });
			// The disk experiments' tables say that a tab's disk is
			// simulated (lab/experiment's SimulatedNote), never measured.
			const simulated = nb.results.filter((x) => JSON.stringify(x.outputs).includes("SIMULATED disk (this browser tab has no files)")).length;
			if (diskNotebooks.test(name) && simulated === 0) failures.push(`${name}: no output says its disk is SIMULATED (lab/experiment's SimulatedNote): its device reads would read as measured`);
			rows.push({ name, cells: nb.cells, ran: nb.results.length, s: (Date.now() - t) / 1000, simulated });
			ok(`${name}: ${nb.cells} code cells whole at small scale in ${secs(t)} in browser ${w} (slowest: cell ${slow.cell}, ${(slow.ms / 1000).toFixed(1)} s)${simulated ? `; ${simulated} cells say their disk is SIMULATED` : ""}`);
			if (name.startsWith("02-")) notebook02(nb);
		}
	} finally {
		await context.close();
		fs.rmSync(profile, { recursive: true, force: true });
	}
}

// saveRun writes the notebook name as this run left it to dir: the file's
// cells with each code cell's outputs from the run (LITE_NOTEBOOKS_OUT),
// to read the browser's tables beside a native run's.
function saveRun(name, nb, dir) {
	const fs = require("fs"), path = require("path");
	const file = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "notebooks", name), "utf8"));
	const code = file.cells.filter((c) => c.cell_type === "code");
	code.forEach((c, i) => {
		c.outputs = nb.results[i] ? nb.results[i].outputs : [];
		c.execution_count = nb.results[i] ? i + 1 : null;
	});
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(path.join(dir, name), JSON.stringify(file, null, 1) + "\n");
}

// notebook02 checks what notebook 02's run showed: an E02 table with
// recall values, its 2 charts drawn by vega-embed, and cell 4's progress
// bar shown while it ran and taken away when it ended, its printed lines
// kept.
function notebook02(nb) {
	check(text(nb.results[0].outputs).includes("small") || text(nb.results[0].outputs).includes("n=2000"), `notebook 02 did not run at small scale: ${text(nb.results[0].outputs)}`);
	const e02 = nb.html.find((t) => t.includes("recall"));
	check(e02 && /0\.\d{2,}/.test(e02) && /redis/i.test(e02), `notebook 02: no HTML table with recall values: ${JSON.stringify(nb.html).slice(0, 800)}`);
	check(nb.svgs >= 2, `notebook 02: ${nb.svgs} charts (Vega-Lite, svg or img), want its 2`);
	check(nb.vegas >= 2, `notebook 02: ${nb.vegas} charts drawn by vega-embed, want its 2 (lab/chart's Vega-Lite specs)`);
	const isBar = (o) => /\d+ of \d+/.test(text([o]));
	const bars = nb.results[3].shown.filter(isBar);
	const left = nb.results[3].outputs.filter((o) => o.output_type === "display_data" && isBar(o));
	check(bars.length >= 1, `notebook 02 cell 4: no progress bar was shown while it ran (displays shown: ${JSON.stringify(nb.results[3].shown).slice(0, 600)})`);
	check(left.length === 0, `notebook 02 cell 4: the progress bar stayed after the cell ended: ${JSON.stringify(left).slice(0, 600)}`);
	check(nb.results[3].outputs.some((o) => o.output_type === "stream"), `notebook 02 cell 4: its printed lines are gone with the bar: ${JSON.stringify(nb.results[3].outputs).slice(0, 600)}`);
	// The values of the table's recall column (the lab's where the table
	// has the article's beside it), read by its header
	// (a bare 0.ddd search would pick the latency columns too).
	const rows = (nb.tableCells || [])[nb.html.indexOf(e02)] || [];
	const head = rows.findIndex((r) => r.some((c) => /recall/i.test(c)));
	const labCol = head >= 0 ? rows[head].findIndex((c) => /recall/i.test(c) && /lab/i.test(c)) : -1;
	const col = labCol >= 0 ? labCol : head >= 0 ? rows[head].findIndex((c) => /recall/i.test(c)) : -1;
	const recallCol = col >= 0 ? rows.slice(head + 1).map((r) => r[col]).filter((v) => /^[01]\.\d+$/.test(v || "")) : [];
	check(recallCol.length >= 1, `notebook 02: the E02 table's recall column (${JSON.stringify(head >= 0 ? rows[head] : rows[0])}) holds no recall value`);
	const recalls = `(${rows[head][col]}) ${recallCol.slice(0, 6).join(" ")}`;
	ok(`notebook 02: ${nb.html.length} HTML tables (E02 recall values ${recalls} …), ${nb.svgs} charts (${nb.vegas} by vega-embed), cell 4's progress bar shown and taken away`);
}

async function main() {
	if (loadRuns) return loadOnly();
	if (widgetsMode) return widgetsOnly().then(() => console.log(`PASS (${secs()})`));
	if (linksMode) return linksOnly().then(() => console.log(`PASS (${secs()})`));
	if (stdinMode) return stdinOnly().then(() => console.log(`PASS (${secs()})`));
	if (staticMode) return staticOnly().then(() => console.log(`PASS (${secs()})`));
	if (debuggerMode) return debuggerOnly().then(() => console.log(`PASS (${secs()})`));
	if (notebooksMode) return notebooksOnly().then(() => console.log(`PASS (${secs()})`));
	if (cellFile) return cellOnly();
	if (outputsOnly) {
		const { profile, context } = await launch();
		try {
			await savedOutputs(context);
			console.log(`PASS (${secs()})`);
		} finally {
			await context.close();
			require("fs").rmSync(profile, { recursive: true, force: true });
		}
		return;
	}
	// A persistent profile in a new directory: its HTTP cache is on disk,
	// as a reader's is (a playwright context's in-memory cache drops
	// entries as large as veclab.wasm, and there is no warm cache to
	// measure), and it starts empty (the cold cache).
	const { profile, context } = await launch();
	const problems = [];
	let page;
	try {
		context.on("request", (req) => {
			const u = new URL(req.url());
			if (u.protocol.startsWith("http") && u.origin !== origin) problems.push(`request to another origin: ${req.url()}`);
		});
		context.on("weberror", (e) => problems.push(`page error: ${e.error().message}`));

		// Cold: the new profile's empty cache. Warm: the same profile again
		// (HTTP cache and V8's cache of the compiled module).
		const cold = await firstResult(context, "cold cache", profile);
		await cold.close();
		page = await firstResult(context, "warm cache", profile);

		// Offline once loaded: a second kernel starts (the page hands the
		// worker its script and the compiled module) and runs a cell.
		await context.setOffline(true);
		const off = await newNotebook(page, 120000);
		let r = await runCell(page, off, "1+2", 60000);
		check(r.status === "ok" && text(r.outputs).trim() === "3", `offline: a new kernel's 1+2 gave ${JSON.stringify(r)}`);
		await context.setOffline(false);
		ok("offline: a second kernel starts and runs 1+2 = 3 with the network off");

		const iso = await page.evaluate(() => globalThis.crossOriginIsolated);
		check(iso === true, "the page is not cross-origin isolated (COOP/COEP headers missing): no SharedArrayBuffer, no interrupt");
		const specs = await page.evaluate(() => window.jupyterapp.serviceManager.kernelspecs.specs);
		check(specs && specs.kernelspecs.veclab && specs.kernelspecs.veclab.display_name === "Go (veclab)",
			`the kernel list has no "Go (veclab)": ${JSON.stringify(specs && Object.keys(specs.kernelspecs))}`);
		ok(`cross-origin isolated; kernels: ${Object.values(specs.kernelspecs).map((s) => s.display_name).join(", ")}`);

		const listing = await page.evaluate(async () => (await window.jupyterapp.serviceManager.contents.get("notebooks", { content: true })).content.map((m) => m.name));
		const fs = require("fs"), path = require("path");
		// The notebooks and the course's README (build.mjs serves it for the notebooks' links).
		const repo = fs.readdirSync(path.join(__dirname, "..", "..", "notebooks")).filter((f) => f.endsWith(".ipynb") || f === "README.md").sort();
		check(JSON.stringify(listing.slice().sort()) === JSON.stringify(repo), `the file browser's notebooks/ holds ${listing.join(", ")}, want ${repo.join(", ")}`);
		await page.evaluate(async () => {
			await window.jupyterapp.commands.execute("filebrowser:go-to-path", { path: "notebooks" });
		});
		await page.waitForSelector('.jp-DirListing-item[title*="02-redis-ef-runtime.ipynb"], .jp-DirListing-itemText:has-text("02-redis-ef-runtime.ipynb")', { timeout: 20000 });
		ok(`file browser: notebooks/ holds the repository's ${repo.length} notebooks`);

		// A lesson's shared link opens its notebook, in the site's form
		// (the root) and JupyterLite's (lab/index.html, lab/, lab), each
		// a notebook no page opened before (a page restores the last
		// layout).
		await sharedLink(context, "", "00-hnsw-by-picture.ipynb", true);
		await sharedLink(context, "lab/index.html", "00b-quantization-by-picture.ipynb", false);
		await sharedLink(context, "lab/", "00c-glossary.ipynb", false);
		await sharedLink(context, "lab", "01-four-stores-on-defaults.ipynb", false);

		// Every notebook as a learner first opens it, not run.
		await savedOutputs(context);

		// The settings registry's validators, compiled when the site was
		// built (wasm/lite/src/settings.js): they answer as JupyterLab's
		// own validator does, and they, not it, validated most plugins.
		const st = await page.evaluate(() => {
			const s = globalThis.veclabBoot.settings;
			const loads = { compiled: s.validator.compiledUses, fallbacks: [...s.validator.fallbacks.keys()] };
			return { ...s.compare(), ...loads };
		});
		check(st.differences.length === 0, `compiled settings validators differ from JupyterLab's: ${JSON.stringify(st.differences.slice(0, 3))}`);
		check(st.plugins >= 20 && st.compiled >= st.plugins, `compiled settings validators: ${JSON.stringify(st)}`);
		ok(`settings: the compiled validators of ${st.plugins} plugins agree with JupyterLab's on ${st.inputs} settings; they validated ${st.compiled} loads, JupyterLab's validator the ${st.fallbacks.length} schemas a transform rewrote (${st.fallbacks.map((id) => id.replace(/^@jupyter(lab|lite)\//, "")).join(", ")})`);

		// The kernel's own requests on the open notebook.
		const id = page.notebookId;
		// kernelOf is defined in the page: the kernel of the notebook panel id.
		await page.evaluate(() => {
			window.kernelOf = (id) => [...window.jupyterapp.shell.widgets("main")].find((w) => w.id === id).sessionContext.session.kernel;
		});
		const info = await page.evaluate(async (id) => await window.kernelOf(id).info, id);
		const li = info.language_info;
		check(li.name === "go" && li.file_extension === ".go" && li.mimetype === "text/x-go" && /^\d+\.\d+/.test(li.version) && li.codemirror_mode === "go",
			`kernel_info language_info: ${JSON.stringify(li)}`);
		ok(`kernel_info: ${info.implementation} ${info.implementation_version}, language_info ${JSON.stringify(li)}`);
		r = await runCell(page, id, `import "os"\nfor i := 1; i <= 3; i++ {\n\tfmt.Println("line", i)\n}\nfmt.Fprintln(os.Stderr, "to stderr")`, 30000);
		check(r.status === "ok" && r.outputs.some((o) => o.name === "stdout" && o.text.includes("line 3")) && r.outputs.some((o) => o.name === "stderr" && o.text.includes("to stderr")),
			`streams: ${JSON.stringify(r)}`);
		r = await runCell(page, id, `x := 1\ny := undefinedThing + x`, 30000);
		const tb = text(r.outputs);
		check(r.status === "error" && tb.includes("undefinedThing") && tb.includes("cell line 2"), `compile error: ${JSON.stringify(r)}`);
		ok(`stdout/stderr streams; a compile error names cell line 2`);

		// A chart: lab/chart's Vega-Lite spec beside its PNG, rendered by
		// JupyterLab's vega5 renderer (vega-embed, loaded from the site).
		r = await runCell(page, id, `import "github.com/veclab/veclab/lab/chart"\nc := chart.NewLine("recall@10 vs ef", "ef", "recall@10")\nc.LogX = true\nc.AddArticle("article", []float64{10, 50}, []float64{0.616, 0.962}).Add("lab", []float64{10, 50, 200}, []float64{0.6, 0.95, 1})`, 60000);
		const chartData = (r.outputs.find((o) => o.output_type === "execute_result") || {}).data || {};
		check(r.status === "ok" && chartData["application/vnd.vegalite.v5+json"]?.title === "recall@10 vs ef" && chartData["image/png"],
			`a chart's bundle has no Vega-Lite spec or no PNG: ${JSON.stringify(Object.keys(chartData))} ${JSON.stringify(r).slice(0, 600)}`);
		const vega = await lastVega(page, id);
		check(vega.tag && vega.width <= vega.area + 1, `a chart's cell shows no vega-embed element (or one wider than its output area): ${JSON.stringify(vega)}`);
		ok(`a chart shows as Vega-Lite: a vega-embed element (${vega.tag}, ${vega.width}×${vega.height} px in an output area ${vega.area} px wide); its bundle keeps the PNG`);
		// A grid as notebook 00 draws them (three pictures with a legend
		// each to a row, titles longer than a panel), and a chart set wider
		// than the PNG's 900 px: vega-embed draws them at the spec's size,
		// which lab/chart keeps within a notebook column.
		for (const [what, code] of [
			["a grid of five pictures, three to a row", `g := chart.NewGrid("five pictures of the same points, three to a row", 3)
for i := 0; i < 5; i++ {
	p := chart.NewScatter(fmt.Sprintf("picture %d: a title longer than its panel is wide", i), "x", "y")
	p.Add("points", chart.Dots, []float64{-1, 0, 1, 0.5}, []float64{1, 0, -1, 0.25})
	p.Add("more points", chart.Dots, []float64{-0.5, 0.2}, []float64{-0.5, 0.8})
	g.Charts = append(g.Charts, p)
}
g`],
			["a line chart set 900 pt wide", `w := chart.NewLine("recall@10 vs ef, wide", "ef", "recall@10").Add("lab", []float64{10, 50, 200}, []float64{0.6, 0.95, 1})
w.Width = 900
w`],
		]) {
			r = await runCell(page, id, code, 60000);
			check(r.status === "ok", `${what}: ${JSON.stringify(r).slice(0, 600)}`);
			const v = await lastVega(page, id);
			check(v.width && v.width <= v.area + 1, `${what}: drawn by vega-embed ${JSON.stringify(v)}, wider than its output area (or not drawn)`);
			ok(`${what}: drawn by vega-embed ${v.width}×${v.height} px in an output area ${v.area} px wide, in view (with the notebook at its top: ${v.unscrolled})`);
		}
		const k = await page.evaluate(async (id) => {
			const kernel = window.kernelOf(id);
			const c = await kernel.requestComplete({ code: "fmt.Prin", cursor_pos: 8 });
			const i = await kernel.requestInspect({ code: "fmt.Println", cursor_pos: 6, detail_level: 0 });
			const a = await kernel.requestIsComplete({ code: "for i := 0; i < 3; i++ {" });
			const b = await kernel.requestIsComplete({ code: "1+1" });
			return { c: c.content, i: i.content, a: a.content, b: b.content };
		}, id);
		check(k.c.status === "ok" && k.c.matches.includes("Println") && k.c.cursor_start === 4 && k.c.cursor_end === 8, `complete: ${JSON.stringify(k.c)}`);
		check(k.i.status === "ok" && k.i.found && JSON.stringify(k.i.data).includes("Println"), `inspect: ${JSON.stringify(k.i)}`);
		check(k.a.status === "incomplete" && k.b.status === "complete", `is_complete: ${JSON.stringify([k.a, k.b])}`);
		ok(`complete (fmt.Prin → ${k.c.matches.join(", ")}), inspect (fmt.Println), is_complete (incomplete / complete)`);

		// Interrupt a running index build; the kernel lives on.
		r = await runCell(page, id, `import (\n\t"github.com/veclab/veclab/engine/hnsw"\n\t"github.com/veclab/veclab/lab/dataset"\n)\nds, err := dataset.Generate(dataset.Config{N: 60000, Queries: 1, Dim: 96, Seed: 1})\nif err != nil {\n\tpanic(err)\n}\nkeys := make([]uint64, ds.Base.N)\nfor i := range keys {\n\tkeys[i] = uint64(i)\n}\nfmt.Println("data ready")`, 120000);
		check(r.status === "ok", `the build's data: ${JSON.stringify(r)}`);
		const tInt = Date.now();
		const long = runCell(page, id, `ix, _ := hnsw.New(hnsw.Config{Dim: 96})\nfmt.Println("building")\nerr = ix.AddBatch(keys, ds.Base)\nfmt.Println("built", ix.Len(), err)`, 180000);
		await page.waitForTimeout(3000);
		await page.evaluate((id) => window.kernelOf(id).interrupt(), id);
		r = await long;
		const took = (Date.now() - tInt) / 1000;
		const out = text(r.outputs);
		check(r.status === "error" || out.includes("context canceled") || out.includes("stopped"), `the interrupted build: ${JSON.stringify(r).slice(0, 1000)}`);
		check(took < 15, `the interrupted build ended ${took.toFixed(1)} s after it started (interrupt at 3 s)`);
		r = await runCell(page, id, `2*21`, 30000);
		check(r.status === "ok" && text(r.outputs).trim() === "42", `after the interrupt: ${JSON.stringify(r)}`);
		ok(`interrupt: the index build ended ${took.toFixed(1)} s after its start (interrupted at 3 s): ${out.trim().split("\n").slice(-1)[0].slice(0, 160)}; the next cell gives 42`);

		// A loop that calls nothing never sees the interrupt flag (one
		// thread, no preemption on js/wasm): 3 s after the interrupt the
		// kernel replaces its Go session, the cell ends saying so, and the
		// kernel lives on with a fresh session.
		r = await runCell(page, id, `kept := 7\nkept`, 30000);
		check(r.status === "ok" && text(r.outputs).trim() === "7", `before the endless loop: ${JSON.stringify(r)}`);
		const tLoop = Date.now();
		const loop = runCell(page, id, `n := 0\nfor {\n\tn++\n}`, 60000);
		await page.waitForTimeout(1500);
		await page.evaluate((id) => window.kernelOf(id).interrupt(), id);
		r = await loop;
		const tookLoop = (Date.now() - tLoop) / 1000;
		const said = text(r.outputs);
		check(r.status === "error" && said.includes("did not stop within 3 s") && said.includes("new Go session"), `the endless loop after an interrupt: ${JSON.stringify(r).slice(0, 1000)}`);
		check(tookLoop < 12, `the endless loop ended ${tookLoop.toFixed(1)} s after it started (interrupt at 1.5 s)`);
		r = await runCell(page, id, `kept`, 60000);
		check(r.status === "error" && text(r.outputs).includes("kept"), `after the session was replaced, kept is still defined: ${JSON.stringify(r)}`);
		r = await runCell(page, id, `6*7`, 30000);
		check(r.status === "ok" && text(r.outputs).trim() === "42", `after the session was replaced: ${JSON.stringify(r)}`);
		ok(`an endless loop (n++ forever): interrupted at 1.5 s, the kernel replaced its Go session and the cell ended ${tookLoop.toFixed(1)} s after its start ("${said.trim().split("\n")[0].slice(0, 120)}…"); the next cells run in a fresh session (6*7 = 42)`);

		// A Go program that ends (here out of memory, a fatal error no
		// recover catches) is replaced by a new one the same way.
		const tOOM = Date.now();
		// The cell's own "panic: " line first: the runtime's report, later,
		// is what the error names.
		r = await runCell(page, id, `import "os"\nos.Stderr.WriteString("panic: a line of the cell's own\\n")\nvar keep [][]byte\nfor {\n\tkeep = append(keep, make([]byte, 256<<20))\n}`, 120000);
		const tookOOM = (Date.now() - tOOM) / 1000;
		const saidOOM = (r.outputs.find((o) => o.output_type === "error") || {}).evalue || "";
		check(r.status === "error" && saidOOM.includes("Go program ended") && saidOOM.includes("exit code 2") && saidOOM.includes("fatal error: out of memory") && !saidOOM.includes("of the cell's own") && saidOOM.includes("new Go session"), `a cell that runs out of memory: ${JSON.stringify(r).slice(0, 1000)}`);
		r = await runCell(page, id, `6*7`, 60000);
		check(r.status === "ok" && text(r.outputs).trim() === "42", `after the Go program ran out of memory: ${JSON.stringify(r)}`);
		ok(`out of memory: the Go program ended after ${tookOOM.toFixed(1)} s, the kernel started a new one ("${saidOOM.trim().split("\n")[0].slice(0, 120)}…"); 6*7 = 42`);

		// Restart: a new worker on the page's compiled module, a fresh session.
		const tr = Date.now();
		await page.evaluate(async (id) => {
			const k = window.kernelOf(id);
			await k.restart();
			for (let i = 0; i < 1200 && k.status !== "idle"; i++) await new Promise((r) => setTimeout(r, 50));
		}, id);
		r = await runCell(page, id, `ds`, 30000);
		check(r.status === "error" && text(r.outputs).includes("ds"), `after a restart the old session's ds is still defined: ${JSON.stringify(r)}`);
		r = await runCell(page, id, `3*3`, 30000);
		check(r.status === "ok" && text(r.outputs).trim() === "9", `after a restart: ${JSON.stringify(r)}`);
		ok(`restart: a fresh session in ${secs(tr)} (the old variables are gone, 3*3 = 9)`);

		check(problems.length === 0, `the page reported: ${problems.join("; ")}`);
		console.log(`PASS (${secs()})`);
	} finally {
		if (page && screenshot) await page.screenshot({ path: screenshot, fullPage: true }).catch(() => {});
		await context.close();
		require("fs").rmSync(profile, { recursive: true, force: true });
	}
}

main().catch((e) => {
	console.log(`FAIL (${secs()}): ${e instanceof CheckError ? e.message : e.stack || e}`);
	process.exit(1);
});
