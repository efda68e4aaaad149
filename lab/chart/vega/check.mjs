// Compiles Vega-Lite specs with the real vega-lite (5.x, the version
// JupyterLab's vega5 renderer uses) and runs each compiled Vega spec
// headless with vega (parse, dataflow, SVG rendering), for the tests of
// lab/chart:
//
//	node check.mjs SPEC.json…
//
// It prints one JSON line per spec: {file, ok, warnings, error, marks,
// svgBytes, width, height}: ok is false when compiling or rendering failed
// or vega-lite or vega warned (a warning means a channel or selection was
// dropped); marks counts the rendered scenegraph items, so an empty
// picture shows; width and height are the rendered SVG's, in CSS pixels,
// everything included (axes, titles, legends, padding), which is the size
// vega-embed gives its canvas in a notebook. (Headless, vega measures text
// by an estimate from the font size, not a canvas: a browser's figure
// differs by a few pixels; lite.js measures that one.)
// The exit status is 1 when any spec failed. With VEGA_SVG_DIR set, each
// rendering is written there as NAME.svg, to look at. Vega-Lite's compile API:
// https://vega.github.io/vega-lite/usage/compile.html; Vega's headless
// View: https://vega.github.io/vega/usage/#view
import fs from "node:fs";
import * as vl from "vega-lite";
import * as vega from "vega";

const files = process.argv.slice(2);
if (files.length === 0) {
	console.error("usage: node check.mjs SPEC.json…");
	process.exit(2);
}

// collector is a logger for vega-lite and vega that keeps what they say.
function collector() {
	const said = [];
	let level = 0;
	const logger = {
		level(l) {
			if (l === undefined) return level;
			level = l;
			return logger;
		},
		warn(...a) { said.push("warn: " + a.join(" ")); return logger; },
		info() { return logger; },
		debug() { return logger; },
		error(...a) { said.push("error: " + a.join(" ")); return logger; },
	};
	return { logger, said };
}

// count counts the items of a scenegraph.
function count(node) {
	if (!node) return 0;
	let n = node.marktype && node.marktype !== "group" ? node.items.length : 0;
	for (const item of node.items || []) {
		if (item.items) for (const child of item.items) n += count(child);
	}
	return n;
}

let failed = false;
for (const file of files) {
	const out = { file, ok: false, warnings: [] };
	try {
		const spec = JSON.parse(fs.readFileSync(file, "utf8"));
		const c = collector();
		const vg = vl.compile(spec, { logger: c.logger }).spec;
		const v = new vega.View(vega.parse(vg), { renderer: "none", logLevel: vega.Warn, logger: c.logger });
		const svg = await v.toSVG();
		out.svgBytes = svg.length;
		const size = /^<svg[^>]*\swidth="([\d.]+)"[^>]*\sheight="([\d.]+)"/.exec(svg);
		if (!size) throw new Error("the rendered SVG has no width and height");
		out.width = Number(size[1]);
		out.height = Number(size[2]);
		if (process.env.VEGA_SVG_DIR) {
			// For a look at the picture: the SVG beside the other outputs.
			const base = file.split("/").pop().replace(/\.json$/, "");
			fs.writeFileSync(`${process.env.VEGA_SVG_DIR}/${base}.svg`, svg);
		}
		out.marks = count(v.scenegraph().root);
		v.finalize();
		// The selections' drag and scroll listen on the page's window,
		// which a headless View has not; the browser test sees them work.
		out.warnings = c.said.filter((w) => !w.endsWith("Can not resolve event source: window"));
		out.ok = out.warnings.length === 0;
	} catch (e) {
		out.error = String(e && e.stack ? e.stack.split("\n")[0] : e);
	}
	if (!out.ok) failed = true;
	console.log(JSON.stringify(out));
}
process.exit(failed ? 1 : 0);
