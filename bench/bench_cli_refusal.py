"""CPU of the `brain` command until it refuses a bad operator setting, and of `brain serve`
until it is ready: the tests run the first kind dozens of times (tests/hostile/
test_operator_config.py, tests/api/test_cli_serve.py), users when they mistype a setting.

    .venv/bin/python bench/bench_cli_refusal.py [--runs 5] [--notes 1000] [--baseline /tmp/base]

Each run is a fresh `python -m brain ...` process; its CPU (user + system) is the kernel's
count, read by wait4 for a refusal and from /proc at ready for a serve (it moves far less
with the machine's load than the wall clock). With `--baseline` (a checkout of other brain
code, e.g. `git worktree add /tmp/base main`) its runs and this code's alternate, so both see
the same load. Workspaces, two shapes: a one-note workspace for the refusals, and for the
serve both examples/workspace and a generated one of `--notes` notes (bench/workload.py).
Prints medians and the load average.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_warm_serve import cpu_s, free_port, get_json

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
REFUSALS: dict[str, tuple[list[str], dict[str, str]]] = {
    "serve, bad --set": (["serve", "{ws}", "--port", "0", "--set", "log.format=xml"], {}),
    "config show, bad --set": (["config", "show", "{ws}", "--set", "log.format=xml"], {}),
    "ingest, bad variable": (["ingest", "{ws}"], {"BRAIN_LOG_LEVEL": "loud"}),
}


def env_for(code: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("BRAIN_", "NEO4J_"))}
    return {**clean, "PYTHONPATH": str(code)}


def refusal_cpu(code: Path, case: tuple[list[str], dict[str, str]], ws: Path) -> float:
    """CPU seconds of one `brain ...` that must exit 2 (a refused setting)."""
    words, variables = case
    argv = [sys.executable, "-m", "brain", *(w.replace("{ws}", str(ws)) for w in words)]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=env_for(code) | variables, cwd=code)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 2:
        raise SystemExit(f"{' '.join(words)} did not refuse: {status}")
    return usage.ru_utime + usage.ru_stime


def ready_cpu(code: Path, ws: Path) -> float:
    """CPU seconds of a cold `brain serve` (no snapshot) until /healthz answers 200."""
    port = free_port()
    with tempfile.TemporaryDirectory() as cache:
        env = {**env_for(code), "BRAIN_CACHE_DIR": cache, "BRAIN_RESCAN_SECONDS": "3600"}
        process = subprocess.Popen(
            [sys.executable, "-m", "brain", "serve", str(ws), "--port", str(port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=code)
        try:
            started = time.monotonic()
            while get_json(f"http://127.0.0.1:{port}/healthz")[0] != 200:
                if process.poll() is not None or time.monotonic() - started > 600:
                    raise SystemExit("brain serve did not get ready")
                time.sleep(0.02)
            return float(cpu_s(process.pid))
        finally:
            process.terminate()
            process.wait(60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--baseline", type=Path, help="a checkout of the code to compare with")
    parser.add_argument("--no-serve", action="store_true", help="only the refusals")
    args = parser.parse_args()
    codes = {"this": REPO} | ({"base": args.baseline.resolve()} if args.baseline else {})
    work = Path(tempfile.mkdtemp(prefix="bench-cli-refusal-"))
    one = work / "one"
    (one / "memory" / "alice").mkdir(parents=True)
    (one / "memory" / "alice" / "note.md").write_text("---\ndescription: A note.\n---\nhello\n")
    workloads = {"one note": one}
    if not args.no_serve:
        generated = work / f"generated-{args.notes}"
        subprocess.run([sys.executable, str(HERE / "workload.py"), str(generated),
                        "--notes", str(args.notes)], check=True, stdout=subprocess.DEVNULL)
        example = Path(shutil.copytree(REPO / "examples" / "workspace", work / "example"))
        workloads |= {"examples/workspace": example,
                      f"generated {args.notes} notes": generated}
    cases: list[tuple[str, str]] = [(name, "one note") for name in REFUSALS]
    if not args.no_serve:
        cases += [("serve to ready", w) for w in workloads if w != "one note"]
    figures: dict[tuple[str, str, str], list[float]] = {}
    for _ in range(args.runs):
        for case, workload in cases:
            for label, code in codes.items():  # interleaved: this, base, this, base...
                ws = workloads[workload]
                cpu = (ready_cpu(code, ws) if case == "serve to ready"
                       else refusal_cpu(code, REFUSALS[case], ws))
                figures.setdefault((case, workload, label), []).append(cpu)
    print(f"load average {os.getloadavg()}; medians of {args.runs} runs, CPU s (user+sys)")
    for (case, workload, label), values in figures.items():
        print(f"{case:24} {workload:22} {label:5} median {statistics.median(values):6.2f}  "
              f"min {min(values):6.2f}  max {max(values):6.2f}")


if __name__ == "__main__":
    main()
