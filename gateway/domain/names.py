"""The names players choose at a table (issue 39 item 15): each must show, and none may pass for
a label of the page or for another seat.

A name is refused when:

- it has no visible character: only spaces, format characters (zero-width space and joiners,
  bidirectional controls), combining marks, or letters and symbols that draw nothing (Hangul
  fillers U+115F, U+1160, U+3164, U+FFA0; Braille blank U+2800; ...);
- it holds a character that can rearrange or hide the text around it (bidirectional controls,
  other format characters but the joiners emoji and some scripts need, control, private-use,
  unassigned and surrogate code points), or a letter stacked with more than MAX_MARKS combining
  marks (text that spills over the lines around it);
- its key (`name_key`) is one of the table's own labels: "Player 2", "Seat 3", "Bot 5 (greedy)",
  "Spectator", "You", "Nobody", ..., or a name marked "(you)" as the page marks the viewer's;
- its key is another seat's at the same table (gateway/tables.py compares them atomically with
  the claim).

The key of a name folds what a reader cannot tell apart: Unicode compatibility forms (NFKC: "Ｐｌａｙｅｒ"
is "Player"), case (casefold), spaces, punctuation and marks, and the Cyrillic and Greek letters
drawn like Latin ones ("Рlауеr" with Cyrillic Р, а, у, е is "player"). It is not a full
confusables skeleton (Unicode TR39), which would need its data file: the common look-alikes of
the scripts the labels are written in.
"""

from __future__ import annotations

import re
import unicodedata

MAX_NAME = 40
MAX_MARKS = 4  # combining marks on one letter: Vietnamese and Thai need up to 3

# Letters and symbols (categories Lo, So...) that draw as blank space.
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5\u2062\u2063\u2064\u034f")
# Format characters a name may hold (emoji sequences, Persian and Indic shaping), never alone.
_JOINERS = frozenset("\u200c\u200d")
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"})
_VISIBLE_CATEGORIES = ("L", "N", "P", "S")

# Cyrillic and Greek letters drawn like Latin ones (after casefold), and a few symbols.
_LOOKALIKES = str.maketrans(
    {
        "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i",
        "ј": "j", "к": "k", "ӏ": "l", "м": "m", "н": "h", "о": "o", "р": "p", "ԛ": "q", "г": "r",
        "ѕ": "s", "т": "t", "ц": "u", "у": "y", "х": "x", "ԝ": "w", "ь": "b",
        "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "μ": "u", "ν": "v", "ο": "o",
        "ρ": "p", "σ": "o", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ς": "c",
        "ı": "i", "ł": "l", "ø": "o", "ð": "d", "ß": "ss",
    }
)  # fmt: skip
# The page's labels, as keys: "Player 2", "Seat 3", "Bot 5 (greedy)", "Bot 2", ... and words it
# uses for people.
_LABEL = re.compile(r"(player|seat|bot|spectator|spectating)\d*(random|greedy|bot|you)?")
_WORDS = frozenset(
    {"you", "me", "nobody", "noone", "everyone", "someone", "winner", "host", "admin", "system",
     "gateway", "guildhall", "moderator", "thetable", "table", "unknown", "anonymous"}
)  # fmt: skip
_YOU = re.compile(r"\(\s*you\s*\)")


class BadName(ValueError):
    """A name a table refuses; the message says what to change."""


def name_key(name: str) -> str:
    """What two names that read the same share: NFKC, casefold, look-alike letters folded to
    Latin, and nothing but letters and digits kept (a name of symbols alone keeps its symbols)."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    plain = "".join(
        c
        for c in unicodedata.normalize("NFD", folded)
        if unicodedata.category(c)[0] in "LN" and c not in _BLANK
    )
    key = unicodedata.normalize("NFC", plain).translate(_LOOKALIKES)
    return key or "".join(folded.split())


def check_name(text: str) -> tuple[str, str]:
    """The name as shown (spaces collapsed) and its key; BadName says why it cannot be one."""
    name = " ".join(text.split())
    if not 1 <= len(name) <= MAX_NAME:
        raise BadName(f"display_name must be 1-{MAX_NAME} characters")
    marks = 0
    for char in name:
        category = unicodedata.category(char)
        if category in _REFUSED_CATEGORIES and char not in _JOINERS:
            what = unicodedata.name(char, "a control or format character")
            raise BadName(
                f"display_name holds U+{ord(char):04X} ({what}), which can hide or rearrange text: "
                "choose a name without it"
            )
        marks = marks + 1 if category[0] == "M" else 0
        if marks > MAX_MARKS:
            raise BadName(f"display_name stacks more than {MAX_MARKS} marks on one letter")
    if not any(unicodedata.category(c).startswith(_VISIBLE_CATEGORIES) and c not in _BLANK for c in name):
        raise BadName("display_name must have at least one visible character (a letter, digit or symbol)")
    key = name_key(name)
    folded = unicodedata.normalize("NFKC", name).casefold()
    if _LABEL.fullmatch(key) or key in _WORDS or _YOU.search(folded):
        raise BadName(
            f'display_name {name!r} reads like one of the table\'s own labels (such as "Player 2", '
            '"Bot 3 (greedy)", "Spectator" or "(you)"): choose another name'
        )
    return name, key
