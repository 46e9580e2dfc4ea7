"""A moment's counts with their detail (per-scope health, problems by code) from the kept
series (series.py, detail.py), for the front ends that answer a count without the moment.

None while the series does not cover the moment yet (its walk is started): the caller then
builds the whole moment, which answers the same (tests/tool/test_as_of_detail.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from brain.model import Stats
from brain.tool.asof.counts.detail import Detail
from brain.tool.asof.counts.series import kept_at
from brain.tool.asof.service import records_at

if TYPE_CHECKING:
    from brain.tool.service import MemoryService


def kept_as_of(service: MemoryService, when: str) -> tuple[Stats, Detail] | None:
    """The counts and detail at `when` when kept; refusals as `graph_at`'s."""
    _moment, moments, records, first = records_at(service, when)
    return kept_at(moments, first, records)


__all__ = ["kept_as_of"]
