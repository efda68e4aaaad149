// chromium.js: the one way the browser tests start Debian's chromium.
//
// Every script (lite.js, explorer.js, export.js, bench.js, screens.js)
// launches the browser here, on a new persistent profile (an on-disk HTTP
// cache, as a reader's is), and prints once which browser and driver ran:
// a test that passed last week and fails today on a new chromium then
// says so in its first line (docs/testing.md keeps the versions the suite
// was last seen passing with). The browser is $CHROMIUM, default
// /usr/bin/chromium; $VECLAB_CHROMIUM_FLAGS (split at spaces) is added to
// its command line, for diagnosing (--js-flags=--liftoff-only runs every
// WebAssembly function on V8's baseline compiler).
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
let told = false;

// launch starts chromium on a new profile directory named after prefix;
// options are added to the launch options (viewport, …). It returns the
// profile's path (the caller removes it) and the context.
async function launch(prefix, options = {}) {
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	const context = await chromium.launchPersistentContext(profile, {
		executablePath,
		headless: true,
		args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", ...(process.env.VECLAB_CHROMIUM_FLAGS || "").split(/\s+/).filter(Boolean)],
		...options,
	});
	if (!told) {
		told = true;
		console.log(`browser: ${await version(context)} (${executablePath}), playwright-core ${require("playwright-core/package.json").version}`);
	}
	return { profile, context };
}

// version asks the running browser its product and version over the
// DevTools protocol (Browser.getVersion: "HeadlessChrome/156.0.8078.129").
async function version(context) {
	const page = context.pages()[0] || (await context.newPage());
	const cdp = await context.newCDPSession(page);
	try {
		const v = await cdp.send("Browser.getVersion");
		return `${v.product.replace(/^HeadlessChrome/, "Chromium")} (${v.revision}, V8 ${v.jsVersion})`;
	} finally {
		await cdp.detach();
	}
}

module.exports = { launch, executablePath };
