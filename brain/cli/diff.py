"""`brain diff WS --since TIME [--until TIME] [--agent NAME] [--format text|json]`, and
`brain diff WS --digest [--weeks N] [--agent NAME] [--format text|json]`: thin.

The command line's face of `memory_changes` and `memory_digest` (brain/tool/diff/query.py):
run as the workspace's operator (every scope), it prints the same JSON GraphQL's `changes`
and `GET /api/changes` answer (`changeDigest` and `GET /api/changes/digest` for the digest),
or a short text of it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from brain.tool.access import Actor
from brain.tool.calls.refusal import Refusal
from brain.tool.diff.changes import text_of


def add_parser(sub: Any) -> None:
    diff = sub.add_parser("diff", help="what changed in the memory between two moments (from its history)")
    diff.add_argument("workspace", type=Path)
    diff.add_argument("--since", help="ISO 8601, or an age: 7d, 24h, 30m, 2w (required without --digest)")
    diff.add_argument("--until", help="ISO 8601 or an age (default: now)")
    diff.add_argument("--agent", help="only the changes this agent made")
    diff.add_argument("--format", choices=("text", "json"), default="text")
    diff.add_argument("--digest", action="store_true", help="the weekly digest (per ISO week) instead")
    diff.add_argument("--weeks", type=int, default=8, help="with --digest: how many weeks (default 8)")


def run_diff(args: argparse.Namespace) -> int:
    from brain.tool.cli import open_service
    from brain.tool.diff.digest import digest_text
    from brain.tool.diff.query import memory_changes, memory_digest

    if args.digest == bool(args.since):
        print("brain diff: give --since TIME (what changed since then) or --digest (the weekly "
              "digest), one of them", file=sys.stderr)
        return 2
    try:
        service = open_service(args.workspace)
        if args.digest:
            weeks = memory_digest(service, Actor.admin(via="cli"), args.weeks, args.agent)
            print(json.dumps({"weeks": weeks}, indent=2, ensure_ascii=False) if args.format == "json"
                  else digest_text(weeks))
            return 0
        found = memory_changes(service, Actor.admin(via="cli"), args.since, args.until, args.agent)
    except Refusal as refusal:
        print(f"brain diff: {refusal.message}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(found, indent=2, ensure_ascii=False))
    else:
        print(text_of(found))
    return 0
