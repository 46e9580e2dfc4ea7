"""Change notifications: the graph's change events become MCP resource notifications.

Every accepted write (through any front end) and every file change the watcher applies is a
`GraphChange` on the Brain; `ChangeHub` hands them to the event loop. For each connected
session that may see the note's scope this sends `notifications/resources/list_changed`
when a note appears or goes, and `notifications/resources/updated` to the sessions that
subscribed to that note's URI. Another agent's sessions hear nothing about a private note.

Sessions are remembered weakly, with the caller of their latest request: a closed session
simply drops out. A session whose send fails is forgotten.
"""

from __future__ import annotations

import logging
from weakref import WeakKeyDictionary

from mcp.server.session import ServerSession

from brain.api.events import ChangeHub, SubscriberLagged
from brain.mcp.caller import Caller
from brain.mcp.resources import note_uri, scope_of_node
from brain.service import GraphChange
from brain.tool.names import MD

logger = logging.getLogger("brain.mcp")


class Notifier:
    def __init__(self) -> None:
        self._callers: WeakKeyDictionary[ServerSession, Caller] = WeakKeyDictionary()
        self._subscribed: WeakKeyDictionary[ServerSession, set[str]] = WeakKeyDictionary()

    def seen(self, session: ServerSession, caller: Caller) -> None:
        self._callers[session] = caller

    def subscribe(self, session: ServerSession, caller: Caller, uri: str) -> None:
        self.seen(session, caller)
        self._subscribed.setdefault(session, set()).add(uri)

    def unsubscribe(self, session: ServerSession, uri: str) -> None:
        self._subscribed.get(session, set()).discard(uri)

    @property
    def sessions(self) -> int:
        return len(self._callers)

    async def pump(self, hub: ChangeHub) -> None:
        """Forward changes until cancelled; a lagging listener tells everyone to re-list."""
        while True:
            try:
                async with hub.listen() as changes:
                    async for change in changes:
                        await self.dispatch(change)
            except SubscriberLagged:
                await self._everyone_relist()

    async def dispatch(self, change: GraphChange) -> None:
        parsed = scope_of_node(change.id)
        if parsed is None:
            return
        scope, stem = parsed
        uri = note_uri(scope, stem + MD)
        listed = change.kind in ("added", "deleted")
        body = change.kind != "relinked"
        for session, caller in list(self._callers.items()):
            if not caller.can_see(scope):
                continue
            try:
                if listed:
                    await session.send_resource_list_changed()
                if body and uri in self._subscribed.get(session, ()):
                    await session.send_resource_updated(uri)
            except Exception as exc:  # a session that went away must not stop the others
                logger.debug("dropping an MCP session that cannot be notified: %s", exc)
                self._callers.pop(session, None)
                self._subscribed.pop(session, None)

    async def _everyone_relist(self) -> None:
        for session in list(self._callers):
            try:
                await session.send_resource_list_changed()
            except Exception:
                self._callers.pop(session, None)
