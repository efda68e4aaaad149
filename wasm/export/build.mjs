// build.mjs bundles the scripts and style of veclab's static notebook
// pages with esbuild, from the npm packages of package-lock.json, into the
// files `veclab export -html` inlines into a page:
//
//	node build.mjs OUT_DIR    →  OUT_DIR/page.js, OUT_DIR/page.css, OUT_DIR/vega.js
//
// page.js and page.css (src/page.js: @jupyter-widgets/html-manager and
// marked) go into every page; vega.js (src/vega.js: vega-embed with Vega 5
// and Vega-Lite 5, the versions of the JupyterLite site's renderer) only
// into a page with a Vega-Lite chart.
//
// The page must work offline from a file: URL, so everything is inside
// the two files: one IIFE script, and the CSS with Font Awesome's woff2
// font as a data: URL (every browser that runs the widgets reads woff2;
// the eot, ttf, woff and svg forms the CSS also lists are left empty), and
// the other images the CSS names as data: URLs too.
// Third-party licence comments go to the end of page.js.
import * as esbuild from "esbuild";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const [out] = process.argv.slice(2);
if (!out) {
	console.error("usage: node build.mjs OUT_DIR");
	process.exit(2);
}
// Font Awesome's fonts in the forms no current browser picks (its CSS
// lists woff2 first): empty, which keeps 2 MB of SVG fonts out of the page.
const unusedFonts = {
	name: "unused-fonts",
	setup(build) {
		build.onLoad({ filter: /[\\/]webfonts[\\/][^\\/]+\.(svg|eot|ttf|woff)$/ }, () => ({ contents: "", loader: "empty" }));
	},
};

fs.mkdirSync(out, { recursive: true });
await esbuild.build({
	plugins: [unusedFonts],
	entryPoints: { page: path.join(here, "src", "page.js"), vega: path.join(here, "src", "vega.js") },
	outdir: out,
	bundle: true,
	format: "iife",
	minify: true,
	legalComments: "eof",
	target: "es2022",
	logLevel: "warning",
	// libembed.js assigns webpack's public path (where webpack would load
	// fonts from); nothing is loaded from a path here.
	banner: { js: 'var __webpack_public_path__ = "";' },
	define: { "process.env.NODE_ENV": '"production"', global: "globalThis" },
	loader: {
		".woff2": "dataurl",
		".woff": "dataurl",
		".ttf": "dataurl",
		".eot": "dataurl",
		".svg": "dataurl",
		".png": "dataurl",
		".gif": "dataurl",
	},
});
for (const f of ["page.js", "page.css", "vega.js"]) {
	if (!fs.existsSync(path.join(out, f))) {
		console.error(`build.mjs: esbuild wrote no ${f}`);
		process.exit(1);
	}
}
