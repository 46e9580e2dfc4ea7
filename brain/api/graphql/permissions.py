"""Who may read what through the dashboard API.

The dashboard fields read every agent's notes, so they are for admins (or an open server,
where everyone is the anonymous admin). An agent's token reads its own notes through the
memory tool (`memoryView`, `/api/memory`), which hides other agents' folders; through this
API it can still ask for an agent by name (its prompt block, `Agent.memoryPrompt`, decides
for itself whose it may read).
"""

from __future__ import annotations

from typing import Any

from strawberry.permission import BasePermission

from brain.api.graphql.context import Info
from brain.api.graphql.errors import Forbidden


class ReadsWholeGraph(BasePermission):
    error_class = Forbidden
    message = (
        "this field reads every agent's memory, so it needs an admin token (BRAIN_TOKEN, or a "
        "\"*\" entry in BRAIN_TOKENS_FILE); an agent reads its own notes with the memory tool "
        "(memoryView, or GET /api/memory)"
    )

    def has_permission(self, source: Any, info: Info, **kwargs: Any) -> bool:
        principal = info.context.principal
        return principal is None or principal.is_admin


ADMIN_ONLY: list[type[BasePermission]] = [ReadsWholeGraph]
