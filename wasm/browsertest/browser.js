// browser.js drives the page of wasm/web (served by `veclab serve`) in
// Debian's chromium through playwright-core, as cmd/veclab's TestBrowser
// does: it waits for veclab.wasm, runs the built-in demo and a few cells
// through the page (typing, Shift+Enter), loads a notebook of the
// repository with "Load notebook…" and checks the DOM they produce.
//
//	node browser.js URL [SCREENSHOT.png]
//
// It prints one line per check and exits 1 at the first failure. The
// browser is $CHROMIUM, default /usr/bin/chromium.
"use strict";

const { chromium } = require("playwright-core");

const url = process.argv[2];
const screenshot = process.argv[3];
if (!url) {
	console.error("usage: node browser.js URL [SCREENSHOT.png]");
	process.exit(2);
}
const t0 = Date.now();
const secs = () => ((Date.now() - t0) / 1000).toFixed(1) + " s";

class CheckError extends Error {}
function check(ok, what) {
	if (!ok) throw new CheckError(what);
}

async function main() {
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		headless: true,
		args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking"],
	});
	const problems = [];
	let page;
	try {
		page = await browser.newPage();
		page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
		page.on("console", (m) => {
			if (m.type() === "error") problems.push(`console error: ${m.text()}`);
		});
		await page.goto(url);
		await page.waitForFunction(() => {
			const s = document.querySelector("#status").dataset.state;
			return s === "ready" || s === "failed";
		}, null, { timeout: 60000 });
		const status = await page.textContent("#status");
		check(await page.getAttribute("#status", "data-state") === "ready", `the page did not load veclab.wasm: ${status}`);
		console.log(`ok   loaded (${secs()}): ${status}`);

		const stateOf = (cell) => cell.evaluate((el) => el.dataset.state);
		const waitCell = (cell, timeout) => page.waitForFunction(
			(el) => el.dataset.state === "done" || el.dataset.state === "error", cell, { timeout });

		// The built-in demo: plain Go, a lab experiment at a tiny scale, its
		// table (HTML) and chart (SVG).
		const t = Date.now();
		await page.click("#run-all");
		const demo = await page.$$(".cell.code");
		check(demo.length === 4, `the demo has ${demo.length} code cells, want 4`);
		for (const c of demo) await waitCell(c, 120000);
		for (let i = 0; i < demo.length; i++) {
			const st = await stateOf(demo[i]);
			const text = await demo[i].$eval(".outputs", (el) => el.innerText);
			check(st === "done", `demo cell ${i + 1} ended in state ${st}: ${text.slice(0, 800)}`);
		}
		check((await demo[0].$eval(".outputs", (el) => el.innerText)).includes("[1 4 9 16 25]"), "demo cell 1 does not show [1 4 9 16 25]");
		check((await demo[1].$eval(".outputs", (el) => el.innerText)).includes("scale: n=2000 dim=128"), "demo cell 2 does not print the scale");
		const rows = await demo[2].$$eval(".output.result.html table tr", (trs) => trs.length);
		check(rows >= 5, `demo cell 3 (E02 table) has ${rows} <tr> in an HTML result, want a header and 4 stores`);
		const progress = await demo[2].$eval(".outputs", (el) => el.innerText);
		check(progress.includes("E02 stores: 4 of 4"), "demo cell 3 does not show the progress display updated to its last state");
		check(await demo[3].$(".output.result.svg svg") !== null, "demo cell 4 (chart) shows no <svg>");
		console.log(`ok   demo: 4 cells, an E02 table of ${rows} rows and an SVG chart (${((Date.now() - t) / 1000).toFixed(1)} s)`);

		// run types code into the last cell (a new one when that is not
		// empty), runs it with Shift+Enter and
		// returns the cell when it has finished.
		const run = async (code) => {
			let cell = (await page.$$(".cell.code")).pop();
			if (await cell.$eval("textarea", (ta) => ta.value !== "")) {
				await page.click("#add-cell");
				cell = (await page.$$(".cell.code")).pop();
			}
			const ta = await cell.$("textarea");
			await ta.fill(code);
			await ta.press("Shift+Enter");
			await waitCell(cell, 30000);
			return cell;
		};
		const outText = (cell, sel) => cell.$$eval(sel, (els) => els.map((e) => e.innerText).join("\n"));

		let c = await run("1+1");
		check(await stateOf(c) === "done" && (await outText(c, ".output.result")).trim() === "2", `1+1: ${await outText(c, ".outputs")}`);
		console.log("ok   1+1 → result 2");

		c = await run(`fmt.Println("hello from the browser")`);
		check((await outText(c, "pre.output.stream.stdout")).includes("hello from the browser"), `Println: ${await outText(c, ".outputs")}`);
		check(await c.$(".output.result") === null, "Println shows a result (n, err)");
		console.log("ok   fmt.Println → stdout stream");

		c = await run(`import "github.com/veclab/veclab/kernel/display"\n\nh := display.NewHandle()\nh.Text("first")\nfmt.Println("between")\nh.Text("second")`);
		const displays = await outText(c, ".output.display");
		check(displays.trim() === "second", `display handle: displays ${JSON.stringify(displays)}, want one, "second"`);
		console.log("ok   display handle updated in place");

		c = await run(`x := 1\ny := undefinedThing + x`);
		const err = await outText(c, "pre.output.error");
		check(await stateOf(c) === "error" && err.includes("undefinedThing") && err.includes("cell line 2"), `compile error: state ${await stateOf(c)}, output ${JSON.stringify(err)}`);
		console.log(`ok   compile error: ${err.split("\n")[0]} (names cell line 2)`);

		c = await run(`var m map[string]int\nm["x"] = 1`);
		check(await stateOf(c) === "error" && (await outText(c, "pre.output.error")).length > 0, "a panicking cell is not an error output");
		c = await run(`2*21`);
		check((await outText(c, ".output.result")).trim() === "42", "the session does not live on after a panic");
		console.log("ok   a panic is an error output, and the session lives on");

		const comp = await page.evaluate(() => veclab.complete("fmt.Prin", 8));
		check(comp.matches.includes("Println") && comp.start === 4 && comp.end === 8, `complete: ${JSON.stringify(comp)}`);
		console.log(`ok   complete("fmt.Prin") → ${comp.matches.join(", ")}`);

		// Load notebook…: a notebook of the repository, its code cells and
		// saved outputs (not run: they are article-scale).
		const nbPath = require("path").join(__dirname, "..", "..", "notebooks", "02-redis-ef-runtime.ipynb");
		const nb = JSON.parse(require("fs").readFileSync(nbPath, "utf8"));
		const want = nb.cells.filter((x) => x.cell_type === "code").length;
		await page.setInputFiles("#load", nbPath);
		await page.waitForFunction((n) => document.querySelectorAll(".cell.code").length === n, want, { timeout: 10000 });
		const saved = await page.$$eval(".outputs.saved .output.html table", (ts) => ts.length);
		check(saved > 0, "the loaded notebook shows no saved HTML table");
		console.log(`ok   load notebook: ${want} code cells, ${saved} saved tables`);

		check(problems.length === 0, `the page reported: ${problems.join("; ")}`);
		console.log(`PASS (${secs()})`);
	} finally {
		if (page && screenshot) await page.screenshot({ path: screenshot, fullPage: true }).catch(() => {});
		await browser.close();
	}
}

main().catch((e) => {
	console.log(`FAIL (${secs()}): ${e instanceof CheckError ? e.message : e.stack || e}`);
	process.exit(1);
});
