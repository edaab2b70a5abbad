"""What the client hands back: plain dataclasses with the game JSON already decoded.

Views, actions, events and outcomes are the game's JSON (the schemas each rules service
publishes, also under schemas/<game>/), decoded into dicts and lists; the raw bytes are kept
beside them for callers that want to validate or store them as they came.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from guildhall.common.v1 import common_pb2
from guildhall.gateway.v1 import gateway_pb2 as pb


def _json(data: bytes) -> Any:
    return json.loads(data) if data else None


def encode_json(value: Any) -> bytes:
    """An action or options as the gateway takes them: bytes and str as given, else JSON."""
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    if isinstance(value, str):
        return value.encode()
    return json.dumps(value, separators=(",", ":")).encode()


@dataclass(frozen=True)
class Receipt:
    """The gateway's Ed25519 signature over (tenant, match, version, chain head)."""

    key_id: str
    version: int
    head_hash: str
    signature: bytes
    tenant: str
    match_id: str

    @classmethod
    def from_pb(cls, r: pb.Receipt) -> Receipt | None:
        if not r.key_id and not r.signature:
            return None
        return cls(r.key_id, r.version, r.head_hash, bytes(r.signature), r.tenant, r.match_id)


def _args(args: Iterable[common_pb2.DescriptionArg]) -> tuple[DescriptionArg, ...]:
    return tuple(DescriptionArg(a.name, a.text, a.kind, a.id) for a in args)


@dataclass(frozen=True)
class DescriptionArg:
    """The value of the slot `{name}` of a description's template: its text, and what it stands
    for (`kind` "seat" with the seat number as `id`, a kind of the game's data, or "")."""

    name: str
    text: str
    kind: str = ""
    id: str = ""


# (kind, id) -> (the seat it stands for, what it is called when the match has no such seat):
# components whose `values.seat` is a number (Ys's parties; Names.stands_for).
StandsFor = Callable[[str, str], "tuple[int, str] | None"]


def fill(
    text: str,
    template: str,
    args: Sequence[DescriptionArg],
    seat_names: Mapping[int, str] | None = None,
    stands_for: StandsFor | None = None,
) -> str:
    """A text naming players, with the names chosen at the table (docs/clients.md, "Names chosen
    at the table"): `template`'s `{slots}` filled with `args`, a seat argument by its seat's
    name, an argument whose component stands for a seat (`stands_for`) by that seat's name, or,
    when the match has no such seat, by what the component is called then. `seat_names` holds
    every seat of the match ("" keeps a seat's default text); `text` as it is without names."""
    if not template or not seat_names:
        return text
    out = template
    for a in args:
        shown = a.text
        if a.kind == "seat" and a.id.lstrip("-").isdigit():
            shown = seat_names.get(int(a.id)) or a.text
        elif stands_for is not None and a.kind and (found := stands_for(a.kind, a.id)) is not None:
            seat, seatless = found
            shown = (seat_names[seat] or a.text) if seat in seat_names else seatless
        out = out.replace("{" + a.name + "}", shown)
    return out[:1].upper() + out[1:] if template.startswith("{") else out


@dataclass(frozen=True)
class Description:
    """An event as a log line: `text` in English, `template` with `{name}` slots for `args`;
    `internal` marks engine bookkeeping a log may leave out."""

    key: str
    text: str
    template: str = ""
    args: tuple[DescriptionArg, ...] = ()
    internal: bool = False

    @classmethod
    def from_pb(cls, d: common_pb2.Description) -> Description:
        return cls(d.key, d.text, d.template, _args(d.args), d.internal)

    def render(self, seat_names: Mapping[int, str] | None = None, stands_for: StandsFor | None = None) -> str:
        """The text, with seats named by `seat_names` where given (e.g. "You" for your seat)."""
        return fill(self.text, self.template, self.args, seat_names, stands_for)


@dataclass(frozen=True)
class Choice:
    """One step of a decision's option: the question (`step`) and the answer (`label`); a step
    or label that names players has a template with its args (`step_text`, `label_text`)."""

    step: str
    label: str
    kind: str = ""
    id: str = ""
    step_template: str = ""
    step_args: tuple[DescriptionArg, ...] = ()
    label_template: str = ""
    label_args: tuple[DescriptionArg, ...] = ()

    @classmethod
    def from_pb(cls, c: common_pb2.DecisionChoice) -> Choice:
        return cls(
            c.step,
            c.label,
            c.kind,
            c.id,
            c.step_template,
            _args(c.step_args),
            c.label_template,
            _args(c.label_args),
        )

    def step_text(
        self, seat_names: Mapping[int, str] | None = None, stands_for: StandsFor | None = None
    ) -> str:
        return fill(self.step, self.step_template, self.step_args, seat_names, stands_for)

    def label_text(
        self, seat_names: Mapping[int, str] | None = None, stands_for: StandsFor | None = None
    ) -> str:
        return fill(self.label, self.label_template, self.label_args, seat_names, stands_for)


@dataclass(frozen=True)
class DecisionOption:
    """A complete answer: its choices in order, and the index of its legal action."""

    choices: tuple[Choice, ...]
    action: int


@dataclass(frozen=True)
class Decision:
    """What a seat is asked now, in words, over the view's legal actions.

    Walk it step by step: `next_choices(chosen)` lists the distinct choices of the next step
    among the options that start with `chosen`; once `option(chosen)` is one, submit the legal
    action at its `action` index."""

    seat: int
    prompt: str
    options: tuple[DecisionOption, ...]
    key: str = ""
    simultaneous: bool = False
    prompt_template: str = ""
    prompt_args: tuple[DescriptionArg, ...] = ()

    @classmethod
    def from_pb(cls, d: common_pb2.Decision) -> Decision:
        """The wire's decision, each option's choices taken from the table (`choices`) by its
        `choice_indexes`, or inline where it has none (rules services before issue 45)."""
        table = [Choice.from_pb(c) for c in d.choices]
        options = []
        for o in d.options:
            if o.choice_indexes:
                if max(o.choice_indexes) >= len(table):
                    raise ValueError(f"option {o.action} names a choice the decision does not list")
                choices = tuple(table[i] for i in o.choice_indexes)
            else:
                choices = tuple(Choice.from_pb(c) for c in o.choices)
            options.append(DecisionOption(choices, o.action))
        return cls(
            d.seat, d.prompt, tuple(options), d.key, d.simultaneous, d.prompt_template, _args(d.prompt_args)
        )

    def prompt_text(
        self, seat_names: Mapping[int, str] | None = None, stands_for: StandsFor | None = None
    ) -> str:
        return fill(self.prompt, self.prompt_template, self.prompt_args, seat_names, stands_for)

    def matching(self, chosen: tuple[Choice, ...]) -> list[DecisionOption]:
        """The options whose choices start with `chosen`."""
        n = len(chosen)
        return [o for o in self.options if o.choices[:n] == chosen]

    def next_choices(self, chosen: tuple[Choice, ...] = ()) -> list[Choice]:
        """The distinct choices of the step after `chosen`, in the options' order."""
        seen: dict[Choice, None] = {}
        for option in self.matching(chosen):
            if len(option.choices) > len(chosen):
                seen.setdefault(option.choices[len(chosen)], None)
        return list(seen)

    def option(self, chosen: tuple[Choice, ...]) -> DecisionOption | None:
        """The option `chosen` completes, if it completes one."""
        return next((o for o in self.options if o.choices == chosen), None)


@dataclass(frozen=True)
class Event:
    """One event as this caller may see it (redacted for its seat or the public)."""

    version: int
    type: str
    actor: int  # the acting seat, -1 for the gateway (match_created, timeouts, match_ended)
    data: Any
    time_ms: int
    receipt: Receipt | None
    raw: bytes = field(repr=False, default=b"")
    # The event in words for you (None: the game has no presentation, or an older gateway).
    description: Description | None = None

    @classmethod
    def from_pb(cls, e: pb.MatchEvent) -> Event:
        receipt = Receipt.from_pb(e.receipt) if e.HasField("receipt") else None
        description = Description.from_pb(e.description) if e.HasField("description") else None
        return cls(e.version, e.type, e.actor, _json(e.json), e.time_ms, receipt, bytes(e.json), description)

    @property
    def internal(self) -> bool:
        """Engine bookkeeping a log may leave out."""
        return self.description is not None and self.description.internal


@dataclass(frozen=True)
class MatchView:
    """A seat's (or the public) view at a version, with the seat's legal actions."""

    match_id: str
    game: str
    version: int
    seat: int | None  # None: the public (spectator) view
    view: Any
    legal_actions: list[Any]
    active_seats: tuple[int, ...]
    finished: bool
    outcome: Any  # the game's outcome JSON once finished, else None
    raw_legal_actions: tuple[bytes, ...] = field(repr=False, default=())
    bots: dict[int, str] = field(default_factory=dict)  # seats the platform's bots play: their kind
    # Your decision over `legal_actions`, in words (None: no legal actions, or no presentation).
    decision: Decision | None = None
    seat_names: tuple[str, ...] = ()  # the names chosen at a private table ("" where none)
    resigned_seats: frozenset[int] = frozenset()  # they finish after every other seat
    away_seats: frozenset[int] = frozenset()  # a platform bot plays them until their player is back
    unclaimed_seats: frozenset[int] = frozenset()  # a table's seats nobody took yet: nobody acts
    rules_version: str = ""  # the rules version the match plays under (its game data's)
    # You may take back your last move now (AsyncClient.undo).
    undo_available: bool = False

    @classmethod
    def from_pb(cls, v: pb.MatchView) -> MatchView:
        raw = tuple(bytes(a) for a in v.legal_actions)
        return cls(
            match_id=v.match_id,
            game=v.game_id,
            version=v.version,
            seat=v.seat if v.seat >= 0 else None,
            view=_json(v.view),
            legal_actions=[json.loads(a) for a in raw],
            active_seats=tuple(v.active_seats),
            finished=v.finished,
            outcome=_json(v.outcome),
            raw_legal_actions=raw,
            bots={b.seat: b.kind for b in v.bots},
            decision=Decision.from_pb(v.decision) if v.HasField("decision") else None,
            seat_names=tuple(v.seat_names),
            resigned_seats=frozenset(v.resigned_seats),
            away_seats=frozenset(v.away_seats),
            unclaimed_seats=frozenset(v.unclaimed_seats),
            rules_version=v.rules_version,
            undo_available=v.undo_available,
        )

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.seat in self.active_seats and bool(self.legal_actions)

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(self.outcome.get("winners", ())) if isinstance(self.outcome, dict) else ()


@dataclass(frozen=True)
class Accepted:
    """An accepted action: the new version, its events (redacted for you) and the receipt."""

    match_id: str
    version: int
    events: list[Event]
    receipt: Receipt | None
    repeated: bool  # True when this command id had already been applied: its first result
    command_id: str
    # Your view at `version` or later, when submitted with return_view=True (None otherwise, or
    # when the gateway could not compute it: the action stands either way).
    view: MatchView | None = None


@dataclass(frozen=True)
class WatchUpdate:
    """New events since the previous update, and the watcher's view after them."""

    events: list[Event]
    view: MatchView


@dataclass(frozen=True)
class Ticket:
    ticket_id: str
    state: str  # "queued", "matched", "cancelled", "expired"
    game: str
    player_id: str
    match_id: str = ""
    seat: int = -1
    players: tuple[str, ...] = ()
    seat_token: str = ""

    @classmethod
    def from_pb(cls, t: pb.Ticket) -> Ticket:
        state = pb.Ticket.State.Name(t.state).lower().removeprefix("state_")
        return cls(
            t.ticket_id, state, t.game_id, t.player_id, t.match_id, t.seat, tuple(t.players), t.seat_token
        )


@dataclass(frozen=True)
class SeatToken:
    seat: int
    player_id: str
    token: str


@dataclass(frozen=True)
class CreatedMatch:
    match_id: str
    game: str
    version: int
    seats: list[SeatToken]
    seed_commitment: str
    spectator_token: str


@dataclass(frozen=True)
class Table:
    match_id: str
    invite_code: str
    spectator_token: str


@dataclass(frozen=True)
class MatchSummary:
    match_id: str
    game: str
    players: tuple[str, ...]
    version: int
    finished: bool
    created_ms: int


@dataclass(frozen=True)
class MatchPage:
    matches: list[MatchSummary]
    next_cursor: str


@dataclass(frozen=True)
class AuditReport:
    ok: bool
    checked_versions: int
    first_bad_version: int  # 0 when ok
    reason: str
    # What showed the first bad version ("chain", "receipt", "re-execution", "snapshot", ...)
    # and every finding in version order.
    evidence: str = ""
    findings: tuple[AuditFinding, ...] = ()
    # The receipts given to the audit: compared with the stream, and refused (not the gateway's).
    receipts_compared: int = 0
    receipts_refused: int = 0


@dataclass(frozen=True)
class AuditFinding:
    """Something the audit found that does not hold: at `version`, or somewhere up to `through`."""

    version: int
    through: int
    evidence: str
    reason: str


@dataclass(frozen=True)
class GameData:
    """A game's static data (GetGameData): every card, tile and place with its name, as JSON
    (`data`, decoded; `raw` as sent), under the rules version it belongs to."""

    game_id: str
    version: str
    data: Any
    raw: bytes
    json_schema: str


@dataclass(frozen=True)
class ExportedMatch:
    """A match as a .ghx file (ExportMatch): verify it offline with guildhall_client.ghx."""

    data: bytes
    version: int  # the last version in the file
    finished: bool  # whether it holds match_ended (and the revealed seed)


@dataclass(frozen=True)
class StoredEvent:
    """An unredacted stream entry (auditor scope)."""

    version: int
    type: str
    actor: str
    command_id: str
    payload: bytes
    rules_version: str
    time_ms: int
    prev_hash: str
    hash: str
    receipt: Receipt | None


@dataclass(frozen=True)
class GameInfo:
    game: str
    title: str
    rules_version: str
    player_counts: tuple[int, ...]
    json_schemas: dict[str, str]
    default_options: bytes


# -- tenant integrations (issue 23) ---------------------------------------------------------------


@dataclass(frozen=True)
class Rating:
    """openskill's Plackett-Luce rating of a player in one game: mu, sigma, ordinal = mu - 3 sigma."""

    player_id: str
    mu: float
    sigma: float
    ordinal: float
    matches: int
    rank: int  # place on the leaderboard, 1 = best

    @classmethod
    def from_pb(cls, r: pb.Rating) -> Rating:
        return cls(r.player_id, r.mu, r.sigma, r.ordinal, r.matches, r.rank)


@dataclass(frozen=True)
class Leaderboard:
    ratings: list[Rating]
    next_cursor: str


@dataclass(frozen=True)
class DeadLetter:
    """A webhook delivery that ran out of retries (operator scope)."""

    delivery_id: str
    event_id: str
    event_type: str
    endpoint_id: str
    attempts: int
    last_error: str
    failed_ms: int
    body: bytes = field(repr=False, default=b"")


@dataclass(frozen=True)
class BotAssignment:
    """A bot seat leased to a bot worker, with the seat's token (botworker scope)."""

    lease_id: str
    tenant: str
    match_id: str
    game: str
    seat: int
    kind: str
    seat_token: str = field(repr=False)
    lease_until_ms: int
