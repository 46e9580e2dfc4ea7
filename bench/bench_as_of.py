"""What "as of" costs (brain/tool/asof): the graph at 1 h, 1 d, 7 d and 29 d back.

    .venv/bin/python bench/bench_as_of.py [--notes 10000] [--changes 50000] [--days 30]
                                          [--profile default|real] [--runs 20]
                                          [--neo4j-uri bolt://127.0.0.1:7687] [--around-only]

Writes bench/workload.py's workspace of `--notes` notes, then a history of `--changes`
recorded changes spread evenly over `--days` days, as bench/bench_history_diff.py does (tool
writes by the workload's agents and one in ten outside edits, every version's blob kept),
over the workload's own notes: each change rewrites one note with a new last paragraph that
links another note or a name that does not exist, so links break and heal through time.
The files on disk are the last versions; the first version of each note is kept too.

Then, as a server has it (the graph synced, the history read once, the index of which paths
ever linked each name built: brain/tool/asof/linkers.py, its time and bytes a change printed),
the counts after each
record are walked (brain/tool/asof/counts/series.py: its time and bytes a change are printed), and
for each moment: stats(asOf) as GraphQL answers it now (`stats_as_of`, from those counts:
first ask, then `--runs` asks; linkReport(asOf:)'s totals and memories(asOf:) { totalCount }
are answered the same way, api/graph/asof/counted.py); then, interleaved, as before: the
first ask (the moment's graph built: the graph now copied, the notes changed since re-read
from their blobs and synced) and then `--runs` asks of stats(asOf), memory(asOf) (one note
with its links), memories(asOf) (a page of 20), linkReport(asOf) (stats and problems) and
memories(asOf) { totalCount }, each through the service function every
front end calls (GraphQL adds its own few ms). Before each moment's build, one note as of it
the way REST, MCP and `brain show` ask (`note_as_of`: the note and the names it links to,
brain/tool/asof/note.py), its first ask and `--runs` more. "25h" is a time slider's step back from "1d":
built from that moment. memory(asOf) with backlinks is asked `--runs` times of one note (a
repeat is kept: brain/tool/asof/kept.py) and once each of `--runs` other notes (each a build);
`--around-only` measures only that. Prints p50/p95 of each, the build, the machine's load (`uptime`)
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
from collections.abc import Callable, Iterator
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
from brain.store.health import HealthAsk  # noqa: E402
from brain.store.open import open_store  # noqa: E402
from brain.tool import attach_memory_service  # noqa: E402
from brain.tool.access import Actor  # noqa: E402
from brain.tool.asof.counts.series import default_series_path, series_of  # noqa: E402
from brain.tool.asof.linkers import default_linkers_path, linker_index  # noqa: E402
from brain.tool.asof.service import (  # noqa: E402
    around_as_of,
    graph_at,
    moments_of,
    note_as_of,
    stats_as_of,
)
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
    parser.add_argument("--around-only", action="store_true",
                        help="only memory(asOf:) with backlinks: no counts' walk, no whole moments")
    parser.add_argument("--counts-only", action="store_true",
                        help="only the kept counts: their walk, and the queries they answer (per-scope "
                        "health, problems by code) against the whole moment's answer")
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
        # The counts after each record (brain/tool/asof/counts/series.py), walked as `brain serve` does
        # after its first sync, once for the whole history (then a record at a time).
        if not args.around_only:
            series = series_of(moments_of(service))
            t0, c0 = time.perf_counter(), time.process_time()
            series.ensure(wait=True)
            walk, cpu = time.perf_counter() - t0, time.process_time() - c0
            kept = default_series_path(service.blobs.directory).stat().st_size
            out["series_walk_s"] = round(walk, 1)
            out["series_bytes_per_change"] = round(kept / args.changes, 1)
            out["series_cpu_ms_per_change"] = round(cpu / args.changes * 1000, 2)
            print(f"counts after each record walked in {walk:.1f} s ({walk / args.changes * 1000:.1f} ms a "
                  f"change; CPU {cpu / args.changes * 1000:.2f} ms a change, the process's: the "
                  f"machine's load stretches the wall time, not this), kept in "
                  f"{kept / args.changes:.0f} bytes a change")
        if args.counts_only:
            out.update(counted_queries(service, args.runs))
            brain.close()
            load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
            out["load"], out["peak_rss_mb"] = load, round(peak_rss_mb(os.getpid()))
            print(f"peak RSS {out['peak_rss_mb']} MB; load: {load}")
            print(json.dumps(out))
            return
        # Which paths ever linked each name (brain/tool/asof/linkers.py), built as `brain serve`
        # does after its first scan; then read back as the next process does.
        moments = moments_of(service)
        t0 = time.perf_counter()
        linker_index(moments, service.parsed).ensure(wait=True)
        built = time.perf_counter() - t0
        kept = default_linkers_path(service.blobs.directory).stat().st_size
        out["linkers_build_s"] = round(built, 2)
        out["linkers_bytes_per_change"] = round(kept / args.changes, 1)
        print(f"link index built in {built:.2f} s, kept in {kept / args.changes:.0f} bytes a change")
        listed = [m.path for m in brain.store.list_memories(MemoryFilter(), limit=args.runs + 1,
                                                             bodies=False)]
        path = listed[0]
        for moment in MOMENTS:
            # One note as of the moment (REST, MCP, `brain show`): the note and the names it
            # links to, no moment's graph (brain/tool/asof/note.py); its first ask, then runs.
            t0 = time.perf_counter()
            note_as_of(service, Actor.admin(), path, moment)
            note_first = time.perf_counter() - t0

            def note(moment: str = moment) -> None:
                note_as_of(service, Actor.admin(), path, moment)

            note_runs = timed(note, args.runs)
            # stats(asOf) as GraphQL asks it now: from the kept counts, first ask then runs.
            t0 = time.perf_counter()
            if not args.around_only:
                stats_as_of(service, moment)
            counted_first = time.perf_counter() - t0

            def counted(moment: str = moment) -> None:
                stats_as_of(service, moment)

            # (--around-only: asked of no counts, which would start their walk on a thread)
            counted_runs = timed(counted, args.runs) if not args.around_only else {}
            # GraphQL memory(path:, asOf:) with links and backlinks: the note's neighbourhood
            # then (brain/tool/asof/around.py), first ask then runs.
            t0 = time.perf_counter()
            around_as_of(service, path, moment)
            around_first = time.perf_counter() - t0

            def around(moment: str = moment) -> None:
                g = around_as_of(service, path, moment)
                node = g.store.memory_by_path(path)
                assert node is not None
                g.store.links_from([node.id])
                g.store.links_to([node.id])

            around_runs = timed(around, args.runs)
            # ... and `--runs` other notes, each asked once (none answered before at this moment).
            others = iter(listed[1:])

            def around_other(moment: str = moment, others: Iterator[str] = others) -> None:
                other = next(others)
                g = around_as_of(service, other, moment)
                node = g.store.memory_by_path(other)
                assert node is not None
                g.store.links_to([node.id])

            around_distinct = timed(around_other, args.runs)
            if args.around_only:
                out[moment] = {"around_first_ms": round(around_first * 1000, 1), "around": around_runs,
                               "around_distinct": around_distinct}
                print(f"as of {moment}: memory(asOf) with backlinks first ask {around_first * 1000:.1f} ms, "
                      f"p50 {around_runs['p50_ms']:.1f} p95 {around_runs['p95_ms']:.1f} ms; other notes "
                      f"p50 {around_distinct['p50_ms']:.1f} p95 {around_distinct['p95_ms']:.1f} ms")
                continue
            t0 = time.perf_counter()
            graph = graph_at(service, moment)
            build = time.perf_counter() - t0
            changed = len(graph.delta.paths)  # from the graph it was built from: now, or a moment

            def stats(moment: str = moment) -> None:  # before: the whole moment's graph counted
                graph_at(service, moment).stats()

            def memory(moment: str = moment) -> None:
                g = graph_at(service, moment)
                node = g.store.memory_by_path(path)
                assert node is not None
                g.store.links_from([node.id])

            def memories(moment: str = moment) -> None:
                graph_at(service, moment).store.list_memories(MemoryFilter(), limit=21)

            # GraphQL linkReport(asOf:) and memories(asOf:) { totalCount } as answered before
            # (the whole moment: its stats and problems; its note count); now they are the kept
            # counts' answer (brain/api/graph/asof/counted.py), stats_as_of above.
            def link_report(moment: str = moment) -> None:
                g = graph_at(service, moment)
                g.stats()
                g.problems()

            def total(moment: str = moment) -> None:
                graph_at(service, moment).store.count_memories(MemoryFilter())

            row: dict[str, Any] = {"note_first_ms": round(note_first * 1000, 1), "note": note_runs,
                   "stats_as_of_first_ms": round(counted_first * 1000, 1), "stats_as_of": counted_runs,
                   "around_first_ms": round(around_first * 1000, 1), "around": around_runs,
                   "around_distinct": around_distinct,
                   "build_s": round(build, 2), "notes_changed_since": changed,
                   "stats": timed(stats, args.runs), "memory": timed(memory, args.runs),
                   "memories": timed(memories, args.runs), "link_report": timed(link_report, args.runs),
                   "total_count": timed(total, args.runs)}
            out[moment] = row
            print(f"as of {moment}: stats(asOf) first ask {counted_first * 1000:.2f} ms, p50 "
                  f"{counted_runs['p50_ms']:.2f} p95 {counted_runs['p95_ms']:.2f} ms (kept counts); "
                  f"memory(asOf) with backlinks first ask {around_first * 1000:.1f} ms, p50 "
                  f"{around_runs['p50_ms']:.1f} p95 {around_runs['p95_ms']:.1f} ms (its neighbourhood)")
            print(f"as of {moment}: one note first ask {note_first * 1000:.1f} ms, p50 "
                  f"{note_runs['p50_ms']:.1f} p95 {note_runs['p95_ms']:.1f} ms; "
                  f"build {build:.2f} s ({changed} notes differ from its base); "
                  + "; ".join(f"{k} p50 {row[k]['p50_ms']:.1f} ms p95 {row[k]['p95_ms']:.1f} ms"
                              for k in ("stats", "memory", "memories", "link_report", "total_count")))
        brain.close()
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    out["load"], out["peak_rss_mb"] = load, round(peak_rss_mb(os.getpid()))
    print(f"peak RSS {out['peak_rss_mb']} MB; load: {load} (cpus {os.cpu_count()})")
    print(json.dumps(out))


def counted_queries(service: MemoryService, runs: int) -> dict[str, Any]:
    """Per moment: `memoryHealth(asOf:) { scopes }` and `linkReport(asOf:) { byCode }` as the
    code under test answers them: from the kept detail (brain/tool/asof/counts/counted.py) when it
    has one, else (a brain without it) from the whole moment, as GraphQL answered before. The
    first ask's wall and CPU time, then `runs` asks."""
    try:
        from brain.tool.asof.counts.counted import kept_as_of
    except ImportError:  # the code before the kept detail
        kept_as_of = None

    def ask(moment: str) -> object:
        if kept_as_of is not None:
            found = kept_as_of(service, moment)
            if found is not None:
                return found[1].scope_rows(), dict(found[1].codes)
        graph = graph_at(service, moment)
        codes: dict[tuple[str, str], int] = {}
        for p in graph.problems():
            codes[(p.code, p.severity.value)] = codes.get((p.code, p.severity.value), 0) + 1
        return graph.store.health_counts(HealthAsk()), codes

    out: dict[str, Any] = {"kept_detail": kept_as_of is not None}
    for moment in MOMENTS:
        t0, c0 = time.perf_counter(), time.process_time()
        ask(moment)
        first, cpu = time.perf_counter() - t0, time.process_time() - c0
        row = timed(lambda moment=moment: ask(moment), runs)
        out[moment] = {"first_ms": round(first * 1000, 2), "first_cpu_s": round(cpu, 3), "asks": row}
        print(f"as of {moment}: per-scope health and problems by code, first ask {first * 1000:.2f} ms "
              f"(CPU {cpu:.3f} s), then p50 {row['p50_ms']:.2f} p95 {row['p95_ms']:.2f} ms")
        # What still needs the whole moment (a report's most wanted, a problems page): its build,
        # then asks of the held moment (its stats and problems, as linkReport asks them).
        t0, c0 = time.perf_counter(), time.process_time()
        graph_at(service, moment)
        build, build_cpu = time.perf_counter() - t0, time.process_time() - c0

        def report(moment: str = moment) -> None:
            held = graph_at(service, moment)
            held.stats()
            held.problems()

        held = timed(report, runs)
        out[moment].update(build_s=round(build, 2), build_cpu_s=round(build_cpu, 2), held_report=held)
        print(f"as of {moment}: whole moment built in {build:.2f} s (CPU {build_cpu:.2f} s); then "
              f"linkReport of the held moment p50 {held['p50_ms']:.1f} p95 {held['p95_ms']:.1f} ms")
    return out


if __name__ == "__main__":
    main()
