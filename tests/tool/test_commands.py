"""Every command's answers, word for word: the outputs, and the refusals with their fixes.

Each row runs on a fresh copy of the small workspace (tests/tool/conftest.py) with the
clock at 2026-11-01. A refusal must leave every file as it was and record no history, and
the call it suggests must work when made as it stands: every refusal teaches the next call.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import pytest

from brain.tool.calls.tool import MemoryTool
from brain.tool.service import MemoryService


@dataclass(frozen=True)
class Row:
    name: str
    agent: str | None
    payload: dict[str, object]
    code: str | None  # None: the call works
    text: str

    def __str__(self) -> str:
        return self.name


ROWS = [
    Row(
        "view-root", "writer",
        {"command": "view", "path": "/memories"},
        None,
        "/memories: 1 file of your own and 1 shared file in /memories/shared (path —"
        " description (age)):\n"
        "/memories/house-style.md — House style for release notes — headline first, no"
        " exclamation marks. (3 days ago)\n"
        "/memories/shared/prefers-short-answers.md — Maya wants short answers. (2 weeks ago)",
    ),
    Row(
        "view-shared", "writer",
        {"command": "view", "path": "/memories/shared"},
        None,
        "/memories/shared: 1 shared file (path — description (age)):\n"
        "/memories/shared/prefers-short-answers.md — Maya wants short answers. (2 weeks ago)",
    ),
    Row(
        "view-file", "writer",
        {"command": "view", "path": "/memories/house-style.md"},
        None,
        "/memories/house-style.md (10 lines):\n"
        "     1\t---\n"
        "     2\tdescription: House style for release notes — headline first, no exclamation marks.\n"
        "     3\ttype: feedback\n"
        "     4\t---\n"
        "     5\t\n"
        "     6\t# House style\n"
        "     7\t\n"
        "     8\t- Headline first.\n"
        "     9\t- No exclamation marks.\n"
        "    10\t- Costs are written as $$ or $1 per job.",
    ),
    Row(
        "view-range", "writer",
        {"command": "view", "path": "/memories/house-style.md", "view_range": [6, 8]},
        None,
        "/memories/house-style.md (lines 6-8 of 10):\n"
        "     6\t# House style\n"
        "     7\t\n"
        "     8\t- Headline first.",
    ),
    Row(
        "view-range-bottom", "writer",
        {"command": "view", "path": "/memories/house-style.md", "view_range": [9, -1]},
        None,
        "/memories/house-style.md (lines 9-10 of 10):\n"
        "     9\t- No exclamation marks.\n"
        "    10\t- Costs are written as $$ or $1 per job.",
    ),
    Row(
        "view-memory-off", "old-bot",
        {"command": "view", "path": "/memories"},
        None,
        "/memories: 1 file of your own and 1 shared file in /memories/shared (path —"
        " description (age)):\n"
        "/memories/leftover.md — Leftover note from a retired bot (13 months ago)\n"
        "/memories/shared/prefers-short-answers.md — Maya wants short answers. (2 weeks ago)\n"
        "Memory is off for agent `old-bot`: you can read these notes but not change them.",
    ),
    Row(
        "create", "writer",
        {
            "command": "create",
            "path": "/memories/tone.md",
            "file_text": "---\ndescription: Tone.\ntype: feedback\n---\nCalm.\n",
        },
        None,
        "Created /memories/tone.md (5 lines).",
    ),
    Row(
        "create-overwrite", "writer",
        {
            "command": "create",
            "path": "/memories/house-style.md",
            "file_text": "---\ndescription: Style.\ntype: feedback\n---\nShort.\n",
        },
        None,
        "Overwrote /memories/house-style.md (5 lines).",
    ),
    Row(
        "create-no-frontmatter", "writer",
        {"command": "create", "path": "/memories/plain.md", "file_text": "Just a line.\n"},
        None,
        "Created /memories/plain.md (1 line). Note: it has no frontmatter; start memory"
        " files with `---`, `description: <one line>`, `type: user|feedback|project|reference`, `---`.",
    ),
    Row(
        "str_replace", "writer",
        {
            "command": "str_replace",
            "path": "/memories/house-style.md",
            "old_str": "- Headline first.",
            "new_str": "- Headline first, always.",
        },
        None,
        "Edited /memories/house-style.md (line 8 now read):\n"
        "     6\t# House style\n"
        "     7\t\n"
        "     8\t- Headline first, always.\n"
        "     9\t- No exclamation marks.\n"
        "    10\t- Costs are written as $$ or $1 per job.",
    ),
    Row(
        "str_replace-literal", "writer",
        {
            "command": "str_replace",
            "path": "/memories/house-style.md",
            "old_str": "$$ or $1",
            "new_str": "$$ or $1 or \\1 or \\g<0>",
        },
        None,
        "Edited /memories/house-style.md (line 10 now read):\n"
        "     8\t- Headline first.\n"
        "     9\t- No exclamation marks.\n"
        "    10\t- Costs are written as $$ or $1 or \\1 or \\g<0> per job.",
    ),
    Row(
        "insert-top", "writer",
        {
            "command": "insert",
            "path": "/memories/shared/prefers-short-answers.md",
            "insert_line": 0,
            "insert_text": "<!-- reviewed -->",
        },
        None,
        "Inserted 1 line at the top of /memories/shared/prefers-short-answers.md:\n"
        "     1\t<!-- reviewed -->\n"
        "     2\t---\n"
        "     3\tdescription: Maya wants short answers.",
    ),
    Row(
        "insert-bottom", "writer",
        {
            "command": "insert",
            "path": "/memories/house-style.md",
            "insert_line": 10,
            "insert_text": "- Dates as 2026-11-03.\n",
        },
        None,
        "Inserted 1 line after line 10 of /memories/house-style.md:\n"
        "     9\t- No exclamation marks.\n"
        "    10\t- Costs are written as $$ or $1 per job.\n"
        "    11\t- Dates as 2026-11-03.",
    ),
    Row(
        "delete", "writer",
        {"command": "delete", "path": "/memories/house-style.md"},
        None,
        "Deleted /memories/house-style.md.",
    ),
    Row(
        "rename", "writer",
        {
            "command": "rename",
            "old_path": "/memories/house-style.md",
            "new_path": "/memories/shared/house-style.md",
        },
        None,
        "Renamed /memories/house-style.md to /memories/shared/house-style.md.",
    ),
    Row(
        "no-agent", None,
        {"command": "view", "path": "/memories"},
        "no-agent",
        "Refused: the memory tool only works for a named agent: a chat with a bare model"
        " has no memory. Call it on behalf of an agent whose definition sets `memory: true`\n"
        "Try: {\"command\": \"view\", \"agent\": \"reviewer\", \"path\": \"/memories\"}",
    ),
    Row(
        "unknown-agent", "writr",
        {"command": "view", "path": "/memories"},
        "unknown-agent",
        "Refused: there is no agent `writr` (no agents/writr.md and no memory/writr/ folder)\n"
        "Try: {\"command\": \"view\", \"agent\": \"writer\", \"path\": \"/memories\"}",
    ),
    Row(
        "memory-off-folder", "old-bot",
        {"command": "create", "path": "/memories/x.md", "file_text": "x"},
        "memory-off",
        "Refused: memory is off for agent `old-bot` (there is no agents/old-bot.md with"
        " `memory: true`): it can read its notes but not change them. A person can turn"
        " memory on in the agent's definition\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories\"}",
    ),
    Row(
        "memory-off-defined", "quiet",
        {"command": "create", "path": "/memories/x.md", "file_text": "x"},
        "memory-off",
        "Refused: memory is off for agent `quiet` (agents/quiet.md does not set `memory:"
        " true`): it can read its notes but not change them. A person can turn memory on"
        " in the agent's definition\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories\"}",
    ),
    Row(
        "not-markdown", "writer",
        {"command": "create", "path": "/memories/notes.txt", "file_text": "x"},
        "not-markdown",
        "Refused: `notes.txt` is not a .md file: only .md files are memories\n"
        "Try: {\"command\": \"create\", \"path\": \"/memories/notes.md\", \"file_text\": \"x\"}",
    ),
    Row(
        "create-directory", "writer",
        {
            "command": "create",
            "path": "/memories",
            "file_text": "---\ndescription: Release checklist\n---\n",
        },
        "is-directory",
        "Refused: /memories is a directory, and create works on one file (/memories/<name>.md)\n"
        "Try: {\"command\": \"create\", \"path\": \"/memories/release-checklist.md\","
        " \"file_text\": \"---\\ndescription: Release checklist\\n---\\n\"}",
    ),
    Row(
        "nested", "writer",
        {"command": "create", "path": "/memories/projects/brine.md", "file_text": "x"},
        "nested-directory",
        "Refused: `/memories/projects/brine.md` is in a subfolder: memories live"
        " directly in `/memories/` or `/memories/shared/`, with no other directories\n"
        "Try: {\"command\": \"create\", \"path\": \"/memories/projects-brine.md\", \"file_text\":"
        " \"x\"}",
    ),
    Row(
        "traversal", "writer",
        {"command": "view", "path": "/memories/../agents/writer.md"},
        "invalid-path",
        "Refused: `/memories/../agents/writer.md` contains a `.` or `..` segment\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories\"}",
    ),
    Row(
        "outside", "writer",
        {"command": "view", "path": "/etc/passwd"},
        "invalid-path",
        "Refused: `/etc/passwd` is outside the memory folder: paths start with `/memories/`\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories\"}",
    ),
    Row(
        "not-found", "writer",
        {"command": "view", "path": "/memories/missing.md"},
        "not-found",
        "Refused: /memories/missing.md does not exist; view /memories lists the files there are\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories\"}",
    ),
    Row(
        "not-found-close", "writer",
        {"command": "view", "path": "/memories/house-styles.md"},
        "not-found",
        "Refused: /memories/house-styles.md does not exist; the closest name is"
        " /memories/house-style.md\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories/house-style.md\"}",
    ),
    Row(
        "case-mismatch", "writer",
        {"command": "view", "path": "/memories/House-Style.md"},
        "not-found",
        "Refused: there is no /memories/House-Style.md, but there is"
        " /memories/house-style.md (the names differ only in case or accents)\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories/house-style.md\"}",
    ),
    Row(
        "case-conflict", "writer",
        {"command": "create", "path": "/memories/House-Style.md", "file_text": "x"},
        "case-conflict",
        "Refused: /memories/House-Style.md differs from the existing"
        " /memories/house-style.md only in case or accents: on many file systems they"
        " are one file. Write to /memories/house-style.md instead\n"
        "Try: {\"command\": \"create\", \"path\": \"/memories/house-style.md\", \"file_text\": \"x\"}",
    ),
    Row(
        "range-start", "writer",
        {"command": "view", "path": "/memories/house-style.md", "view_range": [0, 3]},
        "invalid-argument",
        "Refused: view_range starts at line 0, but /memories/house-style.md has 10"
        " lines, numbered 1 to 10\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories/house-style.md\", \"view_range\": [1, 3]}",
    ),
    Row(
        "range-end", "writer",
        {"command": "view", "path": "/memories/house-style.md", "view_range": [5, 99]},
        "invalid-argument",
        "Refused: view_range ends at line 99, but /memories/house-style.md has 10 lines,"
        " numbered 1 to 10 (-1 as the end reads to the bottom)\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories/house-style.md\", \"view_range\": [5, -1]}",
    ),
    Row(
        "range-backwards", "writer",
        {"command": "view", "path": "/memories/house-style.md", "view_range": [8, 3]},
        "invalid-argument",
        "Refused: view_range [8, 3] ends before it starts (-1 as the end reads to the bottom)\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories/house-style.md\", \"view_range\": [8, -1]}",
    ),
    Row(
        "range-type", "writer",
        {"command": "view", "path": "/memories/house-style.md", "view_range": "1-3"},
        "invalid-argument",
        "Refused: `view_range` must be [start, end], not '1-3'\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories/house-style.md\", \"view_range\": [1, 3]}",
    ),
    Row(
        "range-directory", "writer",
        {"command": "view", "path": "/memories", "view_range": [1, 2]},
        "invalid-argument",
        "Refused: view_range reads lines of a file, and /memories is a directory\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories\"}",
    ),
    Row(
        "no-match", "writer",
        {
            "command": "str_replace",
            "path": "/memories/house-style.md",
            "old_str": "Headline last",
            "new_str": "x",
        },
        "no-match",
        "Refused: old_str does not appear verbatim in /memories/house-style.md, so"
        " nothing was replaced.\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories/house-style.md\"}",
    ),
    Row(
        "no-match-whitespace", "writer",
        {
            "command": "str_replace",
            "path": "/memories/house-style.md",
            "old_str": "- Headline  first.\n-  No",
            "new_str": "x",
        },
        "no-match",
        "Refused: old_str does not appear verbatim in /memories/house-style.md, so"
        " nothing was replaced. It does match on line 8 if spaces and line breaks are"
        " ignored: copy the exact text from view, including its whitespace\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories/house-style.md\"}",
    ),
    Row(
        "multiple-matches", "writer",
        {"command": "str_replace", "path": "/memories/house-style.md", "old_str": "-", "new_str": "*"},
        "multiple-matches",
        "Refused: old_str matches 9 times in /memories/house-style.md, on lines 1, 4, 8,"
        " 9 and 10; it must match exactly once. Make old_str longer, with enough of the"
        " surrounding text to be unique (the call below edits the one on line 1)\n"
        "Try: {\"command\": \"str_replace\", \"path\": \"/memories/house-style.md\", \"old_str\":"
        " \"---\\ndescription: House style for release notes — headline first, no"
        " exclamation marks.\", \"new_str\": \"*--\\ndescription: House style for release"
        " notes — headline first, no exclamation marks.\"}",
    ),
    Row(
        "empty-old", "writer",
        {"command": "str_replace", "path": "/memories/house-style.md", "old_str": "", "new_str": "x"},
        "invalid-argument",
        "Refused: old_str is empty: to add lines use insert, to rewrite the whole file use create\n"
        "Try: {\"command\": \"insert\", \"path\": \"/memories/house-style.md\", \"insert_line\":"
        " 0, \"insert_text\": \"x\"}",
    ),
    Row(
        "same-old-new", "writer",
        {
            "command": "str_replace",
            "path": "/memories/house-style.md",
            "old_str": "Headline",
            "new_str": "Headline",
        },
        "invalid-argument",
        "Refused: old_str and new_str are the same: nothing would change\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories/house-style.md\"}",
    ),
    Row(
        "insert-range", "writer",
        {"command": "insert", "path": "/memories/house-style.md", "insert_line": 40, "insert_text": "x"},
        "invalid-argument",
        "Refused: insert_line 40 is out of range: /memories/house-style.md has 10 lines,"
        " so insert_line goes from 0 (the top) to 10 (after the last line)\n"
        "Try: {\"command\": \"insert\", \"path\": \"/memories/house-style.md\", \"insert_line\":"
        " 10, \"insert_text\": \"x\"}",
    ),
    Row(
        "insert-empty", "writer",
        {"command": "insert", "path": "/memories/house-style.md", "insert_line": 1, "insert_text": ""},
        "invalid-argument",
        "Refused: insert_text is empty: there is nothing to insert\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories/house-style.md\"}",
    ),
    Row(
        "delete-directory", "writer",
        {"command": "delete", "path": "/memories/shared"},
        "is-directory",
        "Refused: /memories/shared is a directory, and delete works on one file"
        " (/memories/shared/<name>.md)\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories/shared\"}",
    ),
    Row(
        "rename-taken", "writer",
        {
            "command": "rename",
            "old_path": "/memories/house-style.md",
            "new_path": "/memories/shared/prefers-short-answers.md",
        },
        "already-exists",
        "Refused: /memories/shared/prefers-short-answers.md already exists: delete it"
        " first if it should go, or rename to a free name\n"
        "Try: {\"command\": \"rename\", \"old_path\": \"/memories/house-style.md\", \"new_path\":"
        " \"/memories/shared/prefers-short-answers-2.md\"}",
    ),
    Row(
        "rename-same", "writer",
        {
            "command": "rename",
            "old_path": "/memories/house-style.md",
            "new_path": "/memories/house-style.md",
        },
        "invalid-argument",
        "Refused: old_path and new_path are both /memories/house-style.md: nothing to rename\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories/house-style.md\"}",
    ),
    Row(
        "rename-missing", "writer",
        {"command": "rename", "old_path": "/memories/gone.md", "new_path": "/memories/here.md"},
        "not-found",
        "Refused: /memories/gone.md does not exist; view /memories lists the files there are\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories\"}",
    ),
    Row(
        "secret", "writer",
        {
            "command": "create",
            "path": "/memories/deploy.md",
            "file_text": "Deploy notes\nkey: AKIAIOSFODNN7EXAMPLE\n",
        },
        "secret",
        "Refused: line 2 of the new text of /memories/deploy.md looks like an AWS access"
        " key (`AKIA…`). Never store secrets in memory: write where the secret is kept"
        " (a vault, an environment variable) instead of the secret itself\n"
        "Try: {\"command\": \"create\", \"path\": \"/memories/deploy.md\", \"file_text\": \"Deploy"
        " notes\\nkey: [secret removed: say where it is kept instead]\\n\"}",
    ),
    Row(
        "secret-edit", "writer",
        {
            "command": "str_replace",
            "path": "/memories/house-style.md",
            "old_str": "- Headline first.",
            "new_str": "- password = Tr0ub4dor&3x",
        },
        "secret",
        "Refused: line 8 of the new text of /memories/house-style.md looks like a"
        " password or key assignment (`Tr0u…`). Never store secrets in memory: write"
        " where the secret is kept (a vault, an environment variable) instead of the secret itself\n"
        "Try: {\"command\": \"str_replace\", \"path\": \"/memories/house-style.md\", \"old_str\":"
        " \"- Headline first.\", \"new_str\": \"- password = [secret removed: say where it is"
        " kept instead]\"}",
    ),
    Row(
        "too-large", "writer",
        {"command": "create", "path": "/memories/big.md", "file_text": "word " * 20000},
        "too-large",
        "Refused: /memories/big.md would be 100,000 bytes; one memory file holds at most"
        " 65,536 bytes. Keep one topic per file: split it and put the rest in a new note"
        " such as /memories/big-2.md\n"
        "Try: {\"command\": \"create\", \"path\": \"/memories/big.md\", \"file_text\": \"word word"
        " word word word word word word word word word word word word word word word"
        " word word word word word word word word word word word word word word word"
        " word word word word word word word word …(65,336 more characters)\"}",
    ),
    Row(
        "unknown-command", "writer",
        {"command": "edit", "path": "/memories/house-style.md"},
        "invalid-argument",
        "Refused: unknown command `edit`: the memory tool's commands are view, create,"
        " str_replace, insert, delete, rename\n"
        "Try: {\"command\": \"view\", \"path\": \"/memories\"}",
    ),
    Row(
        "missing-argument", "writer",
        {"command": "create", "path": "/memories/x.md", "content": "hello"},
        "invalid-argument",
        "Refused: create needs `file_text` (not `content`); its arguments are path, file_text\n"
        "Try: {\"command\": \"create\", \"path\": \"/memories/x.md\", \"file_text\": \"hello\"}",
    ),
    Row(
        "wrong-type", "writer",
        {"command": "insert", "path": "/memories/house-style.md", "insert_line": "2", "insert_text": "x"},
        "invalid-argument",
        "Refused: `insert_line` must be a whole number, not '2'\n"
        "Try: {\"command\": \"insert\", \"path\": \"/memories/house-style.md\", \"insert_line\":"
        " 2, \"insert_text\": \"x\"}",
    ),
]
REFUSALS = [row for row in ROWS if row.code is not None]


def tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_command_answer(row: Row, tool: MemoryTool, workspace: Path) -> None:
    before = tree_digest(workspace)
    result = tool.run(row.agent, row.payload)
    assert result.text == row.text
    assert (result.refusal.code.value if result.refusal else None) == row.code
    if row.code is not None:
        assert tree_digest(workspace) == before
        assert tool.service.history.records() == []


@pytest.mark.parametrize("row", [r for r in REFUSALS if r.text.count("\nTry: ")], ids=str)
def test_the_suggested_call_works(row: Row, tool: MemoryTool) -> None:
    refusal = tool.run(row.agent, row.payload).refusal
    assert refusal is not None
    assert refusal.suggestion is not None
    args = dict(refusal.suggestion.args)
    agent = args.pop("agent", row.agent)
    assert agent is None or isinstance(agent, str)
    retry = tool.run(agent, {"command": refusal.suggestion.command, **args})
    assert retry.ok, retry.text


def test_every_refusal_code_is_in_the_table() -> None:
    from brain.tool.calls.refusal import RefusalCode

    covered = {row.code for row in REFUSALS}
    # Exercised elsewhere: forbidden (test_access), conflict (test_concurrency), symlink and
    # unsafe-folder (test_attacks), not-text (test_text_content), read-only (a replica on
    # Neo4j: tests/neo4j/test_replicas.py); the layouts' verbs' own codes (path-too-long,
    # path-too-deep, not-a-folder: test_space_verbs; not-a-memory: test_mindlink_verbs),
    # history-full (tests/hostile/test_history_cap.py, on every front end), history-unwritable
    # (tests/hostile/test_history_race.py: a history file that cannot grow), not-kept (a moment
    # past the history's retention: tests/tool/test_as_of_retention.py).
    elsewhere = {
        "forbidden", "conflict", "symlink", "unsafe-folder", "not-text", "read-only",
        "path-too-long", "path-too-deep", "not-a-folder", "not-a-memory", "history-full",
        "history-unwritable", "not-kept",
    }
    assert {c.value for c in RefusalCode} - covered == elsewhere


def test_writes_are_recorded_with_hashes(tool: MemoryTool, service: MemoryService) -> None:
    created = tool.create("writer", "/memories/tone.md", "Calm.\n")
    edited = tool.str_replace("writer", "/memories/tone.md", "Calm.", "Calm and brief.")
    moved = tool.rename("writer", "/memories/tone.md", "/memories/shared/tone.md")
    gone = tool.delete("writer", "/memories/shared/tone.md")
    assert all(r.ok for r in (created, edited, moved, gone))
    records = service.history.records(agent="writer")
    assert [(r.command, r.path, r.new_path) for r in records] == [
        ("delete", "memory/shared/tone.md", None),
        ("rename", "memory/writer/tone.md", "memory/shared/tone.md"),
        ("str_replace", "memory/writer/tone.md", None),
        ("create", "memory/writer/tone.md", None),
    ]
    assert records[3].before is None
    assert records[3].after == created.hash
    assert (records[2].before, records[2].after) == (created.hash, edited.hash)
    assert records[1].before == records[1].after == edited.hash
    assert (records[0].before, records[0].after) == (edited.hash, None)
    assert {r.actor for r in records} == {"agent:writer"}
    assert records[0].at == "2026-11-01T00:00:00.000000Z"


def test_an_identical_create_changes_nothing(tool: MemoryTool, workspace: Path) -> None:
    text = (workspace / "memory/writer/house-style.md").read_text()
    result = tool.create("writer", "/memories/house-style.md", text)
    assert result.text == "Unchanged: /memories/house-style.md already has exactly this text (10 lines)."
    assert tool.service.history.records() == []
