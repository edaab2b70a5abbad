"""The shared data-file loading: every fault is named with the file it came from."""

from __future__ import annotations

import hashlib
from pathlib import Path

import msgspec
import pytest

from services.kernel import data_digest, packaged_data, parse_data, read_data


class _Fault(ValueError):
    pass


class _Deck(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    cards: tuple[int, ...]


def _check(deck: _Deck) -> list[str]:
    return [f"card {c} is negative" for c in deck.cards if c < 0]


def test_a_good_file_decodes_into_the_schema() -> None:
    assert parse_data(b"cards = [1, 2]", _Deck, "deck.toml", _check, _Fault) == _Deck((1, 2))


def test_a_wrong_type_names_the_file_and_the_field() -> None:
    with pytest.raises(_Fault, match=r"^deck.toml: Expected `int`, got `str` - at `\$.cards\[0\]`"):
        parse_data('cards = ["x"]', _Deck, "deck.toml", _check, _Fault)


def test_bad_toml_names_the_file() -> None:
    with pytest.raises(_Fault, match=r"^deck.toml: not valid TOML: "):
        parse_data("cards = [", _Deck, "deck.toml", _check, _Fault)


def test_every_failed_check_is_listed_unless_capped() -> None:
    with pytest.raises(_Fault) as caught:
        parse_data("cards = [-1, -2, -3]", _Deck, "deck.toml", _check, _Fault)
    assert str(caught.value) == "deck.toml: card -1 is negative; card -2 is negative; card -3 is negative"
    with pytest.raises(_Fault) as capped:
        parse_data("cards = [-1, -2, -3]", _Deck, "deck.toml", _check, _Fault, most=2)
    assert str(capped.value) == "deck.toml: card -1 is negative; card -2 is negative"


def test_an_unreadable_file_names_what_and_where(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(_Fault, match=rf"^cannot read deck data {missing}: "):
        read_data(missing, _Fault, "deck data")
    (tmp_path / "ok.toml").write_bytes(b"cards = []")
    assert read_data(tmp_path / "ok.toml", _Fault, "deck data") == b"cards = []"


def test_packaged_data_reads_a_file_inside_a_package() -> None:
    assert packaged_data("services.kernel", "data.py").startswith(b'"""A game')


def test_the_digest_ignores_key_order_and_follows_the_values() -> None:
    assert data_digest({"a": 1, "b": 2}) == data_digest({"b": 2, "a": 1})
    assert data_digest(_Deck((1, 2))) != data_digest(_Deck((2, 1)))
    # Pinned: GetGameData publishes it, so a change here would change every game's data_digest.
    assert data_digest(_Deck((1, 2))) == hashlib.sha256(b'{"cards":[1,2]}').hexdigest()[:12]
