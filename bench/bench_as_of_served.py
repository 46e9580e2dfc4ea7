"""What each `asOf` question costs through a served app, for the admin and for an agent's
token, base code against changed code interleaved (issue 44).

    .venv/bin/python bench/bench_as_of_served.py --base /tmp/base-tree [--notes 10000]
        [--changes 5000] [--days 30] [--profile default|real] [--runs 6] [--only NAME,...]

Writes bench/workload.py's workspace and bench_as_of.py's history (tool writes and outside
edits spread over `--days`), copies it twice, and starts two `brain serve` processes on the
copies: one running the code at `--base` (PYTHONPATH), one this tree's. Each waits until its
kept as-of counts are walked (`.brain/history/stats-v2.jsonl` holds a line a record). Then
each question is asked `--runs` times of each server, alternately (which goes first flips each
run), each run at another moment spread over the history (a moment a whole-moment build
keeps is not asked twice), as the admin and as one of the workload's agents. A question is
GraphQL over HTTP; its wall time is the client's, its CPU the server process's (utime+stime
from /proc, 10 ms ticks). Prints p50/p95 of both, per server, the load average before and
after, and a JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
from bench_api import percentiles  # noqa: E402
from bench_as_of import DAY, build_history  # noqa: E402
from workload import generate  # noqa: E402

ADMIN = "bench-admin"
ROW = "scope notes links broken ambiguous missingAnchor orphans withoutDescription withoutType"
# name -> (query with %(when)s, asked by the agent's token too)
QUESTIONS: dict[str, tuple[str, bool]] = {
    "health_counts": ("{ memoryHealth(asOf: \"%(when)s\") { total { " + ROW + " } scopes { " + ROW + " } } }",
                      True),
    "health_scope": ("{ memoryHealth(asOf: \"%(when)s\", scope: \"shared\") { total { " + ROW + " } } }",
                     True),
    "health_lists": ("{ memoryHealth(asOf: \"%(when)s\") { mostWanted(first: 10) { notes } "
                     "hubs(first: 10) { links } orphans(first: 20) { totalCount nodes { id } } } }", True),
    "memory_note": ("{ memory(path: \"%(path)s\", asOf: \"%(when)s\") { path description "
                    "links { status targetId } problems { code } } }", False),
    "stats": ("{ stats(asOf: \"%(when)s\") { memories links broken } }", False),
    "link_report": ("{ linkReport(asOf: \"%(when)s\") { total errors warnings byCode { code count } } }",
                    False),
    "memories_total": ("{ memories(asOf: \"%(when)s\", filter: {scope: \"shared\"}) { totalCount } }", False),
    "memories_page": ("{ memories(asOf: \"%(when)s\", first: 20) { totalCount nodes { path description } } }",
                      False),
    "most_wanted": ("{ linkReport(asOf: \"%(when)s\") { mostWanted { count } } }", False),
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def cpu_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Server:
    def __init__(self, name: str, code: Path, root: Path, tokens: Path) -> None:
        self.name, self.root, self.port = name, root, free_port()
        env = {**os.environ, "PYTHONPATH": str(code), "BRAIN_TOKEN": ADMIN, "BRAIN_TOKENS_FILE": str(tokens)}
        self.log = open(root.parent / f"{name}.log", "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "brain", "serve", str(root), "--port", str(self.port), "--no-cache",
             "--log-level", "warning"], env=env, cwd=str(code), stdout=self.log, stderr=subprocess.STDOUT)
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=600)

    def ask(self, query: str, token: str) -> tuple[float, float, Any]:
        c0, t0 = cpu_of(self.proc.pid), time.perf_counter()
        response = self.http.post("/graphql", headers={"Authorization": f"Bearer {token}"},
                                  json={"query": query})
        wall, cpu = time.perf_counter() - t0, cpu_of(self.proc.pid) - c0
        try:
            answer = response.json()
        except ValueError:
            raise SystemExit(f"{self.name}: {response.status_code} {response.text[:300]!r}") from None
        if "errors" in answer:
            raise SystemExit(f"{self.name}: {answer['errors']} for {query}")
        return wall, cpu, answer["data"]

    def wait(self, records: int) -> float:
        t0 = time.perf_counter()
        while True:
            try:
                if self.http.get("/healthz").status_code == 200:
                    break
                time.sleep(1)
            except httpx.HTTPError:
                if self.proc.poll() is not None:
                    raise SystemExit(f"{self.name} exited: see {self.log.name}") from None
                time.sleep(1)
        series = self.root / ".brain/history/stats-v2.jsonl"
        while not series.exists() or len(series.read_bytes().splitlines()) < records + 1:
            time.sleep(1)
        return time.perf_counter() - t0

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(60)
        self.http.close()
        self.log.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", type=Path, required=True, help="a checkout of the code to compare with")
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--changes", type=int, default=5_000)
    parser.add_argument("--days", type=float, default=30.0)
    parser.add_argument("--profile", choices=("default", "real"), default="default")
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--only", default="", help="question names, comma separated")
    args = parser.parse_args()
    names = [n for n in QUESTIONS if not args.only or n in args.only.split(",")]
    now = time.time()
    out: dict[str, Any] = {"profile": args.profile, "notes": args.notes, "changes": args.changes,
                           "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        made = Path(tmp) / "made"
        generate(made, args.notes, profile=args.profile)
        build_history(made, args.changes, args.days, now)
        agents = sorted(p.name for p in (made / "memory").iterdir() if p.is_dir() and p.name != "shared")
        agent = agents[0]
        tokens = Path(tmp) / "tokens.json"
        tokens.write_text(json.dumps({f"tok-{a}": a for a in agents}))
        shared = sorted((made / "memory/shared").rglob("*.md"))
        path = str(shared[0].relative_to(made)) if shared else ""
        servers = []
        for name, code in (("base", args.base.resolve()), ("change", HERE.parent)):
            root = Path(tmp) / name / "ws"
            root.parent.mkdir()
            shutil.copytree(made, root, symlinks=True)
            servers.append(Server(name, code, root, tokens))
        try:
            for server in servers:
                took = server.wait(args.changes)
                kept = (server.root / ".brain/history/stats-v2.jsonl").stat().st_size
                out[f"{server.name}_series_bytes_per_change"] = round(kept / args.changes, 1)
                print(f"{server.name}: served and counts walked in {took:.0f} s (after the one before); "
                      f"kept counts {kept / args.changes:.0f} bytes a change", flush=True)
            results: dict[str, Any] = {}
            pairs = [(name, who, token) for name in names
                     for who, token in (("admin", ADMIN), ("agent", f"tok-{agent}"))
                     if who == "admin" or QUESTIONS[name][1]]
            for p, (name, who, token) in enumerate(pairs):
                query = QUESTIONS[name][0]
                # Every ask of every question at its own moment, far from the others' (a built
                # moment is kept, and a moment near a kept one is built from it).
                moments = [now - args.days * DAY * (i * len(pairs) + p + 0.5) / (args.runs * len(pairs) + 1)
                           for i in range(args.runs)]
                if True:
                    samples: dict[str, dict[str, list[float]]] = {
                        s.name: {"wall": [], "cpu": []} for s in servers}
                    for i, at in enumerate(moments):
                        when = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(at))
                        order = servers if i % 2 == 0 else servers[::-1]
                        answers = []
                        for server in order:
                            wall, cpu, data = server.ask(query % {"when": when, "path": path}, token)
                            samples[server.name]["wall"].append(wall)
                            samples[server.name]["cpu"].append(cpu)
                            answers.append(data)
                        if answers[0] != answers[1]:
                            raise SystemExit(f"{name} as {who} at {when}: base and change differ\n{answers}")
                    row = {s: {k: percentiles(v) for k, v in got.items()} for s, got in samples.items()}
                    results[f"{name}/{who}"] = row
                    print(f"{name:15} {who:5} " + "  ".join(
                        f"{s}: wall p50/p95 {r['wall']['p50_ms']:.0f}/{r['wall']['p95_ms']:.0f} ms "
                        f"cpu {r['cpu']['p50_ms']:.0f}/{r['cpu']['p95_ms']:.0f} ms" for s, r in row.items()),
                        flush=True)
            out["results"] = results
        finally:
            for server in servers:
                server.stop()
    out["load_after"] = os.getloadavg()
    print(f"load before {out['load_before']} after {out['load_after']}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
