// process.js is the `process` of the page's bundle (build.mjs injects it
// where a module reads the free variable process): what JupyterLab's own
// builds give the browser in its place. JupyterLab's PathExt.resolve is
// path-browserify's posix.resolve, which asks process.cwd() for the
// directory a relative path starts from; with no process in the page it
// threw, and every relative link of a Markdown cell (the notebooks'
// previous/next links, README.md's reading order) became an empty href
// (@jupyterlab/rendermime's handleAnchor turns a failed resolution into
// href=""), which a click opened as the site's root in a new tab. The
// contents' root is "/": a path resolves against the notebook's directory
// (RenderMimeRegistry.UrlResolver.resolveUrl), never against a process's
// working directory. JupyterLab's examples define the same object
// (packages/services/examples/*/rspack.config.js: "Needed for various
// packages using cwd(), like the path polyfill").
export const process = { cwd: () => "/", env: { NODE_ENV: "production" } };
