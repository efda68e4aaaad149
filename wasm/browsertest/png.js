// png.js turns chromium's screenshots (8-bit RGB or RGBA, not interlaced)
// into palette PNGs of at most 256 colours, with node's zlib only, so the
// screenshots committed to docs/ stay small without an image tool
// installed. The PNG format is the W3C's Portable Network Graphics
// Specification (Third Edition): chunks, filter types 0–4 (section 7.3,
// the Paeth predictor of 9.4) and the CRC-32 of ISO 3309 (Annex D).
//
// The palette is the popularity algorithm (Heckbert, "Color image
// quantization for frame buffer display", SIGGRAPH 1982): colours are
// counted at 5 bits per channel and the 256 most frequent bins, each at
// the mean of the colours it holds, become the palette; every other colour
// takes its nearest palette entry. A window of a notebook has a few flat
// colours and their anti-aliased blends, so that is enough to keep text
// and charts legible.
"use strict";

const zlib = require("zlib");

const crcTable = (() => {
	const t = new Uint32Array(256);
	for (let n = 0; n < 256; n++) {
		let c = n;
		for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
		t[n] = c >>> 0;
	}
	return t;
})();

function crc32(buf) {
	let c = 0xffffffff;
	for (let i = 0; i < buf.length; i++) c = crcTable[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
	return (c ^ 0xffffffff) >>> 0;
}

const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

// decode returns {width, height, rgb} (3 bytes a pixel) of an 8-bit
// truecolour PNG, with or without alpha (alpha dropped: screenshots are
// opaque).
function decode(buf) {
	if (!buf.subarray(0, 8).equals(signature)) throw new Error("png: not a PNG file");
	let pos = 8, width = 0, height = 0, channels = 0;
	const idat = [];
	while (pos < buf.length) {
		const len = buf.readUInt32BE(pos);
		const type = buf.toString("latin1", pos + 4, pos + 8);
		const data = buf.subarray(pos + 8, pos + 8 + len);
		if (type === "IHDR") {
			width = data.readUInt32BE(0);
			height = data.readUInt32BE(4);
			const depth = data[8], colour = data[9], interlace = data[12];
			if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0) {
				throw new Error(`png: only 8-bit, non-interlaced RGB or RGBA is read (depth ${depth}, colour type ${colour}, interlace ${interlace})`);
			}
			channels = colour === 6 ? 4 : 3;
		} else if (type === "IDAT") idat.push(data);
		else if (type === "IEND") break;
		pos += 12 + len;
	}
	if (!width || !height) throw new Error("png: no IHDR chunk");
	const raw = zlib.inflateSync(Buffer.concat(idat));
	const stride = width * channels;
	if (raw.length < height * (stride + 1)) throw new Error(`png: ${raw.length} bytes of image data, want ${height * (stride + 1)}`);
	const cur = Buffer.alloc(stride), prev = Buffer.alloc(stride);
	const rgb = Buffer.alloc(width * height * 3);
	for (let y = 0; y < height; y++) {
		const f = raw[y * (stride + 1)];
		const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
		for (let i = 0; i < stride; i++) {
			const a = i >= channels ? cur[i - channels] : 0;
			const b = prev[i];
			const c = i >= channels ? prev[i - channels] : 0;
			let p;
			switch (f) {
				case 0: p = 0; break;
				case 1: p = a; break;
				case 2: p = b; break;
				case 3: p = (a + b) >> 1; break;
				case 4: {
					const pa = Math.abs(b - c), pb = Math.abs(a - c), pc = Math.abs(a + b - 2 * c);
					p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
					break;
				}
				default: throw new Error(`png: unknown filter type ${f} on row ${y}`);
			}
			cur[i] = (line[i] + p) & 0xff;
		}
		for (let x = 0; x < width; x++) {
			rgb[(y * width + x) * 3] = cur[x * channels];
			rgb[(y * width + x) * 3 + 1] = cur[x * channels + 1];
			rgb[(y * width + x) * 3 + 2] = cur[x * channels + 2];
		}
		cur.copy(prev);
	}
	return { width, height, rgb };
}

function chunk(type, data) {
	const out = Buffer.alloc(12 + data.length);
	out.writeUInt32BE(data.length, 0);
	out.write(type, 4, "latin1");
	data.copy(out, 8);
	out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
	return out;
}

// quantize returns a palette (≤ 256 RGB entries) and each pixel's index.
function quantize({ width, height, rgb }) {
	const n = width * height;
	const bins = new Map(); // 15-bit key → [count, r, g, b sums]
	for (let i = 0; i < n; i++) {
		const r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
		const k = ((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3);
		let e = bins.get(k);
		if (!e) bins.set(k, (e = [0, 0, 0, 0]));
		e[0]++; e[1] += r; e[2] += g; e[3] += b;
	}
	const top = [...bins.entries()].sort((x, y) => y[1][0] - x[1][0]).slice(0, 256);
	const palette = top.map(([, e]) => [Math.round(e[1] / e[0]), Math.round(e[2] / e[0]), Math.round(e[3] / e[0])]);
	const indexOf = new Map(top.map(([k], i) => [k, i]));
	const nearest = (r, g, b) => {
		let best = 0, bd = Infinity;
		for (let i = 0; i < palette.length; i++) {
			const p = palette[i];
			const d = (p[0] - r) ** 2 + (p[1] - g) ** 2 + (p[2] - b) ** 2;
			if (d < bd) { bd = d; best = i; }
		}
		return best;
	};
	const idx = Buffer.alloc(n);
	for (let i = 0; i < n; i++) {
		const r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
		const k = ((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3);
		let j = indexOf.get(k);
		if (j === undefined) indexOf.set(k, (j = nearest(r, g, b)));
		idx[i] = j;
	}
	return { palette, idx };
}

// encodePalette returns the screenshot as a palette PNG (colour type 3,
// 8 bits an index, filter type 0 on every row, zlib level 9).
function encodePalette(shot) {
	const img = decode(shot);
	const { palette, idx } = quantize(img);
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(img.width, 0);
	ihdr.writeUInt32BE(img.height, 4);
	ihdr[8] = 8; // bit depth
	ihdr[9] = 3; // colour type: palette
	const plte = Buffer.from(palette.flat());
	const raw = Buffer.alloc(img.height * (img.width + 1));
	for (let y = 0; y < img.height; y++) idx.copy(raw, y * (img.width + 1) + 1, y * img.width, (y + 1) * img.width);
	return Buffer.concat([signature, chunk("IHDR", ihdr), chunk("PLTE", plte), chunk("IDAT", zlib.deflateSync(raw, { level: 9 })), chunk("IEND", Buffer.alloc(0))]);
}

module.exports = { decode, encodePalette, crc32 };
