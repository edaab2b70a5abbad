"""MkDocs hooks for the docs site (mkdocs.yml).

- Links from a page to the repository's own files outside docs/ (examples/*.py, protos, schemas,
  clients/web/README.md) are valid on a Git host but not in a site built from docs/ alone. Each
  such file is added to the site under repo/ (Markdown rendered as a page, anything else copied
  as is) and the link re-pointed there, so the built site is whole offline. A link to a file that
  does not exist, or to a directory, is a warning: the strict build fails on it.
- api/protos.md is generated from the protos' descriptors (protoc with source info): every
  service, RPC, message, field and enum with its comment, so the reference cannot drift.
- api/openapi.md lists the operations of docs/api/openapi.json when that file exists.
"""

from __future__ import annotations

import json
import logging
import posixpath
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2
from mkdocs.structure.files import File, Files, InclusionLevel

log = logging.getLogger("mkdocs.hooks.guildhall")

# An inline Markdown link or image target: ](target) or ](target "title").
LINK = re.compile(r"\]\(([^)\s]+)((?:\s+\"[^\"]*\")?)\)")
FENCE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1", re.S | re.M)
REPO_PREFIX = "repo/"
PROTOS_PAGE = "api/protos.md"
OPENAPI_PAGE = "api/openapi.md"
OPENAPI_MARK = "<!-- openapi-operations -->"
# A proto element's comment by its source path (descriptor field numbers and indexes).
Comments = dict[tuple[int, ...], str]


ROOT = Path(__file__).resolve().parents[2]  # the repository


def _paths(config: Any) -> tuple[Path, Path]:
    return Path(config["docs_dir"]).resolve(), ROOT


def _origin(file: File, docs: Path, root: Path) -> Path:
    """Where a page's text comes from in the repository (its links are relative to that)."""
    if file.src_uri.startswith(REPO_PREFIX):
        return root / file.src_uri[len(REPO_PREFIX) :]
    return docs / file.src_uri


def _outside_fences(markdown: str, change: Any) -> str:
    """`change` applied to the text between fenced code blocks (code is never rewritten)."""
    out, last = [], 0
    for fence in FENCE.finditer(markdown):
        out += [change(markdown[last : fence.start()]), fence.group(0)]
        last = fence.end()
    return "".join([*out, change(markdown[last:])])


def _targets(markdown: str) -> list[str]:
    """Relative link targets (without their #fragment), code blocks left out."""
    found = []
    for target, _ in LINK.findall(FENCE.sub("", markdown)):
        if target.startswith(("#", "/")) or re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue
        found.append(target.split("#", 1)[0])
    return [t for t in found if t]


def on_files(files: Files, config: Any) -> Files:
    docs, root = _paths(config)
    files.append(File.generated(config, PROTOS_PAGE, content=proto_reference(root / "protos")))
    pages = [f for f in files if f.is_documentation_page() and f.abs_src_path]
    while pages:
        page = pages.pop()
        origin = _origin(page, docs, root)
        for target in _targets(Path(page.abs_src_path or "").read_text()):
            path = (origin.parent / target).resolve()
            if path.is_relative_to(docs) or not path.is_relative_to(root) or not path.is_file():
                continue  # mkdocs checks links inside docs/; the rest is reported on the page
            uri = REPO_PREFIX + path.relative_to(root).as_posix()
            if files.get_file_from_path(uri) is None:
                added = File.generated(
                    config, uri, abs_src_path=str(path), inclusion=InclusionLevel.NOT_IN_NAV
                )
                files.append(added)
                if added.is_documentation_page():
                    pages.append(added)
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    docs, root = _paths(config)
    origin = _origin(page.file, docs, root)
    here = posixpath.dirname(page.file.src_uri)

    def repoint(match: re.Match[str]) -> str:
        target, title = match.group(1), match.group(2)
        path_part, _, fragment = target.partition("#")
        if not path_part or re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
            return match.group(0)
        path = (origin.parent / path_part).resolve()
        if path.is_relative_to(docs):
            uri = path.relative_to(docs).as_posix()
        elif path.is_relative_to(root) and path.is_file():
            uri = REPO_PREFIX + path.relative_to(root).as_posix()
        else:
            what = "a directory" if path.is_dir() else "nothing"
            log.warning("%s links to %r, which is %s in the repository", page.file.src_uri, target, what)
            return match.group(0)
        new = posixpath.relpath(uri, here or ".") + (f"#{fragment}" if fragment else "")
        return f"]({new}{title})"

    markdown = _outside_fences(markdown, lambda text: LINK.sub(repoint, text))
    if page.file.src_uri == OPENAPI_PAGE:
        markdown = markdown.replace(OPENAPI_MARK, openapi_operations(docs / "api" / "openapi.json"))
    return markdown


# -- api/openapi.md --------------------------------------------------------------------------


def openapi_operations(document: Path) -> str:
    if not document.is_file():
        return (
            '!!! warning "Not generated yet"\n'
            "    `docs/api/openapi.json` does not exist in this tree yet: the OpenAPI 3.1 document\n"
            "    generated from the protos goes there, and this page then lists its operations.\n"
        )
    spec = json.loads(document.read_text())
    rows = ["| method | path | operation |", "|---|---|---|"]
    for path, item in sorted(spec.get("paths", {}).items()):
        for method, operation in item.items():
            if isinstance(operation, dict) and method in {"get", "put", "post", "delete", "patch"}:
                summary = _cell(operation.get("summary") or operation.get("operationId") or "")
                rows.append(f"| `{method.upper()}` | `{path}` | {summary} |")
    info = spec.get("info", {})
    head = f"[`openapi.json`](openapi.json): {info.get('title', '')} {info.get('version', '')}".rstrip()
    return head + f", OpenAPI {spec.get('openapi', '?')}.\n\n" + "\n".join(rows) + "\n"


# -- api/protos.md ---------------------------------------------------------------------------


def proto_reference(protos: Path) -> str:
    """The protos' services, messages and enums as Markdown, from their descriptors."""
    sources = sorted(p.relative_to(protos).as_posix() for p in protos.rglob("*.proto"))
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "protos.binpb"
        command = [sys.executable, "-m", "grpc_tools.protoc", f"-I{protos}", "--include_source_info"]
        subprocess.run([*command, f"--descriptor_set_out={out}", *sources], check=True)
        descriptors = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    lines = [
        "# Protobuf messages and services",
        "",
        "Generated from the `.proto` files under `protos/` when the site is built (their comments are",
        "the documentation): the gRPC services, and the messages the HTTP (Connect) API carries as JSON.",
        "",
    ]
    for proto in sorted(descriptors.file, key=lambda f: f.name):
        lines += _proto_file(proto)
    return "\n".join(lines) + "\n"


def _anchor(full_name: str) -> str:
    return full_name.lower().replace(".", "-").replace("_", "-")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _comment_block(text: str) -> list[str]:
    """A leading comment, paragraph by paragraph: preformatted where it is laid out (indented
    lists, aligned tables), else joined into prose."""
    lines: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text.strip("\n")):
        if not paragraph.strip():
            continue
        if re.search(r"^\s{2,}\S", paragraph, re.M):
            body = (line[1:] if line.startswith(" ") else line for line in paragraph.splitlines())
            lines += ["```text", *body, "```", ""]
        else:
            lines += [" ".join(paragraph.split()), ""]
    return lines


def _type_name(field: descriptor_pb2.FieldDescriptorProto, maps: dict[str, str]) -> str:
    if field.type_name:
        name = field.type_name.lstrip(".")
        if name in maps:
            return maps[name]
        short = name.rsplit(".", 1)[-1]
        shown = f"`{short}`" if name.startswith("google.") else f"[`{short}`](#{_anchor(name)})"
    else:
        kind = descriptor_pb2.FieldDescriptorProto.Type.Name(field.type)
        shown = f"`{kind.removeprefix('TYPE_').lower()}`"
    if field.label == descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED:
        return f"repeated {shown}"
    return f"optional {shown}" if field.proto3_optional else shown


def _proto_file(proto: descriptor_pb2.FileDescriptorProto) -> list[str]:
    if not proto.package.startswith("guildhall."):
        return []
    comments = {
        tuple(loc.path): loc.leading_comments or loc.trailing_comments
        for loc in proto.source_code_info.location
        if loc.leading_comments or loc.trailing_comments
    }
    lines = [f"## `{proto.package}`", "", f"`{proto.name}`", ""]
    lines += _comment_block(comments.get((2,), "") or comments.get((12,), ""))
    for s, service in enumerate(proto.service):
        full = f"{proto.package}.{service.name}"
        lines += [f"### service {service.name} {{ #{_anchor(full)} }}", ""]
        lines += _comment_block(comments.get((6, s), ""))
        lines += ["| RPC | request | response | does |", "|---|---|---|---|"]
        for m, method in enumerate(service.method):
            request = method.input_type.lstrip(".")
            response = method.output_type.lstrip(".")
            streams = "stream " if method.client_streaming else ""
            streamed = "stream " if method.server_streaming else ""
            lines.append(
                f"| `{method.name}` | {streams}[`{request.rsplit('.', 1)[-1]}`](#{_anchor(request)}) "
                f"| {streamed}[`{response.rsplit('.', 1)[-1]}`](#{_anchor(response)}) "
                f"| {_cell(comments.get((6, s, 2, m), ''))} |"
            )
        lines.append("")
    for e, enum in enumerate(proto.enum_type):
        lines += _enum(enum, f"{proto.package}.{enum.name}", (5, e), comments)
    for i, message in enumerate(proto.message_type):
        lines += _message(message, f"{proto.package}.{message.name}", (4, i), comments)
    return lines


def _enum(
    enum: descriptor_pb2.EnumDescriptorProto, full: str, path: tuple[int, ...], comments: Comments
) -> list[str]:
    lines = [f"### enum {full.split('.', 3)[-1]} {{ #{_anchor(full)} }}", ""]
    lines += _comment_block(comments.get(path, ""))
    lines += ["| value | number | means |", "|---|---|---|"]
    for v, value in enumerate(enum.value):
        lines.append(f"| `{value.name}` | {value.number} | {_cell(comments.get((*path, 2, v), ''))} |")
    return [*lines, ""]


def _message(
    message: descriptor_pb2.DescriptorProto, full: str, path: tuple[int, ...], comments: Comments
) -> list[str]:
    if message.options.map_entry:
        return []
    maps = {
        f"{full}.{nested.name}": f"map<`{_type_name(nested.field[0], {}).strip('`')}`, "
        f"{_type_name(nested.field[1], {})}>"
        for nested in message.nested_type
        if nested.options.map_entry
    }
    lines = [f"### {full.split('.', 3)[-1]} {{ #{_anchor(full)} }}", ""]
    lines += _comment_block(comments.get(path, ""))
    if message.field:
        lines += ["| field | type | means |", "|---|---|---|"]
        for f, field in enumerate(message.field):
            means = _cell(comments.get((*path, 2, f), ""))
            lines.append(f"| `{field.name}` | {_type_name(field, maps)} | {means} |")
        lines.append("")
    for e, enum in enumerate(message.enum_type):
        lines += _enum(enum, f"{full}.{enum.name}", (*path, 4, e), comments)
    for n, nested in enumerate(message.nested_type):
        lines += _message(nested, f"{full}.{nested.name}", (*path, 3, n), comments)
    return lines
