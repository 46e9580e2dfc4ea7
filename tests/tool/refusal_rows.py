"""The memory tool's refusals, word for word, as a table (tests/tool/test_commands.py runs it):
each row is a call that is refused, its code, and the text that says why and what to call
instead. The call a refusal suggests must work as it stands (test_the_suggested_call_works).
"""

from __future__ import annotations

from tests.tool.command_rows import Row

REFUSALS = [
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
