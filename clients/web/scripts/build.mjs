// Builds what the package ships and the gateway serves, into dist/:
//   dist/lib/        the library for npm: tsc's JS and .d.ts of src/, the generated protobuf-es code
//                    and game types (src/gen/) included (the package's exports point here);
//   dist/guildhall.js the library bundled with its dependencies for a page's <script type=module>;
//   dist/index.html, app.js, style.css, favicon.svg  the web table (the gateway serves dist/ with
//                    WEB_DIR).
// Run after scripts/gen.mjs and scripts/games.mjs (`npm run build` runs all three).
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const web = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = resolve(web, "dist");
mkdirSync(dist, { recursive: true });
rmSync(resolve(dist, "lib"), { recursive: true, force: true });
execFileSync(process.execPath, [resolve(web, "node_modules/typescript/bin/tsc"), "-p", resolve(web, "tsconfig.build.json")], {
  stdio: "inherit",
});
const common = { bundle: true, format: "esm", target: "es2022", sourcemap: true, logLevel: "warning" };
await build({ ...common, entryPoints: [resolve(web, "src/index.ts")], outfile: resolve(dist, "guildhall.js"), platform: "neutral" });
await build({ ...common, entryPoints: [resolve(web, "table/main.ts")], outfile: resolve(dist, "app.js"), platform: "browser", minify: true });
copyFileSync(resolve(web, "table", "index.html"), resolve(dist, "index.html"));
for (const file of ["style.css", "favicon.svg"]) copyFileSync(resolve(web, "table", "common", file), resolve(dist, file));
console.log("built dist/lib/ (the package), dist/guildhall.js and the web table in dist/");
