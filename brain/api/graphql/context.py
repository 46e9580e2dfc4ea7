"""What every resolver gets: the app's services, the caller, and this request's loaders."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

import strawberry
from starlette.requests import Request
from starlette.responses import Response
from starlette.websockets import WebSocket

from brain.api.graphql.limits.extensions import Limits
from brain.api.graphql.loaders import Loaders
from brain.api.http.auth import Principal, TokenRegistry
from brain.api.http.bodylimit import DEFAULT_MAX_BODY_BYTES
from brain.api.http.middleware import KnownAgents
from brain.service.brain import Brain

if TYPE_CHECKING:
    from brain.api.http.events import ChangeHub
    from brain.service.replica import ReplicaFollower
    from brain.service.watch import Watcher


@dataclass(slots=True)
class ApiSettings:
    dev: bool = False
    limits: Limits = field(default_factory=Limits)
    allowed_hosts: tuple[str, ...] = ("127.0.0.1", "localhost", "[::1]")  # as Host headers say them
    # Web pages on other origins allowed to call the API (CORS) and open its WebSocket.
    allowed_origins: tuple[str, ...] = ()
    rescan_seconds: float = 30.0
    # Request bodies (GraphQL and REST) and WebSocket messages: see docs/security.md.
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_ws_message_bytes: int = DEFAULT_MAX_BODY_BYTES
    # One GraphQL operation over HTTP; past it the request answers 503.
    request_timeout: float = 30.0
    # GET /metrics and the counting behind it (brain/metrics.py); `brain serve --no-metrics` is off.
    metrics: bool = True
    # A log line for every request, not only the refused and failed ones ([log] requests).
    log_requests: bool = False


@dataclass(slots=True)
class Services:
    """What lives as long as the app: one per server."""

    brain: Brain
    hub: ChangeHub
    tokens: TokenRegistry = field(default_factory=TokenRegistry)
    settings: ApiSettings = field(default_factory=ApiSettings)
    watcher: Watcher | ReplicaFollower | None = None  # a replica follows the writer's change log
    failure: str | None = None
    known_agents: KnownAgents = field(init=False)

    def __post_init__(self) -> None:
        self.known_agents = KnownAgents(self.agent_exists)

    def agent_exists(self, name: str) -> bool | None:
        """Whether the graph has agent `name` (blocking); None until the graph is read."""
        if not self.brain.ready:
            return None
        node_id = f"agent:{name}"
        return node_id in self.brain.store.get_nodes([node_id])


@dataclass(slots=True)
class Context:
    services: Services
    loaders: Loaders
    principal: Principal | None
    request: Request | WebSocket
    response: Response | WebSocket | None = None
    # Set by strawberry from a WebSocket's `connection_init` payload.
    connection_params: dict[str, object] | None = None
    # The loaders of each moment an `asOf:` field asked for (brain/api/graph/asof/moments.py), by the
    # moment's graph: its nodes' fields batch and cache as the live graph's do, with the same reach.
    moment_loaders: dict[int, tuple[Brain, Loaders]] = field(default_factory=dict)

    @property
    def brain(self) -> Brain:
        return self.services.brain

    def loaders_of(self, moment: Brain | None) -> Loaders:
        """The loaders of the live graph (None), or of a moment's graph."""
        if moment is None:
            return self.loaders
        found = self.moment_loaders.get(id(moment))
        if found is None:
            loaders = Loaders(moment.store, cache=True, reach=self.loaders.reach)
            found = self.moment_loaders[id(moment)] = (moment, loaders)
        return found[1]


Info: TypeAlias = strawberry.Info[Context, None]
