"""Words, not engine (issue 41 item 8): every way the table can be told no reads as a sentence a
player understands, with what to do. The table's refusals module (clients/web/table/common/
refusals.ts, bundled here with esbuild) is run under Node for every rejection code of the rules
contract (services/kernel/rejection.py) and every status a gateway call can fail with."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import grpc

from services.kernel.rejection import CODES

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"
ESBUILD = WEB / "node_modules" / ".bin" / "esbuild"
# The statuses of a failed call, by their Connect names (clients/web/src/errors.ts).
STATUSES = [
    s.name.lower().replace("cancelled", "canceled") for s in grpc.StatusCode if s is not grpc.StatusCode.OK
]

PROBE = """
import { GatewayError, Rejected } from "%(src)s/index.js";
import { REFUSAL_CODES, refusalText } from "%(table)s/common/refusals.js";
const [codes, statuses] = JSON.parse(process.argv[2]);
const said = {};
for (const code of codes) said[code] = refusalText(new Rejected(code, "the rule's own words"));
for (const status of statuses) said[status] = refusalText(new GatewayError(status, "engine detail 1234"));
console.log(JSON.stringify({ said, known: REFUSAL_CODES }));
"""


def test_every_rejection_and_failed_call_reads_as_a_sentence_with_what_to_do(tmp_path: Path) -> None:
    node = shutil.which("node")
    assert node and ESBUILD.is_file(), "clients/web is not set up: `make web`"
    entry = tmp_path / "probe.ts"
    entry.write_text(PROBE % {"src": WEB / "src", "table": WEB / "table"})
    bundle = tmp_path / "probe.mjs"
    subprocess.run(
        [str(ESBUILD), str(entry), "--bundle", "--platform=node", "--format=esm", f"--outfile={bundle}"],
        cwd=WEB,
        check=True,
        capture_output=True,
    )
    run = subprocess.run(
        [node, str(bundle), json.dumps([list(CODES), STATUSES])], capture_output=True, text=True, check=True
    )
    found = json.loads(run.stdout)
    # Each code has a sentence of its own, not the fallback for codes newer than the table.
    assert set(CODES) <= set(found["known"]["rejections"]), set(CODES) - set(found["known"]["rejections"])
    assert set(STATUSES) <= set(found["known"]["failures"]), set(STATUSES) - set(found["known"]["failures"])
    for code, text in found["said"].items():
        assert re.fullmatch(r"[A-Z“].*[.!?]", text), (code, text)
        assert code not in text and "_" not in text and "rejected" not in text.lower(), (code, text)
        assert "1234" not in text, (code, text)  # a failed call's engine detail stays out
    # What to do is said where the player can do something.
    assert "resume link" in found["said"]["seat_taken"]
    assert "choose again" in found["said"]["stale_version"]
    assert "version" not in found["said"]["stale_version"]
    assert "The rule's own words." in found["said"]["illegal_action"]  # why a move is illegal
