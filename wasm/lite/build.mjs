// build.mjs assembles veclab's JupyterLite site from the npm packages of
// package-lock.json, with esbuild, the way JupyterLite's own app/ does it
// with rspack (jupyterlite/jupyterlite, app/index.template.js and
// app/rspack.config.js at v0.8.x): one entry that registers the plugins of
// the listed JupyterLab and JupyterLite extensions, minus the disabled
// ones, plus the settings schemas (build/schemas/all.json), the light theme
// (build/themes/…), the contents index of the notebooks
// (api/contents/…/all.json, files/…: as the Jupyter server serves them,
// their multiline strings joined), the Go (veclab) kernel of src/ and
// lab/index.html, JupyterLite's address for shared links (src/lab.html).
//
//	node build.mjs OUT_DIR NOTEBOOKS_DIR
//
// It writes everything but veclab.wasm and wasm_exec.js, which
// `veclab serve` builds with the Go toolchain and puts beside it.
// Nothing in the site loads from another origin.
import * as esbuild from "esbuild";
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import Ajv from "ajv";
import standaloneCode from "ajv/dist/standalone/index.js";
import { schemaHash } from "./src/settings-hash.mjs";
import { extensions, mimeExtensions, options } from "./common.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "package.json"));
const [out, notebooks] = process.argv.slice(2);
if (!out || !notebooks) {
	console.error("usage: node build.mjs OUT_DIR NOTEBOOKS_DIR");
	process.exit(2);
}

// Plugins JupyterLite's lab app disables (they need a Jupyter server or
// are replaced by a JupyterLite plugin), and the service worker, which this
// site does not use (the kernel reads no files of the contents drive).
const disabled = [
	"@jupyterlab/application-extension:logo",
	"@jupyterlab/application-extension:main",
	"@jupyterlab/application-extension:tree-resolver",
	"@jupyterlab/application-extension:router",
	"@jupyterlab/apputils-extension:licenses-client",
	"@jupyterlab/apputils-extension:licenses-plugin",
	"@jupyterlab/apputils-extension:announcements",
	"@jupyterlab/apputils-extension:resolver",
	"@jupyterlab/apputils-extension:settings", // src/settings.js replaces it
	// The status bar's items (the site has no status bar) and the
	// debugger of file editors (the site opens no Go file in an editor).
	"@jupyterlab/console-extension:kernel-status",
	"@jupyterlab/console-extension:cursor-position",
	"@jupyterlab/debugger-extension:files",
	"@jupyterlab/docmanager-extension:download",
	"@jupyterlab/filebrowser-extension:download",
	"@jupyterlab/filebrowser-extension:share-file",
	"@jupyterlab/help-extension:about",
	"@jupyterlab/services-extension:config-section-manager",
	"@jupyterlab/services-extension:connection-status",
	"@jupyterlab/services-extension:default-drive",
	"@jupyterlab/services-extension:event-manager",
	"@jupyterlab/services-extension:kernel-manager",
	"@jupyterlab/services-extension:kernel-spec-manager",
	"@jupyterlab/services-extension:nbconvert-manager",
	"@jupyterlab/services-extension:session-manager",
	"@jupyterlab/services-extension:setting-manager",
	"@jupyterlab/services-extension:user-manager",
	"@jupyterlab/services-extension:workspace-manager",
	"@jupyterlab/translation:translator",
	"@jupyterlite/application-extension:service-worker-manager",
	"@jupyterlite/application-extension:share-file",
];

const pkgDir = (name) => path.dirname(require.resolve(`${name}/package.json`));
const pkgJSON = (name) => JSON.parse(fs.readFileSync(path.join(pkgDir(name), "package.json"), "utf8"));

fs.rmSync(out, { recursive: true, force: true });
const build = path.join(out, "build");
fs.mkdirSync(build, { recursive: true });

// 1. The entry: import every extension and its style, as JupyterLite's
// index.template.js and style.js do.
// The generated sources go to a directory of their own per output
// directory (.gen/HASH, under wasm/lite so that their imports resolve in
// its node_modules): two builds to different outputs at once do not
// write each other's files.
const gen = path.join(here, ".gen", crypto.createHash("sha256").update(path.resolve(out)).digest("hex").slice(0, 16));
fs.mkdirSync(gen, { recursive: true });
let entry = `import { main } from ${JSON.stringify(path.join(here, "src", "main.js"))};\n`;
const names = [];
extensions.forEach((name, i) => {
	if (fs.existsSync(path.join(pkgDir(name), "style", "index.js"))) {
		entry += `import ${JSON.stringify(name + "/style/index.js")};\n`;
	}
	entry += `import * as ext${i} from ${JSON.stringify(name)};\n`;
	names.push(`[${JSON.stringify(name)}, ext${i}]`);
});
const mimes = [];
mimeExtensions.forEach((name, i) => {
	if (fs.existsSync(path.join(pkgDir(name), "style", "index.js"))) {
		entry += `import ${JSON.stringify(name + "/style/index.js")};\n`;
	}
	entry += `import * as mime${i} from ${JSON.stringify(name)};\n`;
	mimes.push(`[${JSON.stringify(name)}, mime${i}]`);
});
entry += `import "@jupyterlab/application/style/index.js";\n`;
entry += `main([${names.join(", ")}], ${JSON.stringify(disabled)}, [${mimes.join(", ")}]);\n`;
fs.writeFileSync(path.join(gen, "entry.js"), entry);

// 2. The settings schemas of every extension, in one all.json (the
// format of JupyterLite's CompileSchemasPlugin: id, raw, schema, settings,
// version), and their validators compiled to code for src/settings.js.
// overrides are the site's defaults that differ from a schema's (raw is
// what JupyterLite's settings use until the reader changes them, as its
// overrides.json): saved notebooks keep their widgets' state in their
// metadata, so a static view of the notebook still shows the widgets.
const overrides = { "@jupyter-widgets/jupyterlab-manager:plugin": { saveState: true } };
const all = [];
for (const name of extensions) {
	const pj = pkgJSON(name);
	const dir = path.join(pkgDir(name), pj.jupyterlab?.schemaDir || "schema");
	if (!fs.existsSync(dir)) continue;
	for (const f of fs.readdirSync(dir).sort()) {
		if (!f.endsWith(".json")) continue;
		const schema = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8"));
		const id = `${name}:${f.slice(0, -5)}`;
		all.push({ id, raw: JSON.stringify(overrides[id] || {}), schema, settings: overrides[id] || {}, version: pj.version });
	}
}
fs.writeFileSync(path.join(gen, "validators.js"), validators(all.filter((s) => !disabled.includes(s.id) && !disabled.includes(s.id.split(":")[0]))));

// validators compiles each schema the way @jupyterlab/settingregistry's
// DefaultSchemaValidator does when a page first loads it, with the same
// Ajv options: a validator, and a composer that fills in the defaults
// (useDefaults). It checks each schema as that validator does before it
// compiles one (an object type, JupyterLab's plugin schema, JSON Schema's
// meta-schema), so a schema JupyterLab would refuse fails the build. It
// returns Ajv's standalone code for them, an ES module whose export
// compiled maps each plugin id to {hash, validate, compose} (hash:
// settings.js's schemaHash of the schema's JSON text).
function validators(schemas) {
	const options = { strict: false, code: { source: true, esm: true } }; // AJV_DEFAULT_OPTIONS + code
	const check = new Ajv({ strict: false });
	const validate = new Ajv(options);
	const compose = new Ajv({ ...options, useDefaults: true });
	const pluginSchema = check.compile(JSON.parse(fs.readFileSync(require.resolve("@jupyterlab/settingregistry/lib/plugin-schema.json"), "utf8")));
	const refs = {};
	const rows = [];
	schemas.forEach((s, i) => {
		const fail = (what, errors) => {
			console.error(`build.mjs: the settings schema of ${s.id}: ${what}: ${check.errorsText(errors)}`);
			process.exit(1);
		};
		if (s.schema.type !== "object") fail(`root type ${JSON.stringify(s.schema.type)}, want "object"`, null);
		if (!pluginSchema(s.schema)) fail("not a JupyterLab plugin schema", pluginSchema.errors);
		if (!check.validateSchema(s.schema)) fail("not a JSON schema", check.errors);
		validate.addSchema(s.schema, `v${i}`);
		compose.addSchema(s.schema, `c${i}`);
		refs[`v${i}`] = `v${i}`;
		rows.push(`${JSON.stringify(s.id)}: { hash: ${JSON.stringify(schemaHash(JSON.stringify(s.schema)))}, validate: V.v${i}, compose: C.c${i} }`);
	});
	const crefs = Object.fromEntries(Object.keys(refs).map((k) => ["c" + k.slice(1), "c" + k.slice(1)]));
	fs.writeFileSync(path.join(gen, "validate.js"), standaloneCode(validate, refs));
	fs.writeFileSync(path.join(gen, "compose.js"), standaloneCode(compose, crefs));
	return `import * as V from "./validate.js";\nimport * as C from "./compose.js";\nexport const compiled = {\n${rows.join(",\n")}\n};\n`;
}

// settings.js's compiled validators, written above.
const genValidators = {
	name: "validators",
	setup(b) {
		b.onResolve({ filter: /^veclab:validators$/ }, () => ({ path: path.join(gen, "validators.js") }));
	},
};

const common = options(genValidators);
const labBuild = await esbuild.build({
	...common,
	// The free variable process, which webpack's builds of JupyterLab
	// provide and esbuild does not: src/process.js says why it matters
	// (relative links in Markdown).
	inject: [path.join(here, "src", "process.js")],
	entryPoints: { lab: path.join(gen, "entry.js") },
	outdir: build,
	format: "esm",
	splitting: true,
	chunkNames: "chunks/[name]-[hash]",
	metafile: true,
});
fs.writeFileSync(path.join(gen, "meta.json"), JSON.stringify(labBuild.metafile));
// The kernel's worker: a classic worker script (it loads wasm_exec.js with
// importScripts).
await esbuild.build({
	...common,
	entryPoints: { "veclab-worker": path.join(here, "src", "worker.js") },
	outdir: build,
	format: "iife",
});
// The light theme, loaded by the theme manager from themesUrl.
await esbuild.build({
	...common,
	entryPoints: [path.join(pkgDir("@jupyterlab/theme-light-extension"), "style", "theme.css")],
	outfile: path.join(build, "themes", "@jupyterlab", "theme-light-extension", "index.css"),
});

fs.mkdirSync(path.join(build, "schemas"), { recursive: true });
fs.writeFileSync(path.join(build, "schemas", "all.json"), JSON.stringify(all));
fs.writeFileSync(path.join(build, "schemas", "all_federated.json"), "[]"); // no federated extensions

// English only: the translation connector's index and its (empty) pack.
fs.mkdirSync(path.join(out, "api", "translations"), { recursive: true });
fs.writeFileSync(path.join(out, "api", "translations", "all.json"),
	JSON.stringify({ data: { en: { displayName: "English", nativeName: "English" } }, message: "" }));
fs.writeFileSync(path.join(out, "api", "translations", "en.json"), JSON.stringify({ data: {}, message: "" }));

// 3. The contents: the notebooks under files/notebooks, their multiline
// strings joined (joinLines below), listed in api/contents/all.json (the
// root) and api/contents/notebooks/all.json, as jupyterlite-core's contents
// addon writes them, with each file's modification time (modified below)
// and each directory's the latest of its files'.
const model = (name, p, type, size, mtime) => ({
	name, path: p, type, size, writable: true, created: mtime.toISOString(), last_modified: mtime.toISOString(),
	mimetype: type === "notebook" ? "application/x-ipynb+json" : null,
	format: null, content: null,
});
const nbs = fs.readdirSync(notebooks).filter((f) => f.endsWith(".ipynb")).sort();
if (nbs.length === 0) {
	console.error(`build.mjs: no .ipynb in ${notebooks}`);
	process.exit(1);
}

// modified is the time the file browser shows for a notebook: the time of
// the last commit that changed it, when it is in git and unchanged since,
// so the same sources give the same site (veclab serve keeps a site by the
// hash of its sources, liteKey); otherwise $SOURCE_DATE_EPOCH when set
// (reproducible-builds.org), else the file's modification time. (A zero
// time showed as "56 years ago".)
const gitOut = (...args) => {
	try {
		return execFileSync("git", args, { cwd: notebooks, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
	} catch {
		return null; // no git, or not a checkout
	}
};
const changed = new Set(); // files git has no committed form of: modified, added, untracked
const status = gitOut("status", "--porcelain", "-z", "--", ".");
if (status !== null) {
	const prefix = gitOut("rev-parse", "--show-prefix")?.trim() ?? ""; // porcelain paths are from the top
	for (const e of status.split("\0")) if (e.length > 3) changed.add(path.posix.relative(prefix, e.slice(3)));
}
const epoch = /^\d+$/.test(process.env.SOURCE_DATE_EPOCH || "") ? new Date(1000 * Number(process.env.SOURCE_DATE_EPOCH)) : null;
const modified = (f) => {
	if (status !== null && !changed.has(f)) {
		const t = gitOut("log", "-1", "--format=%cI", "--", f)?.trim();
		if (t) return new Date(t);
	}
	return epoch || fs.statSync(path.join(notebooks, f)).mtime;
};

// joinLines returns the notebook nb with nbformat's multiline strings
// joined, as the Jupyter server hands notebooks to JupyterLab (nbformat's
// reads, rejoin_lines): on disk nbformat writes a cell's source, a stream's
// text and each text MIME type of an output's data as a list of lines,
// and the page takes them as they come (JupyterLite's contents drive only
// parses the file): it showed such a list joined by commas, ", , , ," before
// every HTML table and "," at the start of every printed line after the
// first. JSON MIME types (application/json, …+json) hold JSON values, not
// lines, and are left as they are.
function joinLines(nb) {
	const join = (v) => (Array.isArray(v) && v.every((x) => typeof x === "string") ? v.join("") : v);
	const isJSON = (mime) => mime === "application/json" || mime.endsWith("+json");
	for (const cell of nb.cells || []) {
		cell.source = join(cell.source);
		for (const o of cell.outputs || []) {
			if ("text" in o) o.text = join(o.text);
			if (o.data) for (const mime of Object.keys(o.data)) if (!isJSON(mime)) o.data[mime] = join(o.data[mime]);
		}
	}
	return nb;
}

fs.mkdirSync(path.join(out, "files", "notebooks"), { recursive: true });
const listing = [];
let latest = new Date(0);
for (const f of nbs) {
	let nb;
	try {
		nb = JSON.parse(fs.readFileSync(path.join(notebooks, f), "utf8"));
	} catch (e) {
		console.error(`build.mjs: ${f}: ${e.message}`); // a broken notebook fails the build, not the page
		process.exit(1);
	}
	const data = Buffer.from(JSON.stringify(joinLines(nb), null, 1) + "\n");
	fs.writeFileSync(path.join(out, "files", "notebooks", f), data);
	const t = modified(f);
	if (t > latest) latest = t;
	listing.push(model(f, `notebooks/${f}`, "notebook", data.length, t));
}
// The course's README (reading order; every notebook links to it), as a
// Markdown file JupyterLab opens from those links.
if (fs.existsSync(path.join(notebooks, "README.md"))) {
	const data = fs.readFileSync(path.join(notebooks, "README.md"));
	fs.writeFileSync(path.join(out, "files", "notebooks", "README.md"), data);
	const t = modified("README.md");
	if (t > latest) latest = t;
	listing.push({ ...model("README.md", "notebooks/README.md", "file", data.length, t), mimetype: "text/markdown" });
}
const dirModel = (name, p, content) => ({ ...model(name, p, "directory", 0, latest), format: "json", content });
fs.mkdirSync(path.join(out, "api", "contents", "notebooks"), { recursive: true });
fs.writeFileSync(path.join(out, "api", "contents", "all.json"),
	JSON.stringify(dirModel("", "", [model("notebooks", "notebooks", "directory", 0, latest)])));
fs.writeFileSync(path.join(out, "api", "contents", "notebooks", "all.json"),
	JSON.stringify(dirModel("notebooks", "notebooks", listing)));

// 4. The page, JupyterLite's lab/index.html (which sends a shared link's
// ?path= on to the page: src/lab.html), the kernel's logo and the
// service worker.
fs.copyFileSync(path.join(here, "src", "index.html"), path.join(out, "index.html"));
fs.mkdirSync(path.join(out, "lab"), { recursive: true });
fs.copyFileSync(path.join(here, "src", "lab.html"), path.join(out, "lab", "index.html"));
fs.copyFileSync(path.join(here, "src", "logo.svg"), path.join(build, "veclab-logo.svg"));
fs.copyFileSync(path.join(here, "src", "boot.js"), path.join(build, "veclab-boot.js"));
// The service worker that makes the page cross-origin isolated on a host
// without COOP/COEP headers (src/isolation-sw.js says how); at the root,
// so that its scope is the whole site.
fs.copyFileSync(path.join(here, "src", "isolation-sw.js"), path.join(out, "veclab-sw.js"));
console.log(`build.mjs: site in ${out}: ${extensions.length} extensions, ${mimeExtensions.length} MIME renderer extension(s), ${all.length} settings schemas, ${nbs.length} notebooks`);
