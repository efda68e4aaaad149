// page.js is the script of veclab's static notebook pages (`veclab export
// -html`, cmd/veclab/export.go writes the page and inlines this bundle):
//
//   - the Markdown cells, kept in the page as <pre class="vl-md"> with
//     their source, become HTML with marked (the parser JupyterLab's own
//     Markdown renderer uses);
//   - the widgets: @jupyter-widgets/html-manager's renderWidgets reads the
//     notebook's saved state (<script type="application/vnd.jupyter.
//     widget-state+json">) and draws a view before each <script
//     type="application/vnd.jupyter.widget-view+json"> whose model is
//     saved, with the models' last values (the Output widget's outputs
//     too); the text fallback after each drawn view is then removed.
//
// Nothing loads from the network: html-manager's HTMLManager has the
// base, controls and output models built in and no loader for others.
// When it is done, <body data-widgets="…"> says how it went ("rendered N"
// or "failed: …"), for the browser test and for a reader's console.
import { HTMLManager } from "@jupyter-widgets/html-manager";
import { renderWidgets } from "@jupyter-widgets/html-manager/lib/libembed";
import { marked } from "marked";

function renderMarkdown() {
	for (const pre of document.querySelectorAll("pre.vl-md")) {
		const div = document.createElement("div");
		div.className = "vl-markdown";
		div.innerHTML = marked.parse(pre.textContent);
		pre.replaceWith(div);
	}
}

async function main() {
	renderMarkdown();
	try {
		await renderWidgets(() => new HTMLManager());
		let drawn = 0;
		for (const tag of document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')) {
			const before = tag.previousElementSibling;
			const after = tag.nextElementSibling;
			if (before && before.classList.contains("widget-subarea")) {
				drawn++;
				if (after && after.classList.contains("vl-widget-text")) after.remove();
			}
		}
		document.body.dataset.widgets = "rendered " + drawn;
	} catch (e) {
		console.error("veclab export: widgets", e);
		document.body.dataset.widgets = "failed: " + e;
	}
}

if (document.readyState === "loading") {
	document.addEventListener("DOMContentLoaded", main);
} else {
	main();
}
