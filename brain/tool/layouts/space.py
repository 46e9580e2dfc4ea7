"""The Space's memory verbs (seeds/001): read, write and delete under `~/memory/`.

    read   ~/memory/<path>   a text file's content; a binary file as metadata (size, media
                             type, binary); a folder (or ~/memory/ itself) as a listing with sizes
    write  ~/memory/<path>   replace the whole file (there is no append), parent folders made;
                             `{"delete": true}` deletes instead, as in the seed
    delete ~/memory/<path>   a file, or a folder and everything in it

Bounds are on paths: 512 bytes and 16 levels, enforced on writes (brain.tool.layouts.space_paths).
Every front end (REST, MCP, CLI) calls `Space.call` with the same verb names and arguments,
and gets the same JSON answer and the same refusals; `render` is the answer as text for a model.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
from typing import Any

from brain.tool.access import Actor
from brain.tool.agent_memory import AgentMemory, FileRead, FolderRead, Where
from brain.tool.calls.refusal import Call, Refusal, RefusalCode
from brain.tool.layouts.space_paths import HOME, SpacePath, SpacePathProblem, parse_space_path

VERBS = ("read", "write", "delete")


class Space:
    def __init__(self, memory: AgentMemory) -> None:
        self.memory = memory

    def call(self, actor: Actor, agent: str | None, verb: str, args: dict[str, Any]) -> dict[str, Any]:
        """One verb with its arguments (`path`; `content` or `contentBase64`, `delete`,
        `expectedHash` for write; `expectedHash` for delete). Refusal on anything wrong."""
        if verb == "read":
            return self.read(actor, agent, args.get("path", HOME + "/"))
        if verb == "write" and args.get("delete") is True:
            return self.delete(actor, agent, args.get("path"), _hash_arg(args, verb))
        if verb == "write":
            data = _content(args)
            return self.write(actor, agent, args.get("path"), data, _hash_arg(args, verb), args)
        if verb == "delete":
            return self.delete(actor, agent, args.get("path"), _hash_arg(args, verb))
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT, f"there is no verb `{verb}`; the verbs are read, write, delete",
            Call("read", {"path": HOME + "/"}),
        )

    def read(self, actor: Actor, agent: str | None, raw: object) -> dict[str, Any]:
        path = _path(raw, "read", writing=False)
        found = self.memory.read(actor, agent or "", path.parts, _where(path))
        return answer_of(found)

    def write(
        self, actor: Actor, agent: str | None, raw: object, data: bytes, expected: str | None = None,
        args: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        try:
            path = _path(raw, "write", writing=True)
        except Refusal as refusal:  # the suggested write keeps the content
            if refusal.suggestion is not None and refusal.suggestion.command == "write" and args:
                rest = {k: v for k, v in args.items() if k != "path"}
                refusal.suggestion = refusal.suggestion.with_args(**rest)
            raise
        call = Call("write", {"path": path.home, **{k: v for k, v in (args or {}).items() if k != "path"}})
        done = self.memory.write(
            actor, agent or "", path.parts, data, command="write", call=call, where=_where(path),
            content_arg="content", expected=expected,
        )
        return {
            "path": path.home, "created": done.created, "changed": done.changed, "size": done.size,
            "hash": done.after, "previousHash": done.before,
        }

    def delete(
        self, actor: Actor, agent: str | None, raw: object, expected: str | None = None,
    ) -> dict[str, Any]:
        path = _path(raw, "delete", writing=False)
        done = self.memory.delete(
            actor, agent or "", path.parts, command="delete", where=_where(path), expected=expected,
        )
        return {
            "path": path.home + ("/" if done.kind == "folder" else ""), "deleted": done.kind,
            "files": [f"{HOME}/{r.path}" for r in done.removed],
        }


def answer_of(found: FileRead | FolderRead) -> dict[str, Any]:
    """A read's JSON answer (the same for every front end)."""
    if isinstance(found, FolderRead):
        base = f"{HOME}/{found.path}/" if found.path else f"{HOME}/"
        entries = [
            {
                "name": e.name, "path": base + e.name + ("/" if e.kind == "folder" else ""),
                "kind": e.kind, "size": e.size, "modifiedAt": iso_ns(e.mtime_ns),
                **({"files": e.files} if e.kind == "folder" else {}),
            }
            for e in found.entries
        ]
        sizes = [e.size for e in found.entries]
        total = None if any(s is None for s in sizes) else sum(s for s in sizes if s is not None)
        return {"path": base, "kind": "folder", "size": total, "entries": entries}
    out: dict[str, Any] = {
        "path": f"{HOME}/{found.path}", "kind": "file", "size": found.size,
        "mediaType": found.media_type, "binary": found.binary, "hash": found.hash,
        "modifiedAt": iso_ns(found.modified_ns) if found.modified_ns else None,
    }
    if found.text is not None:
        out["content"] = found.text
    elif not found.binary:
        out["note"] = "the file is too large to return as text: read it in pieces outside brain"
    return out


def render(verb: str, answer: dict[str, Any]) -> str:
    """The answer as the text a model reads."""
    if verb == "read" and answer["kind"] == "folder":
        lines = [f"{answer['path']} ({_size(answer['size'])})"]
        lines += [
            f"  {e['name']}{'/' if e['kind'] == 'folder' else ''}  {_size(e['size'])}"
            for e in answer["entries"]
        ]
        if not answer["entries"]:
            lines.append("  (empty)")
        return "\n".join(lines)
    if verb == "read":
        if "content" in answer:
            return str(answer["content"])
        what = "binary" if answer["binary"] else "text too large to show"
        return f"{answer['path']}: {what}, {_size(answer['size'])}, {answer['mediaType']}"
    if "deleted" in answer:
        count = len(answer["files"])
        return f"Deleted {answer['path']} ({answer['deleted']}, {count} file{'s' if count != 1 else ''})"
    state = "created" if answer["created"] else ("changed" if answer["changed"] else "unchanged")
    return f"Wrote {answer['path']} ({_size(answer['size'])}, {state})"


def iso_ns(ns: int) -> str:
    return dt.datetime.fromtimestamp(ns / 1e9, dt.UTC).isoformat().replace("+00:00", "Z")


def _size(size: int | None) -> str:
    return "size unknown: too many files or levels to count" if size is None else f"{size:,} bytes"


def _path(raw: object, verb: str, *, writing: bool) -> SpacePath:
    try:
        return parse_space_path(raw, writing=writing)
    except SpacePathProblem as problem:
        fixed = Call(verb, {"path": problem.fixed}) if problem.fixed else Call("read", {"path": HOME + "/"})
        raise Refusal(problem.code, problem.reason, fixed) from None


def _where(path: SpacePath) -> Where:
    parent = SpacePath(path.parts[:-1])
    listing = Call("read", {"path": parent.home + "/" if parent.parts else HOME + "/"})
    return Where(path.home, listing, HOME + "/")


def _content(args: dict[str, Any]) -> bytes:
    text, packed = args.get("content"), args.get("contentBase64")
    example = Call("write", {"path": args.get("path") or f"{HOME}/notes.md", "content": "…"})
    if (text is None) == (packed is None):
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT,
            "give the new content as `content` (text) or `contentBase64` (any bytes), exactly one",
            example,
        )
    if text is not None:
        if not isinstance(text, str):
            raise Refusal(RefusalCode.INVALID_ARGUMENT, "`content` must be a string", example)
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:
            raise Refusal(
                RefusalCode.NOT_TEXT, "`content` has unpaired surrogate characters: it is not valid "
                "Unicode; send bytes as `contentBase64`", None,
            ) from None
    if not isinstance(packed, str):
        raise Refusal(RefusalCode.INVALID_ARGUMENT, "`contentBase64` must be a string", example)
    try:
        return base64.b64decode(packed, validate=True)
    except (binascii.Error, ValueError):
        raise Refusal(RefusalCode.INVALID_ARGUMENT, "`contentBase64` is not valid base64", example) from None


def _hash_arg(args: dict[str, Any], verb: str) -> str | None:
    value = args.get("expectedHash")
    if value is not None and not isinstance(value, str):
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT, "`expectedHash` must be a string (the hash a read gave)",
            Call("read", {"path": args.get("path") or HOME + "/"}),
        )
    return value
