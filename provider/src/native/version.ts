/**
 * The plugin's version: the `@gateway-keys/provider` package's, so the npm package and the plugin
 * archive always agree. A plain `require` (not an import) keeps package.json outside the compiled
 * folder; esbuild inlines it into the bundled plugin.
 */
export const PLUGIN_VERSION: string = (require("../../package.json") as { version: string }).version;
