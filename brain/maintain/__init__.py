"""Maintenance and consolidation: memory that stays tidy (design.md section 10).

`find`/`maintain` (run.py) is the deterministic pass of `brain maintain`: finders
(finders.py, links.py) read a snapshot of the graph and propose memory-tool calls; with
`apply` the safe ones are carried out through the scope's memory tool (scoped_tool.py).
`Consolidation` (consolidate.py) is the model pass of seeds/000: the tool loop with the
memory tool alone, confined to one scope, against an OpenAI-compatible endpoint (chat.py).
`MaintenanceScheduler` (schedule.py) runs the pass once a day inside `brain serve`.
"""

from __future__ import annotations

from brain.maintain.finders.snapshot import LAYOUTS, MaintenanceLayout, register_layout
from brain.maintain.findings import CODES, SAFE_CODES, Applied, Finding, MaintenanceReport, Proposal
from brain.maintain.run import find, maintain, record_run

__all__ = [
    "CODES", "LAYOUTS", "SAFE_CODES", "Applied", "Finding", "MaintenanceLayout", "MaintenanceReport",
    "Proposal", "find", "maintain", "record_run", "register_layout",
]
