"""The read-only graph tools, for one agent: links, backlinks, neighbourhood, problems.

The same store queries the GraphQL API resolves (`links_from`, `backlinks`, `neighborhood`,
`Brain.problems`), seen through the agent's eyes: notes are named by their virtual paths,
and another agent's private notes are left out everywhere, as the memory tool leaves them
out. Each function returns plain JSON data; `render` makes the text a model reads.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from brain.model import SHARED_SCOPE, AgentNode, EntityNode, MemoryNode, Node, memory_id
from brain.service.brain import Brain
from brain.store.visibility import Reach, as_seen
from brain.tool.calls.refusal import Call, Refusal, RefusalCode
from brain.tool.files.names import MD
from brain.tool.files.paths import ROOT, PathProblem, VirtualDir, VirtualFile, parse_virtual
from brain.tool.diff.changes import text_of

MAX_DEPTH = 3
MAX_NODES = 200
MAX_PROBLEMS = 200
MAX_LINKS = 200  # links or backlinks in one answer: the rest are counted, not listed
MAX_CURSOR = 2_048  # an `after` longer than any cursor this module writes is refused unread


class AgentView:
    """The graph as one agent may see it: its own notes, the shared ones, and non-memory nodes."""

    def __init__(self, brain: Brain, agent: str) -> None:
        self.brain = brain
        self.agent = agent
        self.reach = Reach.of_agent(agent)

    def visible(self, node_id: str) -> bool:
        return self.reach.sees(node_id)

    def virtual(self, node: MemoryNode) -> str:
        file = node.path.rsplit("/", 1)[-1]
        return f"{ROOT}/{SHARED_SCOPE}/{file}" if node.scope == SHARED_SCOPE else f"{ROOT}/{file}"

    def label(self, node: Node | None, node_id: str) -> str:
        if isinstance(node, MemoryNode):
            return self.virtual(node)
        if isinstance(node, AgentNode):
            return f"agent {node.name}"
        if isinstance(node, EntityNode):
            return f"{node.kind.value} {node.title or node.ident}"
        return node_id

    def note(self, path: object, tool: str) -> MemoryNode:
        """The note a virtual path names, or a refusal naming a call that would work."""
        if not self.brain.ready:
            raise Refusal(RefusalCode.NOT_FOUND, "the workspace is still being read: ask again in a moment")
        try:
            target = parse_virtual(path, self.agent)
        except PathProblem as problem:
            fixed = {"path": problem.fixed} if problem.fixed else None
            raise Refusal(problem.code, problem.reason, Call(tool, fixed) if fixed else _listing()) from None
        if isinstance(target, VirtualDir):
            raise Refusal(
                RefusalCode.IS_DIRECTORY, f"{target.path} is a directory; {tool} works on one note",
                _listing(),
            )
        assert isinstance(target, VirtualFile)
        scope = target.scope(self.agent)
        found = self.brain.store.get_nodes([memory_id(scope, target.name[: -len(MD)])])
        node = next(iter(found.values()), None)
        if not isinstance(node, MemoryNode):
            raise Refusal(
                RefusalCode.NOT_FOUND, f"{target.path} does not exist (or is not in the graph yet)",
                _listing(),
            )
        return node

    def nodes(self, ids: list[str]) -> dict[str, Node]:
        """The nodes as the agent sees them: an Unresolved id a projected link points to is
        the Unresolved node it would be if the note out of reach did not exist."""
        found = self.brain.store.get_nodes(ids) if ids else {}
        return {i: node for i in ids if (node := as_seen(i, found)) is not None and self.visible(i)}


def _listing() -> Call:
    return Call("memory", {"command": "view", "path": ROOT})


def links(view: AgentView, path: object, after: object = None) -> dict[str, Any]:
    node = view.note(path, "memory_links")
    start = _offset(after, Call("memory_links", {"path": view.virtual(node)}))
    # Each link as the agent sees it: one into another agent's note is broken (visibility.py).
    # A note's links are within its link budget (brain/budgets.py): pages cut from the whole.
    found = [view.reach.link(lk) for lk in view.brain.store.links_from([node.id]).get(node.id, [])]
    shown = sorted(found, key=lambda lk: lk.ordinal)[start : start + MAX_LINKS]
    targets = view.nodes(sorted({link.target_id for link in shown}))
    out = []
    for link in shown:
        target = targets.get(link.target_id)
        out.append({
            "line": link.line,
            "column": link.column,
            "text": link.raw,
            "status": link.status.value,
            "target": view.label(target, link.target_id) if target is not None else None,
            "targetId": link.target_id if target is not None else None,
            "candidates": list(link.candidates),
        })
    more = len(found) > start + MAX_LINKS
    return {"path": view.virtual(node), "links": out, "total": len(found), "truncated": more,
            "next": str(start + MAX_LINKS) if more else None}


def backlinks(view: AgentView, path: object, after: object = None) -> dict[str, Any]:
    node = view.note(path, "memory_backlinks")
    key = _backlink_after(after, node, view)
    # The store cuts the page from sources in the agent's reach: a hub note's 450,000
    # backlinks are counted, never loaded (brain/store/backlink_pages.py).
    store = view.brain.store
    shown = store.backlinks([node.id], MAX_LINKS + 1, key, view.reach)[node.id]
    more, shown = len(shown) > MAX_LINKS, shown[:MAX_LINKS]
    total = store.backlink_counts([node.id], view.reach).get(node.id, 0)
    sources = view.nodes(sorted({lk.source for lk in shown}))
    out = []
    for link in shown:
        source = sources.get(link.source)
        out.append({
            "source": view.label(source, link.source),
            "line": link.line,
            "column": link.column,
            "text": link.raw,
        })
    last = shown[-1] if shown else None
    return {
        "path": view.virtual(node), "backlinks": out, "total": total, "truncated": more,
        "next": _backlink_cursor(last.source, last.line, last.column) if more and last else None,
    }


def _backlink_cursor(source: str, line: int, column: int) -> str:
    """Opaque to the agent; only an order key: a page still holds only sources it may see."""
    raw = json.dumps([source, line, column], ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _backlink_after(after: object, node: MemoryNode, view: AgentView) -> tuple[str, int, int] | None:
    if after is None or after == "":
        return None
    try:
        if not isinstance(after, str) or len(after) > MAX_CURSOR:
            raise ValueError
        source, line, column = json.loads(base64.urlsafe_b64decode(after + "=" * (-len(after) % 4)))
        if not (isinstance(source, str) and type(line) is int and type(column) is int):
            raise ValueError
        return (source, line, column)
    except (ValueError, TypeError, binascii.Error):
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT,
            "`after` is not a cursor of these backlinks: pass the `next` of the previous answer",
            Call("memory_backlinks", {"path": view.virtual(node)}),
        ) from None


def neighborhood(view: AgentView, path: object, depth: object = 1, limit: object = 50) -> dict[str, Any]:
    node = view.note(path, "memory_neighborhood")
    hops = _bounded(depth, "depth", 1, MAX_DEPTH, node, view)
    most = _bounded(limit, "limit", 1, MAX_NODES, node, view)
    # The walk itself keeps to the agent's reach: it never passes through another agent's notes.
    sub = view.brain.store.neighborhood(node.id, hops, most, view.reach)
    return {
        "path": view.virtual(node),
        "nodes": [{"id": n.id, "kind": n.kind.value, "label": view.label(n, n.id)} for n in sub.nodes],
        "edges": [{"type": e.type, "source": e.source, "target": e.target} for e in sub.edges],
        "truncated": sub.truncated,
    }


def related(view: AgentView, path: object, first: object = 10) -> dict[str, Any]:
    """The note's unlinked mentions (with the link that fixes each) and the notes nearest it
    that it does not link: both within the agent's reach (brain/service/mentions.py)."""
    from brain.search.related import MAX_RELATED
    from brain.service.mentions import brain_mentions, related_to

    node = view.note(path, "memory_related")
    most = _bounded(first, "first", 1, MAX_RELATED, node, view, "memory_related")
    brain = view.brain
    mentions = brain_mentions(brain, node, reach=view.reach, overlays=brain.ingester.overlays)
    near = related_to(brain.search, brain.root, node, reach=view.reach, first=most,
                      overlays=brain.ingester.overlays)
    ids = {i for m in mentions for i in (m.target, *m.candidates) if i} | {r.id for r in near}
    named = view.nodes(sorted(ids))
    return {
        "path": view.virtual(node),
        "mentions": [
            {"line": m.line, "column": m.column, "text": m.text,
             "target": view.label(named.get(m.target), m.target) if m.target else None,
             "replacement": m.replacement, "candidates": [view.label(named.get(c), c) for c in m.candidates]}
            for m in mentions
        ],
        "related": [
            {"path": view.label(named.get(r.id), r.id), "score": r.score, "terms": list(r.terms)}
            for r in near if r.id in named
        ],
    }


def _bounded(
    value: object, name: str, low: int, high: int, node: MemoryNode, view: AgentView,
    tool: str = "memory_neighborhood",
) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return value
    raise Refusal(
        RefusalCode.INVALID_ARGUMENT, f"`{name}` must be a whole number from {low} to {high}, not {value!r}",
        Call(tool, {"path": view.virtual(node), name: low}),
    )


def problems(view: AgentView, path: object = ROOT, after: object = None) -> dict[str, Any]:
    start = _offset(after, Call("memory_problems", {"path": path if isinstance(path, str) else ROOT}))
    if not view.brain.ready:
        raise Refusal(RefusalCode.NOT_FOUND, "the workspace is still being read: ask again in a moment")
    if path in (None, ROOT, ROOT + "/"):
        prefixes = [f"memory/{view.agent}/", f"memory/{SHARED_SCOPE}/"]
    else:
        try:
            target = parse_virtual(path, view.agent)
        except PathProblem as problem:
            fixed = Call("memory_problems", {"path": problem.fixed or ROOT})
            raise Refusal(problem.code, problem.reason, fixed) from None
        if isinstance(target, VirtualDir):
            prefixes = [f"memory/{SHARED_SCOPE}/" if target.shared else f"memory/{view.agent}/"]
        else:
            prefixes = [f"memory/{target.scope(view.agent)}/{target.name}"]
    found = [p for p in view.brain.problems(reach=view.reach) if any(p.path.startswith(x) for x in prefixes)]
    out = [
        {
            "path": _virtual_of_rel(p.path, view.agent),
            "line": p.line,
            "column": p.column,
            "severity": p.severity.value,
            "code": p.code,
            "message": p.message,
            "fix": p.fix,
        }
        for p in found[start : start + MAX_PROBLEMS]
    ]
    more = len(found) > start + MAX_PROBLEMS
    return {"problems": out, "total": len(found), "truncated": more,
            "next": str(start + MAX_PROBLEMS) if more else None}


def _offset(after: object, call: Call) -> int:
    """Where a page of a list computed whole (a note's links, problems) starts: the `next`
    of the previous answer, a count of what came before."""
    if after is None or after == "":
        return 0
    if isinstance(after, str) and after.isascii() and after.isdigit() and len(after) <= 9:
        return int(after)
    raise Refusal(
        RefusalCode.INVALID_ARGUMENT,
        f"`after` must be the `next` of the previous answer (a count such as \"200\"), not {after!r:.40}",
        call,
    )


def _virtual_of_rel(rel: str, agent: str) -> str:
    parts = rel.split("/")
    if len(parts) == 3 and parts[0] == "memory":
        return f"{ROOT}/{SHARED_SCOPE}/{parts[2]}" if parts[1] == SHARED_SCOPE else f"{ROOT}/{parts[2]}"
    return rel


def render(tool: str, data: dict[str, Any]) -> str:
    """The result as a model reads it: one line per item, after a one-line heading."""
    if tool == "memory_changes":
        return text_of(data)
    if tool == "memory_links":
        rows = [
            f"line {x['line']}: {x['text']} -> {x['target'] or x['status']}"
            + ("" if x["status"] == "resolved" else f" ({x['status']})")
            for x in data["links"]
        ]
        return _block(f"{data['path']}: {_counted(data, 'link', len(rows))}", rows)
    if tool == "memory_backlinks":
        rows = [f"{x['source']} line {x['line']}: {x['text']}" for x in data["backlinks"]]
        return _block(f"{data['path']}: {_counted(data, 'backlink', len(rows))}", rows)
    if tool == "memory_related":
        rows = [f"line {m['line']}: `{m['text']}` -> " + (f"write {m['replacement']}" if m["target"] else
                "ambiguous: " + ", ".join(m["candidates"])) for m in data["mentions"]]
        rows += [f"related {r['path']} ({r['score']:.4f}; {', '.join(r['terms'])})" for r in data["related"]]
        return _block(f"{data['path']}: {len(data['mentions'])} unlinked mention(s), "
                      f"{len(data['related'])} related note(s)", rows)
    if tool == "memory_neighborhood":
        rows = [f"{n['label']} ({n['kind']})" for n in data["nodes"]]
        rows += [f"{e['source']} -{e['type']}-> {e['target']}" for e in data["edges"]]
        more = " (truncated)" if data["truncated"] else ""
        counts = f"{len(data['nodes'])} node(s), {len(data['edges'])} edge(s){more}"
        return _block(f"{data['path']}: {counts}", rows)
    rows = [
        f"{p['path']}:{p['line'] or 0}: {p['severity']} {p['code']}: {p['message']}"
        + (f" Fix: {p['fix']}" if p["fix"] else "")
        for p in data["problems"]
    ]
    return _block(_counted(data, "problem", len(rows)), rows)


def _counted(data: dict[str, Any], what: str, shown: int) -> str:
    if not data["next"]:
        return f"{data['total']} {what}(s)"
    return f"{data['total']} {what}(s), {shown} shown here; the next with after \"{data['next']}\""


def _block(head: str, rows: list[str]) -> str:
    return "\n".join([head, *rows])
