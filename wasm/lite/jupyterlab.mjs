// jupyterlab.mjs assembles JupyterLab's front end for a Jupyter server from
// the npm packages of package-lock.json, with esbuild: the JupyterLab
// extensions of the JupyterLite site (common.mjs, the same packages at the
// same versions, without JupyterLite's) and the server's services
// (@jupyterlab/services-extension), laid out as jupyterlab_server's
// LabServerApp serves an application (jupyterlab_server 2.16, config.py's
// LabConfig):
//
//	OUT/static/     lab.js, its chunks and assets, lab.css (static_dir)
//	OUT/schemas/    PACKAGE/PLUGIN.json and PACKAGE/package.json.orig (schemas_dir)
//	OUT/themes/     @jupyterlab/theme-light-extension/index.css (themes_dir)
//	OUT/templates/  index.html, the page with its page config (templates_dir)
//	OUT/settings/   page_config.json: the app's name and version (app_settings_dir)
//
//	node jupyterlab.mjs OUT_DIR
//
// The kernel package's TestJupyterLab builds it (once per set of sources)
// and serves it with Debian's jupyterlab_server over jupyter_server, with
// the native veclab kernel. Nothing in the page loads from another origin.
import * as esbuild from "esbuild";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { extensions as all, mimeExtensions, options } from "./common.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "package.json"));
const [out] = process.argv.slice(2);
if (!out) {
	console.error("usage: node jupyterlab.mjs OUT_DIR");
	process.exit(2);
}

// JupyterLab's extensions: the site's, without JupyterLite's (its
// in-browser services and the pages they need).
const extensions = all.filter((name) => !name.startsWith("@jupyterlite/"));

// Plugins that need a server API jupyterlab_server and jupyter_server do
// not have: the announcements ask /lab/api/news and /lab/api/update,
// handlers of the jupyterlab Python package itself, which Debian does not
// package.
const disabled = ["@jupyterlab/apputils-extension:announcements"];

const pkgDir = (name) => path.dirname(require.resolve(`${name}/package.json`));
const pkgJSON = (name) => JSON.parse(fs.readFileSync(path.join(pkgDir(name), "package.json"), "utf8"));

fs.rmSync(out, { recursive: true, force: true });
const dirs = Object.fromEntries(["static", "schemas", "themes", "templates", "settings"].map((d) => [d, path.join(out, d)]));
for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });

// 1. The entry: every extension and its style, as build.mjs's, started
// by src/jupyterlab.js. Generated under .gen/ (so that its imports resolve
// in this directory's node_modules), one directory per output directory.
const gen = path.join(here, ".gen", "jupyterlab-" + crypto.createHash("sha256").update(path.resolve(out)).digest("hex").slice(0, 16));
fs.mkdirSync(gen, { recursive: true });
let entry = `import { main } from ${JSON.stringify(path.join(here, "src", "jupyterlab.js"))};\n`;
const imports = (list, prefix) =>
	list.map((name, i) => {
		if (fs.existsSync(path.join(pkgDir(name), "style", "index.js"))) entry += `import ${JSON.stringify(name + "/style/index.js")};\n`;
		entry += `import * as ${prefix}${i} from ${JSON.stringify(name)};\n`;
		return `[${JSON.stringify(name)}, ${prefix}${i}]`;
	});
const names = imports(extensions, "ext");
const mimes = imports(mimeExtensions, "mime");
entry += `import "@jupyterlab/application/style/index.js";\n`;
entry += `main([${names.join(", ")}], ${JSON.stringify(disabled)}, [${mimes.join(", ")}]);\n`;
fs.writeFileSync(path.join(gen, "entry.js"), entry);

const common = options();
await esbuild.build({
	...common,
	inject: [path.join(here, "src", "process.js")], // build.mjs says why
	entryPoints: { lab: path.join(gen, "entry.js") },
	outdir: dirs.static,
	format: "esm",
	splitting: true,
	chunkNames: "chunks/[name]-[hash]",
});
// The light theme, which the theme manager loads from the themes URL.
await esbuild.build({
	...common,
	entryPoints: [path.join(pkgDir("@jupyterlab/theme-light-extension"), "style", "theme.css")],
	outfile: path.join(dirs.themes, "@jupyterlab", "theme-light-extension", "index.css"),
});

// 2. The settings schemas, where jupyterlab_server's settings handler
// reads them (settings_utils.py: SCHEMAS/PACKAGE/PLUGIN.json, the
// package's version from package.json.orig beside them), as JupyterLab's
// own build (jupyterlab/staging) lays them out.
let schemas = 0;
for (const name of [...extensions, ...mimeExtensions]) {
	const pj = pkgJSON(name);
	const src = path.join(pkgDir(name), pj.jupyterlab?.schemaDir || "schema");
	if (!fs.existsSync(src)) continue;
	const dst = path.join(dirs.schemas, ...name.split("/"));
	fs.mkdirSync(dst, { recursive: true });
	for (const f of fs.readdirSync(src).sort()) {
		if (!f.endsWith(".json")) continue;
		fs.copyFileSync(path.join(src, f), path.join(dst, f));
		schemas++;
	}
	fs.writeFileSync(path.join(dst, "package.json.orig"), JSON.stringify({ name, version: pj.version }));
}

// 3. The page: jupyterlab_server's own template (templates/index.html)
// with the bundle, which is an ES module, and its stylesheet.
fs.writeFileSync(path.join(dirs.templates, "index.html"), `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>JupyterLab</title>
{% set page_config_full = page_config.copy() %}{% set _ = page_config_full.update(baseUrl=base_url, wsUrl=ws_url) %}
<script id="jupyter-config-data" type="application/json">{{ page_config_full | tojson }}</script>
<link rel="stylesheet" href="{{ page_config.fullStaticUrl | escape }}/lab.css">
<script type="module" src="{{ page_config.fullStaticUrl | escape }}/lab.js"></script>
</head>
<body class="jp-ThemedContainer">
</body>
</html>
`);
// The page config's lowest layer (jupyterlab_server's get_page_config
// reads APP_SETTINGS_DIR/page_config.json): the name and version the app
// shows (its About dialog, app.version) in place of LabServerApp's own.
fs.writeFileSync(path.join(dirs.settings, "page_config.json"), JSON.stringify({ appName: "JupyterLab", appVersion: pkgJSON("@jupyterlab/application").version }, null, 1) + "\n");
console.log(`jupyterlab.mjs: JupyterLab ${pkgJSON("@jupyterlab/application").version} in ${out}: ${extensions.length} extensions, ${mimeExtensions.length} MIME renderer extension(s), ${schemas} settings schemas`);
