// settings provides JupyterLab's setting registry (ISettingRegistry) with
// the settings schemas' validators compiled when the site is built, not
// on every page load.
//
// JupyterLab's own provider (@jupyterlab/apputils-extension's settings
// plugin) makes a SettingRegistry on DefaultSchemaValidator, which hands
// each plugin's schema to Ajv twice when it is first loaded (a validator,
// and a composer that fills in the defaults), and Ajv compiles each into
// a JavaScript function at run time: 0.8 s of a warm load's 1.4 s in that
// plugin, on the page's main thread, before any plugin that reads its
// settings can start. build.mjs compiles the same schemas with the same
// Ajv options into code (Ajv's standalone code, ajv.js.org/standalone.html)
// and checks each the way DefaultSchemaValidator does (against
// JupyterLab's plugin schema and JSON Schema's meta-schema), so a schema
// that would be refused fails the build instead.
//
// A plugin whose schema is not the one built (a schema a transform
// rewrote at load, as the main menu's and the shortcuts' are, or one the
// site did not know when it was built) goes to DefaultSchemaValidator, so
// every schema is checked as JupyterLab checks it.
import { ISettingConnector, ISettingRegistry, SettingRegistry, DefaultSchemaValidator } from "@jupyterlab/settingregistry";
import { PageConfig } from "@jupyterlab/coreutils";
import { JSONExt } from "@lumino/coreutils";
import * as json5 from "json5";
import { compiled } from "veclab:validators"; // build.mjs writes it
import { schemaHash } from "./settings-hash.mjs";

// PrecompiledValidator is an ISchemaValidator: DefaultSchemaValidator's
// validateData on validators compiled at build time.
export class PrecompiledValidator {
	// table maps a plugin id to {hash, validate, compose}.
	constructor(table) {
		this._table = table;
		this._fallback = null;
		this._checked = new WeakMap(); // schema object → its hash matched
		this.compiledUses = 0; // validations the compiled code did
		this.fallbacks = new Map(); // plugin id → validations DefaultSchemaValidator did
	}

	_compiled(plugin) {
		const c = this._table[plugin.id];
		if (!c || !plugin.schema || typeof plugin.schema !== "object") return null;
		let ok = this._checked.get(plugin.schema);
		if (ok === undefined) {
			ok = schemaHash(JSON.stringify(plugin.schema)) === c.hash;
			this._checked.set(plugin.schema, ok);
		}
		return ok ? c : null;
	}

	validateData(plugin, populate = true) {
		const c = this._compiled(plugin);
		if (!c) {
			this.fallbacks.set(plugin.id, (this.fallbacks.get(plugin.id) || 0) + 1);
			this._fallback ??= new DefaultSchemaValidator();
			return this._fallback.validateData(plugin, populate);
		}
		this.compiledUses++;
		// The user's settings are commented JSON, as DefaultSchemaValidator
		// reads them, with its error shapes.
		let user;
		try {
			user = json5.parse(plugin.raw);
		} catch (error) {
			if (error instanceof SyntaxError) {
				return [{ instancePath: "", keyword: "syntax", schemaPath: "", message: error.message }];
			}
			return [{
				instancePath: "", keyword: "parse", schemaPath: "",
				message: `${error.description} (line ${error.lineNumber} column ${error.column})`,
			}];
		}
		if (!c.validate(user)) return c.validate.errors;
		const composite = JSONExt.deepCopy(user); // the composer fills it in
		if (!c.compose(composite)) return c.compose.errors;
		if (populate) plugin.data = { composite, user };
		return null;
	}
}

// compareWithDefault validates, for every plugin of registry whose schema
// has compiled validators, a set of user settings with both validator and
// a new DefaultSchemaValidator, and returns the plugins compared, the
// settings tried and every difference in the errors or the composite
// data: the browser test's check that the compiled code answers as
// JupyterLab's validator does. The settings are the plugin's own, none
// ({}), a syntax error, and for each top-level property with a default,
// that default and a value of another type.
export function compareWithDefault(validator, registry) {
	const reference = new DefaultSchemaValidator();
	const out = { plugins: 0, inputs: 0, differences: [] };
	for (const plugin of Object.values(registry.plugins)) {
		if (!validator._compiled(plugin)) continue;
		out.plugins++;
		const raws = [plugin.raw, "{}", "{"];
		for (const [k, p] of Object.entries(plugin.schema.properties || {})) {
			if (!("default" in p)) continue;
			raws.push(JSON.stringify({ [k]: p.default }));
			raws.push(JSON.stringify({ [k]: typeof p.default === "string" ? 42 : "not a " + typeof p.default }));
		}
		for (const raw of raws) {
			out.inputs++;
			const a = { ...plugin, raw, data: undefined }, b = { ...plugin, raw, data: undefined };
			const got = JSON.stringify([validator.validateData(a), a.data]);
			const want = JSON.stringify([reference.validateData(b), b.data]);
			if (got !== want) out.differences.push({ id: plugin.id, raw, got: got.slice(0, 300), want: want.slice(0, 300) });
		}
	}
	return out;
}

export default {
	id: "veclab-lite:settings",
	description: "Provides the setting registry, its schemas' validators compiled when the site was built.",
	autoStart: true,
	provides: ISettingRegistry,
	requires: [ISettingConnector],
	activate: async (app, connector) => {
		const validator = new PrecompiledValidator(compiled);
		// The settings of the plugins this page has: another application's
		// schemas beside these are not this page's.
		const active = (await connector.list("active")).values.filter((v) => app.hasPlugin(v.id));
		const registry = new SettingRegistry({ connector, plugins: active, validator });
		// A plugin with a schema that is not among the active ones (one
		// that activated late) gets its settings once the app is restored,
		// or it would never see them.
		void app.restored.then(async () => {
			const { ids } = await connector.list("ids");
			for (const id of ids) {
				if (!app.hasPlugin(id) || PageConfig.Extension.isDisabled(id) || id in registry.plugins) continue;
				try {
					await registry.load(id);
				} catch (err) {
					console.warn(`veclab: the settings of ${id} did not load:`, err);
				}
			}
		});
		// For the browser test: the counts, and compareWithDefault.
		globalThis.veclabBoot.settings = { validator, compare: () => compareWithDefault(validator, registry) };
		return registry;
	},
};
