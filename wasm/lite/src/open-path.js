// open-path.js makes a shared link open its notebook: …/?path=notebooks/
// 02-redis-ef-runtime.ipynb (several path= open several files, the first
// in front), the form JupyterLite's lab app answers at
// lab/index.html?path=…, which the site keeps too (build.mjs writes
// lab/index.html, a page that sends its query on to the site's root).
//
// JupyterLite's opener plugin (@jupyterlite/application-extension:opener,
// command router:tree) answers only an address naming an app (/lab,
// /tree, /notebooks, /edit, /consoles): this site serves JupyterLab at its
// root, so a link to the root showed the launcher. This route answers the
// root. The router sees the address relative to the site's root: main.js
// gives JupyterLab that root as its base URL (the page's "./" is not a
// prefix of the address's path).
import { IRouter } from "@jupyterlab/application";
import { PathExt } from "@jupyterlab/coreutils";
import { IDocumentManager } from "@jupyterlab/docmanager";

const command = "veclab:open-path";

// root matches the router's request for the site's page (its path relative
// to the base URL, then the query and fragment): "/" or "/index.html".
const root = /^\/(index\.html)?(?:[?#]|$)/;

export default {
	id: "veclab-open-path:plugin",
	description: "Opens the files a link names with ?path= on the site's root page, as JupyterLite's lab/index.html?path= does.",
	autoStart: true,
	requires: [IRouter, IDocumentManager],
	activate(app, router, docManager) {
		app.commands.addCommand(command, {
			label: "Open the files of the address's ?path=",
			execute: (args) => {
				const url = new URL(window.location.href);
				const files = new URLSearchParams(args.search || "").getAll("path").filter((p) => p !== "");
				if (files.length === 0) return;
				// Once the layout is restored (the last visit's tabs), so that
				// the first file is put in front after them; not awaited, as
				// the router may route the first address before.
				void app.restored.then(() => {
					for (const f of files.slice(1).reverse()) docManager.openOrReveal(f);
					docManager.openOrReveal(files[0]); // in front
					// The address loses path= (a reload does not open the files
					// again; the restored layout has them).
					url.searchParams.delete("path");
					router.navigate(url.pathname + url.search + url.hash, { skipRouting: true });
					// The file browser shows the first file's directory, named
					// here: docmanager:show-in-file-browser would take the shell's
					// current widget, the one with the focus, which a dialog the
					// restored layout opens (a kernel to choose for an untitled
					// notebook) keeps on the tab that had it.
					void app.commands.execute("filebrowser:go-to-path", { path: PathExt.dirname(files[0]), dontShowBrowser: true }).catch(() => {});
				});
			},
		});
		router.register({ command, pattern: root });
	},
};
