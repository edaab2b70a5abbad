"""A verified match as people read it (`guildhall verify --story`): who did what, append by
append, with card, building and place names from the game's data, and beside each append what
the checks found (chain, receipt, re-execution).

Names come from the game's published data (services/gamedata.py: every component with its kind,
id and name): a field named after a kind ("quest", "area", "cards", "from_area") names that
kind's component, a string that is one component's id anywhere names it, and seat numbers in
fields like "player" become the players' ids.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from gateway.domain.audit import appends, is_game_event
from gateway.domain.match import ACTION_UNDONE, MATCH_CREATED, MATCH_ENDED, SEAT_RESIGNED, TURN_TIMED_OUT
from guildhall_client.ghx import ExportReport
from guildhall_client.names import Names
from guildhall_client.render import plain_description

SEAT_FIELDS = frozenset(
    {"player", "seat", "owner", "giver", "receiver", "payer", "payee", "by", "holder", "target", "winner"}
)
OK, BAD, NOT_MADE = "✓", "✗", "–"


def _names(spec: Any) -> Names:
    """The lookup of guildhall_client/names.py over the document GetGameData would serve."""
    if spec is None:
        return Names()
    import msgspec

    from services.gamedata import game_data

    try:
        return Names(msgspec.to_builtins(game_data(spec)))
    except LookupError:  # a game that publishes no data: ids stay ids
        return Names()


class _Teller:
    def __init__(self, report: ExportReport) -> None:
        self.report = report
        header = report.header
        self.players = list(header.players) if header is not None else []
        self.spec = report.game or _installed(header.game_id if header is not None else "")
        self.names = _names(self.spec)

    def who(self, actor: str) -> str:
        if actor == "gateway":
            return "gateway"
        head, _, number = actor.rpartition("seat:")
        seat = int(number) if number.isdigit() else -1
        person = self.seat(seat)
        return f"gateway for {person}" if head == "gateway:" else person

    def seat(self, seat: int) -> str:
        if 0 <= seat < len(self.players):
            return f"{self.players[seat]} (seat {seat})"
        return f"seat {seat}"

    def value(self, value: Any, field: str = "") -> str:
        if isinstance(value, Mapping):
            return "{" + self.fields(value) + "}"
        if isinstance(value, list):
            return "[" + ", ".join(self.value(item, field) for item in value) + "]"
        if field in SEAT_FIELDS and isinstance(value, int) and not isinstance(value, bool):
            return self.players[value] if 0 <= value < len(self.players) else str(value)
        named = self.names.name(field, value)
        if named is not None:
            return named
        return value if isinstance(value, str) else json.dumps(value)

    def fields(self, data: Mapping[str, Any]) -> str:
        return "  ".join(
            f"{key}={self.value(item, key)}"
            for key, item in data.items()
            if key != "type" and item not in ("", [], None, {})
        )

    def line(self, kind: str, payload: bytes) -> str:
        try:
            data = json.loads(payload)
        except ValueError:
            return f"{kind.replace('_', ' ')}  (not JSON)"
        if kind == MATCH_CREATED:
            return f"match created: {data.get('game_id')} for {', '.join(self.players)}" + (
                f", options {json.dumps(data.get('options'))}"
                if data.get("options") not in ({}, None)
                else ""
            )
        if kind == SEAT_RESIGNED:
            forfeit = " (forfeit by the turn timer)" if data.get("forfeit") else ""
            return f"{self.seat(int(data.get('seat', -1)))} resigned{forfeit}"
        if kind == TURN_TIMED_OUT:
            return f"{self.seat(int(data.get('seat', -1)))}: turn timer ran out, {data.get('policy')}"
        if kind == ACTION_UNDONE:
            first, last = data.get("first_version"), data.get("last_version")
            taken = f"version {first}" if first == last else f"versions {first}-{last}"
            return f"{self.seat(int(data.get('seat', -1)))} took back their last move ({taken})"
        if kind == MATCH_ENDED:
            outcome = data.get("outcome") or {}
            winners = ", ".join(self.seat(w) for w in outcome.get("winners", [])) or "nobody"
            scores = "; ".join(
                f"{self.seat(r.get('player', -1))} {r.get('score')}" for r in outcome.get("results", [])
            )
            return f"match ended ({data.get('reason')}): won by {winners}; scores {scores}; seed revealed"
        described = self.described(payload)
        if described is not None:
            return described
        text = self.fields(data) if isinstance(data, Mapping) else json.dumps(data)
        return f"{kind.replace('_', ' ')}  {text}".rstrip()

    def described(self, payload: bytes) -> str | None:
        """A game event in the game's own words (its presentation), seats named by the players'
        ids; engine bookkeeping marked. None when the game describes nothing (or not this)."""
        presentation = getattr(self.spec, "presentation", None)
        if presentation is None:
            return None
        from services.kernel.present import render

        try:
            event = self.spec.codec.decode_event(payload)
            description = presentation.describe(event, None)
        except Exception:  # an event this build cannot read: the plain fields say it
            return None
        if plain_description(str(type(event).__struct_config__.tag), description):
            return None  # the kernel's fallback: the fields named from the game data say more
        text = render(description.template, description.args, dict(enumerate(self.players)))
        return f"({text})" if description.internal else text

    def internal(self, kind: str, payload: bytes) -> bool:
        """Engine bookkeeping the story leaves out unless asked for everything."""
        presentation = getattr(self.spec, "presentation", None)
        if presentation is None or not is_game_event(kind):
            return False
        try:
            return bool(presentation.describe(self.spec.codec.decode_event(payload), None).internal)
        except Exception:
            return False

    def action(self, payload: bytes) -> str:
        try:
            data = json.loads(payload)
        except ValueError:
            return "(an action that is not JSON)"
        if not isinstance(data, Mapping):
            return json.dumps(data)
        return f"{str(data.get('type', '?')).replace('_', ' ')}  {self.fields(data)}".rstrip()

    def checks(self, last: int) -> str:
        verdict = self.report.verdict
        assert verdict is not None
        executed = NOT_MADE if not verdict.executed else OK if last <= verdict.executed_through else BAD
        chain = OK if last <= verdict.chain_through else BAD
        receipt = OK if last <= verdict.receipts_through else BAD
        return f"chain {chain}  receipt {receipt}  re-executed {executed}"


def _installed(game_id: str) -> Any:
    from services.registry import GAMES

    return GAMES.get(game_id)


def story_lines(report: ExportReport, show_all: bool = False) -> list[str]:
    """The match, append by append, each with its check results, then what the checks found;
    engine bookkeeping events only with `show_all`."""
    header = report.header
    if header is None or report.verdict is None:
        return [f"the file cannot be read: {report.reason}"]
    teller = _Teller(report)
    out = [
        f"Match {header.tenant}/{header.match_id}: {header.game_id} (rules {header.rules_version}), "
        f"{', '.join(header.players)}",
        f"versions 1 to {header.version} of {header.match_version}, exported from the {header.source} store; "
        + ("finished" if header.finished else "in play"),
        "",
    ]
    findings = list(report.findings)
    for run in appends(report.events):
        first, last = run[0].version, run[-1].version
        span = f"v{first}" if first == last else f"v{first}-{last}"
        action = run[0].action
        if action:
            head = f"{span:<10} {teller.who(run[0].actor)}: {teller.action(action)}"
        else:
            head = f"{span:<10} {teller.who(run[0].actor)}"
        out.append(f"{head:<100} {teller.checks(last)}")
        for event in run:
            if not show_all and teller.internal(event.type, event.payload):
                continue
            marker = "  " if is_game_event(event.type) else "* "
            out.append(f"{'':<11}{marker}{teller.line(event.type, event.payload)}")
        for finding in [f for f in findings if first <= f.version <= last]:
            out.append(f"{'':<11}{BAD} version {finding.version} ({finding.evidence}): {finding.reason}")
            findings.remove(finding)
    for finding in findings:
        out.append(f"{BAD} version {finding.version} ({finding.evidence}): {finding.reason}")
    out.append("")
    out.extend(verdict_lines(report))
    return out


def verdict_lines(report: ExportReport) -> list[str]:
    """Each check's result, then the verdict in one line."""
    lines = []
    for name, passed, text in report.checks():
        mark = NOT_MADE if passed is None else OK if passed else BAD
        lines.append(f"{mark} {name:<15} {text}")
    if report.ok:
        note = "" if report.executed else " (not re-executed: see above)"
        lines.append(f"VERIFIED{note}")
    elif report.refused and report.first_bad_version is None:
        lines.append(f"REFUSED: {report.needs}")
    else:
        lines.append(f"FAILED at version {report.first_bad_version} ({report.evidence}): {report.reason}")
    return lines
