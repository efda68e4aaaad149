// classic.js drives the classic Jupyter Notebook (Debian's jupyter-notebook
// 6.4, served by the kernel package's TestClassicNotebook with the native
// veclab kernel) in Debian's chromium through playwright-core. It opens
// NOTEBOOK (an empty notebook on the Go kernel) and checks, through the
// notebook's own page (its Jupyter.notebook API to fill and run cells, the
// page's DOM for what a reader sees):
//
//   - %timeit prints IPython's line (mean ± std. dev. per loop) in the
//     cell's output, and %time its CPU and wall times before the value;
//   - an unknown magic fails the cell with its UsageError;
//   - a cell reading standard input (fmt.Scanln) shows the Notebook's
//     input box after the cell's prompt; the line typed there and Enter
//     reach the cell.
//
//	node classic.js URL_OF_NOTEBOOK
//
// It prints one line per check and exits 1 at the first failure.
"use strict";

const browser = require("./chromium.js");

const url = process.argv[2];
if (!url) {
	console.error("usage: node classic.js URL_OF_NOTEBOOK (http://127.0.0.1:PORT/notebooks/NAME.ipynb)");
	process.exit(2);
}
const t0 = Date.now();

function check(ok, what) {
	if (!ok) throw new Error(what);
}

// run puts code in a new cell at the end of the notebook, runs it, waits
// for its execution count and for its output area's text to match want
// (IOPub's outputs and the shell's reply come on two sockets, in either
// order), and returns that text (what it has after timeout otherwise).
async function run(page, code, want, timeout = 60000) {
	const i = await page.evaluate((code) => {
		const nb = window.Jupyter.notebook;
		const cell = nb.insert_cell_at_bottom("code");
		cell.set_text(code);
		cell.execute();
		return nb.get_cells().length - 1;
	}, code);
	await page.waitForFunction(({ i, want }) => {
		const cell = window.Jupyter.notebook.get_cell(i);
		return typeof cell.input_prompt_number === "number" && new RegExp(want).test(cell.output_area.element[0].innerText);
	}, { i, want: want.source }, { timeout }).catch(() => {});
	return page.evaluate((i) => window.Jupyter.notebook.get_cell(i).output_area.element[0].innerText, i);
}

async function main() {
	const { profile, context } = await browser.launch("veclab-classic-");
	const problems = [];
	try {
		const page = await context.newPage();
		page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
		await page.goto(url);
		await page.waitForFunction(() => window.Jupyter && window.Jupyter.notebook && window.Jupyter.notebook.kernel &&
			window.Jupyter.notebook.kernel.is_connected() && window.Jupyter.notebook.kernel.info_reply &&
			window.Jupyter.notebook.kernel.info_reply.implementation === "veclab", null, { timeout: 90000 });
		const name = await page.evaluate(() => window.Jupyter.notebook.kernel.name);
		check(name === "veclab", `the notebook's kernel is ${name}, want veclab`);
		console.log(`ok   classic Notebook ${await page.evaluate(() => window.Jupyter.version)}: the Go (veclab) kernel connected`);

		const timeit = /per loop \(mean ± std\. dev\. of 3 runs, 20 loops each\)/;
		let out = await run(page, "%timeit -n 20 -r 3 6*7", timeit);
		check(timeit.test(out), `%timeit: ${JSON.stringify(out)}`);
		console.log(`ok   %timeit: ${JSON.stringify(out.trim())}`);
		out = await run(page, "%time 6*7", /Wall time: [^]*\b42\b/);
		check(/CPU times: user .* sys: .* total: /.test(out) && /Wall time: /.test(out) && /\b42\b/.test(out), `%time: ${JSON.stringify(out)}`);
		console.log(`ok   %time: ${JSON.stringify(out.trim().split("\n").join(" | "))}`);
		out = await run(page, "%nosuch 1", /UsageError/);
		check(/UsageError: Line magic function `%nosuch` not found/.test(out), `an unknown magic: ${JSON.stringify(out)}`);
		console.log(`ok   unknown magic: ${JSON.stringify(out.trim())}`);

		// Standard input: the Notebook's raw_input box.
		const i = await page.evaluate(() => {
			const nb = window.Jupyter.notebook;
			const cell = nb.insert_cell_at_bottom("code");
			cell.set_text('var first, last string\nfmt.Print("your name? ")\nfmt.Scanln(&first, &last)\n"hello " + first + " " + last');
			cell.execute();
			return nb.get_cells().length - 1;
		});
		const box = page.locator(".cell").nth(i).locator("input.raw_input");
		await box.waitFor({ timeout: 60000 });
		// The cell's printed prompt (a stream output) comes before the box.
		const prompt = await page.evaluate((i) => window.Jupyter.notebook.get_cell(i).output_area.element[0].innerText, i);
		check(prompt.includes("your name?"), `the input box came without the cell's prompt: ${JSON.stringify(prompt)}`);
		await box.fill("Ada Lovelace");
		await box.press("Enter");
		await page.waitForFunction((i) => window.Jupyter.notebook.get_cell(i).output_area.element[0].innerText.includes("hello"), i, { timeout: 60000 }).catch(() => {});
		out = await page.evaluate((i) => window.Jupyter.notebook.get_cell(i).output_area.element[0].innerText, i);
		check(out.includes("hello Ada Lovelace"), `the answered cell: ${JSON.stringify(out)}`);
		console.log(`ok   stdin: fmt.Scanln showed the Notebook's input box after ${JSON.stringify(prompt.trim())}; typed "Ada Lovelace" and Enter: ${JSON.stringify(out.trim().split("\n").pop())}`);
		check(problems.length === 0, problems.join("; "));
		console.log(`PASS (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
	} finally {
		await context.close();
		require("fs").rmSync(profile, { recursive: true, force: true });
	}
}

main().catch((e) => {
	console.error(`FAIL (${((Date.now() - t0) / 1000).toFixed(1)} s): ${e.message}`);
	process.exit(1);
});
