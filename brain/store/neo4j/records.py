"""Model objects <-> Neo4j property maps, both ways, losslessly.

Neo4j stores strings, booleans, 64-bit integers, floats and homogeneous lists of those.
Everything else a note can carry (frontmatter maps, mixed or nested lists, nulls, integers
beyond 64 bits, the heading and problem records) is written as canonical JSON text, so that
reading a node back gives an object equal to the one written: that is what lets `export()`
prove both stores hold the same graph.

Frontmatter property `k` becomes node property `fm_k` (queryable from Cypher when Neo4j can
hold the value natively); `fmKeys` keeps the original key order, `fmJson` names the keys
whose value is JSON text, and `fmOther` holds, as one JSON map, keys that cannot be Neo4j
property names (a NUL character).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from brain.index.text import title_of
from brain.model import (
    AgentNode,
    Anchors,
    Block,
    EntityNode,
    FileNode,
    Heading,
    JSONValue,
    Kind,
    Link,
    LinkStatus,
    MemoryNode,
    Node,
    Problem,
    Severity,
    UnresolvedNode,
    agent_id,
    leaf_key,
    name_key,
)

Props = dict[str, Any]
FRONTMATTER_PREFIX = "fm_"
_INT64 = (-(2**63), 2**63 - 1)


def order_key(node_id: str) -> str:
    """A string whose order is the same in Neo4j and Python.

    Neo4j compares some strings by UTF-16 code units and Python by code points, which
    disagree past U+FFFF. The UTF-8 bytes, each as one character below U+0100, sort the
    same way under both rules, and in code point order of the original.
    """
    return node_id.encode("utf-8").decode("latin-1")


# ------------------------------------------------------------------ frontmatter values


def _scalar_type(value: object) -> type | None:
    if isinstance(value, bool | str | float):
        return type(value)
    if isinstance(value, int) and _INT64[0] <= value <= _INT64[1]:
        return int
    return None


def storable(value: JSONValue) -> bool:
    """Can Neo4j hold this value as a property, and give back an equal one?"""
    if isinstance(value, list):
        kinds = {_scalar_type(v) for v in value}
        return len(kinds) <= 1 and None not in kinds
    return _scalar_type(value) is not None


def encode_frontmatter(properties: Mapping[str, JSONValue]) -> Props:
    out: Props = {"fmKeys": list(properties), "fmJson": []}
    unnamable: dict[str, JSONValue] = {}
    for key, value in properties.items():
        if "\x00" in key:  # not a valid property name in Neo4j
            unnamable[key] = value
        elif storable(value):
            out[FRONTMATTER_PREFIX + key] = value
        else:
            out["fmJson"].append(key)
            out[FRONTMATTER_PREFIX + key] = _json(value)
    if unnamable:
        out["fmOther"] = _json(unnamable)
    return out


def decode_frontmatter(props: Mapping[str, Any]) -> dict[str, JSONValue]:
    as_json = set(props.get("fmJson") or ())
    other = json.loads(props.get("fmOther") or "{}")
    out: dict[str, JSONValue] = {}
    for key in props.get("fmKeys") or ():
        value = props.get(FRONTMATTER_PREFIX + key)
        if key in other:
            out[key] = other[key]
        elif key in as_json and isinstance(value, str):
            out[key] = json.loads(value)
        else:
            out[key] = value
    return out


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# ------------------------------------------------------------------ nodes


def memory_props(memory: MemoryNode) -> Props:
    props: Props = {
        "id": memory.id,
        "scope": memory.scope,
        "name": memory.name,
        "key": leaf_key(memory.name),
        "owner": memory.owner,  # REMEMBERS: not every scope is an agent (shared, projects, skills)
        "noteKind": memory.note_kind.value if memory.note_kind is not Kind.MEMORY else None,
        "triggers": list(memory.triggers) if memory.triggers else None,
        "orderKey": order_key(memory.id),
        "nameFold": memory.name.casefold(),
        "title": title_of(memory.name),  # the words search finds it by (memory_text index)
        "descriptionFold": memory.description.casefold(),
        "path": memory.path,
        "description": memory.description,
        "type": memory.type,
        "hash": memory.hash,
        "size": memory.size,
        "modifiedAt": memory.modified_at,
        "body": memory.body,
        "headings": [h.text for h in memory.headings],
        "headingLevels": [h.level for h in memory.headings],
        "headingLines": [h.line for h in memory.headings],
        # Only where a heading is written otherwise than shown (inline code, emphasis).
        "headingSources": [h.source for h in memory.headings]
        if any(h.source for h in memory.headings) else None,
        "blocks": _json([[b.id, b.line, b.column, b.start_line] for b in memory.blocks])
        if memory.blocks else None,
        "problems": _json([_problem_fields(p) for p in memory.problems]),
        "problemCount": len(memory.problems),
        **encode_frontmatter(memory.properties),
    }
    return _without_nulls(props)


def anchors_from(props: Mapping[str, Any]) -> Anchors:
    """Headings and blocks of a memory's properties (written before blocks existed: none)."""
    texts = props.get("headings") or []
    sources = props.get("headingSources") or [""] * len(texts)
    rows = zip(texts, props.get("headingLevels") or [], props.get("headingLines") or [], sources, strict=True)
    blocks = json.loads(props["blocks"]) if props.get("blocks") else []
    return Anchors(
        tuple(Heading(text, level, line, source) for text, level, line, source in rows),
        tuple(Block(str(i), int(line), int(column), int(start)) for i, line, column, start in blocks),
    )


def memory_from(props: Mapping[str, Any]) -> MemoryNode:
    anchors = anchors_from(props)
    return MemoryNode(
        scope=props["scope"],
        name=props["name"],
        path=props["path"],
        description=props["description"],
        type=props.get("type"),
        hash=props["hash"],
        size=props["size"],
        modified_at=props["modifiedAt"],
        body=props["body"],
        headings=anchors.headings,
        blocks=anchors.blocks,
        properties=decode_frontmatter(props),
        problems=tuple(problems_from(props["problems"])),
        note_kind=Kind(props.get("noteKind") or Kind.MEMORY.value),
        triggers=tuple(props.get("triggers") or ()),
    )


def memory_owner_id(memory: MemoryNode) -> str | None:
    owner = memory.owner
    return None if owner is None else agent_id(owner)


def file_props(node: FileNode) -> Props:
    return {
        "id": node.id, "scope": node.scope, "name": node.name, "key": leaf_key(node.name),
        "path": node.path, "size": node.size, "mediaType": node.media_type,
        "binary": node.binary, "hash": node.hash, "modifiedAt": node.modified_at,
    }


def file_from(props: Mapping[str, Any]) -> FileNode:
    return FileNode(
        scope=props["scope"], name=props["name"], path=props["path"], size=props["size"],
        media_type=props["mediaType"], binary=props["binary"], hash=props["hash"],
        modified_at=props["modifiedAt"],
    )


def agent_props(agent: AgentNode) -> Props:
    return _without_nulls({
        "id": agent.id,
        "name": agent.name,
        "key": name_key(agent.name),
        "description": agent.description,
        "memoryEnabled": agent.memory_enabled,
        "memoryOff": agent.memory_off,
        "path": agent.path,
    })


def agent_from(props: Mapping[str, Any]) -> AgentNode:
    return AgentNode(
        name=props["name"],
        description=props["description"],
        memory_enabled=props["memoryEnabled"],
        memory_off=props["memoryOff"],
        path=props.get("path"),
    )


def entity_props(entity: EntityNode) -> Props:
    return _without_nulls({
        "id": entity.id,
        "ident": entity.ident,
        "key": name_key(entity.ident),
        "title": entity.title,
        "path": entity.path,
    })


def entity_from(kind: Kind, props: Mapping[str, Any]) -> EntityNode:
    return EntityNode(kind, props["ident"], props["title"], props.get("path"))


def node_from(label: str, props: Mapping[str, Any]) -> Node:
    kind = KIND_OF_LABEL[label]
    if kind is Kind.MEMORY:
        return memory_from(props)
    if kind is Kind.AGENT:
        return agent_from(props)
    if kind is Kind.UNRESOLVED:
        return UnresolvedNode(props["target"])
    if kind is Kind.FILE:
        return file_from(props)
    if kind in (Kind.DAILY_NOTE, Kind.SKILL, Kind.TOOL):
        return memory_from(props)
    return entity_from(kind, props)


KIND_OF_LABEL: dict[str, Kind] = {kind.label: kind for kind in Kind}


# ------------------------------------------------------------------ links


def link_props(link: Link) -> Props:
    return _without_nulls({
        "ordinal": link.ordinal,
        "status": link.status.value,
        "raw": link.raw,
        "target": link.target,
        "key": link.key,
        "label": link.label,
        "anchor": link.anchor,
        "embed": link.embed,
        "line": link.line,
        "column": link.column,
        "candidates": list(link.candidates) or None,  # only ambiguous links have any
    })


def link_from(source: str, target_id: str, props: Mapping[str, Any]) -> Link:
    return Link(
        source=source,
        ordinal=props["ordinal"],
        target_id=target_id,
        status=LinkStatus(props["status"]),
        raw=props["raw"],
        target=props["target"],
        key=props["key"],
        label=props.get("label"),
        anchor=props.get("anchor"),
        embed=props["embed"],
        line=props["line"],
        column=props["column"],
        candidates=tuple(props.get("candidates") or ()),
    )


# ------------------------------------------------------------------ problems


def _problem_fields(problem: Problem) -> dict[str, JSONValue]:
    return {
        "code": problem.code,
        "severity": problem.severity.value,
        "path": problem.path,
        "message": problem.message,
        "line": problem.line,
        "column": problem.column,
        "length": problem.length,
        "target": problem.target,
        "candidates": list(problem.candidates),
        "fix": problem.fix,
    }


def problems_from(text: str) -> list[Problem]:
    """The problems stored as JSON text by `memory_props`, in their order."""
    return [_problem(fields) for fields in json.loads(text)]


def _problem(fields: Mapping[str, Any]) -> Problem:
    return Problem(
        code=fields["code"],
        severity=Severity(fields["severity"]),
        path=fields["path"],
        message=fields["message"],
        line=fields["line"],
        column=fields["column"],
        length=fields["length"],
        target=fields["target"],
        candidates=tuple(fields["candidates"]),
        fix=fields["fix"],
    )


def _without_nulls(props: Props) -> Props:
    # Neo4j has no null properties: an absent key reads back as None.
    return {k: v for k, v in props.items() if v is not None}
