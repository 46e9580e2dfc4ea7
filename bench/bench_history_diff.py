"""What `brain diff` costs (brain/tool/history/changes.py): a week's diff over a month of history.

    .venv/bin/python bench/bench_history_diff.py [--notes 10000] [--changes 50000] [--days 30]

Writes a workspace of `--notes` notes (each linking two others, some to names that do not
exist) and a history of `--changes` recorded changes spread evenly over `--days` days
(tool writes by four agents and outside edits), with the blob of every version, as the
memory tool and the watcher leave them (written directly: the bench measures the diff,
not fsyncs). Then `memory_changes` as the admin for the last 7 days, and for the last 24
hours, `--runs` times each (the history already read once, as a server has it), and once
as an agent (its scope and shared). Prints p50/p95, history bytes per change, the
machine's load (`uptime`) and peak RSS.
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
from bench_api import peak_rss_mb, percentiles  # noqa: E402

from brain.tool.access import Actor  # noqa: E402
from brain.tool.history.log import iso_time  # noqa: E402
from brain.tool.history.query import memory_changes  # noqa: E402
from brain.tool.service import MemoryService  # noqa: E402

AGENTS = ("ada", "bob", "cy", "dee")
DAY = 86400.0


def note_text(i: int, version: int, notes: int) -> bytes:
    target = f"note-{(i * 7 + version) % notes}" if version % 5 else f"missing-{i}-{version}"
    return (f"---\ndescription: Note {i} version {version}.\n---\n\n# Note {i}\n\n"
            f"See [[note-{(i + 1) % notes}]] and [[{target}]].\n\n"
            f"Some words of version {version}.\n").encode()


def build(root: Path, notes: int, changes: int, days: float, now: float) -> int:
    for agent in AGENTS:
        (root / "agents").mkdir(parents=True, exist_ok=True)
        (root / f"agents/{agent}.md").write_text("---\ndescription: A.\nmemory: true\n---\n")
    blobs = root / ".brain/history/blobs"
    version: dict[int, int] = {}
    last: dict[int, str] = {}
    lines: list[str] = []
    start = now - days * DAY
    for n in range(changes):
        i = (n * 7919) % notes
        agent = AGENTS[i % len(AGENTS)]
        scope = "shared" if i % 3 == 0 else agent
        rel = f"memory/{scope}/note-{i}.md"
        version[i] = version.get(i, 0) + 1
        data = note_text(i, version[i], notes)
        digest = hashlib.sha256(data).hexdigest()
        folder = blobs / digest[:2]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / digest).write_bytes(data)
        external = n % 10 == 0
        lines.append(json.dumps({
            "at": iso_time(start + n * days * DAY / changes),
            "actor": "external" if external else f"agent:{agent}", "agent": None if external else agent,
            "via": "watch" if external else "mcp", "command": "put" if i in last else "create",
            "scope": scope, "path": rel, "before": last.get(i), "after": digest,
            **({"origin": "external"} if external else {}),
        }))
        last[i] = digest
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    history = root / ".brain/history.jsonl"
    history.write_text("\n".join(lines) + "\n")
    return history.stat().st_size + sum(f.stat().st_size for f in blobs.rglob("*") if f.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--changes", type=int, default=50_000)
    parser.add_argument("--days", type=float, default=30.0)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    now = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        size = build(root, args.notes, args.changes, args.days, now)
        print(f"built {args.notes} notes, {args.changes} changes in {time.perf_counter() - started:.1f} s; "
              f"history {size / args.changes:.0f} bytes a change (log and blobs), "
              f"log alone {(root / '.brain/history.jsonl').stat().st_size / args.changes:.0f}")
        service = MemoryService(root, clock=lambda: now)
        service.history.all()  # a server has read it already
        for label, since, actor in (("7d", "7d", Actor.admin()), ("24h", "24h", Actor.admin()),
                                    ("7d as agent ada", "7d", Actor.of_agent("ada"))):
            seconds: list[float] = []
            found: dict[str, object] = {}
            for _ in range(args.runs if actor.kind == "admin" else 3):
                t0 = time.perf_counter()
                found = memory_changes(service, actor, since)
                seconds.append(time.perf_counter() - t0)
            notes = found["notes"]
            assert isinstance(notes, dict)
            counted = {k: len(v) for k, v in notes.items()}
            p = percentiles(seconds)
            print(f"diff {label}: p50 {p['p50_ms']:.0f} ms, p95 {p['p95_ms']:.0f} ms; {counted}")
    print("peak RSS", f"{peak_rss_mb(os.getpid()):.0f} MB;", "load:", subprocess.run(
        ["uptime"], capture_output=True, text=True, check=False).stdout.strip(), f"(cpus {os.cpu_count()})")


if __name__ == "__main__":
    main()
