"""Notes as MCP resources (`memory://<scope>/<file>.md`) and the `## Your memory` prompt.

An agent lists and reads its own notes and the shared ones; another agent's notes do not
exist for it, exactly as in the memory tool. Reads go through `MemoryService.read`, so the
same confinement (no links, no special files, size cap) applies to a resource read.
"""

from __future__ import annotations

from urllib.parse import quote, unquote

import mcp_types as types
from mcp.shared.exceptions import MCPError

from brain.model import SHARED_SCOPE
from brain.tool.access import Actor
from brain.tool.calls.refusal import Call, Refusal
from brain.tool.calls.tool import ToolAddressing
from brain.tool.files.names import NameProblem, check_filename
from brain.tool.files.paths import ROOT
from brain.tool.service import MemoryService

SCHEME = "memory://"
MARKDOWN = "text/markdown"
PROMPT_NAME = "your-memory"
RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for an unknown resource


def note_uri(scope: str, name: str) -> str:
    return f"{SCHEME}{quote(scope, safe='')}/{quote(name, safe='')}"


def parse_uri(uri: str) -> tuple[str, str] | None:
    """`memory://shared/x.md` -> ("shared", "x.md"); None for anything else."""
    if not uri.startswith(SCHEME):
        return None
    scope, sep, name = uri[len(SCHEME):].partition("/")
    if not sep or not scope or not name or "/" in name:
        return None
    return unquote(scope), unquote(name)


def scope_of_node(node_id: str) -> tuple[str, str] | None:
    """`memory:shared/x` -> ("shared", "x"); None for other nodes."""
    if not node_id.startswith("memory:"):
        return None
    scope, _, stem = node_id.split(":", 1)[1].partition("/")
    return scope, stem


def virtual(scope: str, name: str) -> str:
    return f"{ROOT}/{SHARED_SCOPE}/{name}" if scope == SHARED_SCOPE else f"{ROOT}/{name}"


def list_notes(service: MemoryService, agent: str) -> list[types.Resource]:
    out: list[types.Resource] = []
    for scope in (agent, SHARED_SCOPE):
        for note in service.notes(scope):
            out.append(types.Resource(
                uri=note_uri(scope, note.name),
                name=virtual(scope, note.name),
                title=note.description or None,
                description=(f"{note.type}: " if note.type else "") + note.description,
                mime_type=MARKDOWN,
                size=note.size,
            ))
    return out


def templates() -> list[types.ResourceTemplate]:
    return [types.ResourceTemplate(
        name="memory-note",
        title="A memory note",
        uri_template=SCHEME + "{scope}/{file}",
        description="A note: scope is `shared` or your agent name, file its name with .md",
        mime_type=MARKDOWN,
    )]


def read_note(service: MemoryService, agent: str, actor: Actor, uri: str) -> types.ReadResourceResult:
    parsed = parse_uri(uri)
    if parsed is None:
        raise MCPError(
            RESOURCE_NOT_FOUND,
            f"{uri} is not a note: notes are {SCHEME}<scope>/<file>.md, e.g. "
            f"{note_uri(SHARED_SCOPE, 'topic.md')}",
        )
    scope, name = parsed
    try:
        check_filename(name)
    except NameProblem as problem:
        raise MCPError(RESOURCE_NOT_FOUND, f"{uri}: {problem.reason}") from None
    if scope not in (agent, SHARED_SCOPE):
        raise MCPError(RESOURCE_NOT_FOUND, f"there is no memory scope `{scope}`")
    path = virtual(scope, name)
    try:
        found = service.read(
            actor.acting_as(agent), scope, name, call=Call("view", {"path": path}),
            addr=ToolAddressing(agent),
        )
    except Refusal as refusal:
        raise MCPError(RESOURCE_NOT_FOUND, refusal.text()) from None
    text = found.data.decode("utf-8", errors="replace")
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=uri, mime_type=MARKDOWN, text=text)]
    )


def prompts() -> list[types.Prompt]:
    return [types.Prompt(
        name=PROMPT_NAME,
        title="Your memory",
        description=(
            "The `## Your memory` block for the agent's system prompt: the index of its own and "
            "shared notes (path, description, age) and the house rules for the memory tool."
        ),
    )]


def get_prompt(service: MemoryService, agent: str, name: str) -> types.GetPromptResult:
    if name != PROMPT_NAME:
        raise MCPError(types.INVALID_PARAMS, f"there is no prompt `{name}`; the prompt is `{PROMPT_NAME}`")
    block = service.prompt(agent)
    if block is None:
        return types.GetPromptResult(
            description=f"Memory is off for agent `{agent}`: its prompt has no memory block.",
            messages=[],
        )
    return types.GetPromptResult(
        description=f"The memory block of agent `{agent}`'s system prompt.",
        messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=block))],
    )
