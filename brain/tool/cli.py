"""`brain memory AGENT <command> ...` and `brain index AGENT`: the tool for scripts and people.

    brain memory release-writer view /memories
    brain memory release-writer view /memories/house-style.md --range 10 -1
    echo "..." | brain memory release-writer create /memories/tone.md
    brain memory release-writer str_replace /memories/tone.md "old text" "new text"
    brain memory release-writer insert /memories/tone.md 0 "a first line"
    brain memory release-writer delete /memories/tone.md
    brain memory release-writer rename /memories/tone.md /memories/shared/tone.md
    brain memory release-writer history
    brain index release-writer

The workspace is `--workspace`, else $BRAIN_WORKSPACE, else the current folder. Output goes
to stdout; a refusal goes to stderr with exit status 1 (`--json` prints either as JSON).
The CLI works on the files only: a running `brain serve` picks the change up by its watcher.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from pathlib import Path
from typing import Any

from brain.tool.access import Actor
from brain.tool.calls.tool import MemoryTool, ToolResult
from brain.tool.service import MemoryService


class CliUsageError(Exception):
    pass


def add_parsers(sub: Any) -> None:
    """Add `memory` and `index` to the top-level subcommands."""
    memory = sub.add_parser(
        "memory", help="use an agent's memory tool (view, create, str_replace, insert, delete, rename)",
        description="The memory tool for a named agent, on the workspace's files.",
    )
    memory.add_argument("agent", metavar="AGENT", help="the agent whose memory this is")
    _workspace_option(memory)
    memory.add_argument("--json", action="store_true", help="print the result as JSON")
    memory.add_argument("--expected-hash", metavar="SHA256",
                        help="refuse a write if the file's hash is not this ('' = must not exist)")
    commands = memory.add_subparsers(dest="tool_command", required=True, metavar="COMMAND")

    view = commands.add_parser("view", help="list /memories, or print a file with line numbers")
    view.add_argument("path", nargs="?", default="/memories")
    view.add_argument("--range", nargs=2, type=int, metavar=("START", "END"), dest="view_range",
                      help="only lines START..END (END -1 reads to the bottom)")
    create = commands.add_parser("create", help="write or overwrite a whole file")
    create.add_argument("path")
    source = create.add_mutually_exclusive_group()
    source.add_argument("--text", help="the file's text (default: read standard input)")
    source.add_argument("--file", type=Path, help="read the file's text from this file")
    replace = commands.add_parser("str_replace", help="replace text that occurs exactly once")
    replace.add_argument("path")
    replace.add_argument("old_str")
    replace.add_argument("new_str", nargs="?", default="")
    insert = commands.add_parser("insert", help="insert lines after a line (0 = the top)")
    insert.add_argument("path")
    insert.add_argument("insert_line", type=int)
    insert.add_argument("insert_text", nargs="?", help="the text (default: read standard input)")
    delete = commands.add_parser("delete", help="remove a file")
    delete.add_argument("path")
    rename = commands.add_parser("rename", help="move a file")
    rename.add_argument("old_path")
    rename.add_argument("new_path")
    history = commands.add_parser("history", help="the agent's recorded writes, newest first")
    history.add_argument("--limit", type=int, default=20)

    index = sub.add_parser("index", help="print the `## Your memory` block of an agent's prompt")
    index.add_argument("agent", metavar="AGENT")
    _workspace_option(index)
    index.add_argument("--now", metavar="TIME",
                       help="compute ages at this instant (ISO 8601 or epoch seconds)")


def _workspace_option(parser: argparse.ArgumentParser) -> None:
    default = os.environ.get("BRAIN_WORKSPACE") or "."
    parser.add_argument("-w", "--workspace", type=Path, default=Path(default),
                        help="the workspace folder (default: $BRAIN_WORKSPACE or the current folder)")


def open_service(workspace: Path) -> MemoryService:
    if not (workspace / "memory").is_dir():
        raise CliUsageError(
            f"{workspace} has no memory/ folder: pass the workspace with --workspace "
            "or set BRAIN_WORKSPACE"
        )
    return MemoryService(workspace)


def run_memory(args: argparse.Namespace) -> int:
    service = open_service(args.workspace)
    if args.tool_command == "history":
        records = service.history.records(agent=args.agent, limit=args.limit)
        if args.json:
            print(json.dumps([r.to_json() for r in records], indent=2, ensure_ascii=False))
        for r in [] if args.json else records:
            target = f"{r.path} -> {r.new_path}" if r.new_path else r.path
            print(f"{r.at}  {r.command:<11}  {target}  {_short(r.before)} -> {_short(r.after)}")
        return 0
    payload = _payload(args)
    tool = MemoryTool(service)
    result = tool.run(args.agent, payload, actor=Actor.of_agent(args.agent, "cli"),
                      expected_hash=args.expected_hash)
    return _print(result, args.json)


def _payload(args: argparse.Namespace) -> dict[str, object]:
    command = args.tool_command
    if command == "view":
        return {"command": "view", "path": args.path, "view_range": args.view_range}
    if command == "create":
        if args.file is not None:
            text = args.file.read_text(encoding="utf-8")
        else:
            text = args.text if args.text is not None else _stdin("create")
        return {"command": "create", "path": args.path, "file_text": text}
    if command == "str_replace":
        return {"command": command, "path": args.path, "old_str": args.old_str, "new_str": args.new_str}
    if command == "insert":
        text = args.insert_text if args.insert_text is not None else _stdin("insert")
        return {"command": command, "path": args.path, "insert_line": args.insert_line,
                "insert_text": text}
    if command == "delete":
        return {"command": command, "path": args.path}
    return {"command": command, "old_path": args.old_path, "new_path": args.new_path}


def _stdin(command: str) -> str:
    if sys.stdin.isatty():
        raise CliUsageError(f"{command}: give the text as an argument or on standard input")
    return sys.stdin.read()


def _print(result: ToolResult, as_json: bool) -> int:
    if as_json:
        print(json.dumps(result_json(result), indent=2, ensure_ascii=False))
    elif result.ok:
        print(result.text)
    else:
        print(result.text, file=sys.stderr)
    return 0 if result.ok else 1


def result_json(result: ToolResult) -> dict[str, Any]:
    return {
        "ok": result.ok,
        "command": result.command,
        "output": result.output,
        "refusal": result.refusal.to_json() if result.refusal else None,
        "path": result.path,
        "hash": result.hash,
        "previousHash": result.previous_hash,
    }


def _short(digest: str | None) -> str:
    return digest[:12] if digest else "(none)"


def run_index(args: argparse.Namespace) -> int:
    service = open_service(args.workspace)
    from brain.tool.calls.refusal import Refusal

    try:
        block = service.prompt(args.agent, now=_instant(args.now))
    except Refusal as refusal:
        print(f"brain index: {refusal.message}", file=sys.stderr)
        return 2
    if block is None:
        print(f"brain index: memory is off for agent `{args.agent}`: no memory block", file=sys.stderr)
        return 0
    sys.stdout.write(block)
    return 0


def _instant(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        pass
    try:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise CliUsageError(f"--now {text!r} is neither ISO 8601 nor epoch seconds") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.timestamp()
