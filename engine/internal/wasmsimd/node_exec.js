// node_exec.js runs a GOOS=js GOARCH=wasm program (a test binary, under
// `go test -exec`) in Node, as the Go toolchain's lib/wasm/wasm_exec_node.js
// does, plus the host's part of the veclab_simd import (veclab-simd.js,
// beside this file):
//
//	GOOS=js GOARCH=wasm go test -exec="node $PWD/engine/internal/wasmsimd/node_exec.js" ./engine/internal/f32/
//
// The toolchain's wasm_exec.js is found through $GOROOT, else `go env
// GOROOT`. VECLAB_SIMD=off in the environment installs the kernels
// disabled, so the program runs its pure-Go fallback (the tests check the
// kernel set they got against it); VECLAB_SIMD_LOG=1 prints the console
// line a browser shows.
"use strict";

const path = require("path");
const fs = require("fs");

if (process.argv.length < 3) {
	console.error("usage: node node_exec.js PROGRAM.wasm [arguments]");
	process.exit(1);
}

globalThis.require = require;
globalThis.fs = fs;
globalThis.path = path;
globalThis.TextEncoder = require("util").TextEncoder;
globalThis.TextDecoder = require("util").TextDecoder;
globalThis.performance ??= require("perf_hooks").performance;
globalThis.crypto ??= require("crypto");

const goroot = process.env.GOROOT || require("child_process").execFileSync("go", ["env", "GOROOT"], { encoding: "utf8" }).trim();
require(path.join(goroot, "lib", "wasm", "wasm_exec.js"));
require(path.join(__dirname, "veclab-simd.js"));

const go = new Go();
go.argv = process.argv.slice(2);
go.env = Object.assign({ TMPDIR: require("os").tmpdir() }, process.env);
go.exit = process.exit;
const simd = veclabSIMD.install(go.importObject, { disable: process.env.VECLAB_SIMD === "off", quiet: process.env.VECLAB_SIMD_LOG !== "1" });
WebAssembly.instantiate(fs.readFileSync(process.argv[2]), go.importObject).then((result) => {
	simd.attach(result.instance);
	process.on("exit", (code) => { // Node exits when no event is pending
		if (code === 0 && !go.exited) {
			// deadlock: make Go print the error and its stacks
			go._pendingEvent = { id: 0 };
			go._resume();
		}
	});
	return go.run(result.instance);
}).catch((err) => {
	console.error(err);
	process.exit(1);
});
