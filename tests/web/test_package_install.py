"""The TypeScript package as a user gets it: `npm pack` of clients/web, the tarball installed into a
new folder (its dependencies from the registry, as for anyone), a small program importing it
type-checked with `tsc --strict` (the package's own declarations checked too: no skipLibCheck)
and run under Node against a real gateway: it creates a Ys match, reads typed views and plays
typed actions. A program with wrongly typed actions and views fails `tsc`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from devstack.stack import Stack

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"
TSC = WEB / "node_modules" / "typescript" / "bin" / "tsc"

TSCONFIG = {
    "compilerOptions": {
        "target": "ES2022",
        "module": "NodeNext",
        "moduleResolution": "NodeNext",
        "lib": ["ES2023", "DOM"],
        "types": [],
        "strict": True,
        "skipLibCheck": False,
        "outDir": "out",
    },
    "files": ["program.ts"],
}

# Node's `process`, without @types/node: the program needs only its environment.
PROCESS = "declare const process: { env: Record<string, string | undefined>; exitCode?: number };\n"

PROGRAM = (
    PROCESS
    + """
import {
  GuildhallClient, NotYourTurn, type ActionNamed, type RejectionCode, type TypedMatchView,
} from "@guildhall/web";
import type { View, PlaceBroker } from "@guildhall/web/games/ys";
import type { Games } from "@guildhall/web/games";

const { GUILDHALL_HTTP, GUILDHALL_KEY } = process.env;
const gh = new GuildhallClient({ baseUrl: GUILDHALL_HTTP!, credential: GUILDHALL_KEY! });
const ys = gh.game("ys");
const options: Games["ys"]["options"] = { price_limit: 5 };
const match = await ys.createMatch(["ann", "bob"], options);
const seats = match.seats.map((s) => ys.as(s.token));
console.log("created", match.matchId.length > 0, seats.length);
const table = await ys.createTable(2, { options });   // a table takes the game's options too
const refusal: NotYourTurn = new NotYourTurn("wait");  // the error classes are types
const newer: RejectionCode = "a_code_from_a_later_gateway";  // codes stay open
console.log("table", table.inviteCode.length > 0, refusal.code, newer.length > 0);

let played = 0;
let bids = 0;
while (played < 8) {
  const views: TypedMatchView<"ys">[] = await Promise.all(seats.map((s) => s.getView(match.matchId)));
  const mine = views.find((v) => v.myTurn);
  if (!mine) break;
  const board: View = mine.view;                       // the game's view, typed
  const seat = seats[mine.seat];
  const first = mine.legalActions[0];
  if (first.type === "bid") {
    // An action written out by hand, checked against Ys's actions: two values from the screen.
    const bid: ActionNamed<"ys", "bid"> = { type: "bid", values: [first.values[0], first.values[1]] };
    await seat.submit(match.matchId, bid, { expectedVersion: mine.version });
    bids++;
  } else if (first.type === "place_broker") {
    const { place, value, face_up } = first;
    const broker: PlaceBroker = { type: "place_broker", place, value, face_up };
    await seat.submit(match.matchId, broker);
  } else {
    await seat.submit(match.matchId, first);
  }
  played++;
  console.log("played", played, first.type, "round", board.round, "phase", board.phase);
}
const view = await ys.getView(match.matchId);
const events = await ys.events(match.matchId);
const types = events.map((e) => e.data.type);
console.log("bids", bids, "events", types[0], types.includes("bid_placed"), "seats", view.view.seats.length);
console.log("done", played);
"""
)

BAD = (
    PROCESS
    + """
import { GuildhallClient } from "@guildhall/web";

const ys = new GuildhallClient({ baseUrl: "" }).game("ys");
await ys.submit("m", { type: "place_broker", place: 3, value: 2, face_up: true });
await ys.submit("m", { type: "take_money" });
const view = await ys.getView("m");
console.log(view.view.no_such_field);
await ys.createTable(2, { options: { price_limit: "five" } });
await ys.submit("m", { type: "place_broker", place: "harbour", value: 2, face_up: true });
"""
)


def npm(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    run = subprocess.run(["npm", *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"npm {' '.join(args)}: {run.stdout[-2000:]}{run.stderr[-3000:]}"
    return run


def tsc(folder: Path, source: str) -> subprocess.CompletedProcess[str]:
    (folder / "program.ts").write_text(source)
    return subprocess.run(
        ["node", str(TSC), "-p", "tsconfig.json", "--pretty", "false"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_packed_package_installs_type_checks_and_plays(tmp_path: Path) -> None:
    assert (WEB / "dist" / "lib" / "index.d.ts").is_file(), "the package is not built: `make web`"
    assert shutil.which("npm") and TSC.is_file(), "npm and the web client's devDependencies: `make web`"

    # The tarball a user would get, with everything it declares inside it.
    packed = tmp_path / "packed"
    packed.mkdir()
    npm("pack", "--pack-destination", str(packed), cwd=WEB)
    (tarball,) = packed.glob("guildhall-web-*.tgz")

    app = tmp_path / "app"
    app.mkdir()
    (app / "package.json").write_text(json.dumps({"name": "app", "private": True, "type": "module"}))
    npm("install", "--no-audit", "--no-fund", "--loglevel=error", str(tarball), cwd=app)
    installed = app / "node_modules" / "@guildhall" / "web"
    manifest = json.loads((installed / "package.json").read_text())
    assert "private" not in manifest and manifest["license"] == "MIT"
    assert (installed / "LICENSE").is_file() and (installed / "README.md").is_file()
    # Versioned with the API, its changelog inside, ranges (docs/clients.md, "Versioning").
    assert (
        manifest["version"].startswith("1.")
        and "\n## " + manifest["version"] in (installed / "CHANGELOG.md").read_text()
    )
    assert all(spec.startswith("^") for spec in manifest["dependencies"].values()), manifest
    assert not (installed / "src").exists(), "the package ships its build, not its sources"
    (app / "tsconfig.json").write_text(json.dumps(TSCONFIG))

    # A wrongly typed action (a field of the wrong type; another game's action) or view field.
    bad = tsc(app, BAD)
    assert bad.returncode != 0, bad.stdout
    errors = [line for line in bad.stdout.splitlines() if "error TS" in line]
    assert len(errors) == 5, bad.stdout
    assert (
        "program.ts(6," in errors[0] and "'number' is not assignable to type '\"\" | PlaceId'" in errors[0]
    ), errors
    assert "program.ts(7," in errors[1] and '"take_money"' in errors[1], errors
    assert "program.ts(9," in errors[2] and "no_such_field" in errors[2], errors
    assert "program.ts(10," in errors[3] and "'string' is not assignable to type 'number'" in errors[3], (
        errors
    )
    # Ids typed from the game's data: "harbour" is no Ys place.
    assert "program.ts(11," in errors[4] and "'\"harbour\"' is not assignable" in errors[4], errors

    good = tsc(app, PROGRAM)
    assert good.returncode == 0, good.stdout + good.stderr

    with Stack(
        ["ys"],
        gateways=1,
        work_dir=tmp_path / "stack",
        log_dir=tmp_path / "logs",
        gateway_env={"HTTP_PORT": "any", "LOG_LEVEL": "warning"},
    ) as stack:
        env = {
            **os.environ,
            "GUILDHALL_HTTP": f"http://127.0.0.1:{stack.http_port}",
            "GUILDHALL_KEY": stack.api_key,
        }
        run = subprocess.run(
            ["node", "out/program.js"], cwd=app, env=env, capture_output=True, text=True, timeout=120
        )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    lines = run.stdout.splitlines()
    assert lines[0] == "created true 2", run.stdout
    assert lines[1] == "table true not_your_turn true", run.stdout
    assert lines[-1] == "done 8", run.stdout
    assert sum(line.startswith("played ") for line in lines) == 8, run.stdout
    summary = next(line for line in lines if line.startswith("bids "))
    assert summary.startswith("bids 2 events match_created true seats 2"), run.stdout
