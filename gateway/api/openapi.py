"""The gateway's HTTP port as an OpenAPI 3.1 document, generated from the protos' descriptors
(issue 42), for the tools API consumers import it into.

No maintained generator installs here and speaks Connect (protoc-gen-connect-openapi is Go; the
npm and PyPI ones read gRPC-gateway's HTTP annotations or Swagger 2), so this module walks the
descriptors itself: each GatewayService RPC the Connect app serves is one path
(`POST /guildhall.gateway.v1.GatewayService/<Rpc>`: unary calls as `application/json`, the
server streams as enveloped `application/connect+json`), every message a schema in the proto3
JSON mapping (lowerCamelCase names, 64-bit integers as strings, bytes as base64, enums by name,
`google.protobuf.Value`/`Struct` as JSON), who may call what from the scope table
(gateway/auth.py SCOPES) as security schemes, and Connect's error body per status. Beside them:
the Server-Sent Events feeds (gateway/api/sse.py), /healthz, /config.json and this document.
Descriptions are the protos' own comments, read from the descriptor set `make gen` writes with
source info (gen/guildhall/descriptors.binpb). A new field or RPC appears by itself.

The Play stream is bidirectional, gRPC only, and so not in the document; no RPC is marked
idempotent in the protos, so none is offered as a Connect GET. AdminService (the operator plane,
docs/gateway.md) is served on the gateway's admin listener, not this port (issue 43), and left out:
this document is the tenants' API.

`python -m gateway.api.openapi` writes docs/api/openapi.json (`make openapi`); the gateway serves the
same document at GET /openapi.json; tests/gateway/test_openapi.py keeps the file current, validates
it, and calls every path it lists against a running stack.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import (
    Descriptor,
    EnumDescriptor,
    FieldDescriptor,
    MethodDescriptor,
    ServiceDescriptor,
)
from guildhall.gateway.v1 import gateway_pb2

from gateway.api import jsonfields
from gateway.api.sse import HTTP_STATUS, KEEPALIVE_S
from gateway.auth import (
    AUDITOR,
    BOTWORKER,
    DEFAULT_TOKEN_TTL_S,
    OPERATOR,
    PUBLIC,
    PUBLISHABLE,
    SCOPES,
    SEAT,
    SPECTATOR,
    TENANT,
)

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "docs" / "api" / "openapi.json"
SERVICE = gateway_pb2.DESCRIPTOR.services_by_name["GatewayService"]
REF = "#/components/schemas/"

TOKEN_HOURS = DEFAULT_TOKEN_TTL_S // 3600
# Each scope of the scope table as the credential that carries it (all are `Bearer` credentials).
SCHEMES: Mapping[str, tuple[str, str, str]] = {
    TENANT: ("tenantKey", "ghk_...", "A tenant API key with the scope tenant: the tenant's backend."),
    AUDITOR: (
        "auditorKey",
        "ghk_...",
        "A tenant API key with the scope auditor: reads and audits, changes nothing.",
    ),
    PUBLISHABLE: (
        "publishableKey",
        "ghk_...",
        "A tenant's publishable key (the one key a browser may hold, served at /config.json): lists "
        "games, reads game data, opens private tables and claims seats with an invite code.",
    ),
    SEAT: (
        "seatToken",
        "ght1....",
        f"A seat token: one seat of one match, signed by the gateway, valid {TOKEN_HOURS} hours "
        "(IssueToken gives a fresh one).",
    ),
    SPECTATOR: (
        "spectatorToken",
        "ght1....",
        f"A spectator token: the public view of one match, valid {TOKEN_HOURS} hours.",
    ),
    OPERATOR: ("operatorKey", "ghk_...", "A platform operator's key with the scope operator."),
    BOTWORKER: ("botWorkerKey", "ghk_...", "The platform bot worker's key (scope botworker)."),
}

# Connect's HTTP statuses and the codes each carries (connectrpc.com/docs/protocol, "Error codes").
_STATUS_CODES: dict[int, list[str]] = {
    413: ["resource_exhausted"],
    415: ["invalid_argument"],
}  # the gateway's own
for _code, _status in HTTP_STATUS.items():
    _STATUS_CODES.setdefault(_status, []).append(_code)
# What the gateway answers with each (the protos' header comment, gateway/api/connect.py).
_ERRORS = {
    400: "A malformed request (the message names the field and the form it expects), or a stream's "
    "request not in its Connect envelope.",
    401: "Missing, malformed, unknown, expired or badly signed credentials.",
    403: "A valid credential whose scope may not call this, a token of another match or seat, or a "
    "browser origin not listed in CORS_ORIGINS.",
    404: "No such match, ticket or table for this tenant (another tenant's is not found too).",
    409: "The match kept changing under the call (retry), or a match id already used otherwise.",
    415: "A content type this call does not read (a stream posted as application/json, a unary "
    "call posted enveloped): the message says what to send.",
    413: "The body (or what it inflates to) is over 1 MiB, or a field over its limit: it never fits, "
    "do not retry.",
    429: "Over a tenant quota or a cap on open streams: `Retry-After` (seconds) and "
    "`trailer-retry-after-ms` say when to retry.",
    503: "The gateway is draining or a rules service is down: retry, on another replica.",
}
_UNARY_ERRORS = (400, 401, 403, 404, 409, 413, 415, 429, 503)
# A stream's faults come in its last envelope (HTTP 200); these are the checks made before it opens
# (a call with no credential at all is refused before its body is read).
_STREAM_ERRORS = (400, 401, 413, 415, 429)
_FEED_ERRORS = (400, 401, 403, 404, 429, 503)

_SCALARS: Mapping[int, dict[str, Any]] = {
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_DOUBLE: {"type": "number", "format": "double"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number", "format": "float"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "contentEncoding": "base64"},
    **{
        t: {"type": "integer", "format": "int32"}
        for t in (FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SFIXED32)
    },
    **{
        t: {"type": "integer", "format": "uint32", "minimum": 0}
        for t in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_FIXED32)
    },
    # proto3 JSON writes 64-bit integers as decimal strings (a number is read too).
    **{
        t: {"type": "string", "format": "int64", "pattern": "^-?[0-9]+$"}
        for t in (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_SFIXED64)
    },
    **{
        t: {"type": "string", "format": "uint64", "pattern": "^[0-9]+$"}
        for t in (FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64)
    },
}
# The well-known types the contract uses, as proto3 JSON writes them.
_WELL_KNOWN: Mapping[str, dict[str, Any]] = {
    "google.protobuf.Value": {"description": "Any JSON value."},
    "google.protobuf.Struct": {"type": "object", "description": "A JSON object."},
    "google.protobuf.ListValue": {"type": "array", "description": "A JSON array."},
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?s$"},
    "google.protobuf.Empty": {"type": "object"},
}


# -- comments --------------------------------------------------------------------------------------


@functools.cache
def _comments() -> Mapping[str, str]:
    """Every element's comment by full name (`pkg.Message`, `pkg.Message.field`, `pkg.Service.Rpc`,
    and a file's package comment under its file name), from the descriptor set `make gen` writes."""
    path = Path(gateway_pb2.__file__).resolve().parents[2] / "descriptors.binpb"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: `make gen` writes it (the protos' comments)")
    found: dict[str, str] = {}
    for file in descriptor_pb2.FileDescriptorSet.FromString(path.read_bytes()).file:
        text = {
            tuple(loc.path): _clean(loc.leading_comments or loc.trailing_comments)
            for loc in file.source_code_info.location
        }
        found[file.name] = text.get((2,), "")  # the comment on `package`
        prefix = file.package + "."
        for i, message in enumerate(file.message_type):
            _message_comments(message, prefix, (4, i), text, found)
        for i, enum in enumerate(file.enum_type):
            found[prefix + enum.name] = text.get((5, i), "")
        for i, service in enumerate(file.service):
            found[prefix + service.name] = text.get((6, i), "")
            for j, method in enumerate(service.method):
                found[f"{prefix}{service.name}.{method.name}"] = text.get((6, i, 2, j), "")
    return found


def _message_comments(
    message: descriptor_pb2.DescriptorProto,
    prefix: str,
    path: tuple[int, ...],
    text: Mapping[tuple[int, ...], str],
    found: dict[str, str],
) -> None:
    name = prefix + message.name
    found[name] = text.get(path, "")
    for i, field in enumerate(message.field):
        found[f"{name}.{field.name}"] = text.get((*path, 2, i), "")
    for i, nested in enumerate(message.nested_type):
        _message_comments(nested, name + ".", (*path, 3, i), text, found)
    for i, enum in enumerate(message.enum_type):
        found[f"{name}.{enum.name}"] = text.get((*path, 4, i), "")


def _clean(comment: str) -> str:
    lines = [line.removeprefix(" ").rstrip() for line in comment.strip("\n").splitlines()]
    return "\n".join(lines).strip()


def _described(schema: dict[str, Any], name: str, extra: str = "") -> dict[str, Any]:
    text = "\n\n".join(t for t in (_comments().get(name, ""), extra) if t)
    return {**schema, "description": text} if text else schema


# -- schemas ---------------------------------------------------------------------------------------


def _schema_name(full_name: str) -> str:
    """A component name: the message's name within its package (`Ticket.State`, `Rejection`)."""
    for package in ("guildhall.gateway.v1.", "guildhall.common.v1.", "google.protobuf."):
        if full_name.startswith(package):
            return full_name.removeprefix(package)
    return full_name


def _field(field: FieldDescriptor, wanted: dict[str, Descriptor | EnumDescriptor]) -> dict[str, Any]:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        value = field.message_type.fields_by_name["value"]
        return {"type": "object", "additionalProperties": _single(value, wanted)}
    schema = _single(field, wanted)
    return {"type": "array", "items": schema} if field.is_repeated else schema


def _single(field: FieldDescriptor, wanted: dict[str, Descriptor | EnumDescriptor]) -> dict[str, Any]:
    if field.message_type is not None:
        wanted[field.message_type.full_name] = field.message_type
        return {"$ref": REF + _schema_name(field.message_type.full_name)}
    if field.enum_type is not None:
        wanted[field.enum_type.full_name] = field.enum_type
        return {"$ref": REF + _schema_name(field.enum_type.full_name)}
    return dict(_SCALARS[field.type])


def _message(message: Descriptor, wanted: dict[str, Descriptor | EnumDescriptor]) -> dict[str, Any]:
    if message.full_name in _WELL_KNOWN:
        return dict(_WELL_KNOWN[message.full_name])
    twins = {raw: value for raw, value, _ in jsonfields.PAIRS.get(message.full_name, ())}
    properties: dict[str, Any] = {}
    for field in message.fields:
        extra = ""
        if field.name in twins:
            value_json = message.fields_by_name[twins[field.name]].json_name
            extra = f"Over HTTP JSON, answers carry `{value_json}` instead; a request sets one of the two."
        oneof = field.containing_oneof
        if oneof is not None and not oneof.name.startswith("_"):  # not a proto3 `optional`
            others = ", ".join(f"`{f.json_name}`" for f in oneof.fields if f is not field)
            extra = (extra + f" One of `{oneof.name}`: set instead of {others}.").strip()
        properties[field.json_name] = _described(
            _field(field, wanted), f"{message.full_name}.{field.name}", extra
        )
    return _described({"type": "object", "properties": properties}, message.full_name)


def _enum(enum: EnumDescriptor) -> dict[str, Any]:
    return _described({"type": "string", "enum": [v.name for v in enum.values]}, enum.full_name)


def _schemas(roots: list[Descriptor]) -> dict[str, Any]:
    """The schema of every message and enum reachable from `roots`, by component name."""
    wanted: dict[str, Descriptor | EnumDescriptor] = {m.full_name: m for m in roots}
    done: dict[str, Any] = {}
    while len(done) < len(wanted):
        for full_name, item in list(wanted.items()):
            if full_name in done:
                continue
            done[full_name] = _enum(item) if isinstance(item, EnumDescriptor) else _message(item, wanted)
    return {_schema_name(n): s for n, s in sorted(done.items(), key=lambda kv: _schema_name(kv[0]))}


# -- paths -----------------------------------------------------------------------------------------


def _security(rpc: str) -> list[dict[str, list[str]]]:
    scopes = SCOPES[rpc]
    if PUBLIC in scopes:
        return []
    return [{SCHEMES[s][0]: []} for s in sorted(scopes, key=list(SCHEMES).index)]


def _summary(text: str, fallback: str) -> str:
    """The comment's first clause: up to its first full stop, colon or semicolon outside brackets."""
    flat, depth = text.replace("\n", " ") + " ", 0
    for i, char in enumerate(flat[:-1]):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and char in ".:;" and flat[i + 1] == " ":
            return flat[:i].strip()
    return flat.strip() or fallback


def _errors(statuses: tuple[int, ...], public: bool) -> dict[str, Any]:
    return {
        str(s): {"$ref": f"#/components/responses/Error{s}"} for s in statuses if not (public and s == 401)
    }


def _served(service: ServiceDescriptor) -> list[MethodDescriptor]:
    """The RPCs the HTTP port serves: all but the bidirectional ones (Play, gRPC only)."""
    return [m for m in service.methods if not m.client_streaming]


def _rpc_paths(service: ServiceDescriptor, prefix: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for method in _served(service):
        text = _comments().get(f"{service.full_name}.{method.name}", "")
        request = {"$ref": REF + _schema_name(method.input_type.full_name)}
        response = {"$ref": REF + _schema_name(method.output_type.full_name)}
        public = PUBLIC in SCOPES[method.name]
        operation: dict[str, Any] = {
            "operationId": method.name,
            "summary": _summary(text, method.name),
            "description": text,
            "tags": [service.name],
            "security": _security(method.name),
            "parameters": [{"$ref": "#/components/parameters/RequestId"}],
        }
        if method.server_streaming:
            operation["description"] += (
                "\n\nA server stream: POST the request as one Connect envelope (a flags byte 0, the "
                "JSON's length as 4 big-endian bytes, the JSON) with content-type "
                "`application/connect+json`; the answer is a sequence of envelopes, each a message "
                "of the schema `contentSchema` names, and a last one (flags 2) holding "
                '`{"error": {"code", "message"}}` when the call failed (a refused credential, an '
                "unknown match, a quota: the codes of the unary calls, with HTTP status 200), else `{}`. "
                "A call with no credential at all is refused before it opens: HTTP 401."
            )
            operation["requestBody"] = _envelopes("The request, in one Connect envelope", request, True)
            operation["responses"] = {
                "200": {
                    "description": "The stream of messages, each in its envelope",
                    "headers": {"x-request-id": {"$ref": "#/components/headers/RequestId"}},
                    "content": {"application/connect+json": _envelope_schema(response)},
                },
                **_errors(_STREAM_ERRORS, public),
            }
        else:
            operation["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": request}},
            }
            operation["responses"] = {
                "200": {
                    "description": f"The {method.output_type.name}",
                    "headers": {"x-request-id": {"$ref": "#/components/headers/RequestId"}},
                    "content": {"application/json": {"schema": response}},
                },
                **_errors(_UNARY_ERRORS, public),
            }
        yield f"{prefix}{method.name}", {"post": operation}


def _envelope_schema(message: dict[str, Any]) -> dict[str, Any]:
    """Enveloped JSON: `contentSchema` is the schema of each envelope's message."""
    return {
        "schema": {"type": "string", "contentMediaType": "application/connect+json", "contentSchema": message}
    }


def _envelopes(description: str, message: dict[str, Any], required: bool) -> dict[str, Any]:
    return {
        "description": description,
        "required": required,
        "content": {"application/connect+json": _envelope_schema(message)},
    }


def _feed(rpc: str, kind: str, message: str, parameters: list[dict[str, Any]], what: str) -> dict[str, Any]:
    return {
        "get": {
            "operationId": f"{rpc}Feed",
            "summary": f"{rpc} as Server-Sent Events",
            "description": (
                f"{what} Each update is one event, `event: {kind}`, whose `data:` is one line of JSON: "
                f"a {message} as the JSON calls answer it. The same credentials, scopes, read quota and "
                f"stream caps as {rpc}. A refusal before the first event is an HTTP error with a "
                'Connect error body; after it, an `event: error` with `{"code", "message"}` ends the '
                f"feed. An idle feed gets a comment line every {KEEPALIVE_S:g} s."
            ),
            "tags": ["Live feeds"],
            "security": _security(rpc),
            "parameters": [*parameters, {"$ref": "#/components/parameters/RequestId"}],
            "responses": {
                "200": {
                    "description": "The feed: `text/event-stream`, until it ends",
                    "headers": {"x-request-id": {"$ref": "#/components/headers/RequestId"}},
                    "content": {
                        "text/event-stream": {
                            "schema": {"type": "string"},
                            "x-sse-events": {
                                kind: {"$ref": REF + message},
                                "end": {"type": "object", "maxProperties": 0},
                                "error": {"$ref": REF + "ConnectError"},
                            },
                        }
                    },
                },
                **_errors(_FEED_ERRORS, False),
            },
        }
    }


def _feeds() -> dict[str, Any]:
    match_id = {"name": "match_id", "in": "path", "required": True, "schema": {"type": "string"}}
    ticket_id = {
        "name": "ticket_id",
        "in": "path",
        "required": True,
        "description": "The ticket id as CreateTicket answers it (`<game>/<id>`: its slash goes into "
        "the path as it is).",
        "schema": {"type": "string"},
    }
    since = {
        "name": "from_version",
        "in": "query",
        "description": "Send events after this version (0, the default: from the start).",
        "schema": {"type": "string", "pattern": "^[0-9]{1,19}$"},
    }
    resume = {
        "name": "Last-Event-ID",
        "in": "header",
        "description": "The last `id:` read (EventSource sends it when it reconnects): resume after it, "
        "with no gap and no duplicate. Takes precedence over from_version.",
        "schema": {"type": "string", "pattern": "^[0-9]{1,19}$"},
    }
    return {
        "/v1/matches/{match_id}/watch": _feed(
            "Watch",
            "update",
            "WatchUpdate",
            [match_id, since, resume],
            "The match's updates, redacted for the caller. Each update's `id:` is the version it "
            "reaches. The feed ends after the update that ends the match (`event: end`).",
        ),
        "/v1/tickets/{ticket_id}/watch": _feed(
            "WatchTicket",
            "ticket",
            "Ticket",
            [ticket_id],
            "The ticket's status now and at every change, until it is matched (with the match id and "
            "the seat token), cancelled or expired; then `event: end`.",
        ),
    }


def _plain_paths() -> dict[str, Any]:
    def get(operation_id: str, summary: str, description: str, content: dict[str, Any]) -> dict[str, Any]:
        return {
            "get": {
                "operationId": operation_id,
                "summary": summary,
                "description": description,
                "tags": ["Service"],
                "security": [],
                "responses": {
                    "200": {"description": summary, "content": content},
                    "403": {"$ref": "#/components/responses/Error403"},  # an unlisted browser origin
                },
            }
        }

    health = get(
        "Healthz",
        "Whether this replica takes calls",
        "`ok` while serving; 503 from the moment a drain starts (call another replica).",
        {"text/plain": {"schema": {"type": "string", "const": "ok\n"}}},
    )
    health["get"]["responses"]["503"] = {"$ref": "#/components/responses/Error503"}
    config = {
        "type": "object",
        "properties": {"publishableKey": {"type": "string", "description": "Empty when none is configured."}},
        "required": ["publishableKey"],
    }
    return {
        "/healthz": health,
        "/config.json": get(
            "GetPageConfig",
            "The web page's configuration",
            "The tenant's publishable key the gateway was given (PUBLISHABLE_KEY), for the browser "
            "page it serves; a browser never holds a secret.",
            {"application/json": {"schema": config}},
        ),
        "/openapi.json": get(
            "GetOpenApi",
            "This document",
            "The OpenAPI 3.1 document of this HTTP port (gateway/api/openapi.py).",
            {"application/json": {"schema": {"type": "object"}}},
        ),
    }


# -- the document ----------------------------------------------------------------------------------


def _connect_error() -> dict[str, Any]:
    return {
        "type": "object",
        "description": "A Connect error: the status's code and a message that says what to fix.",
        "properties": {
            "code": {"type": "string", "enum": list(HTTP_STATUS)},
            "message": {"type": "string"},
            "details": {"type": "array", "items": {"type": "object"}},
        },
        "required": ["code"],
    }


def document() -> dict[str, Any]:
    """The OpenAPI 3.1 document of the gateway's HTTP port."""
    schemas = _schemas([m for rpc in _served(SERVICE) for m in (rpc.input_type, rpc.output_type)])
    schemas["ConnectError"] = _connect_error()
    responses = {
        f"Error{status}": {
            "description": f"{_ERRORS[status]} Codes: {', '.join(_STATUS_CODES[status])}.",
            "content": {"application/json": {"schema": {"$ref": REF + "ConnectError"}}},
            **(
                {"headers": {"trailer-retry-after-ms": {"$ref": "#/components/headers/RetryAfterMs"}}}
                if status == 429
                else {}
            ),
        }
        for status in sorted(set(_UNARY_ERRORS) | set(_STREAM_ERRORS))
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Guildhall gateway HTTP API",
            "version": SERVICE.file.package.rsplit(".", 1)[-1],
            "summary": "GatewayService over Connect (JSON), live feeds as Server-Sent Events.",
            "description": _comments().get(SERVICE.file.name, ""),
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        "servers": [{"url": "/", "description": "The gateway serving this document (`make run`: port 8080)"}],
        "tags": [
            {
                "name": SERVICE.name,
                "description": _comments().get(SERVICE.full_name, "")
                or "Connect unary and server-streaming calls.",
            },
            {
                "name": "Live feeds",
                "description": "Watch and WatchTicket as Server-Sent Events, for curl and EventSource.",
            },
            {"name": "Service", "description": "Health, the web page's configuration and this document."},
        ],
        "paths": {**dict(_rpc_paths(SERVICE, f"/{SERVICE.full_name}/")), **_feeds(), **_plain_paths()},
        "components": {
            "schemas": schemas,
            "responses": responses,
            "parameters": {
                "RequestId": {
                    "name": "x-request-id",
                    "in": "header",
                    "description": "Your id for the call (1-64 characters), logged with it and echoed in the "
                    "answer's x-request-id; without one the gateway picks one.",
                    "schema": {"type": "string", "minLength": 1, "maxLength": 64},
                }
            },
            "headers": {
                "RequestId": {
                    "description": "The call's request id: the one sent, or the one the gateway picked.",
                    "schema": {"type": "string"},
                },
                "RetryAfterMs": {
                    "description": "Over a quota: milliseconds to wait before retrying.",
                    "schema": {"type": "string", "pattern": "^[0-9]+$"},
                },
            },
            "securitySchemes": {
                name: {"type": "http", "scheme": "bearer", "bearerFormat": fmt, "description": text}
                for name, fmt, text in SCHEMES.values()
            },
        },
    }


@functools.cache
def document_json() -> bytes:
    """The document as the gateway serves it and docs/api/openapi.json holds it."""
    return (json.dumps(document(), indent=2, ensure_ascii=False) + "\n").encode()


def main() -> None:
    DOCUMENT.write_bytes(document_json())
    print(f"wrote {DOCUMENT.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
