"""`brain check WS --as-of TIME` and `brain show WS PATH [--as-of TIME]`: thin.

Both read the graph at the moment from the one service function (brain/tool/asof/service.py)
that GraphQL's `asOf:` and the MCP tool `memory_as_of` read: `check` prints the report
`brain check` prints (same text, same JSON, same exit code) of the graph as it was; `show`
prints a note's text as it was and its links with their statuses then. A moment the history
cannot show is one line on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brain.cli.check import CheckReport
from brain.tool.access import Actor
from brain.tool.calls.refusal import Refusal

if TYPE_CHECKING:
    from brain.service.brain import Brain
    from brain.tool.service import MemoryService

AS_OF_HELP = "the graph as it was then, from the history: ISO 8601 or an age (7d, 24h, 30m)"


def add_show_parser(sub: Any) -> Any:
    show = sub.add_parser(
        "show", help="a note's text and its links with their statuses (now, or --as-of a time)",
    )
    show.add_argument("workspace", type=Path)
    show.add_argument("path", help="the note's path in the workspace, e.g. memory/shared/style.md")
    show.add_argument("--as-of", dest="as_of", help=AS_OF_HELP + " (default: now)")
    show.add_argument("--format", choices=("text", "json"), default="text")
    return show


def _service(brain: Brain) -> MemoryService:
    from brain.tool import attach_memory_service, memory_service
    from brain.tool.service import MemoryService

    service = MemoryService(brain.root, brain)
    attach_memory_service(brain, service)
    return memory_service(brain)


def check_as_of(brain: Brain, args: argparse.Namespace, mentions: Any) -> int:
    """The check report of the graph at `args.as_of` (the brain synced to now first)."""
    from brain.tool.asof.service import graph_at

    try:
        moment = graph_at(_service(brain), args.as_of)
    except Refusal as refusal:
        print(f"brain check: --as-of: {refusal.message}", file=sys.stderr)
        return 2
    report = CheckReport(
        moment.stats(), moment.problems(), strict=args.strict, layout=brain.layout_choice,
        info=mentions(moment) if args.mentions else (),
    )
    print(report.to_json() if args.format == "json" else report.to_text())
    return report.exit_code


def run_show(brain: Brain, args: argparse.Namespace) -> int:
    from brain.tool.asof.service import note_as_of, note_now

    try:
        service = _service(brain)
        actor = Actor.admin(via="cli")
        found = note_now(service, actor, args.path) if args.as_of is None else note_as_of(
            service, actor, args.path, args.as_of)
    except Refusal as refusal:
        print(f"brain show: {refusal.message}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(found, indent=2, ensure_ascii=False))
    else:
        print(show_text(found))
    return 0


def show_text(found: dict[str, Any]) -> str:
    """The note as a person reads it: where and when, its text, then its links and problems."""
    lines = [f"{found['path']} as of {found['at']}", ""]
    lines += found["text"].splitlines()
    lines += ["", f"links ({len(found['links'])}):"]
    lines += [f"  line {lk['line']}: {lk['text']} -> {lk['targetId']} ({lk['status']})"
              for lk in found["links"]]
    if found["problems"]:
        lines += [f"problems ({len(found['problems'])}):"]
        lines += [f"  line {p['line']}: {p['severity']} {p['code']} {p['message']}"
                  for p in found["problems"]]
    return "\n".join(lines)
