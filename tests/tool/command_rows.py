"""The memory tool's answers, word for word, as a table (tests/tool/test_commands.py runs it):
each row is a call on the small workspace of tests/tool/conftest.py and what it must say.

`REFUSALS` (tests/tool/refusal_rows.py) holds the calls that are refused, with their fixes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    name: str
    agent: str | None
    payload: dict[str, object]
    code: str | None  # None: the call works
    text: str

    def __str__(self) -> str:
        return self.name


ANSWERS = [
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
]
