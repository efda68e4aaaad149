// main starts JupyterLab with the given extensions and the Go (veclab)
// kernel, as JupyterLite's app/index.template.js (v0.8.x) does for its lab
// app: register the plugins in a registry, resolve the service manager
// (JupyterLite's in-browser one), create the application, start it.
import { JupyterLab } from "@jupyterlab/application";
import { PageConfig } from "@jupyterlab/coreutils";
import { IServiceManager } from "@jupyterlab/services";
import { PluginRegistry } from "@lumino/coreutils";
import veclabKernel, { prewarm } from "./kernel.js";
import explorerLink from "./explorer-link.js";
import openPath from "./open-path.js";
import settings from "./settings.js";
import { dropUnprovided } from "./plugins.js";

// main's extensions and mimeExtensions are [package name, module] pairs;
// disabled lists plugin ids (or packages) not to activate.
export async function main(extensions, disabled, mimeExtensions = []) {
	const mark = globalThis.veclabBoot.mark; // the load's milestones (boot.js)
	mark("labEvaluated"); // build/lab.js fetched, parsed and run
	prewarm(); // veclab.wasm loads in a worker while JupyterLab starts (boot.js)
	const isDisabled = (id) =>
		PageConfig.Extension.isDisabled(id) || disabled.includes(id) || disabled.includes(id.split(":")[0]);
	const plugins = [];
	const allPlugins = [];
	// Each plugin's activation is timed (from its start to its promise's
	// end, so it includes what it waits for, e.g. its settings) into
	// veclabBoot.plugins, [id, ms] pairs: the browser test prints the
	// slowest, JupyterLab's start being most of a load.
	const times = (globalThis.veclabBoot.plugins = []);
	const timed = (p) => ({
		...p,
		activate: (...args) => {
			const t = performance.now();
			const done = () => times.push([p.id, Math.round(performance.now() - t)]);
			const r = p.activate(...args);
			if (r && typeof r.then === "function") return r.finally(done);
			done();
			return r;
		},
	});
	const add = (scope, exports) => {
		const list = Array.isArray(exports) ? exports : [exports];
		for (const p of list) {
			if (isDisabled(p.id)) continue;
			const w = timed(p);
			allPlugins.push({ ...w, extension: scope });
			plugins.push(w);
		}
	};
	for (const [name, mod] of extensions) add(name, mod.default);
	add("veclab-kernel", veclabKernel);
	add("veclab-explorer-link", explorerLink);
	add("veclab-open-path", openPath);
	add("veclab-settings", settings);
	dropUnprovided(plugins, allPlugins);

	const pluginRegistry = new PluginRegistry();
	pluginRegistry.registerPlugins(plugins);
	const serviceManager = await pluginRegistry.resolveRequiredService(IServiceManager);
	// The router's base is the path of the site's root, as JupyterLite's
	// config-utils.js makes the page's relative baseUrl: the router strips
	// it from the address, so a route sees "/?path=…" wherever the site is
	// served (open-path.js).
	const base = new URL(PageConfig.getBaseUrl()).pathname;
	// A MIME renderer extension's module exports its IExtension (or a list)
	// as default. JupyterLab's createRendermimePlugins takes a module's
	// default only when the module has an own __esModule (webpack's
	// namespaces do, esbuild's do not): it is given the default itself.
	const mimes = mimeExtensions.filter(([name]) => !isDisabled(name)).map(([, mod]) => mod.default);
	const app = new JupyterLab({ pluginRegistry, mimeExtensions: mimes, serviceManager, availablePlugins: allPlugins, paths: { urls: { base } } });
	app.name = PageConfig.getOption("appName") || "veclab";
	window.jupyterapp = app; // the browser test drives the app through it
	mark("labServices"); // the plugins registered, the service manager made
	await app.start({ bubblingKeydown: true });
	mark("labStarted"); // plugins activated, the shell attached
	await app.restored;
	mark("labRestored");
	document.body.dataset.veclabLite = "ready";
}
