"""`brain serve`: read the workspace, follow it, and answer GraphQL over HTTP and WebSocket.

The server listens at once; `/healthz` and `/graphql` answer 503 until the first ingest is
done (with a progress bar on a terminal), then the URL and a one-line summary are printed.
Ctrl-C (SIGINT) or SIGTERM stops it gracefully: open requests finish, subscriptions are
closed, the watcher stops, and the store is closed.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

import uvicorn
from strawberry.http.websocket_origin import normalize_allowed_origins

from brain import logs
from brain.api.graph.clusters import warm_clusters
from brain.api.graphql.context import ApiSettings, Services
from brain.api.http.app import GRAPHQL_PATH, create_app
from brain.api.http.auth import TokenRegistry, TokensFileError
from brain.api.http.events import ChangeHub
from brain.config.messages import ConfigError
from brain.config.operator import OperatorSettings
from brain.ingest.ingester import SyncResult
from brain.maintain.schedule import MaintenanceScheduler
from brain.search.service import Embedding
from brain.service.brain import Brain
from brain.service.replica import ReplicaFollower
from brain.service.watch import Watcher
from brain.store.base import SharedStore, StoreUnavailable
from brain.tool import memory_service
from brain.tool.asof.counts.series import CountsStarter
from brain.tool.asof.linkers import LinkersStarter
from brain.tool.asof.service import moments_of

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
ANY_HOST = ("0.0.0.0", "::", "")
logger = logging.getLogger("brain.serve")


def serve(
    args: argparse.Namespace, operator: OperatorSettings,
    open_brain: Callable[[argparse.Namespace], Brain], startup: Sequence[str] = (),
) -> int:
    """Serve with the operator's settings (brain/config/operator.py: address, tokens file,
    budgets, log); `startup`: the lines that say what was loaded from where."""
    where = operator.serve
    host, port = where.host, where.port
    logs.setup(operator.log.format, operator.log.level, prefix="brain serve")
    try:
        tokens_file = Path(where.tokens_file) if where.tokens_file else None
        tokens = TokenRegistry(os.environ.get("BRAIN_TOKEN") or None, tokens_file)
        origins = allowed_origins(where.allowed_origins, operator.source("serve", "allowed_origins"))
    except (TokensFileError, ValueError) as exc:
        return _fail(str(exc))
    settings = ApiSettings(
        dev=bool(args.dev),
        allowed_hosts=allowed_hosts(host, where.allowed_hosts),
        allowed_origins=origins,
        rescan_seconds=where.rescan_seconds,
        max_body_bytes=where.max_body_bytes,
        max_ws_message_bytes=where.max_body_bytes,
        metrics=where.metrics,
        log_requests=operator.log.requests,
    )
    brain = open_brain(args)
    brain.embedding = Embedding.HELPER  # out of the serving process (brain/search/helper.py)
    try:
        if not brain.read_only and isinstance(brain.store, SharedStore):
            try:  # one writer per database: a second one stops here, naming the first
                brain.store.take_lease(str(brain.root))
            except StoreUnavailable as exc:
                return _fail(str(exc))
        try:
            sock = bind(host, port)
        except OSError as exc:
            return _fail(
                f"cannot listen on {host}:{port} ({operator.source('serve', 'port')}): "
                f"{exc.strerror or exc}; pick another --port (or BRAIN_PORT)"
            )
        url = f"http://{display_host(host)}:{sock.getsockname()[1]}{GRAPHQL_PATH}"
        # What was loaded from where (brain/cli/version.py: startup_lines), once the store is
        # open and the port bound: a start that fails says its one line and nothing else.
        for line in startup:
            say(line, name="startup")
        return _run(brain, tokens, settings, sock, url)
    finally:
        brain.close()


def _run(
    brain: Brain, tokens: TokenRegistry, settings: ApiSettings, sock: socket.socket, url: str
) -> int:
    services = Services(
        brain=brain,
        hub=ChangeHub(brain),
        tokens=tokens,
        settings=settings,
        watcher=_follower(brain, settings),
    )
    progress = TerminalProgress()
    failed: list[BaseException] = []
    server: GracefulServer | None = None
    try:
        scheduler = scheduled_maintenance(brain)
    except ConfigError as exc:
        return _fail(str(exc))

    def on_ready(result: SyncResult) -> None:
        progress.close()
        announce_writer(brain, url.removesuffix(GRAPHQL_PATH))
        # The link index before "ready": else the first answer after it built it (about 20 s
        # wall on a busy machine at 100,000 notes); the ready line's counts then read it too.
        brain.build_indexes()
        print(ready_line(brain, result, url, settings), flush=True)
        warm_clusters(brain)  # the graph view's first picture of a big workspace, made ahead
        if logs.json_lines():  # a collector reads stderr only; a person sees stdout's line
            say(f"ready on {url}", name="ready")

    def on_failure(exc: BaseException) -> None:
        progress.close()
        failed.append(exc)
        say(f"reading {brain.root} failed: {exc}", logging.ERROR)
        if server is not None:
            server.should_exit = True

    app = create_app(services, progress=progress.update, on_ready=on_ready, on_failure=on_failure)
    config = uvicorn.Config(
        app,
        # Through brain's handler (brain/logs.py: text or JSON, with the request's id); its
        # access lines are brain's own (brain/api/http/requestlog.py).
        log_config=None,
        log_level="info" if settings.dev else "warning",
        access_log=False,
        ws="websockets-sansio",
        lifespan="on",
        timeout_graceful_shutdown=5,
        server_header=False,
        proxy_headers=False,
        # A WebSocket message past the cap closes the connection (1009, "message too big").
        ws_max_size=settings.max_ws_message_bytes,
    )
    server = GracefulServer(config)
    if "*" in settings.allowed_hosts:
        say("listening on every interface with any Host header allowed; set BRAIN_ALLOWED_HOSTS "
            "(or [serve] allowed_hosts) to the names clients use", logging.WARNING)
    if not tokens.required and not is_loopback(sock.getsockname()[0]):
        say("no BRAIN_TOKEN set: anyone who can reach this port can read the graph", logging.WARNING)
    say(f"reading {brain.root} (the API answers once it is read)")
    if scheduler is not None:
        say(scheduler.describe())
        scheduler.start()
    try:
        server.run(sockets=[sock])
    finally:
        if scheduler is not None:
            scheduler.stop()
    progress.close()
    say("stopped")
    return 1 if failed else 0


def scheduled_maintenance(brain: Brain) -> MaintenanceScheduler | None:
    """The daily maintenance of the operator's `[maintain] enabled = true`; None when off."""
    config = brain.settings.maintain
    if not config.enabled or brain.read_only:  # a replica writes nothing; its writer maintains
        return None

    return MaintenanceScheduler(brain, config, report=say)


def _follower(brain: Brain, settings: ApiSettings) -> Watcher | ReplicaFollower:
    """What keeps the graph live: the files' watcher, or (a replica) the writer's change log."""
    if brain.read_only:
        return ReplicaFollower(brain, poll_seconds=brain.settings.serve.replica_poll_seconds)
    service = memory_service(brain)  # from the first sync on, changes made outside brain go into its history
    # After each full sync, the counts after each record are walked (stats(asOf), asof/series.py).
    brain.file_listeners.append(CountsStarter(lambda: moments_of(service)))
    # ... and which paths ever linked each name (memory(asOf:)'s backlinks, asof/linkers.py).
    brain.file_listeners.append(LinkersStarter(lambda: (moments_of(service), service.parsed)))
    return Watcher(brain, rescan_seconds=settings.rescan_seconds)


def announce_writer(brain: Brain, url: str) -> None:
    """A writer on a shared database tells its replicas where writes go."""
    if brain.read_only or not isinstance(brain.store, SharedStore):
        return
    try:
        brain.store.record_writer(url)
    except StoreUnavailable as exc:
        say(f"could not record this writer's URL: {exc}", logging.WARNING)


def ready_line(brain: Brain, result: SyncResult, url: str, settings: ApiSettings) -> str:
    s = brain.stats()
    if brain.read_only and isinstance(brain.store, SharedStore):
        following = (
            f"read-only replica of {brain.store.describe()}, following its writer's change log"
        )
    else:
        following = f"watching {brain.root} (full rescan every {settings.rescan_seconds:g} s)"
    snapshot = brain.snapshots
    read = f"read in {result.seconds:.2f} s"
    if snapshot is not None and snapshot.loaded:
        read += f" (from the snapshot, loaded in {snapshot.load_seconds:.2f} s, then checked"
        read += ": a check is still running)" if brain.checking else ")"
    line = (
        f"brain serve: ready on {url} — {s.memories} memories of {s.agents} agents, "
        f"{s.links} links ({s.broken} broken, {s.ambiguous} ambiguous), {s.workflows} workflows, "
        f"{s.chats} chats, {s.work_items} work items; {read}; {following}"
    )
    line += f"\nbrain serve: web UI at {url.removesuffix(GRAPHQL_PATH)}/"
    if settings.dev:
        line += f"\nbrain serve: development mode: GraphiQL at {url}"
    line += f"\nbrain serve: MCP (streamable HTTP) at {url.removesuffix(GRAPHQL_PATH)}/mcp"
    return line


class GracefulServer(uvicorn.Server):
    """uvicorn, but a stop asked for by SIGINT/SIGTERM ends the process with status 0.

    uvicorn re-raises the signal after its graceful shutdown, so the process would die of it
    (status 130 or -15) although it stopped cleanly; service managers read that as a crash.
    A second Ctrl-C still forces the exit.
    """

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.should_exit and sig == signal.SIGINT:
            self.force_exit = True
            return
        if not self.should_exit:
            say("stopping (Ctrl-C again to force)")
        self.should_exit = True


class TerminalProgress:
    """A progress bar for big first ingests, on a terminal only; safe to call from a thread."""

    def __init__(self) -> None:
        self._bar: Any = None
        self._task: Any = None
        self._done = False

    def update(self, done: int, total: int) -> None:
        if self._done or not sys.stderr.isatty():
            return
        if self._bar is None:
            if total < 2000:
                return
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

            self._bar = Progress(
                "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                TimeRemainingColumn(), transient=True,
            )
            self._task = self._bar.add_task("reading the workspace", total=total)
            self._bar.start()
        self._bar.update(self._task, completed=done, total=total)

    def close(self) -> None:
        self._done = True
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def allowed_hosts(host: str, extra: Sequence[str]) -> tuple[str, ...]:
    """Host headers to accept (DNS-rebinding protection): loopback, the bound host, and the
    operator's `[serve] allowed_hosts` (BRAIN_ALLOWED_HOSTS)."""
    host = bare_host(host)
    if host in ANY_HOST and not extra:
        return ("*",)
    names = [*LOOPBACK_NAMES, *([] if host in ANY_HOST else [host]), *extra]
    return tuple(dict.fromkeys(host_pattern(name) for name in names))


def host_pattern(name: str) -> str:
    """`name` as a Host header shows it: an IPv6 literal in brackets (`[::1]`, as clients send
    `Host: [::1]:7777`), compressed; a name in lower case. With `::1` bare in the list, no
    request to `--host ::1` matched it and every one was refused as an invalid host."""
    bare = bare_host(name)
    try:
        return f"[{ipaddress.IPv6Address(bare).compressed}]"
    except ValueError:
        return bare.lower()


def bare_host(host: str) -> str:
    """`[::1]` -> `::1`: the form sockets take (`--host [::1]` is accepted too)."""
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


def allowed_origins(origins: Sequence[str], source: str) -> tuple[str, ...]:
    """`[serve] allowed_origins` (BRAIN_ALLOWED_ORIGINS): origins such as http://localhost:3000, or `*`."""
    try:
        normalize_allowed_origins(origins)
    except ValueError as exc:
        raise ValueError(f"{source}: [serve] allowed_origins: {exc}") from exc
    return tuple(origins)


def bind(host: str, port: int) -> socket.socket:
    host = bare_host(host)
    infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    sock = socket.create_server((host, port), family=infos[0][0])
    sock.set_inheritable(True)
    return sock


def display_host(host: str) -> str:
    host = bare_host(host)
    if host in ANY_HOST:
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return address == "localhost"


def _fail(message: str) -> int:
    say(message, logging.ERROR)
    return 2


def say(message: str, level: int = logging.INFO, name: str = "serve") -> None:
    """One line of `brain serve` on stderr (text: `brain serve: ...`; JSON: one object whose
    event is `name`)."""
    logs.event(logger, level, name, message)

