// Generates the protobuf-es code for the gateway's protos into src/gen/ (git-ignored), with the
// project's own protoc (grpcio-tools in the Python venv; PYTHON overrides) and protoc-gen-es from
// node_modules: the protos are the source, generated code is a build product (as gen/ for Python).
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const web = resolve(here, "..");
const protos = resolve(web, "../../protos");
const python = process.env.PYTHON ?? resolve(web, "../../.venv/bin/python");
const plugin = resolve(web, "node_modules/.bin/protoc-gen-es");
const out = resolve(web, "src/gen");

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith(".proto") ? [path] : [];
  });
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const files = walk(protos).map((p) => relative(protos, p)).sort();
execFileSync(
  python,
  [
    "-m", "grpc_tools.protoc", `-I${protos}`, `--plugin=protoc-gen-es=${plugin}`,
    `--es_out=${out}`, "--es_opt=target=ts,import_extension=js", ...files,
  ],
  { stdio: "inherit" },
);
console.log(`generated ${files.length} protos into ${relative(process.cwd(), out) || out}`);
