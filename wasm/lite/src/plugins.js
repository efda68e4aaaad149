// plugins.js: what the two pages of JupyterLab's front end (main.js, the
// JupyterLite site; jupyterlab.js, JupyterLab on a Jupyter server) do alike
// with their plugins.

// dropUnprovided removes the plugins that require a service no plugin of
// the page provides (both pages have a subset of JupyterLab's
// extensions: no table of contents, search or language server), and then
// those that required a removed one, so none fails to activate.
export function dropUnprovided(plugins, allPlugins) {
	for (;;) {
		const provided = new Set(plugins.filter((p) => p.provides).map((p) => p.provides.name));
		const i = plugins.findIndex((p) => (p.requires || []).some((t) => !provided.has(t.name)));
		if (i < 0) return;
		const [p] = plugins.splice(i, 1);
		const j = allPlugins.findIndex((q) => q.id === p.id);
		if (j >= 0) allPlugins.splice(j, 1);
	}
}
