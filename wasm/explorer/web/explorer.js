// explorer.js drives the explorer page: it compiles explorer.wasm once,
// runs it in a Web Worker (worker.js), rebuilds the index when an index
// control moves (a new build supersedes a running one: the worker is
// terminated and a fresh one gets the compiled module), searches when a
// search control moves (only the latest request waits), builds the ACORN-γ
// graph in the worker when that strategy is first chosen (or γ changes),
// compares every strategy under the current filter once the curves are
// drawn, and draws the answers as SVG. Every number drawn comes from the
// engine. The controls never lock: what a build makes wait is said in the
// state box, and the figures it will replace are dimmed. A file dropped on
// the "Your file" box is advised by a second module, advise.wasm
// (lab/advise), fetched then and run in its own worker (advise-worker.js).
"use strict";

const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";

// Controls whose range positions index a list of values.
function value(id) {
	const el = $(id);
	if (el.dataset.values) return Number(el.dataset.values.split(",")[Number(el.value)]);
	return Number(el.value);
}

// One line per strategy of engine/filtered, shown under its control.
const STRATEGY_WHY = {
	"exact": "exact: brute force over the matching documents: the truth (recall 1), its cost grows with the number of matches.",
	"postfilter": "postfilter: pgvector without iterative scans: the ef nearest from the graph, then the filter; a tight filter leaves fewer than k.",
	"iterative-relaxed": "iterative-relaxed: pgvector 0.8's iterative index scan, relaxed order: keeps scanning the graph in batches until k pass the filter.",
	"iterative-strict": "iterative-strict: pgvector 0.8's iterative index scan, strict order: as relaxed, returned in exact distance order.",
	"in-graph": "in-graph: hnswlib and Lucene: walk the graph through every node, collect only the matching ones (scores the codes of a quantized index).",
	"qdrant": "qdrant: Qdrant's planner: from its estimate of the matches, exact search over them when few, else a graph walk that never scores non-matching neighbours.",
	"redis": "redis: RediSearch's hybrid policy: ad-hoc brute force over the matches, or batches of graph results filtered afterwards (switching to brute force).",
	"acorn-gamma": "acorn-gamma: ACORN-γ (Patel et al., SIGMOD 2024): walks only matching nodes, over its own denser graph (up to M·γ neighbours per node), two hops past the first M_β = 2·M; built when first chosen.",
	"acorn-1": "acorn-1: ACORN-1 (same paper): the matching-only walk over the ordinary HNSW graph, expanding every neighbour's list (two hops).",
};

const COLOURS = { curve: "#1f77b4", current: "#d62728" };

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
	acorn: null, // the ACORN-γ graph's info (explore.ACORNInfo), null until built
	acornBuilding: 0, // id of the running ACORN-γ build
	acornBuilds: 0, // finished ACORN-γ builds, for tests
	comparing: 0, // id of the compare request awaited
	lastCompare: null, // {params, rows}
	compares: 0,
	errors: [], // every error shown, for tests
	busySince: 0,
};
window.explorerState = state; // read by wasm/browsertest

// --- the state box, errors, dimmed figures ---

let ticker = 0;
// setState shows what the page is doing: kind "busy" (a build: progress
// p in 0…1, or null for a build that cannot report progress), "ready" or
// "idle"; a busy state shows the seconds it has run.
function setState(kind, title, p) {
	const box = $("state");
	box.className = kind;
	$("state-title").textContent = title;
	const bar = $("progress");
	if (p === null) bar.removeAttribute("value");
	else bar.value = p === undefined ? (kind === "busy" ? 0 : 1) : p;
	clearInterval(ticker);
	if (kind === "busy") {
		if (!state.busySince) state.busySince = performance.now();
		const tick = () => {
			$("state-title").textContent = `${title} (${((performance.now() - state.busySince) / 1000).toFixed(1)} s)`;
		};
		tick();
		ticker = setInterval(tick, 200);
	} else {
		state.busySince = 0;
	}
}

function status(text) {
	$("status").textContent = text;
}

// showError puts a failure of the module (or the worker, or the page)
// in the red box, where it stays until dismissed or until the same kind
// of request succeeds.
function showError(what, msg) {
	state.errors.push({ what, msg });
	$("error-text").textContent = `${what} failed: ${msg}`;
	$("error").dataset.what = what;
	$("error").className = "shown";
}

function clearError(what) {
	if ($("error").dataset.what === what) $("error").className = "";
}

function dim(on, sel) {
	for (const f of document.querySelectorAll(sel || ".fig.curves")) f.classList.toggle("stale", on);
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
	w.onerror = (e) => {
		if (w !== state.worker) return;
		state.building = state.acornBuilding = 0;
		state.searching = false;
		setState("idle", "the worker stopped");
		showError("the worker", e.message || "an error without a message (out of memory?)");
	};
	// ?VECLAB_SIMD=off runs the engine on its pure-Go kernels (as in the
	// JupyterLite site; the benchmarks compare the two in one page).
	w.postMessage({ type: "init", module: state.module, simdOff: new URLSearchParams(location.search).get("VECLAB_SIMD") === "off" });
	return w;
}

function build() {
	if ((state.building || state.acornBuilding || state.searching || state.comparing) && state.worker) {
		state.worker.terminate(); // supersede the running build (or the old index's searches)
		state.worker = null;
	}
	if (!state.worker) state.worker = newWorker();
	const id = state.nextId++;
	state.building = id;
	state.built = null;
	state.acorn = null; // the new index has no ACORN-γ graph
	state.acornBuilding = 0;
	state.searching = false;
	state.pendingSearch = false;
	state.comparing = 0;
	state.busySince = 0;
	dim(true);
	$("acorn-facts").textContent = "";
	setState("busy", "building the index: starting", 0);
	status("The figures below are the previous index's until this build ends; every control stays live (an index control starts a new build, a search control is applied when it ends).");
	state.worker.postMessage({ type: "build", id, params: buildParams() });
}

function gamma() {
	return Number($("gamma").value);
}

function buildACORN() {
	const id = state.nextId++;
	state.acornBuilding = id;
	state.busySince = 0;
	const g = gamma(), i = state.built;
	dim(true);
	setState("busy", `building a second, denser graph for ACORN-γ (γ ${g}, up to M·γ = ${i.params.m * g} neighbours per node)`, null);
	status(`The HNSW graph took ${i.buildSeconds.toFixed(2)} s; ACORN's keeps more links and searches wider while building, so this takes longer. It cannot report progress; searches wait for it (another strategy too), and an index control abandons it for a new index.`);
	state.worker.postMessage({ type: "acorn", id, gamma: g });
}

function search() {
	if (!state.built) return; // applied when the build ends
	if (state.searching || state.acornBuilding) {
		state.pendingSearch = true;
		return;
	}
	const p = searchParams();
	if (p.strategy === "acorn-gamma" && !(state.acorn && state.acorn.gamma === gamma())) {
		state.pendingSearch = true;
		buildACORN();
		return;
	}
	state.searching = true;
	state.comparing = 0;
	state.worker.postMessage({ type: "search", id: state.nextId++, params: p });
	state.worker.postMessage({ type: "draw", id: state.nextId++, ef: p.ef, k: Math.min(p.k, 10), seed: p.query + 1000 * (Number($("seed").value) || 0) });
}

// compare asks for every strategy at the current ef and filter, once the
// curves of the same parameters are drawn.
function compare(p) {
	if (p.selectivity >= 1) {
		state.lastCompare = null;
		$("compare-title").textContent = "filter strategies side by side";
		$("compare").textContent = "Set a filter selectivity below 100 % to compare the strategies (without a filter every strategy is the same HNSW search).";
		dim(false, "#compare-fig");
		return;
	}
	const id = state.nextId++;
	state.comparing = id;
	state.comparingParams = p;
	dim(true, "#compare-fig");
	state.worker.postMessage({ type: "compare", id, params: p });
}

function onMessage(w, m) {
	if (w !== state.worker) return; // a terminated worker's last words
	switch (m.type) {
		case "ready":
			if (!$("strategy").options.length) {
				for (const s of m.strategies) $("strategy").add(new Option(s, s, s === "in-graph", s === "in-graph"));
				const want = new URLSearchParams(location.search).get("strategy");
				if (want) $("strategy").value = want;
				showStrategy();
			}
			break;
		case "progress":
			if (m.id !== state.building) return;
			setState("busy", `building the index: ${m.phase} ${m.done.toLocaleString()} / ${m.total.toLocaleString()}`, m.total ? m.done / m.total : 0);
			break;
		case "built": {
			if (m.id !== state.building) return;
			state.building = 0;
			state.built = m.info;
			state.builds++;
			clearError("build");
			const i = m.info;
			setState("ready", `built ${i.params.n.toLocaleString()} × ${i.params.dim} (${i.metric}, ${i.quant}) in ${i.buildSeconds.toFixed(2)} s`, 1);
			$("metric-note").textContent = i.metric === "cosine" ? "cosine distance, 1 − cos θ" : "squared Euclidean distance";
			$("facts").textContent = `HNSW graph: ${i.maxLevel + 1} layers, ${i.graphBytesPerVector.toFixed(0)} B/vector of links (2·M = ${2 * i.params.m} slots on layer 0), ` +
				`${i.bytesPerVector.toFixed(0)} B/vector with the float32 vectors; times: data ${i.dataSeconds.toFixed(2)} s` +
				(i.quantSeconds ? `, quantizer ${i.quantSeconds.toFixed(2)} s` : "") + `, graph ${i.buildSeconds.toFixed(2)} s, picture ${i.pictureSeconds.toFixed(2)} s.`;
			search();
			break;
		}
		case "acornBuilt": {
			if (m.id !== state.acornBuilding) return;
			state.acornBuilding = 0;
			state.acorn = m.acorn;
			state.acornBuilds++;
			clearError("the ACORN-γ build");
			const a = m.acorn, n = state.built.params.n;
			setState("ready", `built the ACORN-γ graph (γ ${a.gamma}) in ${a.seconds.toFixed(2)} s`, 1);
			$("acorn-facts").textContent = `ACORN-γ graph (γ ${a.gamma}, M ${a.m}, M_β ${a.mBeta}, efConstruction ${a.efConstruction}): built in ${a.seconds.toFixed(2)} s ` +
				`(the HNSW graph: ${state.built.buildSeconds.toFixed(2)} s); mean layer-0 degree ${a.meanDegree.toFixed(1)} (HNSW's ${a.hnswMeanDegree.toFixed(1)}); ` +
				`${a.linkBytes.toFixed(0)} B/vector of links as stored, ${(a.linkBytes * n / 1e6).toFixed(2)} MB in all (HNSW's ${a.hnswLinkBytes.toFixed(0)} B/vector at fixed capacity, ${(a.hnswLinkBytes * n / 1e6).toFixed(2)} MB). ` +
				`Below a selectivity of 1/γ = ${(100 * a.minSelectivity).toFixed(1)} % it searches exactly over the matches (path "exact"). It scores float32 vectors.`;
			if (state.pendingSearch) {
				state.pendingSearch = false;
				search();
			}
			break;
		}
		case "searched":
			state.lastResult = m.result;
			state.searches++;
			clearError("search");
			drawCurves(m.result);
			drawTopK(m.result);
			break;
		case "drawn":
			try {
				drawLayers(m.picture);
				clearError("drawing the layers");
			} catch (err) {
				showError("drawing the layers", String(err));
			}
			dim(false);
			state.searching = false;
			if (state.pendingSearch) {
				state.pendingSearch = false;
				search();
			} else if (state.lastResult) {
				compare(searchParams());
			}
			break;
		case "compared":
			if (m.id !== state.comparing) return; // a newer search superseded it
			state.comparing = 0;
			state.compares++;
			state.lastCompare = { params: state.comparingParams, rows: m.rows };
			clearError("compare");
			drawCompare(state.comparingParams, m.rows);
			dim(false, "#compare-fig");
			break;
		case "error": {
			const what = { build: "build", acorn: "the ACORN-γ build", search: "search", draw: "drawing the layers", compare: "compare", start: "starting the module" }[m.what] || m.what || "the module";
			if (state.building && m.id === state.building) {
				state.building = 0;
				setState("idle", "the build failed");
			}
			if (state.acornBuilding && m.id === state.acornBuilding) {
				state.acornBuilding = 0;
				state.pendingSearch = false;
				setState("idle", "the ACORN-γ build failed");
			}
			if (m.what === "compare") {
				state.comparing = 0;
				dim(false, "#compare-fig");
			} else if (m.what === "search" || m.what === "draw") {
				state.searching = false;
				dim(false);
			}
			showError(what, m.error);
			break;
		}
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

// linePlot draws one series over ef (log scale) with the current point
// marked, axis labels with units and a legend naming the series.
function linePlot(svg, pts, cur, yOf, ylabel, yfmt, yFixed, series) {
	svg.replaceChildren();
	const W = +svg.getAttribute("width"), H = +svg.getAttribute("height");
	const L = 56, R = 12, T = 10, B = 36;
	const xs = pts.map((p) => Math.log(p.ef));
	const x0 = Math.min(...xs), x1 = Math.max(...xs);
	const ys = pts.map(yOf);
	const y0 = yFixed ? yFixed[0] : 0, y1 = yFixed ? yFixed[1] : Math.max(...ys) * 1.08 || 1;
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
	text(svg, (L + W - R) / 2, H - 5, "ef: candidates the search keeps (log scale)", "middle");
	const yl = text(svg, 12, (T + H - B) / 2, ylabel, "middle");
	yl.setAttribute("transform", `rotate(-90 12 ${(T + H - B) / 2})`);
	el("polyline", { points: pts.map((p) => `${X(Math.log(p.ef))},${Y(yOf(p))}`).join(" "), fill: "none", stroke: COLOURS.curve, "stroke-width": 2, class: "series" }, svg);
	for (const p of pts) el("circle", { cx: X(Math.log(p.ef)), cy: Y(yOf(p)), r: 2.5, fill: COLOURS.curve }, svg);
	const c = el("circle", { cx: X(Math.log(cur.ef)), cy: Y(yOf(cur)), r: 6, fill: COLOURS.current, class: "current" }, svg);
	c.dataset.value = String(yOf(cur));
	text(svg, Math.min(X(Math.log(cur.ef)) + 8, W - R - 90), Math.max(Y(yOf(cur)) - 8, T + 12), `ef ${cur.ef}: ${yfmt(yOf(cur))}`);
	// The legend, in the corner the curve leaves free (recall rises: bottom
	// right; QPS falls: top right).
	const rising = ys.length > 1 && ys[ys.length - 1] >= ys[0];
	const lg = el("g", { class: "legend" }, svg);
	const lw = 210, lx = W - R - lw - 4, ly = rising ? H - B - 40 : T + 4;
	el("rect", { x: lx, y: ly, width: lw, height: 36, fill: "#fff", "fill-opacity": 0.85, stroke: "#ddd" }, lg);
	el("line", { x1: lx + 6, x2: lx + 24, y1: ly + 11, y2: ly + 11, stroke: COLOURS.curve, "stroke-width": 2 }, lg);
	text(lg, lx + 28, ly + 15, series);
	el("circle", { cx: lx + 15, cy: ly + 27, r: 5, fill: COLOURS.current }, lg);
	text(lg, lx + 28, ly + 31, `the current ef (${cur.ef})`);
}

// seriesName says what the curves show: the search without a filter, or
// the filter and the strategy that ran it.
function seriesName(r) {
	let s = r.filter ? `${r.strategy}, filter ${r.filter}` : "HNSW, no filter";
	if (r.rescore) s += `, rescored ${r.rescore}`;
	return s;
}

function drawCurves(r) {
	const k = searchParams().k, name = seriesName(r);
	const count = (v) => v >= 1e6 ? (v / 1e6).toFixed(1) + "M" : v >= 1000 ? (v / 1000).toFixed(1) + "k" : v.toFixed(0);
	linePlot($("recall"), r.curve, r.current, (p) => p.recall, `recall@${k} (1 = the exact top-${k})`, (v) => v.toFixed(3), [0, 1], name);
	linePlot($("qps"), r.curve, r.current, (p) => p.qps, "queries per second", count, null, name);
	linePlot($("dist"), r.curve, r.current, (p) => p.distComps, "distances computed per query", count, null, name);
	const c = r.current;
	let f = `recall@${k} ${c.recall.toFixed(3)} at ef ${c.ef}, ${c.qps.toFixed(0)} queries/s, ${c.distComps.toFixed(0)} distances/query`;
	if (r.filter) f += `; filter ${r.filter}: ${r.matching.toLocaleString()} documents match, strategy ${r.strategy}${r.paths ? " (paths taken: " + r.paths + ")" : ""}, ${c.meanHits.toFixed(1)} results/query`;
	else if (searchParams().strategy !== "in-graph") f += "; no filter, so the strategy does not apply";
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

// drawCompare lists every strategy at one ef under the filter, the chosen
// one highlighted.
function drawCompare(p, rows) {
	const r = state.lastResult;
	$("compare-title").textContent = `filter strategies side by side: ${r ? r.filter + ", " + r.matching.toLocaleString() + " documents match, " : ""}ef ${p.ef}, k ${p.k}`;
	let h = `<table class="cmp"><tr><th>strategy</th><th>recall@${p.k}</th><th>queries/s</th><th>distances/query</th><th>results/query</th><th>path taken</th></tr>`;
	for (const row of rows) {
		const name = row.strategy === "acorn-gamma" && row.ready && state.acorn ? `acorn-gamma (γ ${state.acorn.gamma})` : row.strategy;
		h += `<tr class="${row.strategy === p.strategy ? "chosen" : ""}" data-strategy="${row.strategy}"><td>${name}</td>`;
		if (!row.ready) {
			h += `<td class="na" colspan="5">not built yet: choose acorn-gamma to build its own graph</td></tr>`;
			continue;
		}
		h += `<td>${row.recall.toFixed(3)}</td><td>${row.qps.toFixed(0)}</td><td>${row.distComps.toFixed(0)}</td><td>${row.meanHits.toFixed(1)}</td><td class="path">${row.paths}</td></tr>`;
	}
	h += `</table><div class="note">Every strategy ran the same 100 queries one after another, one thread; the highlighted row is the chosen strategy, the one the curves show. Queries/s varies from run to run.</div>`;
	$("compare").innerHTML = h;
}

// The picture's colours, shared by the drawing and its legend.
const LAYER = {
	link: "#999", node: "#1f77b4", other: "#ddd", entry: "#2ca02c", path: "#d62728", beam: "#ff7f0e", result: "#9467bd", query: "#000",
};

function layersLegend() {
	const item = (svg, label) => `<span><svg width="22" height="14">${svg}</svg> ${label}</span>`;
	$("layers-legend").innerHTML = [
		item(`<line x1="2" y1="7" x2="20" y2="7" stroke="${LAYER.link}" stroke-width="1.2"/>`, "a link on this layer"),
		item(`<circle cx="11" cy="7" r="3" fill="${LAYER.node}"/>`, "a node on this layer"),
		item(`<circle cx="11" cy="7" r="2" fill="#bbb"/>`, "a point only on lower layers"),
		item(`<circle cx="11" cy="7" r="4" fill="${LAYER.entry}"/>`, "the entry point (top layer)"),
		item(`<line x1="2" y1="7" x2="20" y2="7" stroke="${LAYER.path}" stroke-width="2"/><circle cx="11" cy="7" r="3" fill="${LAYER.path}"/>`, "the greedy search path on an upper layer, and where layer 0 starts"),
		item(`<circle cx="11" cy="7" r="3" fill="${LAYER.beam}"/>`, "nodes the layer-0 beam expanded"),
		item(`<circle cx="11" cy="7" r="5" fill="none" stroke="${LAYER.result}" stroke-width="1.8"/>`, "the top-k found at this ef"),
		item(`<path d="M6 2L16 12M6 12L16 2" stroke="${LAYER.query}" stroke-width="2"/>`, "the query"),
	].join("");
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
	const S = 260, pad = 8, span = Math.max(x1 - x0, y1 - y0) || 1;
	const X = (v) => pad + (S - 2 * pad) * (v - x0) / span;
	const Y = (v) => S - pad - (S - 2 * pad) * (v - y0) / span;
	const res = new Set(pd.results);
	const top = pd.layers.length ? pd.layers[0].level : 0;
	for (const ly of pd.layers) {
		const fig = document.createElement("div");
		fig.className = "fig layer";
		const h = document.createElement("h3");
		const where = ly.level === top && ly.level > 0 ? " (top)" : ly.level === 0 ? " (every point)" : "";
		h.textContent = `layer ${ly.level}${where}: ${ly.nodes.length} nodes, ${ly.edges.length} links, ${ly.path.length} expanded`;
		fig.appendChild(h);
		const svg = el("svg", { width: S, height: S });
		fig.appendChild(svg);
		if (ly.level > 0) {
			for (let i = 0; i < P.length; i += 2) el("circle", { cx: X(P[i]), cy: Y(P[i + 1]), r: 1.2, fill: "#bbb" }, svg);
		}
		let d = "";
		for (const [a, b] of ly.edges || []) d += `M${X(P[2 * a]).toFixed(1)} ${Y(P[2 * a + 1]).toFixed(1)}L${X(P[2 * b]).toFixed(1)} ${Y(P[2 * b + 1]).toFixed(1)}`;
		el("path", { d, stroke: LAYER.link, "stroke-opacity": ly.level > 0 ? 0.9 : 0.45, "stroke-width": ly.level > 0 ? 0.8 : 0.4, fill: "none" }, svg);
		for (const a of ly.nodes || []) el("circle", { cx: X(P[2 * a]), cy: Y(P[2 * a + 1]), r: ly.level > 0 ? 2.5 : 1.6, fill: LAYER.node }, svg);
		if (ly.path && ly.path.length) {
			if (ly.level > 0) {
				el("polyline", { points: ly.path.map((a) => `${X(P[2 * a])},${Y(P[2 * a + 1])}`).join(" "), stroke: LAYER.path, "stroke-width": 2, fill: "none" }, svg);
				for (const a of ly.path) el("circle", { cx: X(P[2 * a]), cy: Y(P[2 * a + 1]), r: 3.5, fill: LAYER.path }, svg);
			} else {
				for (const a of ly.path.slice(1)) el("circle", { cx: X(P[2 * a]), cy: Y(P[2 * a + 1]), r: 2.6, fill: LAYER.beam }, svg);
				const a = ly.path[0];
				el("circle", { cx: X(P[2 * a]), cy: Y(P[2 * a + 1]), r: 3.5, fill: LAYER.path }, svg);
			}
		}
		const e = pd.entry;
		if (ly.nodes.includes(e)) el("circle", { cx: X(P[2 * e]), cy: Y(P[2 * e + 1]), r: 4.5, fill: LAYER.entry, stroke: "#fff", "stroke-width": 1 }, svg);
		if (ly.level === 0) {
			for (const a of res) el("circle", { cx: X(P[2 * a]), cy: Y(P[2 * a + 1]), r: 5, fill: "none", stroke: LAYER.result, "stroke-width": 1.8 }, svg);
		}
		const qx = X(pd.query[0]), qy = Y(pd.query[1]);
		el("path", { d: `M${qx - 5} ${qy - 5}L${qx + 5} ${qy + 5}M${qx - 5} ${qy + 5}L${qx + 5} ${qy - 5}`, stroke: LAYER.query, "stroke-width": 2 }, svg);
		box.appendChild(fig);
	}
	$("layers-title").textContent = `HNSW layers of a 2-D data set of ${P.length / 2} points built with M ${pd.m}, efConstruction ${pd.efConstruction} and the same seed (top layer first); the search of one query at ef ${searchParams().ef}, k ${pd.results.length}`;
}

// --- wiring ---

function showValues() {
	$("n-out").textContent = value("n").toLocaleString();
	$("dim-out").textContent = value("dim");
	$("m-out").textContent = value("m");
	$("efc-out").textContent = value("efc");
	$("ef-out").textContent = value("ef");
	$("os-out").textContent = value("os") === 0 ? "off" : value("os") + "×" + ($("bits").value === "32" ? " (no effect: float32)" : "");
	$("sel-out").textContent = value("sel") === 1 ? "100 % (no filter)" : (100 * value("sel")).toFixed(0) + " %";
}

function showStrategy() {
	$("strategy-why").textContent = STRATEGY_WHY[$("strategy").value] || $("strategy").value;
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
for (const id of ["ef", "k", "os", "sel", "strategy", "gamma", "query"]) {
	$(id).addEventListener("input", () => { showValues(); showStrategy(); search(); });
}
$("error-close").addEventListener("click", () => { $("error").className = ""; });

// --- advice on a dropped file (advise.wasm, in its own worker) ---

// ADVISE_LIMIT is the largest file the page takes: the file's bytes, its
// vectors and one store's graphs at a time live in the tab's memory
// (lab/advise's peak is about 3× the raw vectors), and every store is
// built and searched on one thread. ?adviseLimitMB= sets another (the
// browser test drops a file over a small one); the page states it.
const ADVISE_LIMIT = (Number(new URLSearchParams(location.search).get("adviseLimitMB")) || 32) * (1 << 20);
const adv = {
	module: null, // the compiled advise.wasm (a promise), fetched on the first file
	worker: null,
	running: false,
	runs: 0, // finished runs, for tests
	answer: null, // the last advice: {report, body}
	seconds: 0, // the last run's time in this tab, fetching and compiling advise.wasm included
	moduleSeconds: 0, // fetching and compiling advise.wasm, once
	errors: [], // every message shown, for tests
};
state.advise = adv;

function adviseMessage(msg) {
	if (msg) adv.errors.push(msg);
	$("advise-error").textContent = msg;
	$("advise-error").className = msg ? "shown" : "";
}

function adviseState(text, p) {
	$("advise-state").textContent = text;
	const bar = $("advise-progress");
	bar.style.display = p === undefined ? "none" : "block"; // progress is display: block, which the hidden attribute does not beat
	if (p === null) bar.removeAttribute("value");
	else if (p !== undefined) bar.value = p;
}

function stopAdvice(why) {
	if (adv.worker) adv.worker.terminate();
	adv.worker = null;
	adv.running = false;
	$("advise-stop").disabled = true;
	if (why) adviseState(why);
}

async function adviseFile(file) {
	stopAdvice();
	adviseMessage("");
	if (file.size > ADVISE_LIMIT) {
		adviseMessage(`${file.name}: ${(file.size / (1 << 20)).toFixed(1)} MB, over this page's limit of ${ADVISE_LIMIT / (1 << 20)} MB: drop a sample of its rows, or run veclab advise ${file.name} on your machine (no limit but its memory).`);
		adviseState("");
		return;
	}
	const t0 = performance.now();
	adv.running = true;
	$("advise-stop").disabled = false;
	const mine = {};
	adv.current = mine;
	try {
		if (!adv.module) {
			adviseState("fetching and compiling advise.wasm (once)…", null);
			const tm = performance.now();
			adv.module = WebAssembly.compileStreaming(fetch("advise.wasm"));
			adv.module.then(() => { adv.moduleSeconds = (performance.now() - tm) / 1000; }, () => { adv.module = null; });
		}
		const module = await adv.module;
		const bytes = new Uint8Array(await file.arrayBuffer());
		if (adv.current !== mine) return; // stopped, or another file dropped
		const w = new Worker("advise-worker.js");
		adv.worker = w;
		const tick = (what, p) => adviseState(`${file.name}: ${what} (${((performance.now() - t0) / 1000).toFixed(1)} s)`, p);
		tick("starting advise.wasm", null);
		w.onmessage = (e) => {
			const m = e.data;
			if (adv.worker !== w) return;
			switch (m.type) {
				case "ready":
					tick("reading the file", null);
					break;
				case "progress":
					tick(m.what, m.total > 0 ? m.done / m.total : null);
					break;
				case "advised":
					adv.seconds = (performance.now() - t0) / 1000;
					stopAdvice(`${file.name}: advised in ${adv.seconds.toFixed(1)} s in this tab${adv.moduleSeconds ? ` (advise.wasm fetched and compiled in ${adv.moduleSeconds.toFixed(1)} s)` : ""}`);
					showAdvice(file.name, m.answer);
					break;
				case "error":
					stopAdvice("");
					adviseMessage(m.error);
					break;
			}
		};
		w.onerror = (e) => {
			if (adv.worker !== w) return;
			stopAdvice("");
			adviseMessage(`advise.wasm stopped: ${e.message || "the worker failed"} (a file this large may need more memory than the tab has)`);
		};
		w.postMessage({ type: "init", module, simdOff: new URLSearchParams(location.search).get("VECLAB_SIMD") === "off" });
		w.postMessage({ type: "run", bytes, name: file.name, options: { target: Number($("advise-target").value) } }, [bytes.buffer]);
	} catch (err) {
		stopAdvice("");
		adviseMessage(`${file.name}: ${err}`);
	}
}

// showAdvice places the report's body (lab/advise Report.Body: the
// sentences, the recall-vs-knob chart, the table) under the heading.
function showAdvice(name, answer) {
	adv.answer = answer;
	adv.runs++;
	$("advise-title").textContent = `advice on ${name}: ${answer.report.data.base} × ${answer.report.data.dim}, recall@${answer.report.k} target ${answer.report.target}`;
	$("advise-out").innerHTML = answer.body; // lab/advise escapes every string it writes
	$("advise-fig").className = "fig shown";
	$("advise-fig").scrollIntoView({ block: "nearest" });
}

$("advise-limit").textContent = `${ADVISE_LIMIT / (1 << 20)} MB`;
$("advise-file").addEventListener("change", (e) => {
	if (e.target.files.length) adviseFile(e.target.files[0]);
});
$("advise-stop").addEventListener("click", () => {
	adv.current = null;
	stopAdvice("stopped: nothing measured is kept");
});
const drop = $("drop");
drop.addEventListener("dragover", (e) => {
	e.preventDefault();
	drop.className = "over";
});
drop.addEventListener("dragleave", () => { drop.className = ""; });
drop.addEventListener("drop", (e) => {
	e.preventDefault();
	drop.className = "";
	if (e.dataTransfer.files.length) adviseFile(e.dataTransfer.files[0]);
});

// URL parameters preset controls, so a notebook can link to the explorer
// with its knobs set (?ef=10&k=10). A stepped slider (data-values) takes
// the value itself (?n=5000&efc=200) or, failing that, its step index
// (?n=0&dim=0 for a tiny index in tests).
for (const [k, v] of new URLSearchParams(location.search)) {
	const el = $(k);
	if (!el) continue;
	const steps = el.dataset && el.dataset.values ? el.dataset.values.split(",") : null;
	const at = steps ? steps.findIndex((s) => Number(s) === Number(v)) : -1;
	el.value = at >= 0 ? String(at) : v;
}
showValues();
layersLegend();
window.addEventListener("error", (e) => showError("the page", e.message));

(async () => {
	setState("busy", "loading explorer.wasm", null);
	try {
		state.module = await WebAssembly.compileStreaming(fetch("explorer.wasm"));
	} catch (err) {
		setState("idle", "the module did not load");
		showError("loading explorer.wasm", String(err));
		return;
	}
	build();
})();
