// The site's service worker (build/… copies it to the root as
// veclab-sw.js): it makes the page cross-origin isolated on a host that
// sends no COOP/COEP headers (GitHub Pages, most static hosts), so the
// kernel's interrupt has its SharedArrayBuffer flag (kernel.js). A page is
// cross-origin isolated when its document is served with
// Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy:
// require-corp; a service worker may answer the page's requests with
// responses of its own, headers included. That is the technique of
// coi-serviceworker (github.com/gzuidhof/coi-serviceworker,
// coi-serviceworker.js v0.1.7), which rewrites every response with the
// two headers and CORP; this worker does less:
//
//   - only the site's own documents and worker scripts get the headers
//     (the policies apply to a document and to a worker's global scope;
//     the site loads nothing from another origin, and a same-origin
//     subresource needs no CORP under require-corp);
//   - every other request is not touched (no respondWith): veclab.wasm
//     streams from the network or the HTTP cache as without a service
//     worker, and Chromium keeps its cache of the compiled module;
//   - a response that is not a plain one (a redirect handed to the page,
//     an opaque one, a network error) is passed on as it is.
//
// The page registers it and reloads once it controls the page
// (index.html's first script); `veclab serve` sends the headers itself, so
// there the page is isolated at once and registers nothing.

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (e) => e.waitUntil(self.clients.claim()));

// isolated are the request destinations whose responses carry the
// policies of a browsing context or a worker.
const isolated = new Set(["document", "iframe", "frame", "worker", "sharedworker"]);

self.addEventListener("fetch", (e) => {
	const r = e.request;
	if (new URL(r.url).origin !== self.location.origin) return;
	if (r.mode !== "navigate" && !isolated.has(r.destination)) return;
	e.respondWith((async () => {
		const res = await fetch(r);
		if (res.type === "opaqueredirect" || res.type === "opaque" || res.status === 0) return res;
		const h = new Headers(res.headers);
		h.set("Cross-Origin-Opener-Policy", "same-origin");
		h.set("Cross-Origin-Embedder-Policy", "require-corp");
		return new Response(res.body, { status: res.status, statusText: res.statusText, headers: h });
	})());
});
