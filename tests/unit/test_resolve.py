"""Resolution, exactly as design.md section 3: one table of (scope, target) -> where it lands."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import pytest

from brain.model import Anchors, Heading, Kind, LinkStatus, WikiLink, name_key
from brain.resolve import NameEntry, Target, parse_target, resolve_link

NFD_CAFE = "cafe\u0301"

ENTRIES = [
    NameEntry("memory:shared/style", Kind.MEMORY, "style", "shared"),
    NameEntry("memory:shared/readme", Kind.MEMORY, "readme", "shared"),
    NameEntry("memory:shared/café", Kind.MEMORY, name_key("café"), "shared"),
    NameEntry("memory:shared/Twin", Kind.MEMORY, "twin", "shared"),
    NameEntry("memory:bot/style", Kind.MEMORY, "style", "bot"),
    NameEntry("memory:bot/notes", Kind.MEMORY, "notes", "bot"),
    NameEntry("memory:bot/Twin", Kind.MEMORY, "twin", "bot"),
    NameEntry("memory:bot/twin", Kind.MEMORY, "twin", "bot"),
    NameEntry(f"memory:bot/{NFD_CAFE}", Kind.MEMORY, name_key(NFD_CAFE), "bot"),
    NameEntry("memory:other/secret", Kind.MEMORY, "secret", "other"),
    NameEntry("memory:other/notes", Kind.MEMORY, "notes", "other"),
    NameEntry("memory:Ann/diary", Kind.MEMORY, "diary", "Ann"),
    NameEntry("workflow:deploy", Kind.WORKFLOW, "deploy"),
    NameEntry("chat:deploy", Kind.CHAT, "deploy"),
    NameEntry("workflow:release", Kind.WORKFLOW, "release"),
    NameEntry("agent:release", Kind.AGENT, "release"),
    NameEntry("workflow:readme", Kind.WORKFLOW, "readme"),
    NameEntry("work-item:WI-1", Kind.WORK_ITEM, "wi-1"),
    NameEntry("chat:standup", Kind.CHAT, "standup"),
    NameEntry("agent:bot", Kind.AGENT, "bot"),
    NameEntry("agent:other", Kind.AGENT, "other"),
]
def _anchors(*texts: str) -> Anchors:
    return Anchors(tuple(Heading(text, 1, line) for line, text in enumerate(texts, 1)))


HEADINGS = {
    "memory:shared/style": _anchors("House style", "Headline first"),
    "memory:bot/style": _anchors("Mine", "Ünïcödé Heading", f"{NFD_CAFE} au lait"),
    "memory:bot/notes": _anchors(),
}


def names(key: str) -> Sequence[NameEntry]:
    index: dict[str, list[NameEntry]] = defaultdict(list)
    for entry in ENTRIES:
        index[entry.key].append(entry)
    return index.get(key, [])


def resolve(scope: str, text: str, source_id: str | None = None) -> tuple[str, str, tuple[str, ...]]:
    target, _, anchor = text.partition("#")
    link = WikiLink(f"[[{text}]]", target.strip(), None, anchor.strip() or None, False, 1, 1)
    source = source_id or f"memory:{scope}/source"
    resolution = resolve_link(link, source, scope, names, HEADINGS.get)
    return resolution.status.value, resolution.target_id, resolution.candidates


OK, BROKEN, AMBIGUOUS, NO_ANCHOR = "resolved", "broken", "ambiguous", "missing-anchor"

# (case, scope of the source note, link target, status, target id, candidates)
TABLE = [
    # level 1: the note's own scope, before shared
    ("own scope first", "bot", "style", OK, "memory:bot/style", ()),
    ("shared when the scope has none", "other", "style", OK, "memory:shared/style", ()),
    ("a shared note links within shared", "shared", "style", OK, "memory:shared/style", ()),
    # level 2 beats level 3
    ("shared memory before a workflow", "bot", "readme", OK, "memory:shared/readme", ()),
    # level 3: workflow, chat, work item, agent, all on one level
    ("work item by bare name", "bot", "wi-1", OK, "work-item:WI-1", ()),
    ("chat by bare name", "bot", "standup", OK, "chat:standup", ()),
    ("agent by bare name", "bot", "other", OK, "agent:other", ()),
    ("two kinds on level 3", "bot", "deploy", AMBIGUOUS, "unresolved:deploy",
     ("chat:deploy", "workflow:deploy")),
    ("workflow and agent on level 3", "bot", "release", AMBIGUOUS, "unresolved:release",
     ("agent:release", "workflow:release")),
    # the first level with a match decides, even when it has two
    ("two in the own scope", "bot", "twin", AMBIGUOUS, "unresolved:twin",
     ("memory:bot/Twin", "memory:bot/twin")),
    ("one in shared when the own scope has none", "other", "TWIN", OK, "memory:shared/Twin", ()),
    # kind prefixes look at that kind only
    ("workflow:", "bot", "workflow:deploy", OK, "workflow:deploy", ()),
    ("chat:", "bot", "chat:deploy", OK, "chat:deploy", ()),
    ("work-item:", "bot", "work-item:wi-1", OK, "work-item:WI-1", ()),
    ("workitem:", "bot", "workitem:WI-1", OK, "work-item:WI-1", ()),
    ("agent:", "bot", "agent:release", OK, "agent:release", ()),
    ("prefix in capitals", "bot", "Workflow:Release", OK, "workflow:release", ()),
    ("spaces after the prefix", "bot", "workflow: deploy", OK, "workflow:deploy", ()),
    ("memory: skips level 3", "bot", "memory:deploy", BROKEN, "unresolved:memory:deploy", ()),
    ("memory: own scope", "bot", "memory:style", OK, "memory:bot/style", ()),
    ("memory: with a scope", "bot", "memory:shared/style", OK, "memory:shared/style", ()),
    ("workflow: of a chat's name", "bot", "workflow:standup", BROKEN, "unresolved:workflow:standup", ()),
    ("agent: of a memory's name", "bot", "agent:style", BROKEN, "unresolved:agent:style", ()),
    # a `/` names a scope
    ("shared/ skips the own scope", "bot", "shared/style", OK, "memory:shared/style", ()),
    ("<agent>/ reaches that agent's note", "bot", "other/secret", OK, "memory:other/secret", ()),
    ("scope in another case", "bot", "SHARED/Style.md", OK, "memory:shared/style", ()),
    ("scope folder with capitals", "bot", "ann/DIARY", OK, "memory:Ann/diary", ()),
    ("scope without the note", "bot", "shared/notes", BROKEN, "unresolved:shared/notes", ()),
    ("unknown scope", "bot", "ghost/style", BROKEN, "unresolved:ghost/style", ()),
    ("two slashes", "bot", "shared/a/style", BROKEN, "unresolved:shared/a/style", ()),
    ("a scoped name is never a workflow", "bot", "shared/deploy", BROKEN, "unresolved:shared/deploy", ()),
    # bare names never reach another agent's private folder
    ("private to another agent", "bot", "secret", BROKEN, "unresolved:secret", ("memory:other/secret",)),
    ("own before another agent's", "bot", "notes", OK, "memory:bot/notes", ()),
    ("shared never sees a private note", "shared", "notes", BROKEN, "unresolved:notes",
     ("memory:bot/notes", "memory:other/notes")),
    # names: case, `.md`, whitespace, Unicode normalization
    ("case-insensitive", "bot", "STYLE", OK, "memory:bot/style", ()),
    (".md ignored", "bot", "style.md", OK, "memory:bot/style", ()),
    (".MD ignored", "bot", "Style.MD", OK, "memory:bot/style", ()),
    ("surrounding spaces", "bot", "  style  ", OK, "memory:bot/style", ()),
    ("NFC link, NFD file in own scope", "bot", "café", OK, f"memory:bot/{NFD_CAFE}", ()),
    ("NFD link, NFC file in shared", "other", NFD_CAFE, OK, "memory:shared/café", ()),
    ("nothing by that name", "bot", "nowhere", BROKEN, "unresolved:nowhere", ()),
    ("unresolved id is normalized", "bot", " NoWhere.md ", BROKEN, "unresolved:nowhere", ()),
    ("unresolved id keeps the prefix", "bot", "Workflow:Nope", BROKEN, "unresolved:workflow:nope", ()),
]


@pytest.mark.parametrize(
    ("case", "scope", "target", "status", "target_id", "candidates"), TABLE, ids=[r[0] for r in TABLE]
)
def test_resolution(
    case: str, scope: str, target: str, status: str, target_id: str, candidates: tuple[str, ...]
) -> None:
    assert resolve(scope, target) == (status, target_id, candidates), case


ANCHORS = [
    ("heading of the target", "bot", "style#Mine", OK, "memory:bot/style"),
    ("heading in another case", "bot", "style#mINE", OK, "memory:bot/style"),
    ("Unicode heading, case-folded", "bot", "style#ÜNÏCÖDÉ heading", OK, "memory:bot/style"),
    ("NFC anchor, NFD heading", "bot", "style#Café au lait", OK, "memory:bot/style"),
    ("heading of another note", "bot", "style#House style", NO_ANCHOR, "memory:bot/style"),
    ("scoped target's heading", "bot", "shared/style#headline FIRST", OK, "memory:shared/style"),
    ("a heading's prefix", "bot", "shared/style#Headline", NO_ANCHOR, "memory:shared/style"),
    ("target without headings", "bot", "notes#Any", NO_ANCHOR, "memory:bot/notes"),
    ("target whose headings are unknown", "bot", "other/secret#Any", NO_ANCHOR, "memory:other/secret"),
    ("no headings to check on a workflow", "bot", "workflow:deploy#Step 1", OK, "workflow:deploy"),
    ("broken stays broken", "bot", "nowhere#H", BROKEN, "unresolved:nowhere"),
    ("ambiguous stays ambiguous", "bot", "twin#H", AMBIGUOUS, "unresolved:twin"),
]


@pytest.mark.parametrize(
    ("case", "scope", "target", "status", "target_id"), ANCHORS, ids=[r[0] for r in ANCHORS]
)
def test_anchors(case: str, scope: str, target: str, status: str, target_id: str) -> None:
    assert resolve(scope, target)[:2] == (status, target_id), case


def test_own_heading_link() -> None:
    assert resolve("bot", "#Mine", source_id="memory:bot/style")[:2] == (OK, "memory:bot/style")
    assert resolve("bot", "#Gone", source_id="memory:bot/style")[:2] == (NO_ANCHOR, "memory:bot/style")


def test_every_status_is_a_link_status() -> None:
    assert {row[3] for row in TABLE} | {row[3] for row in ANCHORS} == {s.value for s in LinkStatus}


PARSED = [
    ("style", Target(None, None, "style", "style")),
    ("Shared/Style.md", Target(None, "Shared", "style", "shared/style")),
    ("workflow:Deploy", Target(Kind.WORKFLOW, None, "deploy", "workflow:deploy")),
    ("WORKITEM: x", Target(Kind.WORK_ITEM, None, "x", "workitem: x")),
    ("memory:bot/x", Target(Kind.MEMORY, "bot", "x", "memory:bot/x")),
    ("agent:a/b", Target(Kind.AGENT, None, "a/b", "agent:a/b")),
    ("chat:", Target(Kind.CHAT, None, "", "chat:")),
]


@pytest.mark.parametrize(("text", "expected"), PARSED, ids=[r[0] for r in PARSED])
def test_parse_target(text: str, expected: Target) -> None:
    assert parse_target(text) == expected


def test_empty_name_after_a_prefix_is_broken() -> None:
    assert resolve("bot", "chat:") == (BROKEN, "unresolved:chat:", ())
