"""Under CI (CI=true) a skip that CI did not plan fails the run, and every run counts its skips.

A test skips when a part it needs is missing (Neo4j, Chromium, code-server, Neovim, the MCP
Inspector, the semantic model, the native scanners). On a laptop that is a convenience; in CI
it would let a broken set-up pass green, the missing part's tests never run. So in CI each
skip is turned into a failure that names its reason, unless it is in PLANNED below: a short,
reviewed list, each entry with the condition it holds under and why. The hooks are imported
by tests/conftest.py; under pytest-xdist they run in each worker, and the count in the one
that reports.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Generator
from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class Planned:
    reason: str  # how the skip's reason begins
    holds: Callable[[], bool]  # the skip is planned only while this is true
    why: str


def _native_off() -> bool:
    return os.environ.get("BRAIN_NATIVE") == "0"


PLANNED = [
    Planned(
        "the native scanner is not built",
        _native_off,
        "scripts/test's BRAIN_NATIVE=0 pass runs the Python twins alone; the native half of "
        "these tests ran in the main pass, which fails if the module is missing where cargo is",
    ),
]


def strict() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def reason_of(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


def planned(reason: str) -> Planned | None:
    return next((p for p in PLANNED if reason.startswith(p.reason) and p.holds()), None)


def _fail_unplanned(report: pytest.TestReport | pytest.CollectReport) -> None:
    if not (strict() and report.skipped) or hasattr(report, "wasxfail"):
        return
    reason = reason_of(report)
    if planned(reason) is None:
        report.outcome = "failed"
        report.longrepr = (
            f"skipped, and CI (CI=true) did not plan this skip: {reason}\n"
            "Install the part it needs (scripts/test says how), or, if CI cannot have it, add the "
            "skip with its reason to PLANNED in tests/skips.py for review."
        )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None]:
    outcome = yield
    _fail_unplanned(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None]:
    outcome = yield
    _fail_unplanned(outcome.get_result())


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if not hasattr(r, "wasxfail")]
    reasons = Counter(reason_of(r) for r in skipped)
    mode = "CI: only planned skips allowed" if strict() else "not CI: a skip does not fail the run"
    terminalreporter.write_line(f"skips: {len(skipped)} ({mode})")
    for reason, count in reasons.most_common():
        terminalreporter.write_line(f"  {count:4d}  {reason}")
