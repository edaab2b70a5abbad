"""The CLI presents a game by its decisions and descriptions (issue 31): a decision walked step by
step in numbered menus drives the right legal action, and the event log speaks in descriptions,
leaving engine bookkeeping out unless asked for everything."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator

import pytest
from guildhall.common.v1 import common_pb2
from guildhall.gateway.v1 import gateway_pb2 as pb
from rich.console import Console

from guildhall_client import cli
from guildhall_client.types import Decision, Event, MatchView, WatchUpdate

PLACES = ("Harbour", "Market", "Palace")


def _ys_like(*, inline: bool = False) -> pb.MatchView:
    """Ys's shape: which broker (value 1-3), then where; legal actions in a scrambled order. Each
    distinct choice listed once in the decision's table, options naming theirs by index (issue
    45), or `inline`: each option's choices in the option (the shape before it)."""
    view = pb.MatchView(match_id="m", game_id="ys", version=4, seat=1, view=b"{}", active_seats=[1])
    pairs = [(value, place) for place in PLACES for value in (1, 2, 3)]
    table: list[common_pb2.DecisionChoice] = []
    for index, (value, place) in enumerate(pairs):
        view.legal_actions.append(f'{{"type":"place_broker","value":{value},"place":"{place}"}}'.encode())
        option = view.decision.options.add(action=index)
        steps = (
            common_pb2.DecisionChoice(step="Which broker?", label=f"Broker {value}"),
            common_pb2.DecisionChoice(step="Where?", label=place, kind="place", id=place.lower()),
        )
        if inline:
            option.choices.extend(steps)
            continue
        for step in steps:
            if step not in table:
                table.append(step)
            option.choice_indexes.append(table.index(step))
    view.decision.choices.extend(table)
    view.decision.seat, view.decision.prompt = 1, "Place a broker"
    return view


def test_a_decision_reads_the_same_from_its_choice_table_or_inline() -> None:
    table, inline = _ys_like(), _ys_like(inline=True)
    assert len(table.decision.choices) == 6  # 3 brokers and 3 places, for 9 options
    assert table.ByteSize() < inline.ByteSize()
    assert Decision.from_pb(table.decision) == Decision.from_pb(inline.decision)
    assert Decision.from_pb(table.decision).options[4].choices[1].label == "Market"


def test_an_option_naming_a_choice_the_table_lacks_is_refused() -> None:
    message = _ys_like()
    message.decision.options[2].choice_indexes.append(6)
    with pytest.raises(ValueError, match="option 2 names a choice the decision does not list"):
        Decision.from_pb(message.decision)


@pytest.fixture
def screen(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    out = io.StringIO()
    monkeypatch.setattr(cli, "console", Console(file=out, width=200, highlight=False))
    yield out


def _answers(monkeypatch: pytest.MonkeyPatch, *lines: str) -> None:
    given = iter(lines)
    monkeypatch.setattr(cli, "_read_line", lambda prompt: next(given))


def test_a_two_step_menu_drives_the_legal_action_it_names(
    monkeypatch: pytest.MonkeyPatch, screen: io.StringIO
) -> None:
    view = MatchView.from_pb(_ys_like())
    _answers(monkeypatch, "3", "2")  # broker 3, then the second place
    index = asyncio.run(cli._choose(view, None))
    assert isinstance(index, int)
    assert view.legal_actions[index] == {"type": "place_broker", "value": 3, "place": "Market"}
    shown = screen.getvalue()
    assert "Which broker?" in shown and "Where?" in shown and "Broker 3" in shown


def test_stepping_back_and_a_wrong_number_ask_again(
    monkeypatch: pytest.MonkeyPatch, screen: io.StringIO
) -> None:
    view = MatchView.from_pb(_ys_like())
    _answers(monkeypatch, "1", "b", "9", "2", "3")
    index = asyncio.run(cli._choose(view, None))
    assert isinstance(index, int)
    assert view.legal_actions[index] == {"type": "place_broker", "value": 2, "place": "Palace"}
    assert "Type a number from 1 to 3." in screen.getvalue()


def test_a_step_with_one_choice_is_taken_without_asking(
    monkeypatch: pytest.MonkeyPatch, screen: io.StringIO
) -> None:
    message = _ys_like()
    decision = Decision.from_pb(message.decision)
    keep = [i for i, o in enumerate(decision.options) if o.choices[1].label == "Palace"]
    only_palace = Decision(decision.seat, decision.prompt, tuple(decision.options[i] for i in keep))
    _answers(monkeypatch, "1")
    view = MatchView.from_pb(message)
    index = asyncio.run(cli._decide(only_palace))
    assert view.legal_actions[index] == {"type": "place_broker", "value": 1, "place": "Palace"}


def test_without_a_decision_the_legal_actions_are_numbered(
    monkeypatch: pytest.MonkeyPatch, screen: io.StringIO
) -> None:
    message = _ys_like()
    message.ClearField("decision")
    view = MatchView.from_pb(message)
    assert view.decision is None
    _answers(monkeypatch, "r")
    assert asyncio.run(cli._choose(view, None)) == "resign"
    assert "9." in screen.getvalue()


def _event(version: int, text: str, *, internal: bool = False, described: bool = True) -> Event:
    message = pb.MatchEvent(
        version=version, type="thing_happened", actor=0, json=b'{"type":"thing_happened"}'
    )
    if described:
        message.description.CopyFrom(
            common_pb2.Description(key="k", text=text, template=text, internal=internal)
        )
    return Event.from_pb(message)


def test_the_log_speaks_in_descriptions_and_hides_bookkeeping_unless_asked(screen: io.StringIO) -> None:
    update = WatchUpdate(
        [
            _event(2, "Player 1 takes 3"),
            _event(3, "Deck shuffled", internal=True),
            _event(4, "", described=False),
        ],
        MatchView.from_pb(_ys_like()),
    )
    cli._print_events(update)
    log = screen.getvalue()
    assert "Player 1 takes 3" in log and "Deck shuffled" not in log
    assert "thing happened" in log  # no description: the type and fields, as before
    screen.truncate(0)
    cli._print_events(update, show_all=True)
    assert "Deck shuffled" in screen.getvalue()


def test_a_description_renders_with_other_seat_names() -> None:
    message = common_pb2.Description(key="k", text="Player 2 resigns", template="{player} resigns")
    message.args.add(name="player", text="Player 2", kind="seat", id="1")
    event = pb.MatchEvent(version=1, type="seat_resigned", actor=-1, json=b"{}", description=message)
    described = Event.from_pb(event).description
    assert described is not None
    assert described.render() == "Player 2 resigns"
    assert described.render({1: "You"}) == "You resigns"


def test_the_kernels_plain_fallback_gives_way_to_actions_named_from_the_game_data(
    monkeypatch: pytest.MonkeyPatch, screen: io.StringIO
) -> None:
    message = _ys_like()
    message.ClearField("decision")
    message.decision.seat, message.decision.prompt = 1, "Choose an action"
    for index in range(len(message.legal_actions)):
        message.decision.options.add(action=index).choices.add(step="Action", label=f"place broker {index}")
    _answers(monkeypatch, "4")
    assert asyncio.run(cli._choose(MatchView.from_pb(message), None)) == 3
    shown = screen.getvalue()
    assert "place broker 3" not in shown and "Harbour" in shown  # the legal actions, numbered
    plain = pb.MatchEvent(
        version=5, type="broker_placed", actor=1, json=b'{"type":"broker_placed","place":"x"}'
    )
    plain.description.CopyFrom(
        common_pb2.Description(
            key="broker_placed", text="broker placed place x", template="broker placed place x"
        )
    )
    screen.truncate(0)
    cli._print_events(WatchUpdate([Event.from_pb(plain)], MatchView.from_pb(message)))
    assert "[seat 1] broker placed" in screen.getvalue()


def _give_a_card(view: pb.MatchView) -> None:
    """A decision naming another seat: the prompt, the step and a label are templates."""
    view.ClearField("decision")
    view.ClearField("legal_actions")
    view.seat_names.extend(["Ann", "Bob"])
    decision = view.decision
    decision.seat, decision.prompt = 1, "Give Player 1 a card"
    decision.prompt_template = "Give {receiver} a card"
    decision.prompt_args.add(name="receiver", text="Player 1", kind="seat", id="0")
    for index, card in enumerate(("Hex", "Rincewind")):
        view.legal_actions.append(f'{{"type":"give","card":"{card}"}}'.encode())
        choice = decision.options.add(action=index).choices.add(
            step="Give which card to Player 1?", label=card, kind="card", id=card
        )
        choice.step_template = "Give which card to {target}?"
        choice.step_args.add(name="target", text="Player 1", kind="seat", id="0")


def test_a_decision_names_players_as_chosen_at_the_table(
    monkeypatch: pytest.MonkeyPatch, screen: io.StringIO
) -> None:
    """Issue 41 item 3: "Give Player 1 a card" at a table where seat 0 is Ann reads "Give Ann"."""
    message = _ys_like()
    _give_a_card(message)
    view = MatchView.from_pb(message)
    _answers(monkeypatch, "2")
    index = asyncio.run(cli._choose(view, None))
    assert view.legal_actions[index] == {"type": "give", "card": "Rincewind"}
    shown = screen.getvalue()
    assert "Give Ann a card" in shown and "Give which card to Ann?" in shown
    assert "Player 1" not in shown


def test_the_log_names_players_as_chosen_at_the_table(screen: io.StringIO) -> None:
    message = common_pb2.Description(key="k", text="Player 2 resigns", template="{player} resigns")
    message.args.add(name="player", text="Player 2", kind="seat", id="1")
    event = pb.MatchEvent(version=1, type="seat_resigned", actor=-1, json=b"{}", description=message)
    view = _ys_like()
    view.seat_names.extend(["Ann", "Bob"])
    cli._print_events(WatchUpdate([Event.from_pb(event)], MatchView.from_pb(view)))
    assert "Bob resigns" in screen.getvalue() and "Player 2" not in screen.getvalue()


def test_a_component_standing_for_a_seat_is_named_like_the_seat() -> None:
    """Ys's party 2: the third seat with 3 players, the neutral player with 2."""
    from guildhall_client.names import Names

    names = Names(
        {
            "components": [
                {
                    "kind": "party",
                    "id": "2",
                    "name": "Player 3",
                    "values": {"seat": 2, "seatless": "the neutral player"},
                }
            ]
        }
    )
    message = common_pb2.Description(key="k", text="Player 3 takes blue", template="{party} takes blue")
    message.args.add(name="party", text="Player 3", kind="party", id="2")
    described = Event.from_pb(pb.MatchEvent(version=1, type="t", json=b"{}", description=message)).description
    assert described is not None
    assert described.render({0: "Ann", 1: "Bob", 2: "Cy"}, names.stands_for) == "Cy takes blue"
    assert described.render({0: "Ann", 1: "Bob"}, names.stands_for) == "The neutral player takes blue"
