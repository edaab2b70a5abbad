"""The game JSON's compatibility check (services/schema_compat.py) catches each kind of breaking
change in a mutated copy of a real published schema, with the path of what broke, accepts the
additive ones, and ties the verdict to the editions and the per-game changelogs."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from services import schema_compat
from services.schema_compat import GameContract, compare_game, compare_schema, problems

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def _schema(game: str, name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((SCHEMAS / game / f"{name}.schema.json").read_text())
    return document


def _changed(name: str, mutate: Callable[[dict[str, Any]], None]) -> list[str]:
    """The breaking changes the check finds when `mutate` edits a copy of schemas/<name>."""
    game, kind = name.split("/")
    released = _schema(game, kind)
    today = copy.deepcopy(released)
    mutate(today)
    return [str(change) for change in compare_schema(name, released, today)]


def _defs(document: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = document["$defs"][name]
    return found


def _drop_action(document: dict[str, Any], tag: str, definition: str) -> None:
    document["anyOf"] = [a for a in document["anyOf"] if a["$ref"] != f"#/$defs/{definition}"]
    del document["discriminator"]["mapping"][tag]


def _add_event_type(document: dict[str, Any]) -> None:
    _defs(document, "TurnStarted")  # a real event beside which a new one appears
    document["$defs"]["HarbourClosed"] = {
        "type": "object",
        "properties": {"type": {"enum": ["harbour_closed"]}, "turn": {"type": "integer"}},
        "required": ["type", "turn"],
        "additionalProperties": False,
    }
    document["anyOf"].append({"$ref": "#/$defs/HarbourClosed"})
    document["discriminator"]["mapping"]["harbour_closed"] = "#/$defs/HarbourClosed"


BREAKING: list[tuple[str, str, Callable[[dict[str, Any]], None], str]] = [
    (
        "a removed property",
        "ys/action",
        lambda d: _defs(d, "PlaceBroker")["properties"].pop("face_up"),
        "ys/action.schema.json#/$defs/PlaceBroker/properties/face_up: property 'face_up' removed",
    ),
    (
        "integer narrowed to string",
        "ys/action",
        lambda d: _defs(d, "PlaceBroker")["properties"]["value"].update(type="string"),
        "ys/action.schema.json#/$defs/PlaceBroker/properties/value: type narrowed: integer no longer accepted"
        " (now string)",
    ),
    (
        "a tightened maximum",
        "ys/action",
        lambda d: _defs(d, "PlaceBroker")["properties"]["value"].update(maximum=3),
        "ys/action.schema.json#/$defs/PlaceBroker/properties/value: maximum tightened from 4 to 3",
    ),
    (
        "a raised minimum",
        "ys/action",
        lambda d: _defs(d, "PlaceBroker")["properties"]["value"].update(minimum=1),
        "ys/action.schema.json#/$defs/PlaceBroker/properties/value: minimum tightened from 0 to 1",
    ),
    (
        "a newly required field",
        "ys/action",
        lambda d: _defs(d, "Peek")["required"].append("broker"),
        "ys/action.schema.json#/$defs/Peek: property 'broker' is now required",
    ),
    (
        "a removed enum value",
        "ys/rejection",
        lambda d: _defs(d, "Rejection")["properties"]["code"]["enum"].remove("game_over"),
        "ys/rejection.schema.json#/$defs/Rejection/properties/code: enum values no longer accepted:"
        ' "game_over"',
    ),
    (
        "a removed action",
        "ys/action",
        lambda d: _drop_action(d, "bid", "Bid"),
        "ys/action.schema.json#/$defs/Bid: the tag 'bid' is gone (removed or renamed)",
    ),
    (
        "a renamed event tag",
        "ys/event",
        lambda d: _defs(d, "BidPlaced")["properties"]["type"].update(enum=["bids_placed"]),
        "ys/event.schema.json#/$defs/BidPlaced: the tag 'bid_placed' is gone (removed or renamed)",
    ),
    (
        "null no longer accepted in a view",
        "ys/view",
        lambda d: _defs(d, "View")["properties"]["viewer"].update(anyOf=[{"type": "integer"}]),
        "ys/view.schema.json#/$defs/View/properties/viewer: type narrowed: null no longer accepted"
        " (now integer)",
    ),
    (
        "a decision's field removed",
        "ys/decision",
        lambda d: _defs(d, "Decision")["properties"].pop("prompt"),
        "ys/decision.schema.json#/$defs/Decision/properties/prompt: property 'prompt' removed",
    ),
    (
        "an open map closed",
        "ys/game_data",
        lambda d: _defs(d, "GameData_Catalog_")["properties"]["boards"].update(
            properties={"city": {"type": "object"}}, additionalProperties=False
        ),
        "ys/game_data.schema.json#/$defs/GameData_Catalog_/properties/boards:"
        " closed: properties it did not name are no longer accepted",
    ),
    (
        "an array's items narrowed",
        "ys/event",
        lambda d: _defs(d, "BidPlaced")["properties"]["values"]["items"].update(type="string"),
        "ys/event.schema.json#/$defs/BidPlaced/properties/values/items:"
        " type narrowed: integer no longer accepted",
    ),
]


@pytest.mark.parametrize(("label", "name", "mutate", "expected"), BREAKING, ids=[b[0] for b in BREAKING])
def test_each_kind_of_breaking_change_is_named_with_its_path(
    label: str, name: str, mutate: Callable[[dict[str, Any]], None], expected: str
) -> None:
    found = _changed(name, mutate)
    assert len(found) == 1 and found[0].startswith(expected), (label, found)


ADDITIVE: list[tuple[str, str, Callable[[dict[str, Any]], None]]] = [
    (
        "a new optional field",
        "ys/action",
        lambda d: _defs(d, "Peek")["properties"].update(note={"type": "string", "default": ""}),
    ),
    ("a new event type", "ys/event", _add_event_type),
    (
        "integer widened to number",
        "ys/action",
        lambda d: _defs(d, "PlaceBroker")["properties"]["value"].update(type="number"),
    ),
    (
        "a loosened maximum",
        "ys/action",
        lambda d: _defs(d, "PlaceBroker")["properties"]["value"].update(maximum=9),
    ),
    (
        "a nullable field",
        "ys/action",
        lambda d: _defs(d, "PlaceBroker")["properties"].update(
            place={"anyOf": [{"type": "string"}, {"type": "null"}]}
        ),
    ),
    (
        "a new rejection code",
        "ys/rejection",
        lambda d: _defs(d, "Rejection")["properties"]["code"]["enum"].append("harbour_closed"),
    ),
    (
        "a required field made optional",
        "ys/action",
        lambda d: _defs(d, "PlaceBroker")["required"].remove("face_up"),
    ),
    (
        "new descriptions and titles",
        "ys/view",
        lambda d: _defs(d, "View").update(description="changed words", title="Another"),
    ),
]


@pytest.mark.parametrize(("label", "name", "mutate"), ADDITIVE, ids=[a[0] for a in ADDITIVE])
def test_additive_changes_are_compatible(
    label: str, name: str, mutate: Callable[[dict[str, Any]], None]
) -> None:
    assert _changed(name, mutate) == [], label


def test_every_published_schema_is_compatible_with_itself() -> None:
    for path in SCHEMAS.glob("*/*.schema.json"):
        document = json.loads(path.read_text())
        name = path.parent.name + "/" + path.name.removesuffix(".schema.json")
        assert compare_schema(name, document, document) == [], path


# -- games: schemas, game data kinds, editions and changelogs ------------------------------------


def _ys(edition: str = "1.0", **schemas: dict[str, Any]) -> GameContract:
    released = schema_compat.read_baseline()["ys"]
    return GameContract(edition, {**released.schemas, **schemas}, released.kinds)


def _broken_action() -> dict[str, Any]:
    action = copy.deepcopy(schema_compat.read_baseline()["ys"].schemas["action"])
    _drop_action(action, "bid", "Bid")
    return action


COMPATIBLE = "## 1.0 (compatible)\n"


def test_a_removed_game_data_kind_is_breaking() -> None:
    released = _ys()
    kinds = {k: v for k, v in released.kinds.items() if k != "ship"}
    changes = compare_game("ys", released, GameContract("1.0", released.schemas, kinds))
    assert [str(c) for c in changes] == ["ys/game_data kinds: entry kind 'ship' is gone (removed or renamed)"]
    assert (
        compare_game(
            "ys", released, GameContract("1.0", released.schemas, {**released.kinds, "harbour": "x"})
        )
        == []
    )


def test_a_schema_no_longer_published_is_breaking() -> None:
    released = _ys()
    schemas = {k: v for k, v in released.schemas.items() if k != "outcome"}
    assert [str(c) for c in compare_game("ys", released, GameContract("1.0", schemas, released.kinds))] == [
        "ys/outcome.schema.json: the schema is no longer published"
    ]


def test_a_breaking_change_under_the_same_edition_is_refused_with_the_way_out() -> None:
    found = problems({"ys": _ys()}, {"ys": _ys(action=_broken_action())}, {"ys": COMPATIBLE})
    assert len(found) == 1
    assert "1 breaking change(s) against the released schemas of edition 1.0" in found[0]
    assert "ys/action.schema.json#/$defs/Bid: the tag 'bid' is gone" in found[0]
    assert 'rules_version("2.0", ...)' in found[0] and "docs/rules/ys-changelog.md" in found[0]


def test_a_breaking_change_needs_a_new_major_edition_marked_breaking() -> None:
    broken = _broken_action()
    released = {"ys": _ys()}
    # A minor edition does not make a break acceptable, even marked breaking.
    minor = problems(released, {"ys": _ys("1.1", action=broken)}, {"ys": "## 1.1 (breaking)\n" + COMPATIBLE})
    assert any("breaking change(s)" in p for p in minor) and any("no new major after 1.0" in p for p in minor)
    # A new major marked compatible is refused too: the changelog must say it breaks.
    unmarked = problems(
        released, {"ys": _ys("2.0", action=broken)}, {"ys": "## 2.0 (compatible)\n" + COMPATIBLE}
    )
    assert len(unmarked) == 1 and "breaking change(s)" in unmarked[0]
    # A new major with an entry marked breaking ships.
    assert (
        problems(released, {"ys": _ys("2.0", action=broken)}, {"ys": "## 2.0 (breaking)\n" + COMPATIBLE})
        == []
    )


def test_every_edition_needs_a_changelog_entry() -> None:
    assert problems({"ys": _ys()}, {"ys": _ys("1.1")}, {"ys": COMPATIBLE}) == [
        "ys: docs/rules/ys-changelog.md has no entry '## 1.1 (compatible|breaking)' for edition 1.1"
    ]
    assert problems({"ys": _ys()}, {"ys": _ys("1.1")}, {"ys": "## 1.1 (compatible)\n" + COMPATIBLE}) == []
    assert problems({}, {"ys": _ys()}, {}) != []  # a game not yet released needs one too


def test_a_released_game_that_disappears_is_breaking() -> None:
    assert problems({"ys": _ys()}, {}, {}) == [
        "ys: a released game is no longer published (breaking for every client of it)"
    ]


def test_the_edition_is_the_part_of_the_rules_version_before_the_plus() -> None:
    assert schema_compat.edition("1.0+be651e657583") == "1.0"
    assert schema_compat.edition("2.1+code.abc+data.def") == "2.1"  # whatever follows `+`
    assert schema_compat.edition("3.0") == "3.0"


def test_the_command_fails_on_a_breaking_baseline_and_passes_on_the_committed_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = json.loads(schema_compat.BASELINE.read_text())
    bid = document["games"]["ys"]["schemas"]["action"]["$defs"]["Bid"]["properties"]
    bid["values"]["items"]["maximum"] = 9  # released wider than today: today narrows it
    mutated = tmp_path / "baseline.json"
    mutated.write_text(json.dumps(document))
    assert schema_compat.main(["--baseline", str(mutated)]) == 1
    assert "ys/action.schema.json#/$defs/Bid/properties/values/items: maximum tightened from 9 to 4" in (
        capsys.readouterr().err
    )
    assert schema_compat.main([]) == 0


def _require_new_property(document: dict[str, Any], definition: str) -> None:
    _defs(document, definition)["properties"]["rank"] = {"type": "integer"}
    _defs(document, definition)["required"].append("rank")


def test_a_new_required_property_breaks_what_is_read_back_not_what_only_the_server_writes() -> None:
    """A stored event must decode at every replay, so a property it must now carry is breaking; a
    view only the server writes now always carries it, which a client built on the release ignores."""
    assert _changed("ys/event", lambda d: _require_new_property(d, "TurnStarted")) == [
        "ys/event.schema.json#/$defs/TurnStarted: new property 'rank' is required"
    ]
    assert _changed("ys/view", lambda d: _require_new_property(d, "SeatView")) == []
