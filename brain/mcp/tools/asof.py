"""The MCP tool `memory_as_of`: an agent's memory as it was at a moment, from the history.

The same service functions as GraphQL's `asOf:` and `brain show --as-of`
(brain/tool/asof/service.py), seen through the agent's eyes as the other graph tools see the
graph (brain/mcp/tools/graph.py): its own notes and the shared ones, by virtual path;
another agent's private notes are absent from the answer as they are today.
"""

from __future__ import annotations

from typing import Any

from brain.model import SHARED_SCOPE
from brain.tool.access import Actor
from brain.tool.asof.service import graph_at, listing_as_of, note_as_of
from brain.tool.calls.refusal import Refusal, RefusalCode
from brain.tool.files.paths import ROOT
from brain.tool.service import MemoryService

from brain.mcp.tools.schemas import AS_OF_TOOL
_LISTINGS = (ROOT, ROOT + "/")


def as_of(service: MemoryService, agent: str, at: object, path: object) -> dict[str, Any]:
    """One note as it was (`path` a virtual path), or every note of the agent's memory (no path)."""
    from brain.mcp.tools.graph import AgentView

    if not isinstance(at, str) or not at.strip():
        raise Refusal(RefusalCode.INVALID_ARGUMENT,
                      "`at` is required: an ISO 8601 time (2026-12-01T09:00:00Z) or an age (7d, 24h)")
    actor = Actor.of_agent(agent, "mcp")
    if path is None or path in _LISTINGS:
        found = listing_as_of(service, actor, at)
        for note in found["notes"]:
            note["path"] = virtual(note["path"])
        return found
    moment = graph_at(service, at)
    node = AgentView(moment, agent).note(path, AS_OF_TOOL)
    found = note_as_of(service, actor, node.path, at)
    found["path"] = virtual(node.path)
    return found


def virtual(rel: str) -> str:
    """memory/<agent>/x.md -> /memories/x.md; memory/shared/x.md -> /memories/shared/x.md."""
    parts = rel.split("/")
    if len(parts) == 3 and parts[0] == "memory":
        return f"{ROOT}/{SHARED_SCOPE}/{parts[2]}" if parts[1] == SHARED_SCOPE else f"{ROOT}/{parts[2]}"
    return rel


def render(data: dict[str, Any]) -> str:
    """The answer as a model reads it."""
    if "notes" in data:
        lines = [f"your memory as of {data['at']}: {data['total']} note(s)"
                 + (" (the first 1000)" if data["truncated"] else "")]
        lines += [f"{n['path']} — {n['description'] or '(no description)'}"
                  + (f" ({n['problems']} problem(s))" if n["problems"] else "") for n in data["notes"]]
        return "\n".join(lines)
    lines = [f"{data['path']} as of {data['at']}:", data["text"].rstrip("\n"), "",
             f"links ({len(data['links'])}):"]
    lines += [f"line {lk['line']}: {lk['text']} ({lk['status']})" for lk in data["links"]]
    lines += [f"problem line {p['line']}: {p['message']}" for p in data["problems"]]
    return "\n".join(lines)
