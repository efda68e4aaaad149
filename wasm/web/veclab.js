// veclab in the browser: loads veclab.wasm (wasm/, the evaluation core of
// the Jupyter kernel built for js/wasm) and runs notebook-like cells through
// its bridge, globalThis.veclab (documented in wasm/main.go).
"use strict";

const demoCells = [
`// Plain Go runs in the interpreter (gomacro). Keep interpreted loops small:
// heavy work belongs in the compiled lab and engine, called from cells.
squares := []int{}
for i := 1; i <= 5; i++ {
	squares = append(squares, i*i)
}
squares`,

`import (
	"github.com/veclab/veclab/kernel/display"
	"github.com/veclab/veclab/lab/experiment"
)

// A tiny scale for one browser core: 2,000 vectors of 128 dimensions
// (the article's set-up is 30,000 × 384), 20 queries after 5 warm-up.
scale, err := experiment.ParseScale("n=2000,dim=128,clusters=20,queries=20,warmup=5")
if err != nil {
	panic(err)
}
env, err := experiment.NewEnv(scale, 1)
if err != nil {
	panic(err)
}
// Progress of the long steps, in one display updated in place.
progress := display.NewHandle()
env.Progress = func(done, total int, what string) {
	progress.Text(fmt.Sprintf("%s: %d of %d", what, done, total))
}
fmt.Println("scale:", scale)
fmt.Println("machine:", env.Machine)`,

`// E02: the four stores on their defaults (pgvector, Redis, Qdrant,
// Elasticsearch), each index built here, in the browser; the article's
// figures beside the lab's.
e02, err := experiment.E02Measure(env)
if err != nil {
	panic(err)
}
e02Table := experiment.E02Table(env, e02)
e02Table`,

`import "github.com/veclab/veclab/lab/chart"

e02Chart, err := chart.Compare(e02Table, "recall@10")
if err != nil {
	panic(err)
}
e02Chart.Title = "E02 recall@10 on defaults: article vs lab (browser, tiny scale)"
e02Chart`,
];

const $ = (sel, el = document) => el.querySelector(sel);
const cellsEl = $("#cells");

const state = {
	ready: null,      // Promise of the bridge
	exited: false,    // the Go program ended
	queue: Promise.resolve(),
	running: null,    // the cell being run
	count: 0,         // execution counter
};

function setStatus(text, kind) {
	const s = $("#status");
	s.textContent = text;
	s.dataset.state = kind;
}

// load instantiates veclab.wasm and resolves when its bridge is installed.
async function load() {
	const t0 = performance.now();
	const go = new Go();
	// Notebooks read their scale from VECLAB_SCALE; one browser core wants the small one.
	go.env = { VECLAB_SCALE: "small" };
	let exitCode = 0;
	go.exit = (code) => { exitCode = code; };
	const ready = new Promise((resolve) => { globalThis.veclabReady = resolve; });
	let inst;
	try {
		const resp = fetch("veclab.wasm");
		if (WebAssembly.instantiateStreaming) {
			inst = (await WebAssembly.instantiateStreaming(resp, go.importObject)).instance;
		} else {
			inst = (await WebAssembly.instantiate(await (await resp).arrayBuffer(), go.importObject)).instance;
		}
	} catch (e) {
		setStatus(`Could not load veclab.wasm: ${e}. Serve this page with "go run ./cmd/veclab serve".`, "failed");
		throw e;
	}
	go.run(inst).then(() => onExit(exitCode));
	await ready;
	const secs = ((performance.now() - t0) / 1000).toFixed(1);
	setStatus(`Ready: ${veclab.version}, loaded in ${secs} s. Cells can import the standard library and ${veclab.packages.length} veclab packages.`, "ready");
	$("#version").textContent = veclab.version;
	$("#version").title = "importable: " + veclab.packages.join(", ");
}

// onExit reports the end of the Go program (a panic in a goroutine a cell
// started ends it, as it ends the kernel) in the running cell and the status.
function onExit(code) {
	state.exited = true;
	let text = "";
	try {
		for (const [, t] of veclab.capture.out) text += t;
		veclab.capture.out = [];
	} catch (e) { /* the bridge was never installed */ }
	setStatus(`The Go program ended (exit code ${code}); reload the page to start again.`, "failed");
	if (state.running) {
		const out = $(".outputs", state.running);
		renderItem(out, { type: "error", name: "the Go program ended", value: `exit code ${code}`, traceback: text ? text.split("\n") : [] });
		finish(state.running, "error", null);
	}
	$("#stop").disabled = true;
}

// ---- cells -----------------------------------------------------------

function addCode(code = "", after = null) {
	const cell = $("#code-cell").content.firstElementChild.cloneNode(true);
	const ta = $("textarea", cell);
	ta.value = code;
	ta.addEventListener("input", () => fit(ta));
	ta.addEventListener("keydown", (e) => onKey(e, cell));
	$(".run", cell).addEventListener("click", () => runCell(cell));
	$(".delete", cell).addEventListener("click", () => {
		if (state.running !== cell) cell.remove();
	});
	if (after) after.after(cell); else cellsEl.append(cell);
	fit(ta);
	return cell;
}

function addMarkdown(text) {
	const cell = document.createElement("div");
	cell.className = "cell markdown";
	const pre = document.createElement("div");
	pre.className = "text";
	pre.textContent = text;
	cell.append(pre);
	cellsEl.append(cell);
}

function fit(ta) {
	ta.style.height = "auto";
	ta.style.height = ta.scrollHeight + 2 + "px";
}

function codeCells() { return [...cellsEl.querySelectorAll(".cell.code")]; }

function onKey(e, cell) {
	const ta = e.target;
	if (e.key === "Enter" && (e.shiftKey || e.ctrlKey || e.metaKey)) {
		e.preventDefault();
		runCell(cell);
		if (e.shiftKey) {
			const all = codeCells();
			const next = all[all.indexOf(cell) + 1] || addCode("", cell);
			$("textarea", next).focus();
		}
	} else if (e.key === "Tab" && !e.shiftKey && ta.selectionStart === ta.selectionEnd) {
		e.preventDefault();
		complete(cell);
	} else if (e.key === "Escape") {
		$(".completions", cell).hidden = true;
	}
}

function insert(ta, start, end, text) {
	ta.setRangeText(text, start, end, "end");
	fit(ta);
}

// complete asks the interpreter for the completions at the cursor: one
// match is inserted, several insert their common prefix and are listed.
async function complete(cell) {
	const ta = $("textarea", cell);
	const pos = ta.selectionStart;
	const list = $(".completions", cell);
	list.hidden = true;
	if (!/[\w.]$/.test(ta.value.slice(0, pos)) || !globalThis.veclab || state.exited || state.running) {
		insert(ta, pos, pos, "\t");
		return;
	}
	let r;
	try { r = await veclab.complete(ta.value, pos); } catch (e) { return; }
	const ms = r.matches;
	if (ms.length === 0) return;
	let prefix = ms[0];
	for (const m of ms) while (!m.startsWith(prefix)) prefix = prefix.slice(0, -1);
	const typed = ta.value.slice(r.start, r.end);
	if (ms.length === 1 || prefix.length > typed.length) insert(ta, r.start, r.end, ms.length === 1 ? ms[0] : prefix);
	if (ms.length > 1) {
		list.replaceChildren(...ms.slice(0, 200).map((m) => {
			const b = document.createElement("button");
			b.type = "button";
			b.textContent = m;
			b.addEventListener("click", () => {
				const end = ta.selectionStart;
				insert(ta, r.start, end, m);
				list.hidden = true;
				ta.focus();
			});
			return b;
		}));
		list.hidden = false;
	}
}

// runCell queues cell; cells run one at a time, in the order asked.
function runCell(cell) {
	if (cell.dataset.state === "queued" || cell.dataset.state === "running") return state.queue;
	cell.dataset.state = "queued";
	$(".prompt", cell).textContent = "[*]";
	state.queue = state.queue.then(() => execute(cell));
	return state.queue;
}

async function execute(cell) {
	const out = $(".outputs", cell);
	await state.ready.catch(() => {});
	if (state.exited || !globalThis.veclab) {
		out.replaceChildren();
		renderItem(out, { type: "error", name: "not running", value: "veclab.wasm is not running; reload the page" });
		finish(cell, "error", null);
		return;
	}
	state.running = cell;
	cell.dataset.state = "running";
	$("#stop").disabled = false;
	$(".completions", cell).hidden = true;
	out.replaceChildren();
	out.classList.remove("saved");
	$(".time", cell).textContent = "running…";
	// Let the page paint before the cell takes the thread.
	await new Promise((r) => setTimeout(r, 20));
	let res;
	try {
		res = await veclab.eval($("textarea", cell).value, { onOutput: (item) => renderItem(out, item) });
	} catch (e) {
		if (state.exited) return; // onExit has reported it
		res = { outputs: [{ type: "error", name: "bridge", value: String(e), traceback: [] }], error: true };
	}
	out.replaceChildren();
	for (const item of res.outputs) renderItem(out, item, true);
	finish(cell, res.error ? "error" : "done", res.ms);
}

function finish(cell, result, ms) {
	if (state.running === cell) state.running = null;
	cell.dataset.state = result;
	$(".prompt", cell).textContent = `[${++state.count}]`;
	$(".time", cell).textContent = ms == null ? "" : ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`;
	$("#stop").disabled = true;
}

// ---- outputs ---------------------------------------------------------

// renderItem appends one output item (see wasm/main.go) to out. Live items
// (final false) may be stream chunks; updates replace a display wherever it
// is on the page.
function renderItem(out, item, final = false) {
	switch (item.type) {
	case "stream": {
		const last = out.lastElementChild;
		if (!final && last && last.classList.contains("stream") && last.dataset.name === item.name) {
			last.textContent += item.text;
			return;
		}
		const pre = document.createElement("pre");
		pre.className = `output stream ${item.name}`;
		pre.dataset.name = item.name;
		pre.textContent = item.text;
		out.append(pre);
		return;
	}
	case "update": {
		const shown = document.querySelectorAll(`[data-display-id="${CSS.escape(item.id)}"]`);
		if (shown.length === 0 && !final) {
			renderItem(out, { ...item, type: "display" });
		}
		for (const el of shown) renderBundle(el, item.data);
		return;
	}
	case "display":
	case "result": {
		const div = document.createElement("div");
		div.className = `output ${item.type}`;
		if (item.id) div.dataset.displayId = item.id;
		renderBundle(div, item.data);
		out.append(div);
		return;
	}
	case "error": {
		const pre = document.createElement("pre");
		pre.className = "output error";
		let lines = item.traceback && item.traceback.length ? item.traceback : [`${item.name}: ${item.value}`];
		if (!lines[0].startsWith(item.name)) lines = [`${item.name}: ${item.value}`, ...lines];
		pre.textContent = lines.join("\n");
		out.append(pre);
		return;
	}
	}
}

// renderBundle shows the richest form of a MIME bundle: HTML, SVG, PNG,
// then text (Markdown and JSON shown as text).
function renderBundle(el, data) {
	const text = (v) => Array.isArray(v) ? v.join("") : String(v);
	el.replaceChildren();
	el.classList.remove("html", "svg", "png", "text");
	if (data["text/html"] != null) {
		el.classList.add("html");
		el.innerHTML = text(data["text/html"]);
	} else if (data["image/svg+xml"] != null) {
		el.classList.add("svg");
		el.innerHTML = text(data["image/svg+xml"]);
	} else if (data["image/png"] != null) {
		el.classList.add("png");
		const img = document.createElement("img");
		img.src = "data:image/png;base64," + text(data["image/png"]).replace(/\s/g, "");
		img.alt = data["text/plain"] != null ? text(data["text/plain"]) : "image";
		el.append(img);
	} else {
		el.classList.add("text");
		const pre = document.createElement("pre");
		if (data["text/markdown"] != null) pre.textContent = text(data["text/markdown"]);
		else if (data["text/plain"] != null) pre.textContent = text(data["text/plain"]);
		else if (data["application/json"] != null) pre.textContent = JSON.stringify(data["application/json"], null, 1);
		else pre.textContent = `[${Object.keys(data).join(", ")}]`;
		el.append(pre);
	}
}

// ---- notebooks -------------------------------------------------------

// loadNotebook replaces the cells with a Jupyter notebook's: its code cells
// (with the outputs saved in it, until they run here) and its Markdown text.
function loadNotebook(name, json) {
	let nb;
	try {
		nb = JSON.parse(json);
	} catch (e) {
		alert(`${name}: not JSON: ${e.message}`);
		return;
	}
	if (nb.nbformat !== 4 || !Array.isArray(nb.cells)) {
		alert(`${name}: not a Jupyter notebook of format 4`);
		return;
	}
	const lang = (nb.metadata && (nb.metadata.kernelspec && nb.metadata.kernelspec.language || nb.metadata.language_info && nb.metadata.language_info.name)) || "";
	const src = (s) => Array.isArray(s) ? s.join("") : (s || "");
	cellsEl.replaceChildren();
	for (const c of nb.cells) {
		if (c.cell_type === "markdown") {
			addMarkdown(src(c.source));
		} else if (c.cell_type === "code") {
			const cell = addCode(src(c.source));
			const out = $(".outputs", cell);
			for (const o of c.outputs || []) {
				renderItem(out, ipynbOutput(o), true);
			}
			if ((c.outputs || []).length) out.classList.add("saved");
		}
	}
	$("#source").textContent = `${name}${lang && lang.toLowerCase() !== "go" ? ` (a ${lang} notebook: its cells will not run here)` : ""}; saved outputs are shown until a cell runs`;
}

function ipynbOutput(o) {
	const text = (v) => Array.isArray(v) ? v.join("") : String(v || "");
	switch (o.output_type) {
	case "stream": return { type: "stream", name: o.name, text: text(o.text) };
	case "display_data": return { type: "display", data: o.data || {}, id: o.transient && o.transient.display_id };
	case "execute_result": return { type: "result", data: o.data || {} };
	case "error": return { type: "error", name: o.ename, value: o.evalue, traceback: o.traceback || [] };
	}
	return { type: "stream", name: "stderr", text: `[output of type ${o.output_type}]` };
}

function showDemo() {
	cellsEl.replaceChildren();
	for (const c of demoCells) addCode(c);
	$("#source").textContent = "built-in demo: run the cells in order (Run all)";
}

// ---- start -----------------------------------------------------------

$("#run-all").addEventListener("click", () => { for (const c of codeCells()) runCell(c); });
$("#add-cell").addEventListener("click", () => $("textarea", addCode()).focus());
$("#demo").addEventListener("click", showDemo);
$("#clear").addEventListener("click", () => {
	for (const c of codeCells()) {
		$(".outputs", c).replaceChildren();
		$(".prompt", c).textContent = "[ ]";
		$(".time", c).textContent = "";
	}
});
$("#stop").addEventListener("click", () => { if (globalThis.veclab && !state.exited) veclab.interrupt(); });
$("#load").addEventListener("change", async (e) => {
	const f = e.target.files[0];
	if (f) loadNotebook(f.name, await f.text());
	e.target.value = "";
});

showDemo();
state.ready = load();
