"""The MCP tools of the space and mindlink layouts: the seeds' own verbs, same names and rules.

space (seeds/001): `read`, `write` (`delete: true` deletes, as in the seed) and `delete`.
mindlink (seeds/003): `memory_search`, `memory_get`, `memory_write`, `memory_delete`.
A workspace of one of those layouts lists these instead of the latchai memory tool; each
call goes to the same `LayoutVerbs.call` as REST and the CLI.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from brain.mcp.caller import Caller
from brain.tool.calls.refusal import Call, Refusal, RefusalCode
from brain.tool.layouts.verbs import LayoutVerbs

_SPACE_PATH = {
    "type": "string",
    "description": "~/memory/<path> (a file or a folder; ~/memory/ itself is the top)",
}
_MINDLINK_PATH = {
    "type": "string",
    "description": "Under your memory folder: entries/<name>.md (long-term) or YYYY-MM-DD.md (daily note)",
}
_HASH = {"type": "string", "description": "Refuse unless the file's hash (from a read) is still this"}


def _tool(name: str, title: str, description: str, schema: dict[str, Any], *, writes: bool) -> types.Tool:
    return types.Tool(
        name=name, title=title, description=description, input_schema=schema,
        annotations=types.ToolAnnotations(
            title=title, read_only_hint=not writes, destructive_hint=writes, idempotent_hint=True,
            open_world_hint=False,
        ),
    )


def space_tools() -> list[types.Tool]:
    return [
        _tool("read", "Read memory",
              "Read ~/memory/<path>: a text file comes back as text; a binary file (a NUL byte, or "
              "not UTF-8) as metadata (size, media type); a folder, or ~/memory/ itself, as a "
              "listing with sizes.",
              {"type": "object", "properties": {"path": _SPACE_PATH}, "required": ["path"]}, writes=False),
        _tool("write", "Write memory",
              "Write ~/memory/<path>: replaces the whole file (read-modify-write to change part of "
              "it); parent folders are made. `content` is text, `contentBase64` any bytes. "
              "`delete: true` deletes the file or folder instead. Paths: at most 512 bytes and 16 "
              "levels. Never store secrets.",
              {"type": "object", "properties": {
                  "path": _SPACE_PATH, "content": {"type": "string"},
                  "contentBase64": {"type": "string"}, "delete": {"type": "boolean"},
                  "expectedHash": _HASH,
              }, "required": ["path"]}, writes=True),
        _tool("delete", "Delete memory",
              "Delete ~/memory/<path>: a file, or a folder and everything in it.",
              {"type": "object", "properties": {"path": _SPACE_PATH, "expectedHash": _HASH},
               "required": ["path"]}, writes=True),
    ]


def mindlink_tools() -> list[types.Tool]:
    return [
        _tool("memory_search", "Search memory",
              "Search your long-term entries and daily notes; the best matches first, with path "
              "and snippet.",
              {"type": "object", "properties": {
                  "query": {"type": "string"},
                  "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
              }, "required": ["query"]}, writes=False),
        _tool("memory_get", "Get a memory",
              "Read an entry (entries/<name>.md) or a daily note (YYYY-MM-DD.md); `entries` or no "
              "path lists them.",
              {"type": "object", "properties": {"path": _MINDLINK_PATH}}, writes=False),
        _tool("memory_write", "Write a memory",
              "Create or update (by path) a long-term entry, entries/<name>.md, with frontmatter "
              "name, description and type (user, feedback, project, reference; a feedback body has "
              "lines starting `Why:` and `How to apply:`), or a daily note YYYY-MM-DD.md. The whole "
              "file is replaced. Never store secrets.",
              {"type": "object", "properties": {
                  "path": _MINDLINK_PATH, "content": {"type": "string"}, "expectedHash": _HASH,
              }, "required": ["path", "content"]}, writes=True),
        _tool("memory_delete", "Delete a memory",
              "Delete an entry or a daily note (or a stray file under your memory folder).",
              {"type": "object", "properties": {"path": _MINDLINK_PATH, "expectedHash": _HASH},
               "required": ["path"]}, writes=True),
    ]


def layout_instructions(verbs: LayoutVerbs | None) -> str | None:
    """What the server tells the client about the memory, in a layout with verbs of its own."""
    if verbs is None:
        return None
    if verbs.layout == "space":
        return (
            "brain keeps this agent's memory: the files under ~/memory/ (notes, data, drafts; any "
            "files, nested folders). `read` a path (a folder lists its files with sizes; read "
            "~/memory/ before starting a task), `write` a whole file (folders are made), `delete` "
            "a file or folder. Never store secrets."
        )
    return (
        "brain keeps this agent's memory: long-term entries (entries/<name>.md, with name, "
        "description and type) and daily notes (YYYY-MM-DD.md). Use memory_search and memory_get "
        "to look things up, memory_write to create or update by path, memory_delete to remove. "
        "Never store secrets."
    )


def layout_tools(verbs: LayoutVerbs) -> list[types.Tool]:
    return space_tools() if verbs.layout == "space" else mindlink_tools()


def call_layout_tool(
    verbs: LayoutVerbs, caller: Caller, name: str, args: dict[str, Any],
) -> types.CallToolResult:
    """Run one verb for the caller's agent (blocking: call it in a worker thread)."""
    try:
        if name not in verbs.names:
            raise Refusal(
                RefusalCode.INVALID_ARGUMENT,
                f"there is no tool `{name}`; the tools are " + ", ".join(verbs.names), None,
            )
        if caller.actor.kind == "agent" and caller.agent != caller.actor.agent:
            raise Refusal(
                RefusalCode.FORBIDDEN,
                f"these credentials belong to agent `{caller.actor.agent}`: it can use only its own memory",
                Call(verbs.names[0], {"path": ""} if verbs.layout == "mindlink" else {"path": "~/memory/"}),
            )
        if caller.agent is None:
            raise Refusal(
                RefusalCode.NO_AGENT,
                "this session names no agent: start `brain mcp --agent NAME`, use an agent's token, "
                "or add ?agent=NAME to the endpoint URL",
                None,
            )
        answer = verbs.call(caller.actor, caller.agent, name, args)
    except Refusal as refusal:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=refusal.text())],
            structured_content={"ok": False, "refusal": refusal.to_json()}, is_error=True,
        )
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=verbs.render(name, answer))],
        structured_content={"ok": True, **answer},
    )
