"""`brain stats WS`: the workspace's memory health, as the dashboards' `memoryHealth` answers it.

`--format json` prints the object of graphql/memory-health.graphql with notes by id
(brain/service/health.py builds both); the text form is a table of the counts per scope.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from brain.service.health import HealthRefused, health_ask, report_json
from brain.service.options import UsageError, add_store_options, open_brain
from brain.store.visibility import EVERYTHING

COLUMNS = (
    ("notes", "notes"), ("links", "links"), ("broken", "broken"), ("ambiguous", "ambiguous"),
    ("missingAnchor", "no anchor"), ("orphans", "orphans"), ("stale", "stale"),
    ("withoutDescription", "no descr."), ("withoutType", "no type"),
)


def add_parser(sub: Any) -> None:
    stats = sub.add_parser("stats", help="memory health: notes, links, orphans, hubs, stale and wanted notes")
    stats.add_argument("workspace", type=Path)
    stats.add_argument("--format", choices=("text", "json"), default="text")
    stats.add_argument("--scope", help="one scope (an agent's name, or shared); default: every scope")
    stats.add_argument("--stale-days", type=int, default=30, help="a note unchanged this long is stale (30)")
    stats.add_argument("--top", type=int, default=10, help="how many hubs and wanted notes (10, at most 100)")
    stats.add_argument("--first", type=int, default=20, help="notes listed per list (20, at most 100)")
    add_store_options(stats)


def cmd_stats(args: argparse.Namespace) -> int:
    brain = open_brain(args)
    try:
        brain.sync()
        try:
            ask = health_ask(EVERYTHING, args.scope, args.stale_days)
            report = report_json(brain.store, ask, args.stale_days, args.top, args.top, args.first)
        except HealthRefused as exc:
            raise UsageError(str(exc)) from exc
        print(json.dumps(report, indent=2, ensure_ascii=False) if args.format == "json" else text(report))
        return 0
    finally:
        brain.close()


def text(report: dict[str, Any]) -> str:
    rows = [*report["scopes"], report["total"]]
    names = [row["scope"] or "(all)" for row in rows]
    width = max(len(n) for n in names)
    lines = [" ".join([f"{'scope':<{width}}", *(f"{label:>10}" for _, label in COLUMNS)])]
    for name, row in zip(names, rows, strict=True):
        lines.append(" ".join([f"{name:<{width}}", *(f"{row[key]:>10}" for key, _ in COLUMNS)]))
    lines.append("hubs: " + (", ".join(f"{h['id']} ({h['links']})" for h in report["hubs"]) or "none"))
    wanted = ", ".join(f"{w['id'].removeprefix('unresolved:')} ({w['notes']})" for w in report["mostWanted"])
    lines.append("most wanted: " + (wanted or "none"))
    return "\n".join(lines)
