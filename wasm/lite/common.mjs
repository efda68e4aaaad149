// common.mjs holds what the two builds of JupyterLab's front end share:
// build.mjs (the JupyterLite site, `veclab serve`) and jupyterlab.mjs
// (JupyterLab on a Jupyter server, the kernel package's TestJupyterLab):
// the extension lists and esbuild's options and plugins.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

// The extensions of the JupyterLite site: JupyterLab's notebook front end
// and the JupyterLite services that replace the Jupyter server
// (jupyterlab.mjs builds the same JupyterLab extensions, without
// JupyterLite's, for a Jupyter server). Left out, as
// plugins the page would activate on every load and a reader of the
// notebooks does without: the inspector panel (the tooltip, Shift+Tab,
// shows the same inspect_request), the running-sessions panel, and the
// status bar (the notebook's toolbar shows the kernel's state).
export const extensions = [
	"@jupyterlab/application-extension",
	"@jupyterlab/apputils-extension",
	"@jupyterlab/codemirror-extension",
	"@jupyterlab/completer-extension",
	// The Go console (a kernel's console, as in JupyterLab); the debugger's
	// main plugin, which puts its side panel in the shell, requires the
	// console's tracker and content factory.
	"@jupyterlab/console-extension",
	// JupyterLab's debugger: its side panel lists the Go session's
	// variables (kernel/eval's Debugger answers its requests; breakpoints
	// are answered as unsupported).
	"@jupyterlab/debugger-extension",
	"@jupyterlab/docmanager-extension",
	"@jupyterlab/filebrowser-extension",
	"@jupyterlab/launcher-extension",
	"@jupyterlab/mainmenu-extension",
	"@jupyterlab/markedparser-extension",
	// The Markdown viewer: notebooks/README.md (the reading order, which
	// every notebook links to) opens rendered, its links to the notebooks
	// live. Without it JupyterLab had no widget for a .md file, and a
	// click on a link to it did nothing.
	"@jupyterlab/markdownviewer-extension",
	"@jupyterlab/notebook-extension",
	"@jupyterlab/rendermime-extension",
	"@jupyterlab/services-extension",
	"@jupyterlab/shortcuts-extension",
	"@jupyterlab/theme-light-extension",
	"@jupyterlab/tooltip-extension",
	"@jupyterlab/translation-extension",
	"@jupyterlab/ui-components-extension",
	"@jupyterlite/application-extension",
	"@jupyterlite/apputils-extension",
	"@jupyterlite/services-extension",
	// Jupyter widgets (ipywidgets 8's front end: @jupyter-widgets/base 2.0,
	// controls 2.0, output 1.0 models), which kernel/widget's models need.
	"@jupyter-widgets/jupyterlab-manager",
];

// The MIME renderer extensions, as JupyterLab's and JupyterLite's apps
// list them apart from the plugin extensions (package.json's
// jupyterlab.mimeExtension): Vega 5 / Vega-Lite 5 (the charts of
// lab/chart show as application/vnd.vegalite.v5+json: tooltips, zoom,
// legends that toggle series). It loads vega-embed when a notebook first
// shows a chart (a chunk of its own), with nothing from the network.
export const mimeExtensions = ["@jupyterlab/vega5-extension"];

// webpack's "~package/file" in CSS @import and url() means a module path.
export const tilde = {
	name: "tilde",
	setup(b) {
		b.onResolve({ filter: /^~/ }, (args) => ({
			path: createRequire(path.join(args.resolveDir, "x.js")).resolve(args.path.slice(1)),
		}));
	},
};

// An SVG font (Font Awesome's webfonts/*.svg, the last of each @font-face's
// sources, which Chromium and Firefox never use) is a file beside the CSS
// like the other font formats: with the .svg loader below ("text", for the
// icons JavaScript imports) esbuild put its 0.1–0.9 MB into lab.css, 2.5 MB
// of the 2.8 MB stylesheet the page must fetch and parse before it renders.
export const svgFonts = {
	name: "svg-fonts",
	setup(b) {
		b.onLoad({ filter: /[\\/]webfonts[\\/][^\\/]+\.svg$/ }, (args) => ({
			contents: fs.readFileSync(args.path),
			loader: "file",
		}));
	},
};

// jupyterlab-manager loads @jupyter-widgets/controls with webpack's
// require.ensure (lib/plugin.js, controlWidgetsPlugin), which esbuild does
// not know: the call becomes the dynamic import it stands for (a chunk of
// its own, loaded when a first widget of the controls is drawn). The build
// fails if a new version no longer has the call, so that this is looked at
// again.
export const requireEnsure = {
	name: "require-ensure",
	setup(b) {
		b.onLoad({ filter: /[\\/]@jupyter-widgets[\\/]jupyterlab-manager[\\/]lib[\\/]plugin\.js$/ }, (args) => {
			const src = fs.readFileSync(args.path, "utf8");
			const re = /require\.ensure\(\[('[^']+')\],\s*\(require\)\s*=>\s*\{[\s\S]*?resolve\(require\(\1\)\);\s*\},\s*\(err\)\s*=>\s*\{\s*reject\(err\);\s*\},\s*'[^']+'\);/g;
			let n = 0;
			const contents = src.replace(re, (_, mod) => {
				n++;
				return `import(${mod}).then(resolve, reject);`;
			});
			if (n === 0) throw new Error(`${args.path}: no require.ensure call to rewrite (a new jupyterlab-manager?)`);
			return { contents, loader: "js" };
		});
	},
};

// options are the esbuild options of every bundle of both builds; plugins
// come before tilde, svgFonts and requireEnsure.
export const options = (...plugins) => ({
	bundle: true,
	plugins: [tilde, svgFonts, ...plugins, requireEnsure],
	minify: true,
	legalComments: "linked",
	target: "es2022",
	logLevel: "warning",
	define: { "process.env.NODE_ENV": '"production"', global: "globalThis" },
	loader: {
		".svg": "text",
		".woff": "file",
		".woff2": "file",
		".ttf": "file",
		".eot": "file",
		".png": "file",
		".gif": "file",
	},
	assetNames: "assets/[name]-[hash]",
});
