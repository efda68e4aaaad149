// compress.mjs writes NAME.br (brotli) and NAME.gz (gzip -9) beside each
// file given, or beside each compressible file under a directory given,
// for a server that sends pre-compressed files (`veclab serve` does, by
// the request's Accept-Encoding). Go's standard library has no brotli
// encoder; node's zlib has one.
//
//	node compress.mjs FILE_OR_DIR...
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const exts = new Set([".js", ".css", ".json", ".html", ".svg", ".wasm", ".ipynb", ".txt", ".ttf", ".eot"]);
const files = [];
const walk = (p) => {
	const st = fs.statSync(p);
	if (st.isDirectory()) {
		for (const f of fs.readdirSync(p)) walk(path.join(p, f));
	} else if (exts.has(path.extname(p)) && st.size >= 1024) {
		files.push(p);
	}
};
for (const a of process.argv.slice(2)) walk(a);
for (const f of files) {
	const data = fs.readFileSync(f);
	const br = zlib.brotliCompressSync(data, {
		params: {
			// The 80 MB module at quality 5 (16 MiB window): 14.6 MB in 9 s,
			// where quality 9 gives 13.9 MB in 68 s and quality 11 12.1 MB
			// in 25 minutes (measured at a load average of about 20; the
			// build would take that long on every change of the Go
			// sources); the site's files at 9 (11 is a few per cent
			// smaller and several times slower).
			[zlib.constants.BROTLI_PARAM_QUALITY]: data.length > 4e6 ? 5 : 9,
			[zlib.constants.BROTLI_PARAM_LGWIN]: 24,
			[zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length,
		},
	});
	const gz = zlib.gzipSync(data, { level: 9 });
	for (const [ext, buf] of [[".br", br], [".gz", gz]]) {
		const tmp = `${f}${ext}.tmp${process.pid}`;
		fs.writeFileSync(tmp, buf);
		fs.renameSync(tmp, f + ext);
	}
}
console.log(`compress.mjs: ${files.length} files`);
