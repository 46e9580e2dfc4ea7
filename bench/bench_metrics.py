"""The cost of metrics on the API: GraphQL and MCP calls with metrics on and off, interleaved.

    .venv/bin/python bench/bench_metrics.py [--notes 2000] [--agents 16] [--clients 1]
                                            [--seconds 3] [--rounds 6]

Two `brain serve` processes on two copies of one seeded workload (bench/workload.py), one with
BRAIN_METRICS=on and one with BRAIN_METRICS=off. Each round measures, on each server in turn
(the order alternates from round to round, so a drift of the shared machine's load falls on
both alike): bench_api's memory-with-backlinks query (graphql/memory.graphql, a random note)
and bench_mcp's `memory view` of a random note over /mcp. Reported: the median over rounds of
each p50 and p95 and their best round (the least disturbed by the shared machine), and the
cost of metrics at each (on / off - 1); and, free of that noise, the CPU time the counting of
one call takes in process. The goal (issue 41) is a cost under 3% at p95. While measuring,
the "on" server is scraped once a second, as Prometheus would (more often than its usual
15 s: the worst case). Prints `uptime` before
and after (the machine is shared), and writes bench/results/metrics.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack, suppress
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from bench_api import MEMORY, load, start_server  # noqa: E402
from bench_mcp import mcp_load, mcp_view, open_http  # noqa: E402
from bench_tool import Agent, workspace  # noqa: E402

MODES = ("on", "off")


def counting_cost(calls: int = 20_000) -> dict[str, float]:
    """CPU microseconds the counting of one call adds, measured in this process: what metrics
    cost a GraphQL request (the route's counter and histogram, the operation's) and an MCP call
    (the route's, the tool's), without the noise of a shared machine."""
    from starlette.routing import Route

    from brain.api.http.metrics import RouteTemplates, operation_label
    from brain.metrics import Metrics

    metrics = Metrics()
    templates = RouteTemplates([Route("/graphql", lambda r: None), Route("/mcp", lambda r: None)])
    scope = {"type": "http", "method": "POST", "path": "/graphql"}
    started = time.process_time()
    for _ in range(calls):
        route = templates.of(scope)
        metrics.http_requests.labels(route, "POST", "200").inc()
        metrics.http_seconds.labels(route, "POST").observe(0.004)
        operation = operation_label(None, MEMORY)
        metrics.graphql_operations.labels(operation, "ok").inc()
        metrics.graphql_seconds.labels(operation).observe(0.003)
    graphql = (time.process_time() - started) / calls * 1e6
    started = time.process_time()
    for _ in range(calls):
        metrics.http_requests.labels("/mcp", "POST", "200").inc()
        metrics.http_seconds.labels("/mcp", "POST").observe(0.003)
        metrics.mcp_calls.labels("memory", "ok").inc()
        metrics.mcp_seconds.labels("memory").observe(0.002)
    mcp = (time.process_time() - started) / calls * 1e6
    return {"graphql_us": graphql, "mcp_us": mcp}


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


async def scrape_every_second(base: str) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        while True:
            response = await http.get(f"{base}/metrics")
            if response.status_code != 200:
                raise SystemExit(f"/metrics answered {response.status_code}")
            await asyncio.sleep(1.0)


async def measure(args: argparse.Namespace, roots: dict[str, Path], bases: dict[str, str]) -> dict[str, Any]:
    samples: dict[str, dict[str, list[dict[str, float]]]] = {
        kind: {mode: [] for mode in MODES} for kind in ("graphql", "mcp")
    }
    async with AsyncExitStack() as stack:
        sessions, agents, paths = {}, {}, {}
        for mode in MODES:
            info = json.loads((roots[mode] / ".workload.json").read_text())
            agents[mode] = [Agent(name, roots[mode]) for name in info["agent_names"][: args.clients]]
            sessions[mode] = [await open_http(stack, bases[mode], a.name) for a in agents[mode]]
            notes = (roots[mode] / "memory").glob("*/*.md")
            paths[mode] = sorted(str(p.relative_to(roots[mode])) for p in notes)
        scraper = asyncio.create_task(scrape_every_second(bases["on"]))
        try:
            for round_ in range(args.rounds):
                for mode in MODES if round_ % 2 == 0 else MODES[::-1]:
                    chosen = paths[mode]

                    def request(rng: random.Random, chosen: list[str] = chosen) -> dict[str, Any]:
                        return {"query": MEMORY, "variables": {"path": rng.choice(chosen)}}

                    graphql = await load(f"{bases[mode]}/graphql", request, args.clients, args.seconds)
                    mcp = await mcp_load(sessions[mode], agents[mode], mcp_view, args.clients, args.seconds)
                    samples["graphql"][mode].append(graphql)
                    samples["mcp"][mode].append(mcp)
                    print(f"round {round_ + 1} metrics {mode:>3}: GraphQL p50 {graphql['p50_ms']:6.2f} "
                          f"p95 {graphql['p95_ms']:6.2f} ms | MCP p50 {mcp['p50_ms']:6.2f} "
                          f"p95 {mcp['p95_ms']:6.2f} ms", flush=True)
        finally:
            scraper.cancel()
            with suppress(asyncio.CancelledError):
                await scraper
    report: dict[str, Any] = {}
    for kind, by_mode in samples.items():
        # The median over rounds, and the best round (the one the shared machine disturbed least).
        for name, pick in (("median", statistics.median), ("best", min)):
            figures = {mode: {q: pick(r[q] for r in runs) for q in ("p50_ms", "p95_ms")}
                       for mode, runs in by_mode.items()}
            cost = {q: figures["on"][q] / figures["off"][q] - 1 for q in ("p50_ms", "p95_ms")}
            report[f"{kind}_{name}"] = {**figures, "cost": cost}
            off, on = figures["off"], figures["on"]
            print(f"{kind:>8} {name:>6}: p50 {off['p50_ms']:6.2f} -> {on['p50_ms']:6.2f} ms "
                  f"({cost['p50_ms']:+.1%}), p95 {off['p95_ms']:6.2f} -> {on['p95_ms']:6.2f} ms "
                  f"({cost['p95_ms']:+.1%})", flush=True)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=2_000)
    parser.add_argument("--agents", type=int, default=16)
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    args = parser.parse_args()
    load_before = uptime()
    print(load_before, flush=True)
    counting = counting_cost()
    print(f"counting one call, in process: GraphQL {counting['graphql_us']:.1f} us, "
          f"MCP {counting['mcp_us']:.1f} us of CPU", flush=True)
    with tempfile.TemporaryDirectory(prefix="brain-bench-metrics-") as scratch:
        roots = {mode: workspace(args.notes, args.agents, args.cache, Path(scratch) / mode) for mode in MODES}
        processes, bases = [], {}
        try:
            for mode in MODES:
                os.environ["BRAIN_METRICS"] = mode  # read by the server's operator settings
                process, url, ready_s = start_server(roots[mode], "memory")
                processes.append(process)
                bases[mode] = url.removesuffix("/graphql")
                print(f"brain serve (metrics {mode}) on {args.notes} notes: ready in {ready_s:.2f} s",
                      flush=True)
            if httpx.get(f"{bases['off']}/metrics").status_code != 404:
                raise SystemExit("the server started with BRAIN_METRICS=off answers /metrics")
            report = asyncio.run(measure(args, roots, bases))
        finally:
            for process in processes:
                process.terminate()
                process.wait(30)
    load_after = uptime()
    print(load_after, flush=True)
    report.update({"counting_cpu_us": counting, "notes": args.notes, "clients": args.clients,
                   "seconds": args.seconds,
                   "rounds": args.rounds, "cpus": os.cpu_count(), "uptime_before": load_before,
                   "uptime_after": load_after})
    out = HERE / "results" / "metrics.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
