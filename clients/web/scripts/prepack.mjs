// `npm pack` / `npm publish` ship dist/ as built: refuse to pack a package without its library
// (dist/lib/, from `npm run build` or `make web`) rather than ship types that point nowhere.
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const web = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const needed = ["dist/lib/index.js", "dist/lib/index.d.ts", "dist/lib/gen/games/index.d.ts", "dist/guildhall.js"];
const missing = needed.filter((file) => !existsSync(resolve(web, file)));
if (missing.length) {
  console.error(`not built: ${missing.join(", ")}; run \`npm run build\` (or \`make web\` from the repository root)`);
  process.exit(1);
}
