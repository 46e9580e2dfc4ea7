"""Who may see a maintenance report and start a consolidation: one rule for REST and GraphQL.

An agent's token sees the report of its own scope and of shared, and may consolidate its
own scope; consolidating shared rewrites every agent's common memory, so that takes an
admin (or an open server). Another agent's scope answers "no such scope", as everywhere.
"""

from __future__ import annotations

from brain.config.messages import ConfigError
from brain.config.operator import OperatorSettings
from brain.maintain.consolidation.run import Busy, Consolidation, NotConfigured
from brain.maintain.finders.snapshot import scope_names
from brain.maintain.findings import MaintenanceReport
from brain.maintain.report_cache import kept_report
from brain.model import SHARED_SCOPE
from brain.service.brain import Brain
from brain.tool.access import Actor

__all__ = ["Busy", "MaintenanceRefused", "maintenance_report", "start_consolidation"]


class MaintenanceRefused(Exception):
    def __init__(self, code: str, status: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.message = message

    def to_json(self) -> dict[str, object]:
        return {"error": {"code": self.code, "message": self.message}}


def _check_scope(brain: Brain, actor: Actor, scope: object) -> str:
    if not isinstance(scope, str) or not scope:
        raise MaintenanceRefused(
            "invalid-argument", 400, 'name the scope to consolidate: {"scope": "shared"} or an agent\'s name'
        )
    if not actor.can_see(scope) or scope not in scope_names(brain):
        raise MaintenanceRefused("not-found", 404, f"there is no memory scope `{scope[:100]}`")
    return scope


def maintenance_report(brain: Brain, actor: Actor, scope: str | None) -> MaintenanceReport:
    if scope is None:
        if actor.kind == "agent":
            raise MaintenanceRefused(
                "forbidden", 403, "an agent's token sees the report of one scope: pass its own or `shared`"
            )
        return kept_report(brain, None, _settings(brain).maintain)
    return kept_report(brain, _check_scope(brain, actor, scope), _settings(brain).maintain)


def start_consolidation(brain: Brain, actor: Actor, scope: object) -> Consolidation:
    """A run ready to start, or MaintenanceRefused (nothing was run, nothing changed)."""
    checked = _check_scope(brain, actor, scope)
    if actor.kind == "agent" and checked == SHARED_SCOPE:
        raise MaintenanceRefused(
            "forbidden", 403,
            "consolidating shared rewrites every agent's common memory: it needs an admin token; "
            f"an agent consolidates its own scope (`{actor.agent}`)",
        )
    try:
        return Consolidation.for_brain(
            brain, checked, _settings(brain), actor=Actor(actor.kind, actor.agent, "consolidate")
        )
    except NotConfigured as exc:
        raise MaintenanceRefused("not-configured", 503, str(exc)) from None


def _settings(brain: Brain) -> OperatorSettings:
    """The operator's settings only: the workspace's brain.toml never names an endpoint."""
    try:
        return brain.settings
    except ConfigError as exc:
        raise MaintenanceRefused("invalid-config", 503, str(exc)) from None
