"""The order conftest.py gives the tests of the shared timeline (tests/ui/timeline.py): the one
that writes after the timeline's end runs after every test that reads the timeline, wherever it
was collected, and nothing else moves. A pure function, tested on stand-in items."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.ui.conftest import timeline_writers_last
from tests.ui.timeline import writes_after_the_timeline


@writes_after_the_timeline
def _writes() -> None:
    pass


def _reads() -> None:
    pass


def item(name: str) -> SimpleNamespace:
    """A stand-in test: `w` writes after the timeline, `r` reads it, `o` takes no timeline."""
    kind = name[0]
    return SimpleNamespace(name=name, obj=_writes if kind == "w" else _reads,
                           fixturenames=("timeline", "bare_page") if kind in "rw" else ("reader",))


@pytest.mark.parametrize(("collected", "run"), [
    ("r1 w1 r2 r3 o1", "r1 r2 r3 w1 o1"),  # test_changes' live test before the as-of modules
    ("o1 w1 r1 o2 r2 o3", "o1 r1 o2 r2 w1 o3"),
    ("r1 r2 w1 o1", "r1 r2 w1 o1"),  # already last: unchanged
    ("w1 o1", "o1 w1"),  # no reader collected (-k): after everything, harmless
    ("r1 o1 r2", "r1 o1 r2"),  # no writer: unchanged
    ("w1 r1 w2 r2", "r1 r2 w1 w2"),  # writers keep their own order
])
def test_a_timeline_writer_runs_after_every_timeline_reader(collected: str, run: str) -> None:
    items = [item(n) for n in collected.split()]
    assert " ".join(i.name for i in timeline_writers_last(items)) == run
