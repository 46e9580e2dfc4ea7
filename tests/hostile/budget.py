"""Run one hostile case in a child process under a hard time and memory limit.

A regression in a hostile-input class (an alias bomb that expands again, a quadratic loop
that comes back) must turn a test red, never hang CI or take the machine's memory. So each
case runs in its own process with `RLIMIT_AS` (and `RLIMIT_CPU` as a backstop) set before it
starts, is killed at its wall-clock budget, and reports its elapsed time and peak RSS (from
`os.wait4`, whose rusage is that child's alone, so it is known even for a killed child).
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

MIB = 1024 * 1024
DEFAULT_SECONDS = 20.0
DEFAULT_MEMORY = 1024 * MIB  # address space, not RSS: the interpreter and its imports map a lot


@dataclass(frozen=True, slots=True)
class Outcome:
    returncode: int | None  # None: killed at its time budget
    seconds: float
    peak_rss_mib: float
    stdout: str
    stderr: str

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    def summary(self) -> str:
        state = "TIMEOUT" if self.timed_out else f"rc={self.returncode}"
        return f"{state} {self.seconds:.3f} s, peak RSS {self.peak_rss_mib:.0f} MiB"


def _limits(memory: int, seconds: float) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        cpu = int(seconds) + 2
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        os.setsid()  # its own process group: the kill below takes its children too

    return apply


# The case's peak RSS must be its own. A fork starts from the forking process's RSS, and the
# kernel keeps that high-water mark in ru_maxrss across exec: forked from a pytest-xdist
# worker that holds 400 MB, every case "peaked" at 400 MB. So a small interpreter forks the
# case, waits for it and reports its rusage on a pipe; a signal that ended the case ends the
# interpreter the same way, so the exit code reads as before.
_TRAMPOLINE = """
import os, signal, sys
report, argv = int(sys.argv[1]), sys.argv[2:]
pid = os.fork()
if pid == 0:
    os.close(report)
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
os.write(report, str(usage.ru_maxrss).encode())
code = os.waitstatus_to_exitcode(status)
if code < 0:
    if -code not in (signal.SIGKILL, signal.SIGSTOP):
        signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
os._exit(code)
"""


def run_limited(
    argv: Sequence[str],
    *,
    seconds: float = DEFAULT_SECONDS,
    memory: int = DEFAULT_MEMORY,
    cwd: Path | None = None,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
) -> Outcome:
    """Run `argv` with the limits; never waits longer than `seconds` (plus the kill)."""
    started = time.perf_counter()
    report, report_w = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", _TRAMPOLINE, str(report_w), *argv], cwd=cwd, env=env,
        preexec_fn=_limits(memory, seconds), pass_fds=(report_w,),
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    os.close(report_w)
    streams, readers = drained(proc.stdout, proc.stderr)
    if proc.stdin is not None:
        threading.Thread(target=_feed, args=(proc.stdin, stdin or b""), daemon=True).start()
    returncode: int | None = None
    deadline = started + seconds
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            returncode = os.waitstatus_to_exitcode(status)
            break
        if time.perf_counter() >= deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            _, _, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.005)
    proc.returncode = returncode if returncode is not None else -9  # reaped here, not by Popen
    elapsed = time.perf_counter() - started
    with os.fdopen(report, "rb") as reported:
        own = reported.read()  # empty when the case was killed at its time budget
    peak_kib = int(own) if own else usage.ru_maxrss
    return outcome(returncode, elapsed, peak_kib, streams, readers)


def drained(
    out: IO[bytes] | None, err: IO[bytes] | None,
) -> tuple[dict[str, bytes], list[threading.Thread]]:
    """A child's stdout and stderr read to their ends, each on a thread of its own (a full pipe
    would stall the child): what they read lands in the dict under "out" and "err"."""
    streams: dict[str, bytes] = {}
    readers = [threading.Thread(target=_drain, args=(fh, streams, name), daemon=True)
               for name, fh in (("out", out), ("err", err))]
    for reader in readers:
        reader.start()
    return streams, readers


def outcome(
    code: int | None, elapsed: float, peak_kib: int, streams: dict[str, bytes],
    readers: list[threading.Thread],
) -> Outcome:
    """The case's Outcome once its readers are done (or given up on after 5 s each)."""
    for reader in readers:
        reader.join(5)
    return Outcome(
        code, elapsed, peak_kib / 1024,
        streams.get("out", b"").decode("utf-8", "replace"),
        streams.get("err", b"").decode("utf-8", "replace"),
    )


def _drain(pipe: IO[bytes] | None, into: dict[str, bytes], name: str) -> None:
    if pipe is not None:
        into[name] = pipe.read()


def _feed(pipe: IO[bytes], data: bytes) -> None:
    try:
        pipe.write(data)
        pipe.close()
    except OSError:  # the child exited without reading it all
        pass


def python_case(
    code: str,
    *,
    seconds: float = DEFAULT_SECONDS,
    memory: int = DEFAULT_MEMORY,
    cwd: Path | None = None,
    stdin: bytes | None = None,
    source: Path | None = None,
) -> Outcome:
    """Run Python `code` in a limited child; `source`: import brain from that checkout instead."""
    return run_limited(
        [sys.executable, "-c", _prelude(source) + code], seconds=seconds, memory=memory, cwd=cwd, stdin=stdin
    )


def _prelude(source: Path | None) -> str:
    """Code that makes `import brain` load the checkout at `source` (for before/after figures)."""
    if source is None:
        return ""
    return (
        "import sys\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]\n"
        f"sys.path.insert(0, {str(source)!r})\n"
    )


def brain_case(
    args: Sequence[str],
    *,
    seconds: float = DEFAULT_SECONDS,
    memory: int = DEFAULT_MEMORY,
    cwd: Path | None = None,
    stdin: bytes | None = None,
    source: Path | None = None,
) -> Outcome:
    """Run the `brain` CLI in a limited child."""
    code = f"import sys\nfrom brain.cli.main import main\nsys.exit(main({list(args)!r}))\n"
    return python_case(code, seconds=seconds, memory=memory, cwd=cwd, stdin=stdin, source=source)


# bench/bench_hostile.py sets this to take "before" figures on an older checkout: servers the
# cases start (`brain lsp`, `brain serve`) then import brain from there too.
SOURCE_ENV = "BRAIN_HOSTILE_SOURCE"


def brain_argv(args: Sequence[str]) -> list[str]:
    """The command line of `brain ARGS` (`python -m brain`), from BRAIN_HOSTILE_SOURCE if set."""
    source = os.environ.get(SOURCE_ENV)
    if not source:
        return [sys.executable, "-m", "brain", *args]
    code = _prelude(Path(source)) + f"from brain.cli.main import main\nsys.exit(main({list(args)!r}))\n"
    return [sys.executable, "-c", code]
