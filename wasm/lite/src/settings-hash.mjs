// schemaHash is FNV-1a (32 bits) of a settings schema's JSON text, with
// the text's length: the key that ties a validator build.mjs compiled to
// the schema it compiled, which settings.js checks before it uses one.
// Both compute it with this function on JSON.stringify of the schema.
export function schemaHash(text) {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193) >>> 0;
	}
	return h.toString(16).padStart(8, "0") + ":" + text.length;
}
