"""The action digest's fast path (issue 45) digests exactly what the json round trip digests.

A command record keeps the digest of the action its command id was used for, and an audit
recomputes it from the stored action: any input on which the two paths disagreed would make a
retry across an upgrade look like a reused command id, and an old match fail its audit.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.eventstore import base
from gateway.eventstore.base import action_digest


def json_round_trip_digest(kind: str, action: bytes) -> str:
    """The digest as it was before the fast path: always through json."""
    body = action
    with contextlib.suppress(ValueError, RecursionError):
        canonical = json.dumps(json.loads(action), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        body = canonical.encode()
    return hashlib.blake2b(kind.encode() + b"\0" + body, digest_size=16).hexdigest()


# Every kind of character a client may put in a key or a string: controls, quotes, backslashes,
# the BMP above the surrogates (where UTF-16 order differs from code point order), astral planes.
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=8)
VALUES: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_a_canonical_action_digests_as_the_json_round_trip_does(value: Any) -> None:
    action = canonical(value)
    assert action_digest("action", action) == json_round_trip_digest("action", action)


@settings(max_examples=400, deadline=None)
@given(VALUES, st.sampled_from([{"indent": 1}, {"separators": (", ", ": ")}, {"ensure_ascii": True}, {}]))
def test_any_other_spelling_digests_as_the_json_round_trip_does(value: Any, style: dict[str, Any]) -> None:
    action = json.dumps(value, **style).encode()
    assert action_digest("action", action) == json_round_trip_digest("action", action)


def test_msgspec_gives_the_canonical_form_or_leaves_it_to_json() -> None:
    assert base._msgspec_canonical(b'{"type":"play","card":3}') == b'{"card":3,"type":"play"}'
    assert base._msgspec_canonical(b'{ "a" : 1, "a" : 2 }') == b'{"a":2}'  # the last, as json
    assert base._msgspec_canonical(b'"\\u00e9\\u0001"') == '"é\\u0001"'.encode()
    for left in (b'{"x":1.0}', b'"\\ud800"', b"NaN", b'"\xff"', b"\xef\xbb\xbf1", "1".encode("utf-16")):
        assert base._msgspec_canonical(left) is None
    nested = b"[" * 600 + b"]" * 600  # read by msgspec, but past FAST_DIGEST_MAX_BYTES
    assert len(nested) > base.FAST_DIGEST_MAX_BYTES and base._msgspec_canonical(nested) is None


def test_inputs_json_cannot_canonicalise_digest_their_own_bytes_on_both_paths() -> None:
    huge = b"9" * 5000  # past Python's integer digit limit
    deep = b"[" * 5000 + b"]" * 5000  # past json's recursion limit
    lone = b'"\\ud800"'  # json reads it; its canonical form cannot be encoded as UTF-8
    for action in (huge, deep, lone, b"", b"not json", b'"\xff"', b"\xff\xfe"):
        assert action_digest("action", action) == json_round_trip_digest("action", action)
        raw = hashlib.blake2b(b"action\0" + action, digest_size=16).hexdigest()
        assert action_digest("action", action) == raw


def test_nesting_json_can_read_digests_alike_up_to_the_fast_paths_size() -> None:
    for depth in (1, 100, 511, 512):
        action = b"[" * depth + b"]" * depth
        assert len(action) <= base.FAST_DIGEST_MAX_BYTES
        assert base._msgspec_canonical(action) == action
        assert action_digest("action", action) == json_round_trip_digest("action", action)
