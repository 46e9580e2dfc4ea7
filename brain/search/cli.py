"""`brain search WORKSPACE QUERY`: the search service on the command line.

Exit 0 with or without results, 2 for a usage error. A one-shot command waits for the
embeddings (they are cached, so only the first run over new notes pays for them) unless
`--mode keyword` says not to; progress goes to stderr, results to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from brain.search.service import MAX_LIMIT, Mode, SearchAnswer, SearchError, hit_json


def add_parser(sub: Any) -> argparse.ArgumentParser:
    from pathlib import Path

    from brain.model import MEMORY_TYPES

    parser: argparse.ArgumentParser = sub.add_parser(
        "search", help="find memories by words and by meaning (keyword + semantic, fused)"
    )
    parser.add_argument("workspace", type=Path)
    parser.add_argument("query")
    parser.add_argument("--agent", help="search as this agent: its own notes and shared ones only")
    parser.add_argument("--scope", help="only this scope (an agent's folder or `shared`)")
    parser.add_argument("--type", choices=MEMORY_TYPES)
    parser.add_argument("--limit", type=int, default=10, help=f"1 to {MAX_LIMIT} (default 10)")
    parser.add_argument("--mode", choices=[m.value for m in Mode], default=Mode.HYBRID.value)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    return parser


def run(args: argparse.Namespace) -> int:
    from brain.cli.progress import progress_bar
    from brain.service.options import open_brain

    brain = open_brain(args)
    try:
        with progress_bar("indexing") as progress:
            brain.sync(progress=progress)
        search = brain.search
        mode = Mode(args.mode)
        if mode is not Mode.KEYWORD:
            _wait_for_embeddings(search.indexer)
        try:
            answer = search.search(
                args.query, agent=args.agent, scope=args.scope, type=args.type, limit=args.limit,
                mode=mode,
            )
        except SearchError as exc:
            print(f"brain search: {exc}", file=sys.stderr)
            return 2
        if answer.notice:
            print(f"brain search: {answer.notice}", file=sys.stderr)
        print(to_json(answer) if args.format == "json" else to_text(answer))
        return 0
    finally:
        brain.close()


def _wait_for_embeddings(indexer: Any) -> None:
    shown = 0.0
    while not indexer.wait(timeout=1.0):
        if sys.stderr.isatty() and time.monotonic() - shown > 1.0:
            print(f"\r{indexer.status().describe()}", end="", file=sys.stderr, flush=True)
            shown = time.monotonic()
    if shown:
        print(file=sys.stderr)


def to_json(answer: SearchAnswer) -> str:
    return json.dumps({"results": [hit_json(h) for h in answer.hits]}, ensure_ascii=False, indent=2)


def to_text(answer: SearchAnswer) -> str:
    if not answer.hits:
        return "no results"
    lines: list[str] = []
    for rank, hit in enumerate(answer.hits, start=1):
        lines.append(f"{rank:>2}. {hit.path}  [{hit.scope}]  {hit.score:.4f}  ({', '.join(hit.matched)})")
        lines.append(f"    {hit.snippet}")
    return "\n".join(lines)
