"""File on disk to GraphQL answer, on the writer and on each `--read-only` replica, at a write rate.

Used by bench/bench_replicas.py. Writes go out open-loop at `rate` writes per second (each
rewrites one note's description with a fresh marker; a note is not written again while a
write of it is still unseen somewhere), and one poller per server asks, every `poll`
seconds, in one GraphQL request with an alias per pending note, whether the marker is
visible yet. A write is seen on a server the moment a `memory(path)` answer carries its
marker: what a dashboard polling that server would see, independent of the subscription.
The poll interval bounds the measuring error (20 ms by default, against a 500 ms goal); polls
keep a fixed cadence, so a server that answers faster is not asked more often.

Fair to compare checkouts (the same pollers ask both, interleaved), but heavier than a
dashboard, which asks one document every second or so, or follows `graphChanged`: every
server is asked 50 times a second, one request per 16 pending notes (so more requests as a
backlog grows), and after each write every pending note's answer is read again from the
database. On the 2 shared cores the pollers' requests (on the writer too, whose sync shares
its process with them) are part of what is measured: `--poll` (bench_replicas) trades
precision for less of it.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_api import KeepAliveClient, percentiles

ALIASES_PER_REQUEST = 16  # the GraphQL limits allow more; a small document is cheap to check


@dataclass
class Write:
    rel: str
    marker: str
    at: float
    seen: dict[int, float] = field(default_factory=dict)  # server index -> when its answer showed it


DESCRIPTION = re.compile(r"^description: .*$", re.MULTILINE)


def _rewrite(path: Path, marker: str) -> None:
    text = path.read_text(encoding="utf-8")
    new, n = re.subn(r"^description: .*$", f"description: {marker}", text, count=1, flags=re.MULTILINE)
    if not n:
        raise SystemExit(f"{path} has no description line to rewrite")
    path.write_text(new, encoding="utf-8")


async def _poll(url: str, index: int, writes: list[Write], done: asyncio.Event, poll: float) -> None:
    client = KeepAliveClient(url)
    next_at = time.perf_counter()
    try:
        while not done.is_set():
            pending = [w for w in writes if index not in w.seen]
            for start in range(0, len(pending), ALIASES_PER_REQUEST):
                group = pending[start:start + ALIASES_PER_REQUEST]
                names = ", ".join(f"$p{i}: String" for i in range(len(group)))
                fields = " ".join(f"m{i}: memory(path: $p{i}) {{ description }}" for i in range(len(group)))
                status, body = await client.post({
                    "query": f"query({names}) {{ {fields} }}",
                    "variables": {f"p{i}": w.rel for i, w in enumerate(group)},
                })
                now = time.perf_counter()
                if status != 200 or "errors" in body:
                    raise SystemExit(f"polling {url} failed: {status} {body}")
                for i, w in enumerate(group):
                    if (body["data"][f"m{i}"] or {}).get("description") == w.marker:
                        w.seen.setdefault(index, now)
            # A fixed cadence, whatever an answer took: a server that answers faster must not
            # be asked more often (its own work, the sync, shares the process with them).
            next_at = max(next_at + poll, time.perf_counter())
            await asyncio.sleep(next_at - time.perf_counter())
    finally:
        client.close()


async def at_rate(
    root: Path, urls: list[str], rate: float, count: int, *, poll: float = 0.02, timeout: float = 60.0,
    seed: int = 7,
) -> dict[str, Any]:
    """`count` writes at `rate` per second; urls[0] is the writer, the rest its replicas."""
    # Notes with a description line to rewrite (--profile real has notes without one).
    notes = sorted(p.relative_to(root).as_posix() for p in (root / "memory").glob("*/*.md")
                   if DESCRIPTION.search(p.read_text(encoding="utf-8")))
    rng = random.Random(seed)
    writes: list[Write] = []
    done = asyncio.Event()
    pollers = [asyncio.create_task(_poll(url, i, writes, done, poll)) for i, url in enumerate(urls)]
    try:
        started = time.perf_counter()
        for n in range(count):
            await asyncio.sleep(max(0.0, started + n / rate - time.perf_counter()))
            busy = {w.rel for w in writes if len(w.seen) < len(urls)}
            rel = rng.choice([r for r in notes if r not in busy])
            # Unique across runs and checkouts: a marker a note already holds is "seen" at once.
            marker = f"visibility {n} {os.urandom(6).hex()}"
            at = time.perf_counter()
            await asyncio.to_thread(_rewrite, root / rel, marker)
            writes.append(Write(rel, marker, at))
        deadline = time.perf_counter() + timeout
        while any(len(w.seen) < len(urls) for w in writes) and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        for task in pollers:
            if task.done() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
    finally:
        done.set()
        await asyncio.gather(*pollers, return_exceptions=True)
    to_writer = [w.seen[0] - w.at for w in writes if 0 in w.seen]
    to_replicas = [t - w.at for w in writes for i, t in w.seen.items() if i > 0]
    unseen = sum(len(urls) - len(w.seen) for w in writes)
    return {
        "rate_per_s": rate, "writes": count, "unseen_after_timeout": unseen,
        "file_to_writer": percentiles(to_writer) if to_writer else {},
        "file_to_replica": percentiles(to_replicas) if to_replicas else {},
    }
