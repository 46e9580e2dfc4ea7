"""No test writes into the repository: a run fails if brain's state appears in (or changes
under) an example's `.brain/` folder while the tests run.

Serving a workspace keeps brain's history and the first versions of its notes under the
workspace's `.brain/` (brain/tool/history/baseline.py). The folder is gitignored, so a test
that served or checked a bundled example in place would leave it there unnoticed, and the
next run (or `make serve`) would start from that state. Each such test works on a copy
(tmp_path); this guard proves no test forgets. It is a session-scoped fixture (the run's
verdict) and a teardown hook that names the first test after which the folder differed. Under
pytest-xdist both run in each worker. A `.brain/` already there when the run starts (the
user's `make serve`) is compared, never removed.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"


def state_of_examples() -> dict[str, tuple[int, int]]:
    """Every path under an example's `.brain/`, with its size and modification time."""
    found: dict[str, tuple[int, int]] = {}
    for state in sorted(EXAMPLES.glob("*/.brain")):
        found[state.relative_to(REPO).as_posix()] = (-1, -1)
        for path in state.rglob("*"):
            try:
                stat = path.lstat()
            except OSError:  # removed while listed
                continue
            found[path.relative_to(REPO).as_posix()] = (stat.st_size, stat.st_mtime_ns)
    return found


class _Watch:
    before: dict[str, tuple[int, int]] | None = None
    first: str | None = None  # the first test after which the state differed


def changes(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


@pytest.fixture(autouse=True, scope="session")
def _repository_untouched() -> Iterator[None]:
    _Watch.before = state_of_examples()
    yield
    changed = changes(_Watch.before, state_of_examples())
    if changed:
        culprit = f" (first seen after {_Watch.first})" if _Watch.first else ""
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
        pytest.fail(f"a test wrote into the repository{culprit}: {shown}. Serve or check a copy of "
                    "the example instead: shutil.copytree(EXAMPLE, tmp_path / 'workspace')", pytrace=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    yield
    if _Watch.first is None and _Watch.before is not None and state_of_examples() != _Watch.before:
        _Watch.first = item.nodeid
