"""The game's JSON as JSON over HTTP (issue 33): the edge between the contract's `bytes` fields and
their `google.protobuf.Value` / `Struct` twins.

Actions, options, views, legal actions, outcomes, events and game data are the game's JSON. In the
contract they are `bytes` (the JSON's UTF-8 bytes: what gRPC and Connect-binary clients read and
write, and what the use cases handle), each with a value field beside it. Over HTTP with the JSON
codec, and only there, the two are swapped at the edge, on dicts, without touching the use cases:

- an answer's bytes fields are written as their value fields (`"viewValue": {"phase": ...}`
  instead of `"view": "eyJwaGFzZSI6..."`), read from the message's own bytes (no copy of it);
- a request's value fields become the bytes the use cases read (`"action_value": {"type": ...}`);
  a request that sets both of a pair is INVALID_ARGUMENT, and a bytes field over JSON must hold
  base64 of JSON (else the message says to send the value field instead).

A binary request may set a value field too (`json_bytes`, called by the servicer where it reads
the bytes): one HasField check per field, the only cost a binary client pays.

Every shape that is not the request's is answered with a message that names the field and the
form it expects (`shape_error`), never a Python exception's text.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from gateway.api.wire import MAX_ACTION_BYTES, MAX_OPTIONS_BYTES, BadRequest

PACKAGE = "guildhall.gateway.v1."
MAX_DEPTH = 64  # a game's actions, options and views nest a few levels; past this is an attack
MAX_JSON_BYTES = max(MAX_ACTION_BYTES, MAX_OPTIONS_BYTES)
OBJECT = "object"
ANY = "any"

# message -> (bytes field, value field, what the JSON must be); the value twin of each JSON bytes
# field of the contract (tests/gateway/test_http_json.py checks every Value/Struct field is here).
PAIRS: dict[str, tuple[tuple[str, str, str], ...]] = {
    PACKAGE + "SubmitActionRequest": (("action", "action_value", OBJECT),),
    PACKAGE + "PlayAction": (("action", "action_value", OBJECT),),
    PACKAGE + "CreateMatchRequest": (("options", "options_value", OBJECT),),
    PACKAGE + "CreateTableRequest": (("options", "options_value", OBJECT),),
    PACKAGE + "CreateTicketRequest": (("options", "options_value", OBJECT),),
    PACKAGE + "Game": (("default_options", "default_options_value", OBJECT),),
    PACKAGE + "Ticket": (("options", "options_value", OBJECT),),
    PACKAGE + "MatchEvent": (("json", "data", ANY),),
    PACKAGE + "MatchView": (
        ("view", "view_value", ANY),
        ("legal_actions", "legal_actions_value", ANY),
        ("outcome", "outcome_value", ANY),
    ),
    PACKAGE + "StoredEvent": (("payload", "payload_value", ANY),),
    PACKAGE + "GetGameDataResponse": (("data", "data_value", ANY),),
    PACKAGE + "DeadLetter": (("body", "body_value", ANY),),
}
EXAMPLES = {"action": '{"type": "...", ...}', "options": '{"variant": ...} or {}'}


class ShapeError(BadRequest):
    """A request that is not the RPC's message: INVALID_ARGUMENT with this text."""


# -- which messages hold a pair, however deep -----------------------------------------------------


def _holds_pairs(descriptor: Descriptor, seen: frozenset[str] = frozenset()) -> bool:
    if descriptor.full_name in PAIRS:
        return True
    seen = seen | {descriptor.full_name}
    return any(
        f.message_type is not None
        and f.message_type.full_name not in seen
        and _holds_pairs(f.message_type, seen)
        for f in descriptor.fields
    )


_WALK: dict[str, tuple[FieldDescriptor, ...]] = {}


def _walk(descriptor: Descriptor) -> tuple[FieldDescriptor, ...]:
    """The message fields of `descriptor` under which some message holds a pair."""
    found = _WALK.get(descriptor.full_name)
    if found is None:
        found = tuple(
            f
            for f in descriptor.fields
            if f.message_type is not None
            and not f.message_type.GetOptions().map_entry
            and _holds_pairs(f.message_type)
        )
        _WALK[descriptor.full_name] = found
    return found


# -- answers: bytes -> values ---------------------------------------------------------------------


def to_dict(message: Message) -> dict[str, Any]:
    """The message as the JSON codec writes it (proto3 JSON names), the game's JSON as values.

    Every field is written, zero values too (issue 39 item 13): proto3 JSON leaves out a field at
    its default, so seat 0, option 0 and `finished: false` would be missing and `jq
    '.legalActionsValue[.decision.options[0].action]'` fail. Fields with presence (messages, the
    oneof members, `optional` scalars) are still written only when set, so a missing `rejection`
    or `outcomeValue` keeps meaning "none"."""
    out: dict[str, Any] = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    _values_out(message, out)
    return out


def encode(message: Message) -> bytes:
    """The JSON codec's answer (indented, as connect-python writes it), the game's JSON as values."""
    return json.dumps(to_dict(message), indent=2).encode()


def _values_out(message: Message, out: dict[str, Any]) -> None:
    descriptor = message.DESCRIPTOR
    fields = descriptor.fields_by_name
    for raw_name, value_name, _ in PAIRS.get(descriptor.full_name, ()):
        raw_json, value_json = fields[raw_name].json_name, fields[value_name].json_name
        if raw_json not in out:
            continue
        raw = getattr(message, raw_name)
        if not raw and not fields[raw_name].is_repeated:  # no JSON at all (no outcome yet): no value
            del out[raw_json]
            continue
        try:
            value = [_loads(r) for r in raw] if fields[raw_name].is_repeated else _loads(raw)
        except ValueError:
            continue  # not JSON (never from the gateway): left as the bytes it is
        del out[raw_json]
        out[value_json] = value
    for field in _walk(descriptor):
        inner = out.get(field.json_name)
        if inner is None:
            continue
        if field.is_repeated:
            for item, item_out in zip(getattr(message, field.name), inner, strict=True):
                _values_out(item, item_out)
        else:
            _values_out(getattr(message, field.name), inner)


def _loads(raw: bytes) -> Any:
    return json.loads(raw)  # ValueError (UnicodeDecodeError included) when it is not JSON


# -- requests: values -> bytes, and the shapes they must have --------------------------------------


def decode(data: bytes | bytearray, message: Message) -> Message:
    """Parse a JSON request body into `message`: value fields become their bytes twins; any shape
    that is not the message's raises ShapeError naming the field and the form it expects."""
    rpc = message.DESCRIPTOR.name.removesuffix("Request")
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError as error:
        raise ShapeError(
            f"the {rpc} request is not UTF-8 text (byte {error.start} is not): send JSON in UTF-8"
        ) from None
    body = strict_loads(text, f"the {rpc} request") if text.strip() else {}
    if not isinstance(body, dict):
        raise ShapeError(f'the {rpc} request must be a JSON object of its fields, like {{"match_id": ...}}')
    _values_in(message.DESCRIPTOR, body, "")
    try:
        json_format.ParseDict(body, message)
    except (json_format.ParseError, TypeError, ValueError) as error:  # what _check_shape let through
        raise ShapeError(f"the {rpc} request does not parse: {_plain(str(error))}") from None
    return message


# Integers a request may hold: what fits in 64 bits (protobuf's widest, and past 2**53 a JSON
# number is not even exact in most parsers, RFC 8259 section 6).
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1
# A \uD800-\uDFFF escape: JSON text may spell a lone surrogate, which is no character (RFC 8259 8.2).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


class _NotStrictJson(ValueError):
    pass


def strict_loads(text: str, what: str) -> Any:
    """JSON as RFC 8259 and I-JSON (RFC 7493) define it, or ShapeError saying what is wrong: no
    NaN or Infinity, no number out of range, no member named twice in an object, no lone
    surrogate, no nesting past Python's recursion limit (the value fields have their own,
    MAX_DEPTH). What Python's json module lets through, or refuses with its own text (issue 39
    item 14: a 500), must not reach a field, a game or a log as something else."""

    def constant(name: str) -> Any:
        raise _NotStrictJson(f"{what} holds {name}, which is not a JSON number: send a finite number")

    def real(literal: str) -> float:
        value = float(literal)
        if not math.isfinite(value):
            raise _NotStrictJson(f"{what} holds the number {literal[:40]}, too large for a double")
        return value

    def integer(literal: str) -> int:
        digits = len(literal.lstrip("-"))
        if digits > 20 or not _INT_MIN <= int(literal) <= _INT_MAX:
            raise _NotStrictJson(
                f"{what} holds an integer of {digits} digits: integers are at most 64 bits "
                f"({_INT_MIN} to {_INT_MAX})"
            )
        return int(literal)

    def members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for name, value in pairs:
            if name in obj:
                raise _NotStrictJson(
                    f"{what} names {_shown(name)} twice in one object: each member once (RFC 8259 4)"
                )
            obj[name] = value
        return obj

    try:
        value = json.loads(
            text, parse_constant=constant, parse_float=real, parse_int=integer, object_pairs_hook=members
        )
    except RecursionError:
        raise ShapeError(f"{what} nests too deeply (at most {MAX_DEPTH} levels)") from None
    except json.JSONDecodeError as error:
        where = f"line {error.lineno} column {error.colno}"
        raise ShapeError(f"{what} is not JSON: {error.msg} at {where}") from None
    except _NotStrictJson as error:
        raise ShapeError(str(error)) from None
    if _SURROGATE_ESCAPE.search(text):
        lone = _lone_surrogate(value)
        if lone is not None:
            raise ShapeError(
                f"{what} holds \\u{ord(lone):04x}, half of a UTF-16 surrogate pair: not a character "
                "(send the whole pair, or the character itself in UTF-8)"
            )
    return value


def _shown(name: str) -> str:
    return json.dumps(name[:40])  # escaped: a name may hold anything


def _lone_surrogate(value: Any) -> str | None:
    """The first lone surrogate in any string (a member name or a value) of `value`, if any."""
    if isinstance(value, str):
        return next((c for c in value if "\ud800" <= c <= "\udfff"), None)
    if isinstance(value, dict):
        items: Iterable[Any] = (*value.keys(), *value.values())
    elif isinstance(value, list):
        items = value
    else:
        return None
    for item in items:
        found = _lone_surrogate(item)
        if found is not None:
            return found
    return None


def _plain(text: str) -> str:
    """A protobuf parse error without the Python inside it."""
    first = text.splitlines()[0] if text else "malformed"
    return first[:200]


def _kind(field: FieldDescriptor) -> str:
    t = field.type
    if t == FieldDescriptor.TYPE_STRING:
        return "a string"
    if t == FieldDescriptor.TYPE_BOOL:
        return "true or false"
    if t == FieldDescriptor.TYPE_BYTES:
        return "a base64 string"
    if t == FieldDescriptor.TYPE_ENUM:
        return "one of " + ", ".join(f'"{v.name}"' for v in field.enum_type.values)
    if t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return "a number"
    if t == FieldDescriptor.TYPE_MESSAGE:
        return "a JSON object"
    return "an integer (a number or a string of digits)"


def _scalar_ok(field: FieldDescriptor, value: Any) -> bool:
    t = field.type
    if t == FieldDescriptor.TYPE_MESSAGE:
        name = field.message_type.full_name
        if name == "google.protobuf.Value":
            return True
        return isinstance(value, dict)
    if value is None:
        return True  # null: the field's default, as proto3 JSON says
    if t in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES):
        return isinstance(value, str)
    if t == FieldDescriptor.TYPE_BOOL:
        return isinstance(value, bool)
    if t == FieldDescriptor.TYPE_ENUM:
        return isinstance(value, (str, int)) and not isinstance(value, bool)
    if t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return isinstance(value, (int, float, str)) and not isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    if isinstance(value, float):
        return value.is_integer()
    return isinstance(value, str) and value.lstrip("-").isdigit()


def _values_in(descriptor: Descriptor, body: dict[str, Any], path: str) -> None:
    by_json = {f.json_name: f for f in descriptor.fields} | {f.name: f for f in descriptor.fields}
    pairs = {raw: (value, kind) for raw, value, kind in PAIRS.get(descriptor.full_name, ())}
    twins = {value: raw for raw, value, _ in PAIRS.get(descriptor.full_name, ())}
    seen: dict[str, str] = {}
    for key in list(body):
        field = by_json.get(key)
        if field is None:
            known = ", ".join(f.name for f in descriptor.fields)
            raise ShapeError(f"{path}{key} is not a field of {descriptor.name} (its fields: {known})")
        if field.name in seen:
            raise ShapeError(f"{path}{field.name} is given twice (as {seen[field.name]} and {key})")
        seen[field.name] = key
    for raw_name, (value_name, _) in pairs.items():
        if raw_name in seen and value_name in seen:
            raise ShapeError(
                f"{path}{raw_name} and {path}{value_name} are the same {raw_name}: send one, "
                f"{value_name} with the JSON itself"
            )
    for name, key in seen.items():
        field = descriptor.fields_by_name[name]
        value = body[key]
        where = f"{path}{key}"
        if name in twins:
            raw_name = twins[name]
            kind = pairs[raw_name][1]
            del body[key]
            if value is None:
                continue
            _json_value(value, where, kind, raw_name)
            raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
            raw_field = descriptor.fields_by_name[raw_name]
            if raw_field.is_repeated:  # never in a request today
                raise ShapeError(f"{where} is not accepted in a request")
            body[raw_field.json_name] = base64.b64encode(raw).decode()
            continue
        if name in pairs:
            _base64_json(value, where, pairs[name][0], pairs[name][1], path)
            continue
        if field.is_repeated:
            if value is None:
                continue
            if not isinstance(value, list):
                raise ShapeError(
                    f"{where} must be a JSON array of {_kind(field).removeprefix('a ').removeprefix('an ')}s"
                )
            items = value
        else:
            items = [value]
        for i, item in enumerate(items):
            at = where if not field.is_repeated else f"{where}[{i}]"
            if not _scalar_ok(field, item):
                raise ShapeError(f"{at} must be {_kind(field)}, not {_json_type(item)}")
            if field.type == FieldDescriptor.TYPE_MESSAGE and isinstance(item, dict):
                if field.message_type.full_name.startswith("google.protobuf."):
                    _depth(item, at)
                else:
                    _values_in(field.message_type, item, at + ".")


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _depth(value: Any, where: str, level: int = 0) -> None:
    if level > MAX_DEPTH:
        raise ShapeError(f"{where} nests deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        for item in value.values():
            _depth(item, where, level + 1)
    elif isinstance(value, list):
        for item in value:
            _depth(item, where, level + 1)


def _json_value(value: Any, where: str, kind: str, raw_name: str) -> None:
    if kind == OBJECT and not isinstance(value, dict):
        example = EXAMPLES.get(raw_name, "{...}")
        raise ShapeError(f"{where} must be a JSON object like {example}, not {_json_type(value)}")
    _depth(value, where)


def _base64_json(value: Any, where: str, value_name: str, kind: str, path: str) -> None:
    """A bytes field over JSON: base64 of the JSON's bytes, or the value field was meant."""
    hint = (
        f"{where} is base64 of JSON bytes in this field; send {path}{value_name} with the JSON "
        f'itself, e.g. "{value_name}": {EXAMPLES.get(where.rsplit(".", 1)[-1], "{...}")}'
    )
    if value is None or value == "":
        return
    if not isinstance(value, str):
        raise ShapeError(f"{hint} (got {_json_type(value)})")
    try:
        text = value.replace("-", "+").replace("_", "/")
        raw = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
        if len(raw) > MAX_JSON_BYTES:
            return  # over its size limit: the servicer says so, as over gRPC
        parsed = json.loads(raw)
    except (binascii.Error, ValueError, RecursionError):
        raise ShapeError(f"{hint} (this string is not base64 of JSON)") from None
    if kind == OBJECT and not isinstance(parsed, dict):
        raise ShapeError(f"{hint} (this base64 holds {_json_type(parsed)}, not a JSON object)")


# -- binary requests: a value field set in protobuf ----------------------------------------------


def json_bytes(request: Message, raw_name: str, value_name: str) -> bytes:
    """The JSON bytes a request carries in `raw_name` or its value twin (not both): what the use
    cases read. Over HTTP JSON the twin was already turned into bytes by `decode`."""
    raw: bytes = getattr(request, raw_name)
    if not request.HasField(value_name):
        return raw
    if raw:
        raise ShapeError(f"{raw_name} and {value_name} are the same {raw_name}: send one")
    value = _py(getattr(request, value_name))
    if raw_name in ("action", "options") and not isinstance(value, dict):
        raise ShapeError(
            f"{value_name} must be a JSON object like {EXAMPLES[raw_name]}, not {_json_type(value)}"
        )
    _depth(value, value_name)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _py(message: Message) -> Any:
    """A Value/Struct/ListValue as plain JSON; integral numbers as integers (a game's ids)."""
    name = message.DESCRIPTOR.full_name
    if name == "google.protobuf.Struct":
        return {k: _py(v) for k, v in message.fields.items()}
    if name == "google.protobuf.ListValue":
        return [_py(v) for v in message.values]
    which = message.WhichOneof("kind")
    if which is None or which == "null_value":
        return None
    if which == "number_value":
        number = message.number_value
        if not math.isfinite(number):
            raise ShapeError(f"{message.DESCRIPTOR.name} holds {number}, which is not a JSON number")
        return int(number) if number.is_integer() and abs(number) < 2**63 else number
    if which in ("struct_value", "list_value"):
        return _py(getattr(message, which))
    return getattr(message, which)


def value_fields(descriptors: Iterable[Descriptor]) -> Mapping[str, list[str]]:
    """Every Value/Struct field of these messages (a test holds PAIRS to them)."""
    out: dict[str, list[str]] = {}
    for d in descriptors:
        for f in d.fields:
            if f.message_type is not None and f.message_type.full_name in (
                "google.protobuf.Value",
                "google.protobuf.Struct",
            ):
                out.setdefault(d.full_name, []).append(f.name)
    return out
