"""The tools brain offers over MCP, as clients list them.

`memory` takes exactly the input of Anthropic's memory tool (`memory_20250818`), so a model
trained on that tool, or a client that already speaks it, needs nothing new. Which arguments
each command needs is checked by the tool itself, whose refusals teach the right call; the
schema only says what may be sent. The graph tools are read-only.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from brain.tool.calls.arguments import COMMANDS

MEMORY_TOOL = "memory"
LINKS_TOOL = "memory_links"
BACKLINKS_TOOL = "memory_backlinks"
NEIGHBORHOOD_TOOL = "memory_neighborhood"
RELATED_TOOL = "memory_related"
PROBLEMS_TOOL = "memory_problems"
CHANGES_TOOL = "memory_changes"
AS_OF_TOOL = "memory_as_of"  # brain/mcp/tools/asof.py
SEARCH_TOOL = "memory_search"

MEMORY_DESCRIPTION = (
    "Your memory: markdown notes that persist across conversations. /memories/<file>.md is your "
    "own folder, /memories/shared/<file>.md is shared with every agent that has memory. Commands: "
    "view (a directory's index with ages, or a file with numbered lines; view_range [start, end], "
    "-1 reads to the bottom), create (write or overwrite a whole file), str_replace (old_str must "
    "match exactly once), insert (insert_text after line insert_line, 0 = top), delete, rename "
    "(old_path -> new_path). Only .md files directly in those two folders; never store secrets. "
    "View /memories before you start a task."
)

MEMORY_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {
            "type": "string",
            "enum": list(COMMANDS),
            "description": "Command type identifier",
        },
        "path": {"type": "string", "description": "Path to the directory or file, e.g. /memories/notes.md"},
        "view_range": {
            "type": "array",
            "items": {"type": "integer"},
            "description": "Optional line range for viewing specific lines: [start, end], -1 as end",
        },
        "file_text": {"type": "string", "description": "Content to write to the file (create)"},
        "old_str": {"type": "string", "description": "Text to search for and replace (str_replace)"},
        "new_str": {"type": "string", "description": "Text to replace with (str_replace)"},
        "insert_line": {
            "type": "integer",
            "description": "Line number after which text is inserted, 0 for the top (insert)",
        },
        "insert_text": {"type": "string", "description": "Text to insert (insert)"},
        "old_path": {"type": "string", "description": "Current path of the file (rename)"},
        "new_path": {"type": "string", "description": "New path for the file (rename)"},
    },
    "required": ["command"],
}

_NOTE_PATH = {
    "type": "string",
    "description": "A note's virtual path: /memories/<file>.md or /memories/shared/<file>.md",
}


def _read_only(name: str, title: str, description: str, schema: dict[str, Any]) -> types.Tool:
    return types.Tool(
        name=name,
        title=title,
        description=description,
        input_schema=schema,
        annotations=types.ToolAnnotations(
            title=title, read_only_hint=True, idempotent_hint=True, open_world_hint=False
        ),
    )


def memory_tool() -> types.Tool:
    return types.Tool(
        name=MEMORY_TOOL,
        title="Memory",
        description=MEMORY_DESCRIPTION,
        input_schema=MEMORY_INPUT_SCHEMA,
        annotations=types.ToolAnnotations(
            title="Memory", read_only_hint=False, destructive_hint=True, idempotent_hint=False,
            open_world_hint=False,
        ),
    )


_AFTER = {"type": "string", "description": "the `next` of the previous answer: the page after it"}


def graph_tools() -> list[types.Tool]:
    paged_note = {"type": "object", "properties": {"path": _NOTE_PATH, "after": _AFTER}, "required": ["path"]}
    return [
        _read_only(
            LINKS_TOOL, "Links of a note",
            "The [[wikilinks]] written in one of your notes: line, text, and where each landed "
            "(a note, an agent, a workflow, a chat, a work item) or why not (broken, ambiguous). "
            "200 are listed at a time; `total` counts them all, and `next` (when more follow) is "
            "the `after` that lists the next 200.",
            paged_note,
        ),
        _read_only(
            BACKLINKS_TOOL, "Backlinks of a note",
            "The notes (yours and shared) whose [[wikilinks]] land on one of your notes, with line. "
            "200 are listed at a time; `total` counts them all, and `next` (when more follow) is "
            "the `after` that lists the next 200.",
            paged_note,
        ),
        _read_only(
            NEIGHBORHOOD_TOOL, "Neighbourhood of a note",
            "The nodes within `depth` hops of one of your notes (links both ways) and the edges "
            "among them; other agents' private notes are left out.",
            {
                "type": "object",
                "properties": {
                    "path": _NOTE_PATH,
                    "depth": {"type": "integer", "minimum": 1, "maximum": 3, "default": 1},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 200, "default": 50},
                },
                "required": ["path"],
            },
        ),
        _read_only(
            RELATED_TOOL, "Mentions and related notes",
            "For one of your notes: text that names another note you can reach without linking it "
            "(with the [[link]] that would), and the notes (yours and shared) closest to it in "
            "meaning that it does not link yet, best first, with the terms they share.",
            {
                "type": "object",
                "properties": {
                    "path": _NOTE_PATH,
                    "first": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
                },
                "required": ["path"],
            },
        ),
        _read_only(
            PROBLEMS_TOOL, "Problems of your memory",
            "What `brain check` finds in your notes and the shared ones: broken or ambiguous "
            "links, malformed frontmatter, with line and fix. `path`: /memories (yours and "
            "shared, the default), /memories/shared, or one note. 200 at a time: `next` (when more "
            "follow) is the `after` that lists the next 200.",
            {"type": "object", "properties": {"path": {"type": "string", "default": "/memories"},
                                              "after": _AFTER}},
        ),
        _read_only(
            CHANGES_TOOL, "What changed in your memory",
            "What changed in your notes and the shared ones since a moment (and until one): notes "
            "added, removed and changed (by whom: an agent, a person, maintenance, or an edit "
            "outside brain), links broken or fixed, problems new or gone. Times: ISO 8601 or an "
            "age such as 7d, 24h, 30m. `agent`: only that agent's changes.",
            {
                "type": "object",
                "properties": {
                    "since": {"type": "string", "description": "ISO 8601 or an age: 7d, 24h, 30m"},
                    "until": {"type": "string", "description": "ISO 8601 or an age (default: now)"},
                    "agent": {"type": "string", "description": "only the changes this agent made"},
                },
                "required": ["since"],
            },
        ),
        _read_only(
            AS_OF_TOOL, "Your memory as it was",
            "Your memory as it was at a moment, from its history: with `path`, that note's text "
            "then and its links with their statuses then; without, every note you had then (yours "
            "and the shared ones) with its description. `at`: ISO 8601 or an age such as 7d, 24h. "
            "A moment before the history began or past its retention is refused, naming the "
            "oldest one kept.",
            {
                "type": "object",
                "properties": {
                    "at": {"type": "string", "description": "ISO 8601 or an age: 7d, 24h, 30m"},
                    "path": {**_NOTE_PATH, "description": "a note's virtual path; omit for every note"},
                },
                "required": ["at"],
            },
        ),
    ]


def search_tool() -> types.Tool:
    return _read_only(
        SEARCH_TOOL, "Search memory",
        "Search your notes and the shared ones; the best matches first, with path and snippet.",
        {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
            },
            "required": ["query"],
        },
    )
