"""The deterministic pass: find, and with `apply` carry out the safe findings, capped.

Every change goes through the scope's memory tool (`ScopedMemoryTool`), or in a layout with
verbs of its own through those verbs (mindlink: brain.maintain.layout_calls), so it is an atomic
write with a history record (actor `admin`, via `maintain`), refused if it would store a
secret, and refused if the file changed since the pass read it (deletes carry the hash the
pass saw). Deletes run before link fixes, and a fix inside a note deleted in the same run
is skipped. A run right after a complete one finds nothing it would apply.
"""

from __future__ import annotations

import time
from datetime import UTC, date, datetime

from brain.config.operator import MaintainConfig
from brain.maintain.finders.catalog import FINDERS
from brain.maintain.finders.mentions import unlinked_mentions
from brain.maintain.finders.snapshot import MaintenanceLayout, Snapshot, layout_of
from brain.maintain.findings import Applied, Finding, MaintenanceReport
from brain.maintain.layout_calls import as_layout_calls, run_layout_call
from brain.maintain.scoped_tool import ScopedMemoryTool
from brain.service.brain import Brain
from brain.tool import memory_service
from brain.tool.access import Actor
from brain.tool.history.log import HistoryRecord, iso_time
from brain.tool.history.runs import new_run_id
from brain.tool.service import MemoryService

MAINTAIN_ACTOR = Actor.admin(via="maintain")
_ORDER = {"duplicate": 0, "expired-daily-note": 1, "fixable-link": 2}


def find(
    brain: Brain, scope: str | None = None, *, config: MaintainConfig | None = None,
    layout: MaintenanceLayout | None = None, today: date | None = None, mentions: bool = False,
) -> MaintenanceReport:
    """The findings of `scope` (every scope when None); changes nothing. `mentions`: also the
    unlinked mentions (brain.maintain.finders.mentions), which read every body."""
    started = time.perf_counter()
    config = config or MaintainConfig()
    snap = Snapshot.read(
        brain, scope, today or datetime.now(UTC).date(), layout or layout_of(brain),
        config.large_note_bytes,
    )
    findings: list[Finding] = []
    for finder in [*FINDERS, unlinked_mentions] if mentions else FINDERS:
        findings.extend(finder(snap))
    findings.sort(key=lambda f: (f.path, f.line or 0, f.code))
    if snap.layout.verbs is not None:
        findings = as_layout_calls(findings, snap, snap.layout.verbs)
    report = MaintenanceReport(scope, findings, cap=config.max_changes_per_run, notes=snap.notes)
    report.seconds = time.perf_counter() - started
    return report


def maintain(
    brain: Brain, scope: str | None = None, *, apply: bool = False,
    config: MaintainConfig | None = None, layout: MaintenanceLayout | None = None,
    today: date | None = None, service: MemoryService | None = None,
    actor: Actor = MAINTAIN_ACTOR, mentions: bool = False,
) -> MaintenanceReport:
    """`brain maintain`: find, then (with `apply`) carry out at most the cap of safe findings."""
    started = time.perf_counter()
    config = config or MaintainConfig()
    report = find(brain, scope, config=config, layout=layout, today=today, mentions=mentions)
    report.apply = apply
    if apply:
        service = service or memory_service(brain)
        # Every change of this run, and its report record (record_run), carry the run's id.
        report.run = new_run_id("maintain", service.clock())
        apply_safe(report, service, actor.in_run(report.run), config.max_changes_per_run)
    report.seconds = time.perf_counter() - started
    return report


def apply_safe(report: MaintenanceReport, service: MemoryService, actor: Actor, cap: int) -> None:
    safe = sorted(report.safe, key=lambda f: (_ORDER.get(f.code, 9), f.path, f.line or 0))
    deleted: set[str] = set()
    tools: dict[str, ScopedMemoryTool] = {}
    done = 0
    for finding in safe:
        if finding.path in deleted:
            continue  # its note went in this run (a duplicate); nothing left to fix
        if done >= cap:
            report.skipped += 1
            continue
        proposal = finding.proposal
        done += 1
        if proposal.tool != "memory":  # the layout's own verbs (mindlink's memory_delete, ...)
            ok, first = run_layout_call(service, proposal, actor)
        else:
            tool = tools.get(finding.scope)
            if tool is None:
                tool = tools[finding.scope] = ScopedMemoryTool(service, finding.scope, actor)
            result = tool.run(
                proposal.payload(), expected_hash=proposal.expected_hash, requires=proposal.requires,
            )
            ok = result.ok
            first = result.text.split("\n", 1)[0].removesuffix(":").replace(" now read)", ")")
        if ok and proposal.command in ("delete", "memory_delete"):
            deleted.add(finding.path)
        report.applied.append(Applied(finding.code, finding.path, proposal.text(), ok, first))


def record_run(
    service: MemoryService, report: MaintenanceReport, actor: Actor = MAINTAIN_ACTOR,
    local_day: date | None = None,
) -> HistoryRecord:
    """One history record for a whole run, with its report (the scheduled runs' audit log).
    `local_day`: the day a scheduled run counts for, in the server's time zone."""
    summary: dict[str, object] = {
        "summary": report.summary(),
        "counts": report.counts(),
        "applied": [a.to_json() for a in report.applied],
        "skipped": report.skipped,
    }
    if local_day is not None:
        summary["localDay"] = local_day.isoformat()
    return service.history.append(
        at=iso_time(service.clock()), actor=actor.label, agent=None, via=actor.via,
        command="maintain", scope=report.scope or "*", path="memory", before=None, after=None,
        report=summary, run=report.run,
    )
