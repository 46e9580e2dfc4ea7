"""Change notifications: the graph's change events become MCP resource notifications.

(This is the handshake protocol's way, up to 2025-11-25; brain.mcp.listen serves the
2026-07-28 `subscriptions/listen` streams from the same events.)

Every accepted write (through any front end) and every file change the watcher applies is a
`GraphChange` on the Brain; `ChangeHub` hands them to the event loop. For each connected
session that may see the note's scope this sends `notifications/resources/list_changed`
when a note appears or goes, and `notifications/resources/updated` to the sessions that
subscribed to that note's URI. Another agent's sessions hear nothing about a private note.

The SDK makes a `ServerSession` per request; what lasts is the client's `Connection`, which
owns the stream notifications ride. Connections are remembered weakly, with the caller of
their latest request: a closed one simply drops out, and one whose send fails is forgotten.
"""

from __future__ import annotations

import logging
from weakref import WeakKeyDictionary

import anyio
from mcp.server.connection import Connection
from mcp.server.session import ServerSession

from brain.api.http.events import ChangeHub, SubscriberLagged
from brain.mcp.caller import Caller
from brain.mcp.listen import AgentListens
from brain.mcp.resources import note_uri, scope_of_node
from brain.service.brain import GraphChange
from brain.tool.files.names import MD

logger = logging.getLogger("brain.mcp")
SEND_TIMEOUT = 5.0


class Notifier:
    def __init__(self, listens: AgentListens | None = None) -> None:
        self.listens = listens
        self._callers: WeakKeyDictionary[Connection, Caller] = WeakKeyDictionary()
        self._subscribed: WeakKeyDictionary[Connection, set[str]] = WeakKeyDictionary()

    def seen(self, session: ServerSession, caller: Caller) -> None:
        connection = connection_of(session)
        if connection is not None:
            self._callers[connection] = caller

    def subscribe(self, session: ServerSession, caller: Caller, uri: str) -> None:
        connection = connection_of(session)
        if connection is not None:
            self._callers[connection] = caller
            self._subscribed.setdefault(connection, set()).add(uri)

    def unsubscribe(self, session: ServerSession, uri: str) -> None:
        connection = connection_of(session)
        if connection is not None:
            self._subscribed.get(connection, set()).discard(uri)

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
        if self.listens is not None:
            await self.listens.publish(scope, uri, listed=listed, body=body)
        for connection, caller in list(self._callers.items()):
            if not caller.can_see(scope):
                continue
            try:
                # A client that stops reading must not hold up everyone else's notifications.
                with anyio.fail_after(SEND_TIMEOUT):
                    if listed:
                        await connection.send_resource_list_changed()
                    if body and uri in self._subscribed.get(connection, ()):
                        await connection.send_resource_updated(uri)
            except Exception as exc:  # a session that went away must not stop the others
                logger.debug("dropping an MCP session that cannot be notified: %s", exc)
                self._callers.pop(connection, None)
                self._subscribed.pop(connection, None)

    async def _everyone_relist(self) -> None:  # pragma: no cover - needs 10,000 queued changes
        for connection in list(self._callers):
            try:
                await connection.send_resource_list_changed()
            except Exception:
                self._callers.pop(connection, None)


def connection_of(session: ServerSession) -> Connection | None:
    """The connection a request's session belongs to (the SDK keeps it private, so look twice)."""
    found = getattr(session, "_connection", None)
    return found if isinstance(found, Connection) else None
