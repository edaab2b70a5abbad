"""docs/clients.md's decision and description examples have the shape
`python -m services.present_examples` gives (their content changes as the games name things)."""

from __future__ import annotations

from typing import Any

from services.present_examples import DOC, examples, in_doc, markdown

KEYS = {"game", "decision", "legal_actions", "event", "description"}


def shape(item: dict[str, Any]) -> tuple[Any, ...]:
    """What the docs promise of an example, without its words."""
    decision, description = item["decision"], item["description"]
    options = decision["options"]
    return (
        item["game"],
        frozenset(item),
        {"seat", "prompt", "options"} <= set(decision),
        bool(options) and all({"choices", "action"} <= set(o) for o in options),
        all({"step", "label"} <= set(c) for o in options for c in o["choices"]),
        sorted(o["action"] for o in options) == list(range(len(item["legal_actions"]))),
        isinstance(item["event"], dict) and "type" in item["event"],
        {"key", "template", "text"} <= set(description),
    )


def test_the_docs_examples_have_the_scripts_shape_for_every_game() -> None:
    made = examples()
    assert [shape(i) for i in in_doc(DOC.read_text())] == [shape(i) for i in made]
    assert all(s[1] == KEYS and all(s[2:]) for s in map(shape, made))


def test_the_shape_check_sees_a_missing_game_or_field() -> None:
    made = examples()
    broken = [dict(made[0], description={"text": "no key"}), *made[2:]]
    assert [shape(i) for i in in_doc(markdown(broken))] != [shape(i) for i in made]
