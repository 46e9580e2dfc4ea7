"""Budgeted `brain` cases forked from one interpreter that imported brain once (a fork server).

Each hostile CLI case ran `python -c "...main(argv)"` under its limits (budget.py), and about
0.45 s of CPU of each was the interpreter starting and importing brain, before the case's
first byte was read: most of a case's cost in test_check's 27 cases. Here one small server
process per test process imports brain once; each case is a child forked from it that is what
the child of budget.py was: its own process and process group, `RLIMIT_AS` and `RLIMIT_CPU`
set before the case runs, stdin/stdout/stderr on pipes of the test's (passed over a Unix
socket), `main(argv)` run at the top level so that `sys.exit`, an uncaught exception and the
interpreter's shutdown end it as they end `python -c`, killed with its group at its wall-clock
budget, and its peak RSS from `wait4`. Every case forks from the server as it was after the
import, never from an earlier case, so no case sees another's state.

What differs from budget.py's fresh process, and why it does not weaken a case: the import is
no longer inside the case's time and CPU budget (it was the same 0.45 s in every case, not
the hostile input's cost); the peak RSS starts from the server's (brain imported, as a fresh
case's is once it has imported brain). A case gets the fork server of the environment it
is run in (a test that sets a variable gets one of its own). Benchmarks (bench/bench_hostile.py)
keep budget.py's fresh processes.
"""

from __future__ import annotations

import atexit
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from tests.hostile.budget import (
    DEFAULT_MEMORY,
    DEFAULT_SECONDS,
    Outcome,
    _feed,
    drained,
    outcome,
    run_limited,
)
from tests.hostile.budget import brain_case as fresh_brain_case

REPO = Path(__file__).resolve().parents[2]
UNLIMITED = resource.RLIM_INFINITY  # `memory=` of a case that only needs the time limit

_SERVER = r"""
import json, os, resource, socket, sys
channel = socket.socket(fileno=int(sys.argv[1]))
import brain.cli.main, brain.service.brain  # what every `brain` case imports before its work
channel.sendall(b"ready\n")
while True:
    message, fds, _, _ = socket.recv_fds(channel, 65536, 3)
    if not message:
        os._exit(0)
    case = json.loads(message)
    pid = os.fork()
    if pid == 0:
        channel.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        os.setsid()  # its own process group: the kill at the budget takes its children too
        resource.setrlimit(resource.RLIMIT_AS, (case["memory"], case["memory"]))
        resource.setrlimit(resource.RLIMIT_CPU, (case["cpu"], case["cpu"] + 1))
        os.chdir(case["cwd"])
        sys.argv = ["-c"]
        break
    for fd in fds:
        os.close(fd)
    channel.sendall(b"%d\n" % pid)
    _, status, usage = os.wait4(pid, 0)
    channel.sendall(b"%d %d\n" % (os.waitstatus_to_exitcode(status), usage.ru_maxrss))
# The forked case, at the top level as in `python -c`: its exit, exception and shutdown are one's.
del channel, message, fds, pid
if case["module"]:  # `python -m brain ARGS`: brain/__main__.py's program(), with its exits
    sys.argv = [os.path.join(os.path.dirname(brain.__file__), "__main__.py"), *case["args"]]
    from brain.cli.main import program
    program()
from brain.cli.main import main
sys.exit(main(case["args"]))
"""


def _environment() -> dict[str, str]:
    """The environment a case would start with, less pytest's name of the running test."""
    return {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}


class _Server:
    def __init__(self) -> None:
        self.env = _environment()
        mine, theirs = socket.socketpair()
        self.channel = mine
        self.lines = mine.makefile("rb")
        self.process = subprocess.Popen(
            [sys.executable, "-c", _SERVER, str(theirs.fileno())], pass_fds=(theirs.fileno(),),
            cwd=REPO, stdin=subprocess.DEVNULL,
        )
        theirs.close()
        if self.lines.readline() != b"ready\n":
            raise RuntimeError("the hostile fork server did not start")
        self.lock = threading.Lock()

    def close(self) -> None:
        self.lines.close()  # the socket's file holds it open: both go, and the server reads EOF
        self.channel.close()
        self.process.wait(10)


_servers: dict[frozenset[tuple[str, str]], _Server] = {}
_MOST = 3  # fork servers kept by one test process, one per environment the cases ran in


def _get() -> _Server | None:
    """The fork server of the current environment (a case started by budget.py would see it),
    or None once a test process has used _MOST environments: a fresh process then."""
    env = frozenset(_environment().items())
    if env not in _servers and len(_servers) < _MOST:
        _servers[env] = _Server()
        atexit.register(_servers[env].close)
    return _servers.get(env)


def brain_case(
    args: Sequence[str],
    *,
    seconds: float = DEFAULT_SECONDS,
    memory: int = DEFAULT_MEMORY,
    cwd: Path | None = None,
    stdin: bytes | None = None,
    as_module: bool = False,
) -> Outcome:
    """Run the `brain` CLI in a limited child forked from the fork server (budget.brain_case's
    twin): never waits longer than `seconds` (plus the kill). `as_module`: as `python -m brain`
    runs it (brain/__main__.py's `program()`, which leaves `check` without the teardown), not
    as `main(args)` from `python -c`; `memory=UNLIMITED`: no address-space limit."""
    server = _get()
    if server is None:
        if as_module:
            argv = [sys.executable, "-m", "brain", *args]
            return run_limited(argv, seconds=seconds, memory=memory, cwd=cwd, stdin=stdin)
        return fresh_brain_case(args, seconds=seconds, memory=memory, cwd=cwd, stdin=stdin)
    with server.lock:
        return _run(server, list(args), seconds, memory, cwd, stdin, as_module)


def _run(server: _Server, args: list[str], seconds: float, memory: int, cwd: Path | None,
         stdin: bytes | None, as_module: bool) -> Outcome:
    started = time.perf_counter()
    in_r, in_w = os.pipe() if stdin is not None else (os.open(os.devnull, os.O_RDONLY), -1)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    case = {"args": args, "memory": memory, "cpu": int(seconds) + 2, "cwd": str(cwd or os.getcwd()),
            "module": as_module}
    socket.send_fds(server.channel, [json.dumps(case).encode()], [in_r, out_w, err_w])
    for fd in (in_r, out_w, err_w):
        os.close(fd)
    pid = int(server.lines.readline())
    streams, readers = drained(os.fdopen(out_r, "rb"), os.fdopen(err_r, "rb"))
    if stdin is not None:
        threading.Thread(target=_feed, args=(os.fdopen(in_w, "wb"), stdin), daemon=True).start()
    ended: list[bytes] = []
    waiter = threading.Thread(target=lambda: ended.append(server.lines.readline()), daemon=True)
    waiter.start()
    waiter.join(max(0.0, started + seconds - time.perf_counter()))
    killed = waiter.is_alive()
    if killed:  # its own group (setsid), or the child itself if it has not got that far
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            os.kill(pid, signal.SIGKILL)
        waiter.join()
    code, peak_kib = (int(part) for part in ended[0].split())
    elapsed = time.perf_counter() - started
    return outcome(None if killed else code, elapsed, peak_kib, streams, readers)
