// Bundles the client library (dist/guildhall.js, ESM) and the web table (dist/index.html, app.js,
// style.css, favicon.svg) with esbuild; the gateway serves dist/ with WEB_DIR=clients/web/dist.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const web = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = resolve(web, "dist");
mkdirSync(dist, { recursive: true });
const common = { bundle: true, format: "esm", target: "es2022", sourcemap: true, logLevel: "warning" };
await build({ ...common, entryPoints: [resolve(web, "src/index.ts")], outfile: resolve(dist, "guildhall.js"), platform: "neutral" });
await build({ ...common, entryPoints: [resolve(web, "table/main.ts")], outfile: resolve(dist, "app.js"), platform: "browser", minify: true });
copyFileSync(resolve(web, "table", "index.html"), resolve(dist, "index.html"));
for (const file of ["style.css", "favicon.svg"]) copyFileSync(resolve(web, "table", "common", file), resolve(dist, file));
console.log("built dist/guildhall.js and the web table in dist/");
