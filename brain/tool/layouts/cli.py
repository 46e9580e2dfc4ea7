"""`brain space AGENT VERB ...` and `brain mindlink AGENT VERB ...`: the layouts' verbs for
scripts and people, on the workspace's files.

    brain space alice read ~/memory/
    echo "# Plan" | brain space alice write ~/memory/drafts/plan.md
    brain space alice write ~/memory/data/photo.png --file photo.png
    brain space alice delete ~/memory/drafts
    brain mindlink alice memory_get entries/prefers-short-answers.md
    brain mindlink alice memory_write 2026-12-01.md --text "Today: the release."
    brain mindlink alice memory_delete entries/old.md
    brain mindlink alice memory_search "release"

The same verbs, checks, refusals and history as REST and MCP (brain.tool.layouts.verbs). Output is
the text a model reads (`--json`: the JSON answer); a refusal goes to stderr with exit 1; a
workspace of another layout exits 2. A running `brain serve` picks changes up by its watcher.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
from pathlib import Path
from typing import Any

from brain.tool.access import Actor
from brain.tool.agent_memory import decoded
from brain.tool.calls.refusal import Refusal
from brain.tool.layouts.mindlink import VERBS as MINDLINK_VERBS
from brain.tool.layouts.space import VERBS as SPACE_VERBS
from brain.tool.layouts.verbs import brain_search, verbs_for, workspace_layout
from brain.tool.service import MemoryService


class LayoutUsageError(Exception):
    pass


def add_parsers(sub: Any) -> None:
    for layout, verbs, what in (
        ("space", SPACE_VERBS, "the Space's memory verbs (seeds/001): read, write, delete"),
        ("mindlink", MINDLINK_VERBS, "mindlink's memory tools (seeds/003)"),
    ):
        parser = sub.add_parser(layout, help=f"use {what}", description=f"{what}, for one agent.")
        parser.add_argument("agent", metavar="AGENT")
        parser.add_argument("verb", choices=verbs, metavar="VERB", help=", ".join(verbs))
        parser.add_argument("target", nargs="?", metavar="PATH_OR_QUERY",
                            help="the path (memory_search: the query)")
        parser.add_argument("-w", "--workspace", type=Path,
                            default=Path(os.environ.get("BRAIN_WORKSPACE") or "."),
                            help="the workspace folder (default: $BRAIN_WORKSPACE or the current folder)")
        source = parser.add_mutually_exclusive_group()
        source.add_argument("--text", help="the new content (default: standard input)")
        source.add_argument("--file", type=Path, help="read the new content from this file")
        parser.add_argument("--limit", type=int, default=10, help="memory_search: how many hits")
        parser.add_argument("--expected-hash", metavar="SHA256",
                            help="refuse unless the file's hash is this ('' = must not exist)")
        parser.add_argument("--json", action="store_true", help="print the answer as JSON")


def run_layout_verb(args: argparse.Namespace) -> int:
    root: Path = args.workspace.resolve()
    layout = workspace_layout(root)
    if layout != args.command:
        raise LayoutUsageError(
            f"{root} has layout `{layout}` (brain.toml), not `{args.command}`: "
            + ("use `brain memory`" if layout == "latchai" else f"use `brain {layout}`")
        )
    search = None
    if args.verb == "memory_search":
        from brain.service.brain import Brain

        brain = Brain(root)
        brain.sync()
        search = brain_search(brain)
    verbs = verbs_for(layout, MemoryService(root), search)
    assert verbs is not None
    try:
        answer = verbs.call(Actor.open("cli"), args.agent, args.verb, _arguments(args))
    except Refusal as refusal:
        print(json.dumps({"error": refusal.to_json()}) if args.json else refusal.text(), file=sys.stderr)
        return 1
    print(json.dumps(answer, ensure_ascii=False, indent=2) if args.json else verbs.render(args.verb, answer))
    return 0


def _arguments(args: argparse.Namespace) -> dict[str, Any]:
    if args.verb == "memory_search":
        return {"query": args.target, "limit": args.limit}
    out: dict[str, Any] = {}
    if args.target is not None:
        out["path"] = _unexpanded(args.target)
    if args.expected_hash is not None:
        out["expectedHash"] = args.expected_hash
    if args.verb in ("write", "memory_write"):
        data = _content(args)
        text = decoded(data)
        if text is None and args.command == "space":
            out["contentBase64"] = base64.b64encode(data).decode("ascii")
        else:
            out["content"] = text if text is not None else data.decode("utf-8", errors="replace")
    return out


def _unexpanded(path: str) -> str:
    """`~/memory/x` as typed, also after the shell expanded `~` to the user's home."""
    home = os.path.expanduser("~/memory")
    if home != "~/memory" and (path == home or path.startswith(home + "/")):
        return "~/memory" + path[len(home) :]
    return path


def _content(args: argparse.Namespace) -> bytes:
    if args.text is not None:
        return str(args.text).encode("utf-8")
    if args.file is not None:
        try:
            return Path(args.file).read_bytes()
        except OSError as exc:
            raise LayoutUsageError(f"cannot read {args.file}: {exc.strerror}") from None
    if sys.stdin.isatty():
        raise LayoutUsageError("give the content with --text, --file, or on standard input")
    return sys.stdin.buffer.read()
