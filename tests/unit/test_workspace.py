"""The workspace layout (design.md section 1): what each file is, and what brain reports.

The first half is the pure path classifier; the second ingests real folders built in
tmp_path and checks the graph and the problems, including files that are odd on disk
(symlinks, binary, other encodings) which must never raise.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from brain.model import Kind, Problem
from brain.safefs import NotRegular
from brain.service.brain import Brain
from brain.store.memory.store import MemoryStore
from brain.workspace import FileRole, RoleMemo, classify, read_agent_definition, read_bytes, read_entity_title


def build(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def ingest(root: Path) -> Brain:
    brain = Brain(root, MemoryStore())
    brain.sync()
    return brain


def codes(problems: list[Problem]) -> list[tuple[str, str, str]]:
    return [(p.path, p.severity.value, p.code) for p in problems]


# ------------------------------------------------------------------------------ classify

ROLES = [
    ("memory/shared/style.md", ("memory", "shared", "style")),
    ("memory/bot/Notes.MD", ("memory", "bot", "Notes")),
    ("memory/bot/v1.2 notes.md", ("memory", "bot", "v1.2 notes")),
    ("memory/bot/café.md", ("memory", "bot", "café")),
    ("agents/bot.md", ("agent", "", "bot")),
    ("workflows/deploy.yaml", ("entity", "", "deploy")),
    ("workflows/deploy.yml", ("entity", "", "deploy")),
    ("workflows/deploy.json", ("entity", "", "deploy")),
    ("workflows/deploy.md", ("entity", "", "deploy")),
    ("chats/c1.json", ("entity", "", "c1")),
    ("chats/c1.jsonl", ("entity", "", "c1")),
    ("chats/c1.md", ("entity", "", "c1")),
    ("work-items/WI-1.md", ("entity", "", "WI-1")),
    ("work-items/WI-1.yaml", ("entity", "", "WI-1")),
    ("memory/bot/.hidden.md", ("ignored", "", "")),
    ("memory/.obsidian/app.json", ("ignored", "", "")),
    ("agents/sub/bot.md", ("ignored", "", "")),
    ("agents/bot.txt", ("ignored", "", "")),
    ("chats/c1.yaml", ("ignored", "", "")),
    ("workflows/sub/x.yaml", ("ignored", "", "")),
    ("README.md", ("ignored", "", "")),
]


@pytest.mark.parametrize(("rel", "role"), ROLES, ids=[r[0] for r in ROLES])
def test_classify(rel: str, role: tuple[str, str, str]) -> None:
    found = classify(rel)
    assert (found.kind, found.scope, found.name) == role


PROBLEM_ROLES = [
    ("memory/bot/notes.txt", "not-markdown", "warning"),
    ("memory/bot/image.png", "not-markdown", "warning"),
    ("memory/bot/no-extension", "not-markdown", "warning"),
    ("memory/bot/sub/deep.md", "nested-directory", "warning"),
    ("memory/bot/a/b/c.md", "nested-directory", "warning"),
    ("memory/loose.md", "outside-scope", "warning"),
]


@pytest.mark.parametrize(("rel", "code", "severity"), PROBLEM_ROLES, ids=[r[0] for r in PROBLEM_ROLES])
def test_classify_misplaced_files(rel: str, code: str, severity: str) -> None:
    role = classify(rel)
    assert role.kind == "problem"
    assert role.problem is not None
    assert (role.problem.path, role.problem.code, role.problem.severity.value) == (rel, code, severity)
    assert role.problem.fix


def test_the_role_memo_answers_each_path_once_and_starts_over_past_its_limit() -> None:
    asked: list[str] = []

    def role_of(rel: str) -> FileRole:
        asked.append(rel)
        return FileRole("memory", "bot", rel)

    memo = RoleMemo(role_of, limit=3)
    for rel in ["a", "b", "a", "c", "b"]:
        assert memo(rel).name == rel
    assert asked == ["a", "b", "c"]
    assert len(memo) == 3
    memo("d")  # the fourth path: the memo starts over, then holds it
    assert len(memo) == 1
    memo("a")
    assert asked == ["a", "b", "c", "d", "a"]
    memo.cache_clear()
    assert len(memo) == 0


def test_a_roles_scope_and_name_are_the_interned_strings() -> None:
    # The store interns a note's scope and name: the memo of roles holds those, not copies.
    role = classify("".join(["memory/", "bot", "/", "some-", "note.md"]))
    assert role.scope is sys.intern("bot")
    assert role.name is sys.intern("some-note")


def test_entity_kinds() -> None:
    assert classify("workflows/x.yaml").entity_kind is Kind.WORKFLOW
    assert classify("chats/x.jsonl").entity_kind is Kind.CHAT
    assert classify("work-items/x.md").entity_kind is Kind.WORK_ITEM


# ------------------------------------------------------------------------------ definitions and titles

AGENT_DEFINITIONS = [
    ("---\nmemory: true\ndescription: Writes releases\n---\nbody", True, "Writes releases"),
    ("---\nmemory: yes\n---\nThe bot", True, "The bot"),
    ("---\nmemory: false\n---\n# Bot\n", False, "Bot"),
    ("---\nmemory: 'true'\n---\nquoted", False, "quoted"),
    ("no frontmatter", False, "no frontmatter"),
    ("---\nmemory: [\n---\nbroken yaml", False, "broken yaml"),
    ("", False, ""),
]


@pytest.mark.parametrize(("text", "memory", "description"), AGENT_DEFINITIONS)
def test_read_agent_definition(text: str, memory: bool, description: str) -> None:
    definition = read_agent_definition("agents/bot.md", "bot", text.encode())
    assert (definition.name, definition.memory, definition.description) == ("bot", memory, description)


TITLES = [
    ("workflows/x.yaml", "title: Deploy to prod\n", "Deploy to prod"),
    ("workflows/x.yml", "name: By name\n", "By name"),
    ("workflows/x.json", '{"title": "JSON title", "name": "ignored"}', "JSON title"),
    ("chats/x.jsonl", '\n{"title": "First line"}\n{"title": "second"}\n', "First line"),
    ("work-items/x.md", "---\ntitle: From frontmatter\n---\nbody", "From frontmatter"),
    ("work-items/x.yaml", "title: 42\n", "42"),
    ("workflows/x.yaml", "title: [broken\n", None),
    ("workflows/x.json", "{not json", None),
    ("workflows/x.yaml", "- a list\n", None),
    ("workflows/x.yaml", "title: ''\n", None),
    ("chats/x.jsonl", "", None),
    ("work-items/x.md", "no frontmatter", None),
]


@pytest.mark.parametrize(("rel", "text", "title"), TITLES)
def test_read_entity_title(rel: str, text: str, title: str | None) -> None:
    assert read_entity_title(rel, text.encode()) == title


# ------------------------------------------------------------------------------ ingested layout


def test_a_complete_workspace(tmp_path: Path) -> None:
    brain = ingest(build(tmp_path, {
        "agents/bot.md": "---\nmemory: true\n---\nThe release bot\n",
        "memory/shared/style.md": "---\ndescription: House style\ntype: feedback\n---\nbody\n",
        "memory/bot/notes.md": "# Notes\n",
        "workflows/deploy.yaml": "title: Deploy\n",
        "chats/c1.jsonl": '{"title": "Kick-off"}\n',
        "work-items/WI-1.md": "no title\n",
    }))
    assert brain.problems() == []
    (bot,) = brain.store.list_agents()
    assert (bot.name, bot.memory_enabled, bot.memory_off, bot.description) == (
        "bot", True, False, "The release bot",
    )
    assert [e.title for e in brain.store.list_entities(Kind.WORKFLOW)] == ["Deploy"]
    assert [e.title for e in brain.store.list_entities(Kind.CHAT)] == ["Kick-off"]
    assert [e.title for e in brain.store.list_entities(Kind.WORK_ITEM)] == ["WI-1"]
    notes = brain.store.get_nodes(["memory:bot/notes", "memory:shared/style"])
    assert {i: (n.description, getattr(n, "type", None)) for i, n in notes.items()} == {
        "memory:bot/notes": ("Notes", None),
        "memory:shared/style": ("House style", "feedback"),
    }


def test_misplaced_files_are_reported_and_left_out(tmp_path: Path) -> None:
    brain = ingest(build(tmp_path, {
        "memory/bot/notes.txt": "text",
        "memory/bot/sub/deep.md": "[[x]]",
        "memory/loose.md": "[[x]]",
        "memory/bot/ok.md": "fine",
        "agents/bot.md": "---\nmemory: true\n---\n",
    }))
    assert codes(brain.problems()) == [
        ("memory/bot/notes.txt", "warning", "not-markdown"),
        ("memory/bot/sub/deep.md", "warning", "nested-directory"),
        ("memory/loose.md", "warning", "outside-scope"),
    ]
    assert brain.stats().memories == 1


def test_memory_off_is_reported_once_for_the_folder(tmp_path: Path) -> None:
    brain = ingest(build(tmp_path, {
        "memory/old-bot/a.md": "a",
        "memory/old-bot/b.md": "b",
        "memory/old-bot/c.md": "c",
        "memory/off-bot/a.md": "a",
        "agents/off-bot.md": "---\nmemory: false\n---\n",
        "memory/on-bot/a.md": "a",
        "agents/on-bot.md": "---\nmemory: true\n---\n",
        "agents/no-folder.md": "---\nmemory: false\n---\n",
    }))
    problems = brain.problems()
    assert codes(problems) == [
        ("memory/off-bot", "warning", "memory-off"),
        ("memory/old-bot", "warning", "memory-off"),
    ]
    assert "agents/off-bot.md" in problems[0].message
    assert "no definition" in problems[1].message
    assert brain.stats().memories == 5  # a folder outlives its agent: its notes stay
    agents = {a.name: (a.memory_enabled, a.memory_off) for a in brain.store.list_agents()}
    assert agents == {
        "old-bot": (False, True), "off-bot": (False, True), "on-bot": (True, False),
        "no-folder": (False, False),
    }


def test_an_empty_scope_folder_is_still_an_agent_with_memory_off(tmp_path: Path) -> None:
    (tmp_path / "memory" / "ghost").mkdir(parents=True)
    brain = ingest(tmp_path)
    assert codes(brain.problems()) == [("memory/ghost", "warning", "memory-off")]


def test_shared_is_never_an_agent(tmp_path: Path) -> None:
    brain = ingest(build(tmp_path, {"memory/shared/a.md": "a"}))
    assert (brain.store.list_agents(), brain.problems()) == ([], [])


def test_remembers_edges_follow_the_folder(tmp_path: Path) -> None:
    brain = ingest(build(tmp_path, {"memory/bot/a.md": "a", "memory/shared/s.md": "s"}))
    edges = {e for e in brain.store.export().edges if e[0] == "REMEMBERS"}
    assert edges == {("REMEMBERS", "agent:bot", "memory:bot/a", ())}


def test_symlinks_are_reported_and_not_followed(tmp_path: Path) -> None:
    build(tmp_path, {"elsewhere/secret.md": "[[x]]", "memory/bot/real.md": "real"})
    (tmp_path / "memory" / "linked-scope").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "memory" / "bot" / "alias.md").symlink_to(tmp_path / "memory" / "bot" / "real.md")
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "bot.md").symlink_to(tmp_path / "elsewhere" / "secret.md")
    brain = ingest(tmp_path)
    assert codes(brain.problems()) == [
        ("agents/bot.md", "warning", "symlink"),
        ("memory/bot", "warning", "memory-off"),  # its definition is the link, not read
        ("memory/bot/alias.md", "warning", "symlink"),
        ("memory/linked-scope", "warning", "symlink"),
    ]
    assert brain.stats().memories == 1
    assert [a.name for a in brain.store.list_agents()] == ["bot"]


def test_two_files_for_one_workflow_give_a_duplicate_warning(tmp_path: Path) -> None:
    brain = ingest(build(tmp_path, {
        "memory/shared/a.md": "[[deploy]]",
        "workflows/deploy.yaml": "title: From YAML\n",
        "workflows/deploy.json": '{"title": "From JSON"}',
    }))
    (problem,) = brain.problems()
    assert (problem.path, problem.code, problem.severity.value) == (
        "workflows/deploy.yaml", "duplicate-file", "warning",
    )
    assert "workflows/deploy.json" in problem.message
    assert [e.title for e in brain.store.list_entities(Kind.WORKFLOW)] == ["From JSON"]


BAD_BYTES = [
    ("empty", b"", None),
    ("only a BOM", b"\xef\xbb\xbf", None),
    ("BOM and CRLF", b"\xef\xbb\xbf---\r\ntype: user\r\n---\r\n# T\r\n[[x]]\r\n", "broken-link"),
    ("Latin-1", "caf\xe9 au lait".encode("latin-1"), "invalid-encoding"),
    ("UTF-16", "[[x]]".encode("utf-16"), "invalid-encoding"),
    ("binary", bytes(range(256)), "invalid-encoding"),
    ("bad YAML", b"---\ntype: [\n---\nbody", "invalid-frontmatter"),
    ("frontmatter never closed", b"---\ntype: user\n", "invalid-frontmatter"),
    ("only dashes", b"---", "invalid-frontmatter"),
    ("a very long line", b"x" * 200_000 + b" [[x]]", "broken-link"),
]


@pytest.mark.parametrize(("case", "raw", "code"), BAD_BYTES, ids=[r[0] for r in BAD_BYTES])
def test_odd_files_give_a_problem_or_a_clean_parse(
    tmp_path: Path, case: str, raw: bytes, code: str | None
) -> None:
    brain = ingest(build(tmp_path, {"memory/shared/odd.md": raw}))
    found = [p.code for p in brain.problems()]
    assert found == ([code] if code else []), case
    assert brain.stats().memories == 1
    (note,) = brain.store.get_nodes(["memory:shared/odd"]).values()
    assert note.path == "memory/shared/odd.md"


def test_an_unreadable_workspace_part_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "memory").write_text("a file where a folder should be")
    brain = ingest(tmp_path)
    assert (brain.stats().memories, brain.problems()) == (0, [])


def memories_seen_as_nobody(root: Path) -> int:
    """Ingest `root` in a forked child that has given up root (root reads every file, so the
    unreadable file would be read); the count of memories comes back as the exit status."""
    pid = os.fork()
    if pid == 0:  # the child: never returns to pytest
        status = 255
        try:
            os.setgid(65534)
            os.setuid(65534)  # nobody
            status = ingest(root).stats().memories
        finally:
            os._exit(status)
    _, wait_status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(wait_status)


def test_a_file_that_cannot_be_read_is_skipped(tmp_path: Path) -> None:
    root = tmp_path
    if os.geteuid() == 0:  # a folder nobody can walk: /tmp itself, not pytest's private one
        root = Path(tempfile.mkdtemp(prefix="brain-unreadable-"))
        root.chmod(0o755)
    try:
        build(root, {"memory/bot/locked.md": "x", "memory/bot/ok.md": "y"})
        for folder in (root / "memory", root / "memory/bot"):
            folder.chmod(0o755)
        (root / "memory/bot/ok.md").chmod(0o644)
        (root / "memory/bot/locked.md").chmod(0)
        seen = memories_seen_as_nobody(root) if os.geteuid() == 0 else ingest(root).stats().memories
        assert seen == 1
    finally:
        if root != tmp_path:
            shutil.rmtree(root)


AGENT_PROBLEMS = [
    ("---\nmemory: [\n---\n", 3, "not valid YAML"),
    ("---\ndescription: Bot\nmemory: 'true'\n---\n", 3, "must be true or false"),
    ("---\nmemory: on\n---\n", None, None),  # YAML 1.1: `on` is true
]


@pytest.mark.parametrize(("text", "line", "words"), AGENT_PROBLEMS)
def test_a_malformed_agent_definition_is_reported_not_silently_memory_off(
    tmp_path: Path, text: str, line: int | None, words: str | None
) -> None:
    brain = ingest(build(tmp_path, {"agents/bot.md": text, "memory/bot/a.md": "a"}))
    problems = {p.code: p for p in brain.problems()}
    if words is None:
        assert problems == {}
        return
    assert set(problems) == {"invalid-frontmatter", "memory-off"}
    problem = problems["invalid-frontmatter"]
    assert (problem.path, problem.line, problem.severity.value) == ("agents/bot.md", line, "error")
    assert words in problem.message
    # fixed on disk: the problem goes on the next rescan, and memory comes on
    (tmp_path / "agents/bot.md").write_text("---\nmemory: true\n---\n")
    brain.sync(["agents/bot.md"])
    assert brain.problems() == []


def test_an_agent_problem_survives_a_rescan_that_reads_nothing(tmp_path: Path) -> None:
    brain = ingest(build(tmp_path, {"agents/bot.md": "---\nmemory: [\n---\n"}))
    assert [p.code for p in brain.problems()] == ["invalid-frontmatter"]
    assert brain.sync().read == 0
    assert [p.code for p in brain.problems()] == ["invalid-frontmatter"]
    assert brain.sync(["agents/bot.md"]).read == 1
    assert [p.code for p in brain.problems()] == ["invalid-frontmatter"]


@pytest.mark.parametrize("size", [0, 1, 65_535, 65_536, 65_537, 200_000])
def test_read_bytes_gives_a_file_whole(tmp_path: Path, size: int) -> None:
    data = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
    (tmp_path / "note.md").write_bytes(data)
    assert read_bytes(tmp_path / "note.md") == data
    assert read_bytes(str(tmp_path / "note.md")) == data


def test_read_bytes_gives_the_error_that_kept_the_bytes(tmp_path: Path) -> None:
    assert isinstance(read_bytes(tmp_path / "missing.md"), FileNotFoundError)
    folder = read_bytes(tmp_path)  # opened, then refused by its fstat
    assert isinstance(folder, NotRegular)
    assert folder.kind == "a folder"
    os.mkfifo(tmp_path / "pipe.md")  # no writer: a blocking open would wait forever
    pipe = read_bytes(tmp_path / "pipe.md")
    assert isinstance(pipe, NotRegular)
    assert "FIFO" in str(pipe)
