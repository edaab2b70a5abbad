"""What a client needs to present a game to a person without knowing its engine.

Beside the exact, flat legal actions (bots and tests use them), every game gives:

- a **Decision** per seat that owes one: a prompt in words, and one Option per legal action.
  An option is a path of Choices (Ys: the broker value, then the place); a client shows the
  first step's distinct choices, then the next step's among the options that share the path
  so far, until one option is left. Each option names the index of its legal action in the
  same answer's list, so the choices map to exactly one legal action.
- a **Description** per event a viewer receives: a message key, a template with named
  arguments (each resolved to a name, with the kind and id it stands for), the English text,
  and whether it is engine bookkeeping a log may leave out.
- **Places** of its board in the game data (services/kernel/gamedata.py), with neighbours and
  a schematic position, and the **refs** that say which JSON fields hold ids of what kind, so
  a conformance check proves every id a client receives has a name.
- **view sections**: which part of the view each top-level field is (VIEW_SECTIONS).

Players are named "Player 1".."Player N" (seat + 1) in texts; a client or the gateway that
knows the names chosen at the table renders the template again with those (`render`). A
decision's prompt, steps and labels that name players carry templates too (`Named`, `choice`,
`ask`): every text a player reads can show the names chosen at the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

# The parts of a view, by what a client draws with them.
VIEW_SECTIONS = {
    "board": "the public board: places, markets, tracks, decks and what lies on them",
    "players": "every player's public area: score, resources, cards in front, hand sizes",
    "self": "the viewing seat's own private part: its hand, its secret cards and choices",
    "turn": "whose turn, the phase, the round and what the table waits for",
    "engine": "engine state a person does not need to read (pending steps, counters)",
}

# A ref kind that is not a component: a seat number.
SEAT = "seat"
# A ref kind for any place of the board, whatever its own kind.
PLACE = "place"


class Arg(msgspec.Struct, frozen=True, omit_defaults=True):
    """A named argument of a template (a description's, a decision's): its text, and what it
    stands for (a seat, a card...)."""

    name: str
    text: str
    kind: str = ""
    id: str = ""


class Choice(msgspec.Struct, frozen=True, omit_defaults=True):
    """One step of an option: `step` is the question ("Which broker?"), `label` the answer in
    words; `kind` and `id` name what it stands for in the game data (empty for a plain value).
    A step or label that names players has a template with `{name}` slots for its args (built
    by `choice`); empty when the text names nobody."""

    step: str
    label: str
    kind: str = ""
    id: str = ""
    step_template: str = ""
    step_args: tuple[Arg, ...] = ()
    label_template: str = ""
    label_args: tuple[Arg, ...] = ()


class Option(msgspec.Struct, frozen=True, omit_defaults=True):
    """A complete answer to a decision: its choices in order, and the legal action it is (the
    index in the same answer's legal actions)."""

    choices: tuple[Choice, ...]
    action: int


class Decision(msgspec.Struct, frozen=True, omit_defaults=True):
    """What one seat is asked now. `simultaneous`: other seats decide at the same time, unseen."""

    seat: int
    prompt: str
    options: tuple[Option, ...]
    key: str = ""
    simultaneous: bool = False
    # The prompt with `{name}` slots for `prompt_args` when it names players (built by
    # `decision`); empty when it names nobody.
    prompt_template: str = ""
    prompt_args: tuple[Arg, ...] = ()


class Description(msgspec.Struct, frozen=True, omit_defaults=True):
    """An event as a log line: `template` with `{name}` slots for `args`, and `text` rendered
    with the default names. `internal`: engine bookkeeping a log may leave out."""

    key: str
    template: str
    text: str
    args: tuple[Arg, ...] = ()
    internal: bool = False


class Place(msgspec.Struct, frozen=True, omit_defaults=True):
    """A place of the board: area, district, canal, building slot, market row, track space...

    `x`, `y` are a suggested position for a schematic drawing in the unit square (0,0 top
    left); `neighbours` are the places the rules treat as adjacent (empty where adjacency
    plays no part); `group` gathers places drawn together (a neighbourhood, a row)."""

    id: str
    name: str
    kind: str
    x: float
    y: float
    neighbours: tuple[str, ...] = ()
    group: str = ""
    text: str = ""
    values: dict[str, Any] = {}
    stand_in: bool = False
    source: str = ""


class ScoreSheet(msgspec.Struct, frozen=True, omit_defaults=True):
    """What a game's score means, for a client's players table and end screen.

    Every view's `seats[i].score` is the score a table shows for seat i: while the game runs,
    what `during_play` says (the public part of the score, "so far"); once it is over, the
    final score, equal to the outcome's. `breakdown` and `facts` name the keys of the outcome's
    PlayerResult.breakdown and .facts in words."""

    during_play: str = ""
    breakdown: dict[str, str] = {}
    facts: dict[str, str] = {}


# -- building them ----------------------------------------------------------------------------


def player_name(seat: int) -> str:
    return f"Player {seat + 1}"


def seat_arg(name: str, seat: int) -> Arg:
    return Arg(name, player_name(seat), SEAT, str(seat))


def arg(name: str, text: Any, kind: str = "", id: Any = "") -> Arg:
    return Arg(name, str(text), kind, str(id) if id != "" else "")


def render(template: str, args: Iterable[Arg], names: Mapping[int, str] | None = None) -> str:
    """The template with each `{name}` replaced by its argument's text; seats by `names` when
    given (the names chosen at the table)."""
    text = template
    for a in args:
        shown = a.text
        if names and a.kind == SEAT and a.id.lstrip("-").isdigit() and int(a.id) in names:
            shown = names[int(a.id)]
        text = text.replace("{" + a.name + "}", shown)
    return text


def describe(key: str, template: str, *args: Arg, internal: bool = False) -> Description:
    """A description with its text rendered from the template."""
    return Description(key, template, render(template, args), tuple(args), internal)


@dataclass(frozen=True)
class Named:
    """A text that names players (or anything else a client may name its own way): `template`
    with `{name}` slots for `args`; `str()` is it rendered with the default names. Texts join
    with `+` ("Give " + named("{player}", ...) + " a card"), plain strings as they are."""

    template: str
    args: tuple[Arg, ...] = ()

    def __str__(self) -> str:
        return render(self.template, self.args)

    def __add__(self, other: Text) -> Named:
        if isinstance(other, str):
            return Named(self.template + other, self.args)
        clash = {a.name for a in self.args} & {a.name for a in other.args}
        if any(a != b for a in self.args for b in other.args if a.name == b.name and a.name in clash):
            raise ValueError(f"two arguments named {sorted(clash)} stand for different things")
        return Named(
            self.template + other.template, self.args + tuple(a for a in other.args if a.name not in clash)
        )

    def __radd__(self, other: str) -> Named:
        return Named(other + self.template, self.args)


# A text a player reads: plain, or naming players (a template a client fills with its names).
Text = str | Named


def named(template: str, *args: Arg) -> Named:
    """A text naming players: `named("Give {player} a card", seat_arg("player", 2))`."""
    return Named(template, tuple(args))


def _parts(text: Text) -> tuple[str, str, tuple[Arg, ...]]:
    """(text rendered with the default names, template, args); a plain str has no template."""
    if isinstance(text, Named):
        return str(text), text.template, text.args
    return text, "", ()


def choice(step: Text, label: Text, kind: str = "", id: str = "") -> Choice:
    """A Choice whose step and label may name players (`named`)."""
    step_text, step_template, step_args = _parts(step)
    label_text, label_template, label_args = _parts(label)
    return Choice(step_text, label_text, kind, id, step_template, step_args, label_template, label_args)


def player_choice(step: Text, seat: int) -> Choice:
    """The choice of a player: labelled with the seat's name (a template a client fills)."""
    return choice(step, named("{player}", seat_arg("player", seat)), SEAT, str(seat))


def ask(
    seat: int, prompt: Text, options: tuple[Option, ...], key: str = "", simultaneous: bool = False
) -> Decision:
    """A Decision whose prompt may name players (`named`)."""
    text, template, args = _parts(prompt)
    return Decision(seat, text, options, key, simultaneous, template, args)


def single_step(
    seat: int,
    prompt: Text,
    actions: Sequence[Any],
    choice: Callable[[Any], Choice | Sequence[Choice]],
    *,
    key: str = "",
    simultaneous: bool = False,
) -> Decision:
    """A decision whose options are `choice(action)` for each legal action, in order."""
    options = []
    for index, action in enumerate(actions):
        made = choice(action)
        choices = (made,) if isinstance(made, Choice) else tuple(made)
        options.append(Option(choices, index))
    return ask(seat, prompt, tuple(options), key, simultaneous)


def choice_table(options: Sequence[Option]) -> tuple[list[Choice], list[list[int]]]:
    """Every distinct choice of `options` once, in order of first use, and each option's choices
    as indexes into that list: the shape decisions travel in (a Ys placement lists up to 190
    options made of a few dozen choices, and one message per step of every option cost more than
    the game's building of them). `[table[i] for i in path]` gives each option's choices back."""
    index: dict[Choice, int] = {}  # insertion-ordered: its keys are the table
    paths = []
    for option in options:
        path = []
        for choice in option.choices:
            number = index.get(choice)
            if number is None:
                number = index[choice] = len(index)
            path.append(number)
        paths.append(path)
    return list(index), paths


# -- what a game gives ------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Presentation:
    """A game's presentation functions and tables (GameSpec.presentation).

    - `decision(state, seat, legal_actions)`: the seat's decision over exactly those actions
      (the list legal_actions returned, in its order); only called for a seat that owes one.
    - `describe(event, viewer)`: the event, as that viewer received it, as a log line; it depends
      on the event as received only, so viewers shown equal events get equal descriptions (the
      rules service describes each distinct event of a call once, whoever else is shown it).
    - `components(catalog)`: kind labels, components, decks and board facts for the game data.
    - `places(catalog)`: the board's places for the game data.
    - `refs`: JSON field -> the kind of id it holds (a component kind, PLACE, a place kind or
      SEAT); "tag.field" overrides the field inside objects whose "type" is tag, and
      "tag.field?other=value" overrides both where the same object's `other` field is `value`
      (a target that is a canal space for one action and a house for another). A value may be
      an id or a list (of lists) of ids; -1, "" and null mean "none".
    - `key_refs`: JSON field -> kind, for objects keyed by ids (e.g. prices by gem colour).
    - `view_sections`: top-level view field -> one of VIEW_SECTIONS.
    - `score`: what the score in the views and the outcome's breakdown mean (ScoreSheet).
    """

    decision: Callable[[Any, int, Sequence[Any]], Decision]
    describe: Callable[[Any, int | None], Description]
    components: Callable[[Any], Any]
    places: Callable[[Any], Sequence[Place]]
    refs: Mapping[str, str] = field(default_factory=dict)
    key_refs: Mapping[str, str] = field(default_factory=dict)
    view_sections: Mapping[str, str] = field(default_factory=dict)
    score: ScoreSheet = ScoreSheet()


# -- checking them (the conformance suite and the game's own tests) ---------------------------


class Names:
    """Every (kind, id) a game's data names: components, places (by their kind and by PLACE)."""

    def __init__(self, document: Any, players: int) -> None:
        self.players = players
        self.known: set[tuple[str, str]] = set()
        for component in document.components:
            self.known.add((component.kind, component.id))
        for place in document.places:
            self.known.add((place.kind, place.id))
            self.known.add((PLACE, place.id))

    def resolves(self, kind: str, value: Any) -> bool:
        if value is None or value == -1 or value == "":
            return True
        if kind == SEAT:
            return isinstance(value, int) and 0 <= value < self.players
        return (kind, str(value)) in self.known


def referenced_ids(
    document: Any, presentation: Presentation, where: str = "", tag: str = ""
) -> Iterator[tuple[str, str, Any]]:
    """(where, kind, id) for every declared id in a JSON document (decoded): the values of the
    fields `refs` names, and the keys of the objects `key_refs` names (a seat key as an int)."""
    if isinstance(document, dict):
        tag = document.get("type", tag) if isinstance(document.get("type"), str) else tag
        for key, value in document.items():
            kind = _ref_kind(presentation.refs, document, tag, key)
            if kind:
                for item in _leaves(value):
                    yield f"{where}.{key}", kind, item
            key_kind = presentation.key_refs.get(f"{tag}.{key}", presentation.key_refs.get(key))
            if key_kind and isinstance(value, dict):
                for item in value:
                    id_ = int(item) if key_kind == SEAT and item.lstrip("-").isdigit() else item
                    yield f"{where}.{key} key", key_kind, id_
            yield from referenced_ids(value, presentation, f"{where}.{key}", tag)
    elif isinstance(document, list):
        for i, item in enumerate(document):
            yield from referenced_ids(item, presentation, f"{where}[{i}]", tag)


def unresolved_ids(
    document: Any, presentation: Presentation, names: Names, where: str, tag: str = ""
) -> list[str]:
    """Every declared id field in a JSON document (decoded) whose value has no name."""
    return [
        f"{at}: {kind} {value!r} has no name"
        for at, kind, value in referenced_ids(document, presentation, where, tag)
        if not names.resolves(kind, value)
    ]


def _ref_kind(refs: Mapping[str, str], document: dict[str, Any], tag: str, key: str) -> str | None:
    """The kind `refs` gives `key` in this object: a conditional entry first, then tag.field,
    then field."""
    for other, value in document.items():
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            kind = refs.get(f"{tag}.{key}?{other}={value}")
            if kind:
                return kind
    return refs.get(f"{tag}.{key}", refs.get(key))


def _leaves(value: Any) -> list[Any]:
    """The scalar ids in a value, a list or a list of lists (objects are walked on their own)."""
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [] if isinstance(value, dict) else [value]


def decision_faults(decision: Decision, seat: int, action_count: int, names: Names) -> list[str]:
    """What is wrong with a decision over `action_count` legal actions: it must cover each
    action exactly once, by distinct paths none of which is the start of another, each
    choice named, every id resolving."""
    faults: list[str] = []
    if decision.seat != seat:
        faults.append(f"decision for seat {decision.seat}, asked for {seat}")
    if not decision.prompt.strip():
        faults.append("decision without a prompt")
    indexes = sorted(o.action for o in decision.options)
    if indexes != list(range(action_count)):
        faults.append(f"options map to actions {indexes[:12]}..., not each of {action_count} once")
    paths = [tuple((c.step, c.label, c.kind, c.id) for c in o.choices) for o in decision.options]
    if len(set(paths)) != len(paths):
        faults.append("two options with the same choices")
    prefixes = {path[:n] for path in paths for n in range(1, len(path))}
    if any(path in prefixes for path in paths):
        faults.append("an option's choices are the start of another's")
    faults += template_faults(decision.prompt, decision.prompt_template, decision.prompt_args, names)
    for option in decision.options:
        if not option.choices:
            faults.append(f"option for action {option.action} has no choice")
        for c in option.choices:
            if not c.step.strip() or not c.label.strip():
                faults.append(f"choice without a step or label in option {option.action}")
            if c.kind and not names.resolves(c.kind, int(c.id) if c.kind == SEAT else c.id):
                faults.append(f"choice {c.label!r}: {c.kind} {c.id!r} has no name")
            faults += template_faults(c.step, c.step_template, c.step_args, names)
            faults += template_faults(c.label, c.label_template, c.label_args, names)
    return faults


def template_faults(text: str, template: str, args: Sequence[Arg], names: Names) -> list[str]:
    """A text with a template: the template rendered with its args' default texts is the text,
    every slot is filled and every argument's id resolves (no template: no args)."""
    faults = [f"unfilled slot in {text!r}"] if "{" in text else []
    if not template:
        return faults + ([f"arguments without a template in {text!r}"] if args else [])
    if render(template, args) != text:
        faults.append(f"{text!r} is not its template {template!r} rendered")
    for a in args:
        if a.kind and not names.resolves(a.kind, int(a.id) if a.kind == SEAT else a.id):
            faults.append(f"argument {a.name}: {a.kind} {a.id!r} has no name")
    return faults


def description_faults(description: Description, names: Names) -> list[str]:
    faults: list[str] = []
    if not description.key or not description.text.strip():
        faults.append("description without a key or text")
    return faults + template_faults(description.text, description.template, description.args, names)


# -- the plain fallback a game starts from ----------------------------------------------------


def _tag(struct: Any) -> str:
    return str(type(struct).__struct_config__.tag)


def _plain_label(struct: Any) -> str:
    fields = [f"{name} {getattr(struct, name)}" for name in struct.__struct_fields__]
    return " ".join([_tag(struct).replace("_", " "), *fields]).strip()


def plain_decision(state: Any, seat: int, actions: Sequence[Any]) -> Decision:
    """One step, each action labelled by its fields: what a game shows before it names them."""
    return single_step(seat, "Choose an action", actions, lambda a: Choice("Action", _plain_label(a)))


def plain_description(event: Any, viewer: int | None) -> Description:
    """The event's tag and fields as words: what a game shows before it describes them."""
    text = _plain_label(event).replace("{", "(").replace("}", ")")
    return describe(_tag(event), text)
