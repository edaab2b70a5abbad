// Generates each game's TypeScript types from its published JSON Schemas (../../schemas/<game>/,
// `make schemas`) with json-schema-to-typescript, into src/gen/games/ (git-ignored, like the
// protobuf-es code beside it): <game>.ts per game and index.ts with the `Games` map the typed
// client (src/games.ts) is generic over. Generated at build time, not checked in: the schemas are
// checked in and kept current by a test, so a second checked-in copy could only go stale; the
// package ships the output (dist/lib/gen/games/*.d.ts).
//
// The schemas of a game are merged into one namespace of names exactly as the Python generator
// does (guildhall_client/games/generate.py), so both clients name the same types alike: the roots
// Action and Event (unions discriminated by `type`), View, Options, Outcome, GameData, Rejection,
// and the shared Decision and Description; a definition whose name a root or a different
// definition already took is prefixed with its schema's root name (Waterdeep's EventDecision).
import { mkdirSync, readFileSync, readdirSync, existsSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

const web = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const schemas = resolve(web, "../../schemas");
const out = resolve(web, "src/gen/games");

const KINDS = [
  ["action", "Action"],
  ["event", "Event"],
  ["view", "View"],
  ["options", "Options"],
  ["outcome", "Outcome"],
  ["game_data", "GameData"],
  ["rejection", "Rejection"],
  ["decision", "Decision"],
  ["description", "Description"],
];
const ROOTS = new Set(KINDS.map(([, name]) => name));

/** JSON with sorted keys, as Python's json.dumps(sort_keys=True) compares definitions. */
function canon(value) {
  if (Array.isArray(value)) return `[${value.map(canon).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canon(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The schema with its local references renamed, and 2020-12 tuples (prefixItems) as the
 * draft-07 ones json-schema-to-typescript reads (items: [...], additionalItems: false). */
function rewrite(schema, rename) {
  if (Array.isArray(schema)) return schema.map((s) => rewrite(s, rename));
  if (!schema || typeof schema !== "object") return schema;
  const result = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$ref" && typeof value === "string" && value.startsWith("#/$defs/")) {
      result.$ref = `#/$defs/${rename.get(value.slice("#/$defs/".length))}`;
    } else if (key === "prefixItems") {
      result.items = rewrite(value, rename);
      result.additionalItems = false;
    } else if (key === "items" && "prefixItems" in schema) {
      // the tuple's items: false, replaced above
    } else if (key === "discriminator" || key.startsWith("x-")) {
      // not JSON Schema: OpenAPI's discriminator and the view's sections
    } else {
      result[key] = rewrite(value, rename);
    }
  }
  return result;
}

/** The schema with each id field of the game's ids.json (services/export_ids.py) typed as the
 * union of the ids its shipped data names, or "" (Ys's `PlaceBroker.place`: a `PlaceId`), the id
 * types added to its definitions: exactly as the Python generator's `with_ids`. */
export function withIds(doc, ids, kind) {
  const fields = ids.fields?.[kind] ?? {};
  if (Object.keys(fields).length === 0) return doc;
  const typed = JSON.parse(JSON.stringify(doc));
  const used = new Set();
  for (const [pointer, ref] of Object.entries(fields)) {
    const path = pointer.split("/").slice(1).map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"));
    const last = path.pop();
    let parent = typed;
    for (const part of path) parent = parent[part];
    parent[last] = ref;
    for (const member of ref.anyOf ?? [ref]) if (member.$ref) used.add(member.$ref.split("/").at(-1));
  }
  typed.$defs ??= {};
  for (const name of [...used].sort()) {
    const { enum: values, description } = ids.ids[name];
    typed.$defs[name] = { type: "string", enum: values, description };
  }
  return typed;
}

/** The game's title and every definition of its schemas under one namespace of names. */
export function merged(game) {
  const idsFile = join(schemas, game, "ids.json");
  const ids = existsSync(idsFile) ? JSON.parse(readFileSync(idsFile, "utf8")) : {};
  const defs = {};
  const raw = new Map(); // a claimed name -> the original text of its definition
  const claimed = new Map(); // a name in its file + its text -> the name taken
  let title = game;
  for (const [kind, root] of KINDS) {
    const doc = withIds(JSON.parse(readFileSync(join(schemas, game, `${kind}.schema.json`), "utf8")), ids, kind);
    if (kind === "action") title = doc.title.replace(/ action$/, "");
    const local = doc.$defs ?? {};
    const rootDef = doc.$ref ? doc.$ref.split("/").at(-1) : null;
    const rename = new Map();
    for (const name of Object.keys(local).sort()) {
      if (name === rootDef) {
        rename.set(name, root);
        continue;
      }
      const text = canon(local[name]);
      const key = `${name}\u0000${text}`;
      let target = claimed.get(key) ?? name;
      if (!claimed.has(key) && (ROOTS.has(target) || (raw.has(target) && raw.get(target) !== text))) target = root + name;
      rename.set(name, target);
      claimed.set(key, target);
      if (!raw.has(target)) raw.set(target, text);
    }
    for (const [name, schema] of Object.entries(local)) {
      const target = rename.get(name);
      if (target in defs && name !== rootDef) continue;
      defs[target] = { ...rewrite(schema, rename), title: target };
    }
    if (rootDef === null) {
      const { $defs, $id, $schema, title: own, ...top } = doc;
      defs[root] = { ...rewrite(top, rename), title: root, description: own };
    }
  }
  return { title, defs };
}

function games() {
  return readdirSync(schemas)
    .filter((name) => existsSync(join(schemas, name, "action.schema.json")))
    .sort();
}

async function generate(game) {
  const { title, defs } = merged(game);
  const schema = {
    title: "Types",
    description: `${title}: every root type of the game, by schema name.`,
    type: "object",
    additionalProperties: false,
    properties: Object.fromEntries(KINDS.map(([kind, root]) => [kind, { $ref: `#/$defs/${root}` }])),
    required: KINDS.map(([kind]) => kind),
    $defs: defs,
  };
  const banner =
    `// ${title}: the types of its actions, events, views, options, outcome and game data.\n` +
    `// Generated from schemas/${game}/ by clients/web/scripts/games.mjs (json-schema-to-typescript): do not edit.`;
  const code = await compile(schema, "Types", {
    bannerComment: banner,
    additionalProperties: false,
    unreachableDefinitions: true,
    strictIndexSignatures: true,
    format: true,
    style: { printWidth: 110 },
  });
  // json-schema-to-typescript notes on every definition where it came from: not for readers.
  return code
    .replace(/ \*\n \* This interface was referenced by `Types`'s JSON-Schema\n \* via the `definition` "\w+".\n/g, "")
    .replace(/\/\*\*\n \* This interface was referenced by `Types`'s JSON-Schema\n \* via the `definition` "\w+".\n \*\/\n/g, "");
}

/** The gateway's own stream entries (schemas/stream/: match_created, seat_resigned, ...), which
 * a match's events include beside the game's: StreamEntry, their union on `type`. */
async function stream() {
  const dir = join(schemas, "stream");
  const defs = {};
  const anyOf = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".schema.json")).sort()) {
    const doc = JSON.parse(readFileSync(join(dir, file), "utf8"));
    for (const [name, schema] of Object.entries(doc.$defs ?? {})) {
      if (name in defs && canon(defs[name]) !== canon({ ...schema, title: name })) throw new Error(`stream: two ${name}`);
      defs[name] = rewrite({ ...schema, title: name }, { get: (n) => n });
    }
    anyOf.push({ $ref: doc.$ref });
  }
  const schema = { title: "StreamEntry", description: "An entry of a match's stream written by the gateway, not the game.", anyOf, $defs: defs };
  const code = await compile(schema, "StreamEntry", {
    bannerComment: "// The gateway's stream entries, generated from schemas/stream/ by clients/web/scripts/games.mjs: do not edit.",
    additionalProperties: false,
    unreachableDefinitions: true,
    strictIndexSignatures: true,
    format: true,
    style: { printWidth: 110 },
  });
  return code.replace(/ \*\n \* This interface was referenced by `StreamEntry`'s JSON-Schema\n \* via the `definition` "\w+".\n/g, "")
    .replace(/\/\*\*\n \* This interface was referenced by `StreamEntry`'s JSON-Schema\n \* via the `definition` "\w+".\n \*\/\n/g, "");
}

mkdirSync(out, { recursive: true });
const names = games();
for (const game of names) writeFileSync(join(out, `${game}.ts`), await generate(game));
writeFileSync(join(out, "stream.ts"), await stream());
const index = [
  "// Every game's types (generated by clients/web/scripts/games.mjs from schemas/: do not edit).",
  ...names.map((g) => `import type * as ${g} from "./${g}.js";`),
  ...names.map((g) => `export type { ${g} };`),
  'export type { StreamEntry } from "./stream.js";',
  "",
  "/** Each game's root types: `Games[\"ys\"][\"action\"]` is Ys's action union. */",
  "export interface Games {",
  ...names.map((g) => `  ${g}: ${g}.Types;`),
  "}",
  "",
  "/** The ids of the games these types were generated for. */",
  "export type GameId = keyof Games;",
  "",
  `export const GAME_IDS = ${JSON.stringify(names)} as const;`,
  "",
];
writeFileSync(join(out, "index.ts"), index.join("\n"));
console.log(`generated the types of ${names.length} games into src/gen/games/`);
