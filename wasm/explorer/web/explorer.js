// explorer.js drives the explorer page: it compiles explorer.wasm once,
// runs it in a Web Worker (worker.js), rebuilds the index when an index
// control moves (a new build supersedes a running one: the worker is
// terminated and a fresh one gets the compiled module), searches when a
// search control moves (only the latest request waits), and draws the
// answers as SVG. Every number drawn comes from the engine.
"use strict";

const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";

// Controls whose range positions index a list of values.
function value(id) {
	const el = $(id);
	if (el.dataset.values) return Number(el.dataset.values.split(",")[Number(el.value)]);
	return Number(el.value);
}

const state = {
	module: null,
	worker: null,
	nextId: 1,
	building: 0, // id of the running build, 0 when none
	built: null, // info of the current index
	searching: false,
	pendingSearch: false,
	lastResult: null,
	searches: 0, // answered searches, for tests
	builds: 0, // finished builds, for tests
};
window.explorerState = state; // read by wasm/browsertest

function status(text, error) {
	$("status").textContent = text;
	$("status").className = error ? "error" : "";
}

function buildParams() {
	return {
		n: value("n"), dim: value("dim"), clusters: 40, queries: 100, m: value("m"),
		efConstruction: value("efc"), bits: Number($("bits").value), seed: Number($("seed").value) || 0,
		pictureN: 300, uniform: $("kind").value === "uniform",
	};
}

function searchParams() {
	return {
		k: Number($("k").value), ef: value("ef"), oversample: value("os"), selectivity: value("sel"),
		strategy: $("strategy").value, query: Math.max(0, Math.min(99, Number($("query").value) || 0)),
	};
}

function newWorker() {
	const w = new Worker("worker.js");
	w.onmessage = (e) => onMessage(w, e.data);
	w.onerror = (e) => status("the worker failed: " + e.message, true);
	w.postMessage({ type: "init", module: state.module });
	return w;
}

function build() {
	if (state.building && state.worker) {
		state.worker.terminate(); // supersede the running build
		state.worker = null;
	}
	if (!state.worker) state.worker = newWorker();
	const id = state.nextId++;
	state.building = id;
	state.built = null;
	state.searching = false;
	state.pendingSearch = false;
	$("progress").value = 0;
	status("building…");
	state.worker.postMessage({ type: "build", id, params: buildParams() });
}

function search() {
	if (!state.built) return;
	if (state.searching) {
		state.pendingSearch = true;
		return;
	}
	state.searching = true;
	const p = searchParams();
	state.worker.postMessage({ type: "search", id: state.nextId++, params: p });
	state.worker.postMessage({ type: "draw", id: state.nextId++, ef: p.ef, k: Math.min(p.k, 10), seed: p.query + 1000 * (Number($("seed").value) || 0) });
}

function onMessage(w, m) {
	if (w !== state.worker) return; // a terminated worker's last words
	switch (m.type) {
		case "ready":
			if (!$("strategy").options.length) {
				for (const s of m.strategies) $("strategy").add(new Option(s, s, s === "in-graph", s === "in-graph"));
				const want = new URLSearchParams(location.search).get("strategy");
				if (want) $("strategy").value = want;
			}
			break;
		case "progress":
			if (m.id !== state.building) return;
			$("progress").value = m.total ? m.done / m.total : 0;
			status(`building: ${m.phase} ${m.done.toLocaleString()} / ${m.total.toLocaleString()}`);
			break;
		case "built": {
			if (m.id !== state.building) return;
			state.building = 0;
			state.built = m.info;
			state.builds++;
			$("progress").value = 1;
			const i = m.info;
			status(`built ${i.params.n.toLocaleString()} × ${i.params.dim} (${i.metric}, ${i.quant}) in ${i.buildSeconds.toFixed(2)} s`);
			$("facts").innerHTML = `graph: ${i.maxLevel + 1} layers, ${i.graphBytesPerVector.toFixed(0)} B/vector of links, ` +
				`${i.bytesPerVector.toFixed(0)} B/vector stored; data ${i.dataSeconds.toFixed(2)} s` +
				(i.quantSeconds ? `, quantizer ${i.quantSeconds.toFixed(2)} s` : "") + `, picture ${i.pictureSeconds.toFixed(2)} s`;
			search();
			break;
		}
		case "searched":
			state.lastResult = m.result;
			state.searches++;
			drawCurves(m.result);
			drawTopK(m.result);
			break;
		case "drawn":
			try {
				drawLayers(m.picture);
			} catch (err) {
				status("drawing the layers failed: " + err, true);
			}
			state.searching = false;
			if (state.pendingSearch) {
				state.pendingSearch = false;
				search();
			}
			break;
		case "error":
			if (m.id === state.building) state.building = 0;
			state.searching = false;
			status(m.error, true);
			break;
	}
}

// --- SVG ---

function el(name, attrs, parent) {
	const e = document.createElementNS(SVGNS, name);
	for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
	if (parent) parent.appendChild(e);
	return e;
}

function text(parent, x, y, s, anchor) {
	const t = el("text", { x, y, "text-anchor": anchor || "start" }, parent);
	t.textContent = s;
	return t;
}

function niceTicks(lo, hi, n) {
	const span = hi - lo || 1;
	const step = Math.pow(10, Math.floor(Math.log10(span / n)));
	const mult = [1, 2, 5, 10].find((m) => span / (m * step) <= n) * step;
	const out = [];
	for (let v = Math.ceil(lo / mult) * mult; v <= hi + 1e-9; v += mult) out.push(+v.toPrecision(6));
	return out;
}

// line plot: x on a log scale (ef), one series, the current point marked.
function linePlot(svg, pts, cur, yOf, ylabel, yfmt, yFixed) {
	svg.replaceChildren();
	const W = +svg.getAttribute("width"), H = +svg.getAttribute("height");
	const L = 52, R = 12, T = 10, B = 34;
	const xs = pts.map((p) => Math.log(p.ef));
	const x0 = Math.min(...xs), x1 = Math.max(...xs);
	let ys = pts.map(yOf);
	let y0 = yFixed ? yFixed[0] : 0, y1 = yFixed ? yFixed[1] : Math.max(...ys) * 1.08 || 1;
	const X = (v) => L + (W - L - R) * (x1 > x0 ? (v - x0) / (x1 - x0) : 0.5);
	const Y = (v) => H - B - (H - T - B) * (v - y0) / (y1 - y0);
	el("rect", { x: L, y: T, width: W - L - R, height: H - T - B, fill: "none", stroke: "#ccc" }, svg);
	for (const t of niceTicks(y0, y1, 5)) {
		el("line", { x1: L, x2: W - R, y1: Y(t), y2: Y(t), stroke: "#eee" }, svg);
		text(svg, L - 4, Y(t) + 4, yfmt(t), "end");
	}
	for (const p of pts) {
		if ([10, 16, 32, 64, 128, 256, 512].includes(p.ef) || p === pts[0] || p === pts[pts.length - 1]) {
			text(svg, X(Math.log(p.ef)), H - B + 14, String(p.ef), "middle");
		}
	}
	text(svg, (L + W - R) / 2, H - 4, "ef (log scale)", "middle");
	const yl = text(svg, 12, (T + H - B) / 2, ylabel, "middle");
	yl.setAttribute("transform", `rotate(-90 12 ${(T + H - B) / 2})`);
	el("polyline", { points: pts.map((p) => `${X(Math.log(p.ef))},${Y(yOf(p))}`).join(" "), fill: "none", stroke: "#1f77b4", "stroke-width": 2 }, svg);
	for (const p of pts) el("circle", { cx: X(Math.log(p.ef)), cy: Y(yOf(p)), r: 2.5, fill: "#1f77b4" }, svg);
	const c = el("circle", { cx: X(Math.log(cur.ef)), cy: Y(yOf(cur)), r: 6, fill: "#d62728", class: "current" }, svg);
	c.dataset.value = String(yOf(cur));
	text(svg, Math.min(X(Math.log(cur.ef)) + 8, W - R - 90), Math.max(Y(yOf(cur)) - 8, T + 12), `ef ${cur.ef}: ${yfmt(yOf(cur))}`);
}

function drawCurves(r) {
	linePlot($("recall"), r.curve, r.current, (p) => p.recall, "recall@k", (v) => v.toFixed(3), [0, 1]);
	linePlot($("qps"), r.curve, r.current, (p) => p.qps, "queries / s", (v) => v >= 1000 ? (v / 1000).toFixed(1) + "k" : v.toFixed(0));
	const c = r.current;
	let f = `recall@${searchParams().k} ${c.recall.toFixed(3)} at ef ${c.ef}, ${c.qps.toFixed(0)} QPS, ${c.distComps.toFixed(0)} distances/query`;
	if (r.filter) f += `; filter ${r.filter}: ${r.matching.toLocaleString()} match, ${r.strategy}${r.paths ? " (" + r.paths + ")" : ""}, ${c.meanHits.toFixed(1)} results/query`;
	if (r.rescore) f += `; ${r.rescore} candidates rescored with float32`;
	status(f);
}

function drawTopK(r) {
	const rows = Math.max(r.exact.length, r.approx.length);
	let h = `<table class="topk"><tr><th>#</th><th>exact id</th><th>distance</th><th>index id</th><th>distance</th></tr>`;
	for (let i = 0; i < rows; i++) {
		const e = r.exact[i], a = r.approx[i];
		h += `<tr><td>${i + 1}</td>`;
		h += e ? `<td class="id ${e.hit ? "hit" : "miss"}">${e.id}</td><td>${e.dist.toFixed(4)}</td>` : "<td></td><td></td>";
		h += a ? `<td class="id ${a.hit ? "hit" : "miss"}">${a.id}</td><td>${a.dist.toFixed(4)}</td>` : "<td></td><td></td>";
		h += "</tr>";
	}
	h += `</table><div>query #${r.query}: ${r.approx.filter((a) => a.hit).length} of ${r.exact.length} found</div>`;
	$("topk").innerHTML = h;
}

function drawLayers(pd) {
	const box = $("layers");
	box.replaceChildren();
	const P = pd.points;
	let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
	for (let i = 0; i < P.length; i += 2) {
		x0 = Math.min(x0, P[i]); x1 = Math.max(x1, P[i]);
		y0 = Math.min(y0, P[i + 1]); y1 = Math.max(y1, P[i + 1]);
	}
	x0 = Math.min(x0, pd.query[0]); x1 = Math.max(x1, pd.query[0]);
	y0 = Math.min(y0, pd.query[1]); y1 = Math.max(y1, pd.query[1]);
	const S = 230, pad = 8, span = Math.max(x1 - x0, y1 - y0) || 1;
	const X = (v) => pad + (S - 2 * pad) * (v - x0) / span;
	const Y = (v) => S - pad - (S - 2 * pad) * (v - y0) / span;
	const res = new Set(pd.results);
	for (const ly of pd.layers) {
		const fig = document.createElement("div");
		fig.className = "fig layer";
		const h = document.createElement("h3");
		h.textContent = `layer ${ly.level}: ${ly.nodes.length} nodes, ${ly.edges.length} links`;
		fig.appendChild(h);
		const svg = el("svg", { width: S, height: S });
		fig.appendChild(svg);
		if (ly.level > 0) {
			for (let i = 0; i < P.length; i += 2) el("circle", { cx: X(P[i]), cy: Y(P[i + 1]), r: 1.2, fill: "#ddd" }, svg);
		}
		let d = "";
		for (const [a, b] of ly.edges || []) d += `M${X(P[2 * a]).toFixed(1)} ${Y(P[2 * a + 1]).toFixed(1)}L${X(P[2 * b]).toFixed(1)} ${Y(P[2 * b + 1]).toFixed(1)}`;
		el("path", { d, stroke: ly.level > 0 ? "#888" : "#bbb", "stroke-width": ly.level > 0 ? 0.8 : 0.4, fill: "none" }, svg);
		for (const a of ly.nodes || []) el("circle", { cx: X(P[2 * a]), cy: Y(P[2 * a + 1]), r: ly.level > 0 ? 2.5 : 1.6, fill: a === pd.entry ? "#2ca02c" : "#1f77b4" }, svg);
		if (ly.path && ly.path.length) {
			const pts = (ly.level > 0 ? ly.path : ly.path.slice(0, 1)).map((a) => `${X(P[2 * a])},${Y(P[2 * a + 1])}`);
			if (ly.level > 0) el("polyline", { points: pts.join(" "), stroke: "#d62728", "stroke-width": 2, fill: "none" }, svg);
			for (const a of ly.level > 0 ? ly.path : ly.path.slice(0, 1)) el("circle", { cx: X(P[2 * a]), cy: Y(P[2 * a + 1]), r: 3.5, fill: "#d62728" }, svg);
		}
		if (ly.level === 0) {
			for (const a of res) el("circle", { cx: X(P[2 * a]), cy: Y(P[2 * a + 1]), r: 5, fill: "none", stroke: "#d62728", "stroke-width": 1.5 }, svg);
		}
		const qx = X(pd.query[0]), qy = Y(pd.query[1]);
		el("path", { d: `M${qx - 5} ${qy - 5}L${qx + 5} ${qy + 5}M${qx - 5} ${qy + 5}L${qx + 5} ${qy - 5}`, stroke: "#000", "stroke-width": 2 }, svg);
		box.appendChild(fig);
	}
	$("layers-title").textContent = `HNSW layers of a 2-D data set of ${P.length / 2} points built with M ${pd.m}, efConstruction ${pd.efConstruction} and the same seed (top layer first; green = entry point, red = the search's path, ✕ = query, rings = its top-k at this ef)`;
}

// --- wiring ---

function showValues() {
	$("n-out").textContent = value("n").toLocaleString();
	$("dim-out").textContent = value("dim");
	$("m-out").textContent = value("m");
	$("efc-out").textContent = value("efc");
	$("ef-out").textContent = value("ef");
	$("os-out").textContent = value("os") === 0 ? "off" : value("os") + "×";
	$("sel-out").textContent = value("sel") === 1 ? "100 % (no filter)" : (100 * value("sel")).toFixed(0) + " %";
}

let buildTimer = 0;
function scheduleBuild() {
	showValues();
	clearTimeout(buildTimer);
	buildTimer = setTimeout(build, 250);
}

for (const id of ["n", "dim", "kind", "m", "efc", "bits", "seed"]) {
	$(id).addEventListener("input", scheduleBuild);
}
for (const id of ["ef", "k", "os", "sel", "strategy", "query"]) {
	$(id).addEventListener("input", () => { showValues(); search(); });
}

// URL parameters preset controls (e.g. ?n=0&dim=0 for a tiny index in tests).
for (const [k, v] of new URLSearchParams(location.search)) {
	if ($(k)) $(k).value = v;
}
showValues();

(async () => {
	try {
		state.module = await WebAssembly.compileStreaming(fetch("explorer.wasm"));
	} catch (err) {
		status("loading explorer.wasm failed: " + err, true);
		return;
	}
	build();
})();
