"""`brain maintain` on the 10,000- and 100,000-note workloads, with duplicates and near-duplicates.

    .venv/bin/python bench/bench_maintain.py [--sizes 10000 100000] [--runs 3]

The design.md section 7 workload (bench/workload.py), then seeded, deterministically, with the
mess maintenance exists for: 2% of the notes copied as exact duplicates (an older copy beside
the original), 1% as near-duplicates (one sentence changed: the model's job, not the
deterministic pass's), and 0.5% given a link with a one-letter typo of a note of their scope.
The seeding is rewritten before every run, so an `--apply` run never eats the next run's mess.

Measured in a fresh process per run (so peak RSS is that run's own):
* read: the first ingest (what `brain maintain` pays before the pass; a served graph has it);
* pass: the deterministic pass over the graph (`find`): what `maintenanceReport`, the
  scheduled run and `brain maintain` spend after reading; median of 3 inside each run, wall
  and CPU time (on a machine shared with other work the CPU time is the steadier figure);
* apply: `maintain(apply=True)` at the default cap of 20 changes: a pass, then 20 memory-tool
  writes, each fsynced with its history record (the fsyncs are most of it);
* cli: `brain maintain WORKSPACE --format json` end to end, as a user runs it, without a
  startup snapshot (cold: it reads every note, then writes one) and again with it (warm).
Prints medians and writes bench/results/maintain.json. Goal: the pass under 2 s at 10,000.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from workload import generate  # noqa: E402

DRIVER = """
import json, resource, statistics, sys, time
from pathlib import Path
from brain.service.brain import Brain
from brain.maintain import find, maintain
from brain.tool import attach_memory_service
from brain.tool.history.log import History
from brain.tool.service import MemoryService
root = Path(sys.argv[1])
brain = Brain(root)
t0 = time.perf_counter(); brain.sync(); read = time.perf_counter() - t0
passes, cpu = [], []
for _ in range(3):
    t0, c0 = time.perf_counter(), time.process_time()
    report = find(brain)
    passes.append(time.perf_counter() - t0); cpu.append(time.process_time() - c0)
service = MemoryService(root, brain, history=History(Path(sys.argv[2])))
attach_memory_service(brain, service)
t0 = time.perf_counter()
applied = maintain(brain, apply=True, service=service)
apply = time.perf_counter() - t0
print(json.dumps({
    "read_s": read, "pass_s": statistics.median(passes), "pass_cpu_s": statistics.median(cpu),
    "apply_s": apply,
    "findings": len(report.findings), "counts": report.counts(), "safe": len(report.safe),
    "applied": sum(1 for a in applied.applied if a.ok),
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""

CLI = """
import resource, subprocess, sys, time, json
t0 = time.perf_counter()
done = subprocess.run([sys.executable, "-m", "brain", "maintain", sys.argv[1], "--format", "json"],
                      capture_output=True, text=True)
seconds = time.perf_counter() - t0
print(json.dumps({"cli_s": seconds, "cli_exit": done.returncode,
                  "cli_peak_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def workspace(size: int, cache: Path) -> Path:
    root = cache / f"workload-{size}"
    if not (root / ".workload.json").exists():
        generate(root, size)
    return root


def seed(root: Path, seed: int = 7) -> dict[str, int]:
    """Write the duplicates, near-duplicates and typo links (the same bytes every time)."""
    rng = random.Random(seed)
    notes = sorted(p for p in (root / "memory").glob("*/*.md") if not p.stem.endswith(("-copy", "-near")))
    counts = {"duplicates": 0, "near_duplicates": 0, "typo_links": 0}
    for path in rng.sample(notes, len(notes) // 50):
        copy = path.with_name(path.stem + "-copy.md")
        copy.write_bytes(path.read_bytes())
        stamp = path.stat().st_mtime - 86_400
        os.utime(copy, (stamp, stamp))
        counts["duplicates"] += 1
    for path in rng.sample(notes, len(notes) // 100):
        near = path.with_name(path.stem + "-near.md")
        text = path.read_text(encoding="utf-8") + "\nOne more sentence, revised later.\n"
        near.write_text(text, encoding="utf-8")
        counts["near_duplicates"] += 1
    typo_file = root / ".typos.json"
    originals: dict[str, str] = json.loads(typo_file.read_text()) if typo_file.exists() else {}
    for rel, text in originals.items():  # undo the last run's fixes, then seed again
        (root / rel).write_text(text, encoding="utf-8")
    for path in rng.sample(notes, len(notes) // 200):
        siblings = [p.stem for p in path.parent.glob("*.md") if p != path and len(p.stem) > 10]
        target = rng.choice(siblings)
        i = rng.randrange(2, len(target) - 2)
        typo = target[:i] + target[i + 1] + target[i] + target[i + 2 :]
        rel = str(path.relative_to(root))
        text = originals.get(rel) or path.read_text(encoding="utf-8")
        originals[rel] = text
        path.write_text(text + f"\nSee also [[{typo}]].\n", encoding="utf-8")
        counts["typo_links"] += 1
    typo_file.write_text(json.dumps(originals))
    return counts


def run_once(root: Path, scratch: Path, cli: bool = True) -> dict[str, float]:
    history = scratch / "history.jsonl"
    history.unlink(missing_ok=True)
    out = subprocess.run(
        [sys.executable, "-c", DRIVER, str(root), str(history)], check=True, capture_output=True,
        text=True,
    )
    result: dict[str, float] = json.loads(out.stdout)
    seed(root)
    if cli:
        snapshots = scratch / "snapshots"
        env = {**os.environ, "BRAIN_SNAPSHOT_DIR": str(snapshots)}
        for old in snapshots.glob("*.snapshot"):
            old.unlink()
        done = subprocess.run(
            [sys.executable, "-c", CLI, str(root)], check=True, capture_output=True, text=True, env=env
        )
        result.update(json.loads(done.stdout))
        warm = subprocess.run(
            [sys.executable, "-c", CLI, str(root)], check=True, capture_output=True, text=True, env=env
        )
        result.update({f"warm_{k}": v for k, v in json.loads(warm.stdout).items()})
    else:
        result.update({"cli_s": float("nan"), "cli_peak_rss_mb": float("nan"),
                       "warm_cli_s": float("nan"), "warm_cli_peak_rss_mb": float("nan")})
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=3)
    # Its own cache: the seeding rewrites notes, which must not disturb other benchmarks' copies.
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench-maintain"))
    parser.add_argument("--no-cli", action="store_true", help="skip the end-to-end `brain maintain` run")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "maintain.json")
    args = parser.parse_args()
    report: dict[str, object] = {"cpus": os.cpu_count(), "runs": args.runs, "sizes": {}}
    scratch = args.cache / "maintain-scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    for size in args.sizes:
        root = workspace(size, args.cache)
        seeded = seed(root)
        runs = []
        for _ in range(args.runs if size < 100_000 else 1):
            seed(root)
            runs.append(run_once(root, scratch, cli=not args.no_cli))
        numbers = [k for k, v in runs[0].items() if isinstance(v, float | int)]
        med = {k: statistics.median(float(r[k]) for r in runs) for k in numbers}
        summary = {
            "runs": len(runs), "seeded": seeded,
            "read_s_median": round(med["read_s"], 2),
            "pass_s_median": round(med["pass_s"], 3),
            "pass_cpu_s_median": round(med["pass_cpu_s"], 3),
            "apply_s_median": round(med["apply_s"], 3),
            "cli_s_median": round(med["cli_s"], 2),
            "warm_cli_s_median": round(med["warm_cli_s"], 2),
            "warm_cli_peak_rss_mb": round(med["warm_cli_peak_rss_mb"], 1),
            "load": "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()),
            "peak_rss_mb": round(med["peak_rss_mb"], 1),
            "cli_peak_rss_mb": round(med["cli_peak_rss_mb"], 1),
            "findings": int(med["findings"]), "safe": int(med["safe"]), "applied": int(med["applied"]),
            "counts": runs[0]["counts"],
            "all_pass_s": [round(float(r["pass_s"]), 3) for r in runs],
        }
        report["sizes"][str(size)] = summary  # type: ignore[index]
        print(
            f"{size:>7} notes (+{seeded['duplicates']} duplicates, +{seeded['near_duplicates']} near, "
            f"+{seeded['typo_links']} typo links): pass {summary['pass_s_median']} s "
            f"(CPU {summary['pass_cpu_s_median']} s), "
            f"read {summary['read_s_median']} s, "
            f"apply(20) {summary['apply_s_median']} s, cli {summary['cli_s_median']} s "
            f"(warm {summary['warm_cli_s_median']} s); {summary['load']}; "
            f"peak RSS {summary['peak_rss_mb']} MB (cli {summary['cli_peak_rss_mb']} MB); "
            f"{summary['findings']} findings {summary['counts']}",
            flush=True,
        )
    out = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
