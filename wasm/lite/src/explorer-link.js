// explorer-link.js links the site to the explorer page (wasm/explorer,
// served at explorer/ beside the site by `veclab serve`): a launcher card
// and a Help menu item that open it in a new tab. The card's icon
// (explorer-icon.svg) is a search's path down an HNSW graph's layers.
import { ILauncher } from "@jupyterlab/launcher";
import { IMainMenu } from "@jupyterlab/mainmenu";
import { LabIcon } from "@jupyterlab/ui-components";
import svgstr from "./explorer-icon.svg";

const command = "veclab:open-explorer";
const icon = new LabIcon({ name: "veclab:explorer", svgstr });

export default {
	id: "veclab-explorer-link:plugin",
	description: "Opens the veclab explorer (HNSW, quantization and filters in the browser) in a new tab.",
	autoStart: true,
	optional: [ILauncher, IMainMenu],
	activate(app, launcher, mainMenu) {
		app.commands.addCommand(command, {
			label: "veclab explorer",
			caption: "HNSW, quantization and filters, built and searched in the browser, without a notebook",
			icon,
			execute: () => window.open(new URL("explorer/", document.baseURI).href, "_blank"),
		});
		if (launcher) launcher.add({ command, category: "Other", rank: 0 });
		if (mainMenu) mainMenu.helpMenu.addGroup([{ command }], 0);
	},
};
