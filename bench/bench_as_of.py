"""What "as of" costs (brain/tool/asof): the graph at 1 h, 1 d, 7 d and 29 d back.

    .venv/bin/python bench/bench_as_of.py [--notes 10000] [--changes 50000] [--days 30]
                                          [--profile default|real] [--runs 20]
                                          [--neo4j-uri bolt://127.0.0.1:7687]

Writes bench/workload.py's workspace of `--notes` notes, then a history of `--changes`
recorded changes spread evenly over `--days` days, as bench/bench_history_diff.py does (tool
writes by the workload's agents and one in ten outside edits, every version's blob kept),
over the workload's own notes: each change rewrites one note with a new last paragraph that
links another note or a name that does not exist, so links break and heal through time.
The files on disk are the last versions; the first version of each note is kept too.

Then, as a server has it (the graph synced, the history read once): for each moment, the
first ask (the moment's graph built: the graph now copied, the notes changed since re-read
from their blobs and synced) and then `--runs` asks of stats(asOf), memory(asOf) (one note
with its links) and memories(asOf) (a page of 20), each through the service function every
front end calls (GraphQL adds its own few ms). Before each moment's build, one note as of it
the way REST, MCP and `brain show` ask (`note_as_of`: the note and the names it links to,
brain/tool/asof/note.py), its first ask and `--runs` more. "25h" is a time slider's step back from "1d":
built from that moment. Prints p50/p95 of each, the build, the machine's load (`uptime`)
and peak RSS.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
from bench_api import peak_rss_mb, percentiles  # noqa: E402
from workload import generate  # noqa: E402

from brain.config.sections import StoreConfig  # noqa: E402
from brain.service.brain import Brain  # noqa: E402
from brain.store.base import MemoryFilter  # noqa: E402
from brain.store.open import open_store  # noqa: E402
from brain.tool import attach_memory_service  # noqa: E402
from brain.tool.access import Actor  # noqa: E402
from brain.tool.asof.service import graph_at, note_as_of  # noqa: E402
from brain.tool.history.log import iso_time  # noqa: E402
from brain.tool.service import MemoryService  # noqa: E402

DAY = 86400.0
# "25h": a time slider's step of an hour back from "1d", built from that moment.
MOMENTS = ("1h", "1d", "25h", "7d", "29d")


def build_history(root: Path, changes: int, days: float, now: float) -> tuple[int, int]:
    """History records and blobs over the workspace's notes; the files end as the last versions."""
    notes = sorted(str(p.relative_to(root)) for p in (root / "memory").rglob("*.md"))
    stems = [Path(rel).stem for rel in notes]
    original = {rel: (root / rel).read_bytes() for rel in notes}
    blobs = root / ".brain/history/blobs"

    def keep(data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        folder = blobs / digest[:2]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / digest).write_bytes(data)
        return digest

    last: dict[str, str] = {}
    current: dict[str, bytes] = {}
    lines: list[str] = []
    start = now - days * DAY
    for n in range(changes):
        i = (n * 7919) % len(notes)
        rel = notes[i]
        parts = rel.split("/")
        scope = parts[1]
        if rel not in last:
            last[rel] = keep(original[rel])
        target = stems[(i * 31 + n) % len(stems)] if n % 5 else f"missing-{n}"
        data = original[rel] + f"\n\nVersion {n}: see [[{target}]].\n".encode()
        digest = keep(data)
        external = n % 10 == 0
        agent = None if external or scope == "shared" else scope
        lines.append(json.dumps({
            "at": iso_time(start + n * days * DAY / changes),
            "actor": "external" if external else f"agent:{agent or 'admin'}", "agent": agent,
            "via": "watch" if external else "mcp", "command": "put", "scope": scope, "path": rel,
            "before": last[rel], "after": digest, **({"origin": "external"} if external else {}),
        }))
        last[rel] = digest
        current[rel] = data
    for rel, data in current.items():
        (root / rel).write_bytes(data)
    history = root / ".brain/history.jsonl"
    history.write_text("\n".join(lines) + "\n")
    return len(notes), history.stat().st_size


def timed(fn: Callable[[], Any], runs: int) -> dict[str, float]:
    seconds = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        seconds.append(time.perf_counter() - t0)
    return percentiles(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--changes", type=int, default=50_000)
    parser.add_argument("--days", type=float, default=30.0)
    parser.add_argument("--profile", choices=("default", "real"), default="default")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--neo4j-uri", help="the graph now on Neo4j (its database replaced); "
                        "the moments are built by the same code, from the same files")
    args = parser.parse_args()
    now = time.time()
    out: dict[str, Any] = {"profile": args.profile, "notes": args.notes, "changes": args.changes}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        started = time.perf_counter()
        generate(root, args.notes, profile=args.profile)
        notes, size = build_history(root, args.changes, args.days, now)
        print(f"built {notes} notes and {args.changes} changes in {time.perf_counter() - started:.1f} s "
              f"(history log {size / args.changes:.0f} bytes a change)")
        if args.neo4j_uri:
            store = open_store(StoreConfig(kind="neo4j", neo4j_uri=args.neo4j_uri), replace=True)
            store.clear()
            brain = Brain(root, store=store)
        else:
            brain = Brain(root)
        out["store"] = "neo4j" if args.neo4j_uri else "memory"
        t0 = time.perf_counter()
        brain.sync()
        print(f"first sync {time.perf_counter() - t0:.1f} s")
        service = MemoryService(root, brain, clock=lambda: now)
        attach_memory_service(brain, service)
        service.history.all()  # a server has read it already
        path = next(m.path for m in brain.store.list_memories(MemoryFilter(), limit=1, bodies=False))
        for moment in MOMENTS:
            # One note as of the moment (REST, MCP, `brain show`): the note and the names it
            # links to, no moment's graph (brain/tool/asof/note.py); its first ask, then runs.
            t0 = time.perf_counter()
            note_as_of(service, Actor.admin(), path, moment)
            note_first = time.perf_counter() - t0

            def note(moment: str = moment) -> None:
                note_as_of(service, Actor.admin(), path, moment)

            note_runs = timed(note, args.runs)
            t0 = time.perf_counter()
            graph = graph_at(service, moment)
            build = time.perf_counter() - t0
            changed = len(graph.delta.paths)  # from the graph it was built from: now, or a moment

            def stats(moment: str = moment) -> None:
                graph_at(service, moment).stats()

            def memory(moment: str = moment) -> None:
                g = graph_at(service, moment)
                node = g.store.memory_by_path(path)
                assert node is not None
                g.store.links_from([node.id])

            def memories(moment: str = moment) -> None:
                graph_at(service, moment).store.list_memories(MemoryFilter(), limit=21)

            row = {"note_first_ms": round(note_first * 1000, 1), "note": note_runs,
                   "build_s": round(build, 2), "notes_changed_since": changed,
                   "stats": timed(stats, args.runs), "memory": timed(memory, args.runs),
                   "memories": timed(memories, args.runs)}
            out[moment] = row
            print(f"as of {moment}: one note first ask {note_first * 1000:.1f} ms, p50 "
                  f"{note_runs['p50_ms']:.1f} p95 {note_runs['p95_ms']:.1f} ms; "
                  f"build {build:.2f} s ({changed} notes differ from its base); "
                  + "; ".join(f"{k} p50 {row[k]['p50_ms']:.1f} ms p95 {row[k]['p95_ms']:.1f} ms"
                              for k in ("stats", "memory", "memories")))
        brain.close()
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    out["load"], out["peak_rss_mb"] = load, round(peak_rss_mb(os.getpid()))
    print(f"peak RSS {out['peak_rss_mb']} MB; load: {load} (cpus {os.cpu_count()})")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
