"""The memory tool: agents read and write their markdown memory through brain, safely.

`MemoryService` (service.py) does the safe reads and writes by scope and name for every
front end; `MemoryTool` (tool.py) is the agent's six commands over virtual paths; the HTTP
API, GraphQL and the CLI are thin layers over those two.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from brain.registry import OnePer

if TYPE_CHECKING:
    from brain.service.brain import Brain
    from brain.tool.access import Actor
    from brain.tool.calls.refusal import Call, Refusal, RefusalCode
    from brain.tool.calls.tool import MemoryTool, ToolResult
    from brain.tool.service import MemoryService

# Imported on first use: an ingest reads brain.parse.secrets.scan (the `secret` rule), which
# must not cost it the whole memory service.
_LAZY = {
    "Actor": "brain.tool.access", "Call": "brain.tool.calls.refusal", "Refusal": "brain.tool.calls.refusal",
    "RefusalCode": "brain.tool.calls.refusal", "MemoryService": "brain.tool.service",
    "MemoryTool": "brain.tool.calls.tool", "ToolResult": "brain.tool.calls.tool",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'brain.tool' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)

__all__ = [
    "Actor", "Call", "MemoryService", "MemoryTool", "Refusal", "RefusalCode", "ToolResult",
    "attach_memory_service", "memory_service",
]


def _made_for(brain: Brain) -> MemoryService:
    from brain.tool.service import MemoryService

    service = MemoryService(brain.root, brain)
    _record_outside_changes(brain, service)
    return service


_SERVICES: OnePer[Brain, MemoryService] = OnePer(_made_for)


def memory_service(brain: Brain) -> MemoryService:
    """The memory service of a served workspace: one per `Brain`, made on first use."""
    return _SERVICES(brain)


def attach_memory_service(brain: Brain, service: MemoryService) -> None:
    """Use this service for `brain` (tests and embedders: another clock, history or cap)."""
    _SERVICES.put(brain, service, then=lambda: _record_outside_changes(brain, service))


def _record_outside_changes(brain: Brain, service: MemoryService) -> None:
    """The history records what changes outside brain while this service's brain syncs."""
    from brain.tool.history.external import ExternalRecorder

    brain.file_listeners[:] = [f for f in brain.file_listeners if not isinstance(f, ExternalRecorder)]
    recorder = ExternalRecorder(service, brain)
    service.external = recorder
    brain.file_listeners.append(recorder)
