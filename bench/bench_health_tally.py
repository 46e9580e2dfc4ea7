"""Memory health's tally (brain/store/neo4j/health/tally.py): what a process that starts pays
to answer the counts from it, against counting the counters, at 10,000 and 100,000 notes.

    .venv/bin/python bench/bench_health_tally.py [--sizes 10000 100000] [--neo4j-uri bolt://...]

Per size: counters built from a synthetic graph (9 scopes, links made at random across
them: a note nothing of its own scope links to is nearly always linked from another, the
tally's worst case; 5 links a note, a tenth broken; change times over 100 days), then
timed: `build` (the counters from rows in memory: the least any count from the graph
costs, the server's part and the reads not included), `tally_of` (the writer's work for
each tally it stores), the payload's size, `parse` and `counts` (a fresh process's, as an
admin and an agent, checked equal to the counters'), and from version 2 on the hubs, most
wanted and a page of each list from the tally (tally_answers.py), checked the same way.
With `--neo4j-uri` (a server whose
database may be written: the tally node alone is written, then deleted) also the
database's part: the writer's store of the tally, and a fresh process's read of the tag
and of the payload, p50/p95 of `--repeat` each. CPU and wall in ms; `uptime` before and
after. Writes bench/results/health_tally.json.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from brain.model import LinkStatus  # noqa: E402
from brain.store.health import HealthAsk  # noqa: E402
from brain.store.health_counts import Facts, HealthIndex  # noqa: E402
from brain.store.neo4j.health import tally  # noqa: E402
from brain.store.neo4j.health.counters import rows  # noqa: E402
from brain.store.neo4j.health.first_count import Kept, kept_link  # noqa: E402
from brain.store.visibility import EVERYTHING, Reach  # noqa: E402

SCOPES = ["shared", "team", "ops", "docs", "eng", "sales", "hr", "alice", "bob"]
NOW = 1_790_000_000


def graph(size: int, seed: int = 1) -> tuple[dict[str, Facts], dict[str, tuple[Kept, ...]]]:
    rng = random.Random(seed)
    ids = []
    for i in range(size):
        scope = rng.choice(SCOPES)
        ids.append(f"memory:{scope}/note-{i:06d}")
    facts = {i: (i.split(":", 1)[1].split("/", 1)[0], NOW - rng.random() * 100 * 86_400,
                 rng.random() < 0.1, rng.random() < 0.1) for i in ids}
    held: dict[str, tuple[Kept, ...]] = {}
    for source in ids:
        found = []
        for _ in range(rng.randint(0, 10)):
            if rng.random() < 0.9:
                found.append(kept_link(rng.choice(ids), LinkStatus.RESOLVED, "x", ()))
            else:
                found.append(kept_link(f"unresolved:missing-{rng.randint(0, size // 20)}", LinkStatus.BROKEN,
                                       "x", ()))
        if found:
            held[source] = tuple(found)
    return facts, held


def timed(fn: Any, *args: Any) -> tuple[Any, float, float]:
    t, c = time.perf_counter(), time.process_time()
    out = fn(*args)
    return out, (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000


def pct(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50": round(statistics.median(ordered), 2),
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2)}


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def one(size: int, uri: str | None, repeat: int) -> dict[str, object]:
    out: dict[str, object] = {"notes": size, "uptime_before": uptime()}
    facts, held = graph(size)
    out["links"] = sum(len(k) for k in held.values())
    index = HealthIndex()
    _, wall, cpu = timed(index.build, facts, ((s, rows(k)) for s, k in held.items()), facts.get)
    out["build"] = {"wall": round(wall, 1), "cpu": round(cpu, 1)}
    payload, wall, cpu = timed(tally.tally_of, index)
    out["tally_of"] = {"wall": round(wall, 1), "cpu": round(cpu, 1)}
    # Again on the same counters: what each later tally costs (the first builds the sorted
    # forms and, from version 2, the agents' sums the answers read; writes keep them in step).
    _, wall, cpu = timed(tally.tally_of, index)
    out["tally_of_again"] = {"wall": round(wall, 1), "cpu": round(cpu, 1)}
    out["payload_chars"] = len(payload)
    parsed, wall, cpu = timed(tally.parse, payload)
    out["parse"] = {"wall": round(wall, 1), "cpu": round(cpu, 1)}
    cutoff = (NOW - 30 * 86_400) // 60 * 60
    for who, reach in (("admin", EVERYTHING), ("agent", Reach.of_agent("alice"))):
        ask = HealthAsk(reach, None, cutoff)
        found, wall, cpu = timed(tally.counts, parsed, ask)
        assert found == index.counts(ask), who  # the tally answers as the counters do
        out[f"{who}.counts"] = {"wall": round(wall, 2), "cpu": round(cpu, 2)}
        if getattr(parsed, "answers", None) is not None:  # version 2 (tally_answers.py)
            out.update(answers(parsed, index, ask, who))
    if uri:
        out.update(on_neo4j(uri, payload, repeat))
    out["uptime_after"] = uptime()
    return out


def answers(parsed: Any, index: HealthIndex, ask: HealthAsk, who: str) -> dict[str, object]:
    """Hubs, most wanted and a page of each list from the tally (a dashboard's: top 10, 21
    keys), each checked equal to the counters', and the time of each."""
    from brain.store.health import HealthList
    from brain.store.neo4j.health import tally_answers

    out: dict[str, object] = {}
    asked: list[tuple[str, Any, Any]] = [
        ("hubs", lambda: tally_answers.hubs(parsed.answers, ask, 10), lambda: index.hubs(ask, 10)),
        ("wanted", lambda: tally_answers.wanted(parsed.answers, ask, 10), lambda: index.most_wanted(ask, 10)),
    ]
    for which in HealthList:
        asked.append((which.value, lambda w=which: tally_answers.page(parsed.answers, ask, w, None, 21),
                      lambda w=which: index.page(ask, w, None, 21)))
    for name, from_tally, from_counters in asked:
        found, wall, cpu = timed(from_tally)
        assert found is not None, (who, name)  # the dashboard's questions are always answered
        assert found == from_counters(), (who, name)
        out[f"{who}.{name}"] = {"wall": round(wall, 2), "cpu": round(cpu, 2)}
    return out


def on_neo4j(uri: str, payload: str, repeat: int) -> dict[str, object]:
    from brain.store.neo4j.store import Neo4jStore
    store = Neo4jStore.connect(uri)
    params = {"graph": "bench", "logId": "bench", "writes": 1, "version": tally.VERSION, "payload": payload}
    writes, tags, reads = [], [], []
    try:
        for _ in range(repeat):
            t = time.perf_counter()
            store._health_write_tally(params)
            writes.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            store._read_database(tally.READ_TAG, {"payload": False, "most": 0})
            tags.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            store._read_database(tally.READ_TAG, {"payload": True, "most": tally.MOST_CHARS})
            reads.append((time.perf_counter() - t) * 1000)
        store._write_query("MATCH (h:BrainHealthTally) DELETE h")
    finally:
        store.close()
    return {"neo4j.store_tally": pct(writes), "neo4j.read_tag": pct(tags), "neo4j.read_payload": pct(reads)}


def main(argv: list[str] | None = None) -> int:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--neo4j-uri")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "health_tally.json")
    args = parser.parse_args(argv)
    results = []
    for size in args.sizes:
        row = one(size, args.neo4j_uri, args.repeat)
        print(json.dumps(row), flush=True)
        results.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
