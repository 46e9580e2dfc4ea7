"""`brain related WORKSPACE PATH`: one note's unlinked mentions and its nearest unlinked notes.

Exit 0 with or without results, 2 when PATH is not a note of the workspace (or not one the
`--agent` may see: the same words, so the answer does not tell a private note exists).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from brain.search.related import MAX_RELATED


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "related", help="a note's unlinked mentions and the notes closest to it that it does not link"
    )
    parser.add_argument("workspace", type=Path)
    parser.add_argument("path", help="the note, relative to the workspace (memory/<scope>/<name>.md)")
    parser.add_argument("--agent", help="as this agent: its own notes and shared ones only")
    parser.add_argument(
        "--first", type=int, default=10, help=f"related notes, 1 to {MAX_RELATED} (default 10)"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    return parser


def run(args: argparse.Namespace) -> int:
    from brain.cli.progress import progress_bar
    from brain.search.cli import _wait_for_embeddings
    from brain.service.mentions import note_mentions, related_to
    from brain.service.options import open_brain
    from brain.store.visibility import EVERYTHING, Reach

    if not 1 <= args.first <= MAX_RELATED:
        print(f"brain related: --first must be between 1 and {MAX_RELATED}, not {args.first}",
              file=sys.stderr)
        return 2
    brain = open_brain(args)
    try:
        with progress_bar("indexing") as progress:
            brain.sync(progress=progress)
        reach = EVERYTHING if args.agent is None else Reach.of_agent(args.agent)
        rel = args.path.replace("\\", "/")
        rel = rel[2:] if rel.startswith("./") else rel
        memory = brain.memory_at(rel)
        if memory is None or not reach.sees(memory.id):
            print(f"brain related: {rel} is not a note of {brain.root}"
                  " (give its path from the workspace root, e.g. memory/<scope>/<name>.md)", file=sys.stderr)
            return 2
        _wait_for_embeddings(brain.search.indexer)
        mentions = note_mentions(brain.store, brain.root, memory, reach=reach)
        related = related_to(brain.search, brain.root, memory, reach=reach, first=args.first)
        paths = {n.id: n.path for n in brain.store.get_nodes(
            [m.target for m in mentions if m.target] + [c for m in mentions for c in m.candidates]
        ).values() if hasattr(n, "path")}
        answer = {
            "mentions": [
                {"path": memory.path, "line": m.line, "column": m.column, "text": m.text,
                 "target": paths.get(m.target) if m.target else None, "replacement": m.replacement,
                 "candidates": [paths.get(c, c) for c in m.candidates]}
                for m in mentions
            ],
            "related": [{"path": r.path, "score": r.score, "terms": list(r.terms)} for r in related],
        }
        print(json.dumps(answer, ensure_ascii=False, indent=2) if args.format == "json" else to_text(answer))
        return 0
    finally:
        brain.close()


def to_text(answer: dict[str, list[dict[str, Any]]]) -> str:
    lines = []
    for m in answer["mentions"]:
        what = f"link {m['replacement']}" if m["target"] else "ambiguous: " + ", ".join(m["candidates"])
        lines.append(f"{m['path']}:{m['line']}:{m['column']}: mention `{m['text']}` ({what})")
    for r in answer["related"]:
        terms = f" ({', '.join(r['terms'])})" if r["terms"] else ""
        lines.append(f"related {r['path']} {r['score']:.4f}{terms}")
    return "\n".join(lines) if lines else "no unlinked mentions, no related notes"
