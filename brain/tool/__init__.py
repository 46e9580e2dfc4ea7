"""The memory tool: agents read and write their markdown memory through brain, safely.

`MemoryService` (service.py) does the safe reads and writes by scope and name for every
front end; `MemoryTool` (tool.py) is the agent's six commands over virtual paths; the HTTP
API, GraphQL and the CLI are thin layers over those two.
"""

from __future__ import annotations

import importlib
import threading
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

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

_SERVICES: WeakKeyDictionary[Brain, MemoryService] = WeakKeyDictionary()
_LOCK = threading.Lock()


def memory_service(brain: Brain) -> MemoryService:
    """The memory service of a served workspace: one per `Brain`, made on first use."""
    with _LOCK:
        found = _SERVICES.get(brain)
        if found is None:
            from brain.tool.service import MemoryService

            found = _SERVICES[brain] = MemoryService(brain.root, brain)
            _record_outside_changes(brain, found)
        return found


def attach_memory_service(brain: Brain, service: MemoryService) -> None:
    """Use this service for `brain` (tests and embedders: another clock, history or cap)."""
    with _LOCK:
        _SERVICES[brain] = service
        _record_outside_changes(brain, service)


def _record_outside_changes(brain: Brain, service: MemoryService) -> None:
    """The history records what changes outside brain while this service's brain syncs."""
    from brain.tool.history.external import ExternalRecorder

    brain.file_listeners[:] = [f for f in brain.file_listeners if not isinstance(f, ExternalRecorder)]
    recorder = ExternalRecorder(service, brain)
    service.external = recorder
    brain.file_listeners.append(recorder)
