/**
 * Builds the console into dist/: the page shell (index.html) and, under assets/, one minified
 * script (Preact and uPlot bundled in) and one style sheet, each also gzip- and brotli-compressed. The gateway serves these files as
 * they are; nothing is fetched from elsewhere at run time. Run by `npm run build` (and setup).
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = dirname(fileURLToPath(import.meta.url));
const dist = join(root, "dist");
rmSync(dist, { recursive: true, force: true });
mkdirSync(join(dist, "assets"), { recursive: true });

await build({
  entryPoints: { app: join(root, "src/main.tsx") },
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  jsx: "automatic",
  jsxImportSource: "preact",
  outdir: join(dist, "assets"),
  // uPlot's own style sheet, bundled beside ours into app.css.
  loader: { ".css": "css" },
  legalComments: "none",
  logLevel: "warning",
});
copyFileSync(join(root, "src/index.html"), join(dist, "index.html"));
// Compressed once here rather than on every request: the gateway serves the variant a browser accepts.
for (const name of readdirSync(join(dist, "assets"))) {
  const file = join(dist, "assets", name);
  const bytes = readFileSync(file);
  writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
  writeFileSync(`${file}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
}
console.log(`console built into ${dist}`);
