"""Virtual paths: the table of spellings, and the property that nothing else gets through."""

from __future__ import annotations

import os
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from brain.tool.files.names import NameProblem, check_agent_name, check_filename, nearest_filename
from brain.tool.files.paths import PathProblem, VirtualDir, VirtualFile, is_canonical, parse_virtual

ACCEPTED = [
    ("/memories", VirtualDir(shared=False)),
    ("/memories/", VirtualDir(shared=False)),
    ("/memories/shared", VirtualDir(shared=True)),
    ("/memories/shared/", VirtualDir(shared=True)),
    ("/memories/house-style.md", VirtualFile(False, "house-style.md")),
    ("/memories/shared/house-style.md", VirtualFile(True, "house-style.md")),
    ("/memories/shared.md", VirtualFile(False, "shared.md")),
    ("/memories/Release Notes (2026).md", VirtualFile(False, "Release Notes (2026).md")),
    ("/memories/v1.2-notes.md", VirtualFile(False, "v1.2-notes.md")),
    ("/memories/café.md", VirtualFile(False, "café.md")),
    ("/memories/日本語.md", VirtualFile(False, "日本語.md")),
]

REFUSED = [
    # (path, code, the canonical path suggested)
    ("", "invalid-path", "/memories"),
    ("memories/a.md", "invalid-path", "/memories/a.md"),
    ("/memories/notes.txt", "not-markdown", "/memories/notes.md"),
    ("/memories/notes", "not-markdown", "/memories/notes.md"),
    ("/memories/notes.MD", "not-markdown", "/memories/notes.md"),
    ("/memories/../etc/passwd", "invalid-path", "/memories/passwd.md"),
    ("/memories/shared/../../x.md", "invalid-path", "/memories/shared/x.md"),
    ("/memories/./a.md", "invalid-path", "/memories/a.md"),
    ("/etc/passwd", "invalid-path", "/memories/passwd.md"),
    ("/memoriesX/a.md", "invalid-path", "/memories/a.md"),
    ("/memories-old/a.md", "invalid-path", "/memories/a.md"),
    ("/Memories/a.md", "invalid-path", "/memories/a.md"),
    ("/MEMORIES/shared/a.md", "invalid-path", "/memories/shared/a.md"),
    ("/memories/Shared/a.md", "invalid-path", "/memories/shared/a.md"),
    ("/memories/SHARED", "invalid-path", "/memories/shared"),
    ("\\memories\\a.md", "invalid-path", "/memories/a.md"),
    ("/memories\\..\\a.md", "invalid-path", "/memories/a.md"),
    ("/memories/%2e%2e/a.md", "invalid-path", "/memories/a.md"),
    ("/memories/a%2Fb.md", "invalid-path", "/memories/b.md"),
    ("/memories/a.md\x00.txt", "invalid-path", "/memories/a.md"),
    ("/memories/a\u200b.md", "invalid-path", "/memories/a.md"),
    ("/memories/\u202egnp.md", "invalid-path", "/memories/gnp.md"),
    ("/memories/ａ.md", "invalid-path", "/memories/a.md"),
    ("／memories／a.md", "invalid-path", "/memories/a.md"),
    ("/memories/．．/a.md", "invalid-path", "/memories/a.md"),
    ("/memories/cafe\u0301.md", "invalid-path", "/memories/café.md"),
    ("/memories//a.md", "invalid-path", "/memories/a.md"),
    ("/memories/a.md/", "invalid-path", "/memories/a.md"),
    ("/memories/.hidden.md", "invalid-path", "/memories/hidden.md"),
    ("/memories/.md", "invalid-path", "/memories/md.md"),
    ("/memories/..md", "invalid-path", "/memories/md.md"),
    ("/memories/-rf.md", "invalid-path", "/memories/rf.md"),
    ("/memories/ a.md", "invalid-path", "/memories/a.md"),
    ("/memories/a?.md", "invalid-path", "/memories/a.md"),
    ("/memories/[[a]].md", "invalid-path", "/memories/a.md"),
    ("/memories/CON.md", "invalid-path", "/memories/CON-note.md"),
    ("/memories/" + "x" * 120 + ".md", "invalid-path", "/memories/" + "x" * 97 + ".md"),
    ("/memories/projects/brine.md", "nested-directory", "/memories/projects-brine.md"),
    ("/memories/writer/brine.md", "nested-directory", "/memories/brine.md"),
    ("/memories/shared/team/a.md", "nested-directory", "/memories/shared/team-a.md"),
    ("~/memories/a.md", "invalid-path", "/memories/a.md"),
    ("file:///memories/a.md", "invalid-path", "/memories/a.md"),
]


@pytest.mark.parametrize(("raw", "target"), ACCEPTED)
def test_accepted(raw: str, target: object) -> None:
    assert parse_virtual(raw, "writer") == target


@pytest.mark.parametrize(("raw", "code", "fixed"), REFUSED)
def test_refused_with_the_canonical_path(raw: str, code: str, fixed: str) -> None:
    with pytest.raises(PathProblem) as caught:
        parse_virtual(raw, "writer")
    assert (caught.value.code.value, caught.value.fixed) == (code, fixed)
    assert is_canonical(fixed)


def test_a_non_string_path_is_refused() -> None:
    with pytest.raises(PathProblem):
        parse_virtual(["/memories"])


@pytest.mark.parametrize(
    ("name", "ok"),
    [("writer", True), ("release-writer", True), ("shared", False), ("Shared", False),
     ("", False), ("../x", False), (".hidden", False), ("a/b", False), ("x\x00", False)],
)
def test_agent_names(name: str, ok: bool) -> None:
    if ok:
        assert check_agent_name(name) == name
    else:
        with pytest.raises(NameProblem):
            check_agent_name(name)


FRAGMENTS = [
    "/memories", "/memories/", "/", "shared", "Shared", "..", ".", "%2e", "%2F", "\\", "\x00",
    "ａ", "é", "e\u0301", "／", "．", "MEMORIES", "X", "x.md", ".md", ".MD", "a", " ", "\u200b",
    "\u202e", "CON", "~", "writer", "-", "#", "[[", "\n", "\ud800", "😀", "ﬁ", "İ", "ß",
]
path_texts = st.one_of(
    st.text(max_size=60),
    st.lists(st.sampled_from(FRAGMENTS), max_size=10).map("".join),
    st.builds(lambda a, b: a + b, st.sampled_from(["/memories/", "/memories/shared/"]), st.text(max_size=30)),
)


def suggestion_parses(problem: PathProblem) -> None:
    assert problem.fixed is None or is_canonical(problem.fixed)


@settings(max_examples=3000, deadline=None)
@given(path_texts)
@example("/memories/shared/x.md")
@example("/memories/../../etc/passwd")
def test_any_path_is_refused_or_one_canonical_file_in_its_scope(raw: str) -> None:
    try:
        target = parse_virtual(raw, "writer")
    except PathProblem as problem:
        suggestion_parses(problem)
        return
    if isinstance(target, VirtualDir):
        assert raw in ("/memories", "/memories/", "/memories/shared", "/memories/shared/")
        return
    # Accepted only in its one canonical spelling...
    assert raw == target.path
    name = target.name
    assert check_filename(name) == name
    assert unicodedata.normalize("NFKC", name) == name
    for forbidden in ("/", "\\", "\x00", ".."):
        assert forbidden not in name
    assert not name.startswith(".")
    assert name.endswith(".md")
    # ...and it names a file directly inside its scope folder, nothing else.
    root = "/ws/memory"
    scope = target.scope("writer")
    assert scope in ("writer", "shared")
    full = os.path.join(root, scope, name)
    assert os.path.normpath(full) == full
    assert os.path.dirname(full) == f"{root}/{scope}"


@settings(max_examples=1000, deadline=None)
@given(st.text(max_size=80))
def test_nearest_filename_is_always_allowed(text: str) -> None:
    name = nearest_filename(text)
    if name is not None:
        assert check_filename(name) == name
