// jupyterlab.js starts JupyterLab on a Jupyter server, with the JupyterLab
// extensions of the JupyterLite site (common.mjs) and the server's
// services, as JupyterLab's own page does (jupyterlab/jupyterlab
// dev_mode/index.js at v4.6.x): register the plugins in a registry,
// resolve the service manager (@jupyterlab/services-extension's, which
// talks to the server whose page config is in the page), create the
// application, start it. jupyterlab.mjs bundles it; the kernel package's
// TestJupyterLab serves it with jupyterlab_server.
import { JupyterLab } from "@jupyterlab/application";
import { PageConfig } from "@jupyterlab/coreutils";
import { IServiceManager } from "@jupyterlab/services";
import { PluginRegistry } from "@lumino/coreutils";
import { dropUnprovided } from "./plugins.js";

// main's extensions and mimeExtensions are [package name, module] pairs;
// disabled lists plugin ids (or packages) not to activate.
export async function main(extensions, disabled, mimeExtensions = []) {
	const isDisabled = (id) =>
		PageConfig.Extension.isDisabled(id) || disabled.includes(id) || disabled.includes(id.split(":")[0]);
	const plugins = [];
	const allPlugins = [];
	const add = (scope, exports) => {
		for (const p of Array.isArray(exports) ? exports : [exports]) {
			if (isDisabled(p.id)) continue;
			allPlugins.push({ ...p, extension: scope });
			plugins.push(p);
		}
	};
	for (const [name, mod] of extensions) add(name, mod.default);
	dropUnprovided(plugins, allPlugins);

	const pluginRegistry = new PluginRegistry();
	pluginRegistry.registerPlugins(plugins);
	const serviceManager = await pluginRegistry.resolveRequiredService(IServiceManager);
	// A MIME renderer extension's module exports its IExtension as default
	// (main.js says why it is handed over unwrapped).
	const mimes = mimeExtensions.filter(([name]) => !isDisabled(name)).map(([, mod]) => mod.default);
	const app = new JupyterLab({ pluginRegistry, mimeExtensions: mimes, serviceManager, availablePlugins: allPlugins });
	app.name = PageConfig.getOption("appName") || "JupyterLab";
	window.jupyterapp = app; // the browser test drives the app through it
	await app.start({ bubblingKeydown: true });
	await app.restored;
	document.body.dataset.jupyterlab = "ready";
}
