// Runs a js/wasm Go program as the JupyterLite worker does
// (wasm/lite/src/worker.js): Go's wasm_exec.js with no Node file system,
// so every file call but a write to stdout or stderr fails with ENOSYS,
// and HOME=/. The SIMD kernels' import reports none present (the pure-Go
// twins run). Usage: node nofs.js wasm_exec.js program.wasm
const nodefs = require("fs");
const [execJS, wasm] = process.argv.slice(2);
(0, eval)(nodefs.readFileSync(execJS, "utf8")); // defines globalThis.Go and, with no globalThis.fs, its ENOSYS stub
const go = new globalThis.Go();
go.env = { HOME: "/" };
go.importObject.veclab_simd = new Proxy({}, {
	get: (_, name) => (name === "features" ? () => 0 : () => { throw new Error(`veclab_simd.${String(name)} called with no SIMD present`); }),
});
WebAssembly.instantiate(nodefs.readFileSync(wasm), go.importObject).then((r) => go.run(r.instance)).catch((err) => {
	console.error(err);
	process.exit(1);
});
