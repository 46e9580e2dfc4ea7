"""A progress bar on a terminal, for the commands that read a workspace big enough to wait
for (brain ingest, check, maintain, search --reindex)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the ingester (the stores, numpy): `brain config`, `brain serve` import this module
    from brain.ingest.ingester import Progress


@contextmanager
def progress_bar(label: str) -> Iterator[Progress | None]:
    """A rich progress bar on a terminal, for workspaces big enough to wait for."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, TimeRemainingColumn
    from rich.progress import Progress as RichProgress

    bar = RichProgress(
        "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
        TimeRemainingColumn(), transient=True,
    )
    task = bar.add_task(label, total=None)
    started = False

    def update(done: int, total: int) -> None:
        nonlocal started
        if not started and total >= 2000:
            bar.start()
            started = True
        bar.update(task, completed=done, total=total)

    try:
        yield update
    finally:
        if started:
            bar.stop()
