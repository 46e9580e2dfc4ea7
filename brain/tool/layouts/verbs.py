"""Which memory verbs a workspace offers: its layout's (design.md section 8), for every front end.

latchai has the memory tool (brain.tool.calls.tool); space has read / write / delete (seeds/001);
mindlink has memory_search / memory_get / memory_write / memory_delete (seeds/003); lab has
no verbs of its own in the seeds. REST, MCP and the CLI ask `layout_verbs` and dispatch
the same names to the same `call`, so they cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from brain.tool.access import Actor
from brain.tool.agent_memory import AgentMemory
from brain.tool.layouts.mindlink import VERBS as MINDLINK_VERBS
from brain.tool.layouts.mindlink import Mindlink, SearchFunction
from brain.tool.layouts.mindlink import render as render_mindlink
from brain.tool.layouts.space import VERBS as SPACE_VERBS
from brain.tool.layouts.space import Space
from brain.tool.layouts.space import render as render_space

if TYPE_CHECKING:
    from brain.service.brain import Brain
    from brain.tool.service import MemoryService


class Verbs(Protocol):
    def call(self, actor: Actor, agent: str | None, verb: str, args: dict[str, Any]) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class LayoutVerbs:
    layout: str
    names: tuple[str, ...]
    verbs: Verbs

    def call(self, actor: Actor, agent: str | None, verb: str, args: dict[str, Any]) -> dict[str, Any]:
        return self.verbs.call(actor, agent, verb, args)

    def render(self, verb: str, answer: dict[str, Any]) -> str:
        if self.layout == "space":
            return render_space(verb, answer)
        return render_mindlink(verb, answer)


def workspace_layout(root: Path) -> str:
    """The layout of a workspace: brain.toml's `layout`, else detected (latchai when unknown)."""
    from brain.layouts import choose_layout_leniently

    return choose_layout_leniently(root).name


def layout_verbs(brain: Brain, memory: MemoryService | None = None) -> LayoutVerbs | None:
    """The verbs of the workspace's layout, or None (latchai and lab: the memory tool)."""
    from brain.tool import memory_service

    return verbs_for(
        workspace_layout(brain.root), memory if memory is not None else memory_service(brain),
        brain_search(brain),
    )


def verbs_for(layout: str, memory: MemoryService, search: SearchFunction | None) -> LayoutVerbs | None:
    """The verbs of `layout` over a workspace's memory service, or None when it has none."""
    tree = AgentMemory(memory)
    if layout == "space":
        return LayoutVerbs("space", SPACE_VERBS, Space(tree))
    if layout == "mindlink":
        return LayoutVerbs("mindlink", MINDLINK_VERBS, Mindlink(tree, search))
    return None


def brain_search(brain: Brain) -> SearchFunction:
    """brain's search (brain/search) as mindlink's memory_search calls it."""

    def search(query: str, agent: str, limit: int) -> Sequence[dict[str, Any]]:
        from brain.search.service import SearchError
        from brain.tool.calls.refusal import Call, Refusal, RefusalCode

        try:
            answer = brain.search.search(query, agent=agent, limit=limit)
        except SearchError as exc:
            raise Refusal(
                RefusalCode.INVALID_ARGUMENT, str(exc), Call("memory_search", {"query": "release notes"})
            ) from None
        return [
            {"id": hit.id, "path": hit.path, "name": hit.name, "score": round(hit.score, 6),
             "snippet": hit.snippet, "matched": list(hit.matched)}
            for hit in answer.hits
        ]

    return search
