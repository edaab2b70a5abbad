"""Issue 39 item 15: a name chosen at a table shows, and passes for no label and no other seat."""

from __future__ import annotations

import re

import pytest

from gateway.domain.names import BadName, check_name, name_key


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("\u3164", "visible"),  # Hangul filler: a letter that draws nothing
        ("\u3164\u3164 \u3164", "visible"),
        ("\u2800", "visible"),  # Braille blank: a symbol that draws nothing
        ("\u115f\u1160", "visible"),
        ("\u0301\u0308", "visible"),  # combining marks alone
        ("   ", "1-40"),
        ("\u200b", "U+200B"),  # zero-width space
        ("Ann\u200b", "U+200B"),
        ("\u2066Ann\u2069", "U+2066"),  # bidirectional isolate: can reorder the page's text
        ("A\u202eB", "U+202E"),
        ("\ufeff", "U+FEFF"),
        ("x\u0301\u0301\u0301\u0301\u0301", "marks"),  # text spilling over its neighbours
        ("A" * 41, "1-40"),
    ],
)
def test_a_name_that_shows_nothing_or_can_hide_text_is_refused(name: str, why: str) -> None:
    with pytest.raises(BadName, match=re.escape(why)):
        check_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "Player 1",
        "player2",
        "PLAYER  3",
        "Ｐｌａｙｅｒ ４",  # fullwidth (NFKC)
        "Рlауеr 5",  # Cyrillic Р, а, у, е
        "Bot 5 (greedy)",
        "Bot 2 (random)",
        "Bot",
        "Seat 3",
        "Spectator",
        "You",
        "Nobody",
        "Ann (you)",
        "Ann （ＹＯＵ）",
        "P.l.a.y.e.r 1",
    ],
)
def test_a_name_that_reads_like_a_label_of_the_table_is_refused(name: str) -> None:
    with pytest.raises(BadName, match="label"):
        check_name(name)


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("Ann", "Ann"),
        ("  Zoë   Smith ", "Zoë Smith"),
        ("Botanist", "Botanist"),
        ("Players United", "Players United"),
        ("李雷", "李雷"),
        ("😀", "😀"),
        ("👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"),  # an emoji sequence keeps its joiners
        ("Tiếng Việt", "Tiếng Việt"),
        ("<img src=x onerror=alert(1)>", "<img src=x onerror=alert(1)>"),  # text, not markup
    ],
)
def test_ordinary_names_are_kept_as_chosen(name: str, shown: str) -> None:
    assert check_name(name)[0] == shown


def test_names_that_read_the_same_share_a_key() -> None:
    keys = {name_key(n) for n in ("Ann", "ANN", "ann", "A n n", "Ａｎｎ", "\u3164Ann", "Аnn", "A.n.n")}
    assert keys == {"ann"}
    assert name_key("Ann") != name_key("Anna")
    assert name_key("★") == "★" and name_key("★") != name_key("☆")
