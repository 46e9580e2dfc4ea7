"""The space layout (seeds/001) as tables: what a path is, its bounds, where a link lands."""

from __future__ import annotations

import pytest

from brain.layouts.files import is_binary, media_type
from brain.layouts.secrets import secret_problems
from brain.layouts.space import SPACE, classify
from brain.model import Kind, LinkStatus, WikiLink, leaf_key
from brain.resolve import NameEntry, resolve_link

CLASSIFY = [
    # rel, kind, scope, name
    ("alice/memory/plan.md", "memory", "alice", "plan"),
    ("alice/memory/drafts/plan.md", "memory", "alice", "drafts/plan"),
    ("alice/memory/Notes.MD", "memory", "alice", "Notes"),
    ("alice/memory/data/report.csv", "file", "alice", "data/report.csv"),
    ("alice/memory/logo.png", "file", "alice", "logo.png"),
    ("alice/memory/Makefile", "file", "alice", "Makefile"),
    ("alice/memory/.secret/x.md", "ignored", "", ""),
    ("alice/memory/.DS_Store", "ignored", "", ""),
    ("alice/notes.md", "ignored", "", ""),
    ("alice/state/memory/x.md", "ignored", "", ""),
    ("brain.toml", "ignored", "", ""),
    ("README.md", "ignored", "", ""),
    (".git/memory/x.md", "ignored", "", ""),
]


@pytest.mark.parametrize(("rel", "kind", "scope", "name"), CLASSIFY)
def test_classify(rel: str, kind: str, scope: str, name: str) -> None:
    role = classify(rel)
    assert (role.kind, role.scope, role.name) == (kind, scope, name)
    assert role.node_kind is Kind.MEMORY
    assert role.problems == ()


def _deep(levels: int) -> str:
    return "alice/memory/" + "/".join(["d"] * (levels - 1)) + "/x.md"


BOUNDS = [
    # rel, problem codes
    (_deep(16), ()),
    (_deep(17), ("path-too-deep",)),
    ("alice/memory/" + "a" * 509 + ".md", ()),  # 512 bytes under memory/
    ("alice/memory/" + "a" * 510 + ".md", ("path-too-long",)),
    ("alice/memory/" + "é" * 254 + ".md", ()),  # 508 + 3 bytes
    ("alice/memory/" + "é" * 255 + ".md", ("path-too-long",)),  # 513 bytes: UTF-8, not characters
    ("alice/memory/" + "/".join(["abcdefghijklmnopqrstuvwxyz0123456789"] * 20) + ".png",
     ("path-too-long", "path-too-deep")),
]


@pytest.mark.parametrize(("rel", "codes"), BOUNDS)
def test_path_bounds(rel: str, codes: tuple[str, ...]) -> None:
    role = classify(rel)
    assert role.kind in ("memory", "file"), "a path over the bounds is still a node"
    assert tuple(p.code for p in role.problems) == codes
    assert all(p.severity.value == "error" and p.path == rel for p in role.problems)


FILES = [
    # name, bytes, binary, media type
    ("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00", True, "image/png"),
    ("photo", b"\xff\xd8\xff\xe0junk", True, "image/jpeg"),
    ("fake.png", b"just text", False, "image/png"),
    ("report.csv", b"a,b\n1,2\n", False, "text/csv"),
    ("blob.bin", b"abc\x00def", True, "application/octet-stream"),
    ("latin1.txt", "café".encode("latin-1"), True, "text/plain"),
    ("noext", b"plain words", False, "text/plain"),
    ("noext-binary", b"\xfe\xff\xfa", True, "application/octet-stream"),
    ("empty", b"", False, "text/plain"),
    ("notes.md", b"# notes\n", False, "text/markdown"),
    ("notes.MD", "# caf\u00e9".encode("latin-1"), True, "text/markdown"),
]


@pytest.mark.parametrize(("name", "raw", "binary", "kind"), FILES)
def test_files_binary_and_media_type(name: str, raw: bytes, binary: bool, kind: str) -> None:
    assert is_binary(raw) is binary
    assert media_type(name, raw, binary) == kind


CONTENT_ROLES = [
    # rel, bytes, role kind, node name (a binary `.md` keeps its `.md`, as every file does)
    ("alice/memory/drafts/plan.md", b"# Plan\n", "memory", "drafts/plan"),
    ("alice/memory/drafts/plan.md", b"", "memory", "drafts/plan"),
    ("alice/memory/drafts/plan.md", b"# Plan\x00", "file", "drafts/plan.md"),
    ("alice/memory/drafts/plan.md", "# caf\u00e9".encode("latin-1"), "file", "drafts/plan.md"),
    ("alice/memory/Notes.MD", b"\xff\xfe#\x00", "file", "Notes.MD"),
    ("alice/memory/data/report.csv", b"a\x00b", "file", "data/report.csv"),
    ("alice/memory/data/report.csv", b"a,b\n", "file", "data/report.csv"),
]


@pytest.mark.parametrize(("rel", "raw", "kind", "name"), CONTENT_ROLES)
def test_a_binary_md_file_is_a_file(rel: str, raw: bytes, kind: str, name: str) -> None:
    role = SPACE.content_role(rel, classify(rel), raw)
    assert (role.kind, role.scope, role.name) == (kind, "alice", name)


def test_a_binary_md_file_keeps_its_path_problems() -> None:
    rel = _deep(17)
    role = SPACE.content_role(rel, classify(rel), b"\x00")
    assert role.kind == "file"
    assert [p.code for p in role.problems] == ["path-too-deep"]


NAMES = [
    NameEntry("memory:alice/plan", Kind.MEMORY, "plan", "alice"),
    NameEntry("memory:alice/drafts/plan", Kind.MEMORY, "plan", "alice"),
    NameEntry("memory:alice/drafts/idea", Kind.MEMORY, "idea", "alice"),
    NameEntry("memory:alice/Notes", Kind.MEMORY, "notes", "alice"),
    NameEntry("file:alice/img/logo.png", Kind.FILE, "logo.png", "alice"),
    NameEntry("memory:bob/secret-plan", Kind.MEMORY, "secret-plan", "bob"),
    NameEntry("memory:bob/idea", Kind.MEMORY, "idea", "bob"),
    NameEntry("workflow:deploy", Kind.WORKFLOW, "deploy", None),
    NameEntry("agent:bob", Kind.AGENT, "bob", None),
]

LINKS = [
    # target, status, target id, candidates
    ("drafts/plan", LinkStatus.RESOLVED, "memory:alice/drafts/plan", ()),
    ("drafts/plan.md", LinkStatus.RESOLVED, "memory:alice/drafts/plan", ()),
    ("Drafts/Plan", LinkStatus.RESOLVED, "memory:alice/drafts/plan", ()),
    ("~/memory/drafts/plan", LinkStatus.RESOLVED, "memory:alice/drafts/plan", ()),
    ("/plan", LinkStatus.RESOLVED, "memory:alice/plan", ()),
    ("idea", LinkStatus.RESOLVED, "memory:alice/drafts/idea", ()),  # any depth, own tree only
    ("notes", LinkStatus.RESOLVED, "memory:alice/Notes", ()),
    ("plan", LinkStatus.AMBIGUOUS, "unresolved:plan",
     ("memory:alice/drafts/plan", "memory:alice/plan")),
    ("img/logo.png", LinkStatus.RESOLVED, "file:alice/img/logo.png", ()),
    ("logo.png", LinkStatus.RESOLVED, "file:alice/img/logo.png", ()),
    ("deploy", LinkStatus.RESOLVED, "workflow:deploy", ()),
    ("bob", LinkStatus.RESOLVED, "agent:bob", ()),
    ("workflow:deploy", LinkStatus.RESOLVED, "workflow:deploy", ()),
    ("memory:idea", LinkStatus.RESOLVED, "memory:alice/drafts/idea", ()),
    ("secret-plan", LinkStatus.BROKEN, "unresolved:secret-plan", ()),  # bob's tree is out of reach
    ("bob/idea", LinkStatus.BROKEN, "unresolved:bob/idea", ()),  # a path is from alice's root
    ("drafts/nothing", LinkStatus.BROKEN, "unresolved:drafts/nothing", ()),
]


@pytest.mark.parametrize(("target", "status", "target_id", "candidates"), LINKS)
def test_links(target: str, status: LinkStatus, target_id: str, candidates: tuple[str, ...]) -> None:
    rules = SPACE.links
    key = rules.parse(target).key
    assert key == leaf_key(key)
    link = WikiLink(f"[[{target}]]", target, None, None, False, 1, 1)
    found = resolve_link(
        link, "memory:alice/plan", "alice", lambda k: [e for e in NAMES if e.key == k],
        lambda _: None, rules,
    )
    assert (found.status, found.target_id, found.candidates) == (status, target_id, candidates)


SECRETS = [
    ("no secrets here\njust notes\n", []),
    ("token: ghp_" + "a1B2c3D4e5" * 4 + "\n", [1]),
    ("first\napi_key = 'sk-proj-" + "Zx9" * 10 + "'\nthird\nAKIA" + "ABCDEFGHIJKLMNOP" + "\n", [2, 4]),
    ("password = <your password here>\n", []),
]


@pytest.mark.parametrize(("text", "lines"), SECRETS)
def test_secret_problems_give_the_line_never_the_value(text: str, lines: list[int]) -> None:
    found = secret_problems("alice/memory/x.md", text)
    assert [p.line for p in found] == lines
    for problem in found:
        assert (problem.code, problem.severity.value) == ("secret", "error")
        rendered = problem.message + (problem.fix or "")
        for word in text.split():
            if len(word) > 12:
                assert word.strip("'") not in rendered


def _detector_cases() -> list[str]:
    from tests.tool.test_secret_disguises import DISGUISED
    from tests.tool.test_secret_disguises import NOT_SECRETS as NOT_DISGUISED
    from tests.tool.test_secrets import NOT_SECRETS, SECRETS

    texts = [case[0] for case in SECRETS] + [case[0] for case in DISGUISED]
    texts += list(NOT_SECRETS) + list(NOT_DISGUISED)
    # Each case as one line among ordinary notes, too.
    return texts + [f"# Notes\nSome text first.\n{t}\nAnd after.\n" for t in texts]


@pytest.mark.parametrize("text", _detector_cases())
def test_the_ingest_prefilter_never_hides_what_the_detector_finds(text: str) -> None:
    from brain.layouts.secrets import might_hold_secret
    from brain.parse.secrets.scan import find_secret

    if find_secret(text) is not None:
        assert might_hold_secret(text)
        assert secret_problems("x.md", text)
