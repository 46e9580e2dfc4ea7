"""What `brain diff` costs (brain/tool/history/changes.py): a week's diff over a month of history.

    .venv/bin/python bench/bench_history_diff.py [--notes 10000] [--changes 50000] [--days 30]
        [--profile default|real] [--workspace DIR]

Writes a workspace of `--notes` notes and a history of `--changes` recorded changes spread
evenly over `--days` days (tool writes by four agents and outside edits), with the blob of
every version and what it parses to, as the memory tool and the watcher leave them
(written directly: the bench measures the diff, not fsyncs). `--profile default`: each note
links two others, some to names that do not exist. `--profile real`: bench/workload.py's
real profile (code, tables, index notes of hundreds of links, cross-scope and agent links,
0.4 to 6 KB), each change an edit that adds a line with a link (one in five broken).
`--workspace DIR` keeps the workspace there and reuses it when it is already built, so two
builds of brain can be measured on the same bytes (interleave them).

Then `memory_changes` as the admin for the last 7 days, and for the last 24 hours,
`--runs` times each (the history already read once, as a server has it: the first run is
the first diff of this process), and as an agent (its scope and shared). Prints p50/p95,
the first run alone, history bytes per change, the machine's load (`uptime`) and peak RSS.

Where the wall time goes: each run's wall is split into this thread's CPU, its time waiting
for a CPU (the run queue: /proc/thread-self/schedstat) and the rest (I/O, sleeping). On a
machine shared with other work a first diff's wall of 2 s was 0.85 s of CPU and the rest
waiting in the run queue, with no I/O or subprocess in it: the load, not the diff.
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
from workload import generate  # noqa: E402

from brain.tool.access import Actor  # noqa: E402
from brain.tool.history.log import iso_time  # noqa: E402
from brain.tool.history.query import memory_changes  # noqa: E402
from brain.tool.service import MemoryService  # noqa: E402

try:  # what a version parses to, kept by the writer (absent in builds before it: not written)
    from brain.tool.history.parsed import ParsedVersions, default_parsed_path
except ImportError:  # pragma: no cover - an older build measured on the same workspace
    ParsedVersions = None  # type: ignore[assignment,misc]

AGENTS = ("ada", "bob", "cy", "dee")


def sched() -> tuple[float, float]:
    """This thread's CPU seconds and seconds spent waiting for a CPU (Linux; zeros elsewhere)."""
    try:
        on_cpu, waiting, _ = Path("/proc/thread-self/schedstat").read_text().split()
    except (OSError, ValueError):
        return 0.0, 0.0
    return int(on_cpu) / 1e9, int(waiting) / 1e9
DAY = 86400.0


def note_text(i: int, version: int, notes: int) -> bytes:
    target = f"note-{(i * 7 + version) % notes}" if version % 5 else f"missing-{i}-{version}"
    return (f"---\ndescription: Note {i} version {version}.\n---\n\n# Note {i}\n\n"
            f"See [[note-{(i + 1) % notes}]] and [[{target}]].\n\n"
            f"Some words of version {version}.\n").encode()


def build(root: Path, notes: int, changes: int, days: float, now: float, profile: str) -> int:
    texts = _real_notes(root, notes) if profile == "real" else None
    for agent in AGENTS if texts is None else ():
        (root / "agents").mkdir(parents=True, exist_ok=True)
        (root / f"agents/{agent}.md").write_text("---\ndescription: A.\nmemory: true\n---\n")
    blobs = root / ".brain/history/blobs"
    parsed = ParsedVersions(default_parsed_path(blobs)) if ParsedVersions is not None else None
    version: dict[int, int] = {}
    last: dict[int, str] = {}
    lines: list[str] = []
    start = now - days * DAY
    count = len(texts) if texts is not None else notes
    for n in range(changes):
        i = (n * 7919) % count
        version[i] = version.get(i, 0) + 1
        if texts is None:
            agent = AGENTS[i % len(AGENTS)]
            scope = "shared" if i % 3 == 0 else agent
            rel = f"memory/{scope}/note-{i}.md"
            data = note_text(i, version[i], notes)
        else:
            rel, base = texts[i]
            scope = rel.split("/")[1]
            agent = scope if scope != "shared" else AGENTS[i % len(AGENTS)]
            data = _real_edit(base, texts, i, version[i])
        digest = hashlib.sha256(data).hexdigest()
        folder = blobs / digest[:2]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / digest).write_bytes(data)
        if parsed is not None:
            parsed.add(digest, data)  # as the writer does when it keeps a version
        external = n % 10 == 0
        before = last.get(i)
        if before is None and texts is not None:  # the version before the history began
            before = hashlib.sha256(texts[i][1]).hexdigest()
        lines.append(json.dumps({
            "at": iso_time(start + n * days * DAY / changes),
            "actor": "external" if external else f"agent:{agent}", "agent": None if external else agent,
            "via": "watch" if external else "mcp", "command": "put" if before else "create",
            "scope": scope, "path": rel, "before": before, "after": digest,
            **({"origin": "external"} if external else {}),
        }))
        last[i] = digest
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    history = root / ".brain/history.jsonl"
    history.write_text("\n".join(lines) + "\n")
    return history.stat().st_size + sum(f.stat().st_size for f in blobs.rglob("*") if f.is_file())


def _real_notes(root: Path, notes: int) -> list[tuple[str, bytes]]:
    """The real profile's workspace (bench/workload.py), and its notes as they start."""
    generate(root, notes, agents=8, seed=42, profile="real")
    found = sorted(p for p in (root / "memory").rglob("*.md") if p.is_file())
    return [(str(p.relative_to(root)), p.read_bytes()) for p in found]


def _real_edit(base: bytes, texts: list[tuple[str, bytes]], i: int, version: int) -> bytes:
    """Version `version` of a real note: its text, then one line a version, each with a link
    to another note (by its stem), or in one edit of five to a name that does not exist."""
    added = []
    for v in range(1, version + 1):
        other = texts[(i * 31 + v * 17) % len(texts)][0].rsplit("/", 1)[-1][:-3]
        target = other if v % 5 else f"gone-{i}-{v}"
        added.append(f"- {v}: see [[{target}]]")
    return base + ("\n" + "\n".join(added[-40:]) + "\n").encode()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--changes", type=int, default=50_000)
    parser.add_argument("--days", type=float, default=30.0)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--profile", choices=("default", "real"), default="default")
    parser.add_argument("--workspace", type=Path, help="build here, or reuse what is built here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.workspace or Path(tmp)
        stamp = root / ".bench-now"
        if stamp.exists():
            now = float(stamp.read_text())
            print(f"reusing the workspace built at {root}")
        else:
            now = time.time()
            started = time.perf_counter()
            size = build(root, args.notes, args.changes, args.days, now, args.profile)
            stamp.write_text(repr(now))
            summaries = root / ".brain/history/parsed-v1.jsonl"
            log_bytes = (root / ".brain/history.jsonl").stat().st_size
            summary_bytes = summaries.stat().st_size if summaries.exists() else 0
            print(f"built {args.notes} notes ({args.profile}), {args.changes} changes in "
                  f"{time.perf_counter() - started:.1f} s; history {size / args.changes:.0f} bytes a change "
                  f"(log and blobs), log alone {log_bytes / args.changes:.0f}, "
                  f"parsed summaries {summary_bytes / args.changes:.0f}")
        service = MemoryService(root, clock=lambda: now)
        service.history.all()  # a server has read it already
        someone = AGENTS[0] if args.profile == "default" else sorted(
            p.name for p in (root / "memory").iterdir() if p.name != "shared")[0]
        for label, since, actor in (("7d", "7d", Actor.admin()), ("24h", "24h", Actor.admin()),
                                    (f"7d as agent {someone}", "7d", Actor.of_agent(someone))):
            seconds: list[float] = []
            cpu: list[float] = []  # this process's CPU time: what a shared, loaded machine hides
            waits: list[float] = []  # seconds waiting for a CPU (run queue)
            others: list[float] = []  # neither on a CPU nor waiting for one: I/O, sleeps
            found: dict[str, object] = {}
            for _ in range(args.runs if actor.kind == "admin" else 3):
                t0, c0 = time.perf_counter(), time.process_time()
                s0 = sched()
                found = memory_changes(service, actor, since)
                s1 = sched()
                seconds.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
                waits.append(s1[1] - s0[1])
                others.append(seconds[-1] - (s1[0] - s0[0]) - waits[-1])
            notes = found["notes"]
            assert isinstance(notes, dict)
            counted = {k: len(v) for k, v in notes.items()}
            p = percentiles(seconds)
            links = found["links"]
            assert isinstance(links, dict)
            print(f"diff {label}: first {seconds[0] * 1000:.0f} ms (cpu {cpu[0] * 1000:.0f} ms, waiting "
                  f"for a cpu {waits[0] * 1000:.0f} ms, other {others[0] * 1000:.0f} ms), "
                  f"cpu p50 {sorted(cpu)[len(cpu) // 2] * 1000:.0f} ms, p50 {p['p50_ms']:.0f} ms, "
                  f"p95 {p['p95_ms']:.0f} ms; {counted}, links {({k: len(v) for k, v in links.items()})}")
    print("peak RSS", f"{peak_rss_mb(os.getpid()):.0f} MB;", "load:", subprocess.run(
        ["uptime"], capture_output=True, text=True, check=False).stdout.strip(), f"(cpus {os.cpu_count()})")


if __name__ == "__main__":
    main()
