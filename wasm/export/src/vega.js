// vega.js draws the Vega-Lite charts of a veclab static page (`veclab
// export -html` inlines it only into pages that have one): each <script
// type="application/vnd.vegalite.v5+json"> inside a div.vl-vega is drawn
// by vega-embed (as JupyterLab's vega5 renderer does: tooltips, the
// legend's toggles, zoom where the spec binds it), and the SVG or PNG
// lab/chart wrote beside the spec (div.vl-vega-fallback) is removed once
// the chart is drawn; a chart that fails keeps its picture. When done,
// <body data-charts="…"> says how it went ("rendered N" or "failed: …").
// The specs carry their data inline: nothing is fetched.
import embed from "vega-embed";

async function main() {
	const failed = [];
	let drawn = 0;
	for (const tag of document.querySelectorAll('div.vl-vega > script[type="application/vnd.vegalite.v5+json"]')) {
		const box = tag.parentElement;
		const target = document.createElement("div");
		target.className = "vl-vega-chart";
		box.insertBefore(target, tag);
		try {
			await embed(target, JSON.parse(tag.textContent), { actions: false, renderer: "svg", mode: "vega-lite" });
			const fallback = box.querySelector(".vl-vega-fallback");
			if (fallback) fallback.remove();
			drawn++;
		} catch (e) {
			target.remove();
			console.error("veclab export: chart", e);
			failed.push(String(e));
		}
	}
	document.body.dataset.charts = failed.length ? "failed: " + failed.join("; ") : "rendered " + drawn;
}

if (document.readyState === "loading") {
	document.addEventListener("DOMContentLoaded", main);
} else {
	main();
}
