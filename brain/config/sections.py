"""The operator's settings, section by section: each field's type, default and limits.

One table for everything the operator decides (brain/config/operator.py reads it from the
file, the environment and flags; `brain config show` lists it; a workspace's brain.toml that
names one of its sections is refused). A new operator setting is a field here, nothing more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from brain.budgets import ENV_NAMES as BUDGET_ENV_NAMES
from brain.budgets import Budgets

#: Variables of brain's own secrets and wiring: a model endpoint is never sent one as its key.
OWN_VARIABLE = re.compile(r"^(BRAIN|NEO4J)_")
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
LOG_FORMATS = ("text", "json")
LOG_LEVELS = ("debug", "info", "warning", "error")
STORES = ("memory", "neo4j")
NEO4J_SCHEMES = re.compile(r"^(bolt|neo4j)(\+s|\+ssc)?://[^/\s]+")


@dataclass(frozen=True, slots=True)
class MaintainConfig:
    enabled: bool = False
    daily_local_hour: int = 2
    max_changes_per_run: int = 20
    large_note_bytes: int = 12 * 1024

    def check(self) -> list[tuple[str, str]]:
        out = []
        if not 0 <= self.daily_local_hour <= 23:
            out.append(("daily_local_hour", "must be an hour from 0 to 23"))
        if not 1 <= self.max_changes_per_run <= 10_000:
            out.append(("max_changes_per_run", "must be from 1 to 10000"))
        if self.large_note_bytes < 1024:
            out.append(("large_note_bytes", "must be at least 1024"))
        return out


@dataclass(frozen=True, slots=True)
class ConsolidateConfig:
    url: str = ""
    model: str = ""
    api_key_env: str = ""
    max_turns: int = 30
    timeout_seconds: float = 120.0

    def check(self) -> list[tuple[str, str]]:
        out = []
        if self.url and not re.match(r"^https?://[^/\s]+", self.url):
            out.append(("url", "must be an http:// or https:// URL, e.g. http://localhost:11434/v1"))
        if self.api_key_env and not VARIABLE_NAME.fullmatch(self.api_key_env):
            out.append(("api_key_env", "must be the NAME of an environment variable, not the key"))
        elif OWN_VARIABLE.match(self.api_key_env):
            # BRAIN_TOKEN is the admin's key to every scope; NEO4J_PASSWORD the store's: no
            # endpoint, however trusted, is sent brain's own secrets as a bearer token.
            out.append(("api_key_env", f"names brain's own variable {self.api_key_env}, which is never "
                        "sent to a model endpoint: name the variable that holds the model's key "
                        "(e.g. OPENAI_API_KEY), or set BRAIN_CONSOLIDATE_API_KEY"))
        if not 1 <= self.max_turns <= 30:
            out.append(("max_turns", "must be from 1 to 30 (seeds/000 caps a run at 30 turns)"))
        if not 0 < self.timeout_seconds <= 3600:
            out.append(("timeout_seconds", "must be above 0 and at most 3600"))
        return out


def absolute_or_empty(value: str) -> bool:
    """A folder or file setting: unset, or absolute (a service's working folder is not the
    operator's, so a relative path would name another place under systemd than in a shell)."""
    return not value or value.startswith("/")


@dataclass(frozen=True, slots=True)
class HistoryConfig:
    """How long the history keeps each write's content (brain/tool/history/retention.py), and
    where the history lives when not in the workspace's `.brain/history.jsonl`."""

    keep_versions: int = 50
    keep_days: int = 90
    file: str = ""

    def check(self) -> list[tuple[str, str]]:
        out = []
        if not absolute_or_empty(self.file):
            out.append(("file", "must be an absolute path, e.g. /var/lib/brain/history.jsonl"))
        if not 1 <= self.keep_versions <= 1_000_000:
            out.append(("keep_versions", "must be from 1 to 1000000"))
        if not 0 <= self.keep_days <= 100_000:
            out.append(("keep_days", "must be from 0 (no age rule) to 100000"))
        return out


@dataclass(frozen=True, slots=True)
class ServeConfig:
    """`brain serve`'s address and budgets. The admin token itself (BRAIN_TOKEN) is a secret:
    the environment only, never a file."""

    host: str = "127.0.0.1"
    port: int = 8765
    tokens_file: str = ""  # a JSON object {"<token>": "<agent>" | "*"}; outside the workspace
    max_body_bytes: int = 1024 * 1024
    rescan_seconds: float = 30.0
    replica_poll_seconds: float = 0.1  # how often a replica (--read-only) reads the change log
    # Host headers accepted besides loopback and the bound host (DNS-rebinding protection).
    allowed_hosts: tuple[str, ...] = ()
    # Origins of cross-origin dashboards (CORS, WebSocket Origin), or "*".
    allowed_origins: tuple[str, ...] = ()
    metrics: bool = True  # GET /metrics (Prometheus), the admin token only: docs/metrics.md
    web_dist: str = ""  # the web UI's built files; empty: the ones installed with brain

    def check(self) -> list[tuple[str, str]]:
        out = []
        if not 0 <= self.port <= 65535:
            out.append(("port", "must be a port number from 0 (any free one) to 65535"))
        if self.max_body_bytes < 1024:
            out.append(("max_body_bytes", "must be a whole number of bytes, at least 1024, e.g. 1048576"))
        if not self.rescan_seconds > 0:
            out.append(("rescan_seconds", "must be a number of seconds above 0, e.g. 30"))
        if not 0 < self.replica_poll_seconds <= 60:
            out.append(("replica_poll_seconds", "must be a number of seconds above 0, at most 60, e.g. 0.1"))
        if not absolute_or_empty(self.web_dist):
            out.append(("web_dist", "must be an absolute path to a built web UI (web/build.sh)"))
        return out


@dataclass(frozen=True, slots=True)
class StoreConfig:
    """The graph store. The Neo4j password is a secret: only the NAME of the variable that
    holds it is a setting (`--neo4j-password` still works, for a one-off command)."""

    kind: str = "memory"
    neo4j_uri: str = ""
    neo4j_user: str = ""
    neo4j_password_env: str = "NEO4J_PASSWORD"
    neo4j_database: str = "neo4j"
    neo4j_atomic_rows: int = 0  # a change past it is staged, then switched; 0: the store's own
    # The writer lease's time to live: a crashed writer is replaced this long after its last
    # heartbeat (brain/store/neo4j/sharing/lease.py).
    neo4j_lease_seconds: float = 15.0

    def check(self) -> list[tuple[str, str]]:
        out = []
        if self.kind not in STORES:
            out.append(("kind", "must be \"memory\" (embedded) or \"neo4j\" (a Neo4j server)"))
        if self.neo4j_uri and not NEO4J_SCHEMES.match(self.neo4j_uri):
            out.append(("neo4j_uri", "must be a bolt:// or neo4j:// URI (+s or +ssc for TLS), "
                        "e.g. bolt://127.0.0.1:7687"))
        if not VARIABLE_NAME.fullmatch(self.neo4j_password_env):
            out.append(("neo4j_password_env", "must be the NAME of an environment variable "
                        "(e.g. NEO4J_PASSWORD), not the password"))
        if self.neo4j_atomic_rows < 0:
            out.append(("neo4j_atomic_rows", "must be 0 (the store's own) or a whole number of rows"))
        if not 0.5 <= self.neo4j_lease_seconds <= 3600:
            out.append(("neo4j_lease_seconds", "must be a number of seconds from 0.5 to 3600, e.g. 15"))
        return out


@dataclass(frozen=True, slots=True)
class IngestConfig:
    """How the workspace is read: the parse helpers (processes) that read notes in parallel."""

    workers: int = 0  # 0: one per core, at most 8

    def check(self) -> list[tuple[str, str]]:
        if not 0 <= self.workers <= 64:
            return [("workers", "must be from 0 (one per core, at most 8) to 64")]
        return []


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """Search by meaning: on where the `semantic` extra is installed, unless turned off here."""

    semantic: bool = True

    def check(self) -> list[tuple[str, str]]:
        return []


@dataclass(frozen=True, slots=True)
class CacheConfig:
    """brain's cache: startup snapshots and the embeddings' vectors (rebuilt when missing).
    Empty: $XDG_CACHE_HOME/brain, else ~/.cache/brain; snapshots in its `snapshots/`."""

    dir: str = ""
    snapshot_dir: str = ""

    def check(self) -> list[tuple[str, str]]:
        out = []
        for key in ("dir", "snapshot_dir"):
            if not absolute_or_empty(getattr(self, key)):
                out.append((key, "must be an absolute path, e.g. /var/cache/brain"))
        return out


@dataclass(frozen=True, slots=True)
class LogConfig:
    """How `brain serve` logs: today's text lines, or one JSON object a line for collectors."""

    format: str = "text"
    level: str = "info"
    requests: bool = False  # a line for every request; refused and failed ones are always logged

    def check(self) -> list[tuple[str, str]]:
        out = []
        if self.format not in LOG_FORMATS:
            out.append(("format", "must be \"text\" or \"json\""))
        if self.level.lower() not in LOG_LEVELS:
            out.append(("level", "must be one of " + ", ".join(LOG_LEVELS)))
        return out


#: section -> the dataclass it fills. A new operator setting is a field here, nothing more:
#: its variable, its refusal in brain.toml and its line in `brain config show` follow.
SECTIONS: dict[str, type[Any]] = {
    "consolidate": ConsolidateConfig,
    "maintain": MaintainConfig,
    "history": HistoryConfig,
    "serve": ServeConfig,
    "store": StoreConfig,
    "budgets": Budgets,
    "ingest": IngestConfig,
    "search": SearchConfig,
    "cache": CacheConfig,
    "log": LogConfig,
}
#: The variables older than this module keep their names; the rest are BRAIN_<SECTION>_<KEY>.
#: Settings read where they are used, in this process and in the parse helpers it starts, from
#: these variables: `export_settings` sets them from the effective settings.
PROCESS_KEYS = (("serve", "web_dist"), ("history", "file"), ("ingest", "workers"), ("search", "semantic"),
                ("cache", "dir"), ("cache", "snapshot_dir"))
ENV_NAMES = {
    ("serve", "host"): "BRAIN_HOST", ("serve", "port"): "BRAIN_PORT",
    ("serve", "tokens_file"): "BRAIN_TOKENS_FILE", ("serve", "max_body_bytes"): "BRAIN_MAX_BODY_BYTES",
    ("serve", "rescan_seconds"): "BRAIN_RESCAN_SECONDS",
    ("serve", "replica_poll_seconds"): "BRAIN_REPLICA_POLL_SECONDS",
    ("serve", "allowed_hosts"): "BRAIN_ALLOWED_HOSTS", ("serve", "allowed_origins"): "BRAIN_ALLOWED_ORIGINS",
    ("serve", "metrics"): "BRAIN_METRICS", ("serve", "web_dist"): "BRAIN_WEB_DIST",
    ("history", "file"): "BRAIN_MEMORY_HISTORY", ("ingest", "workers"): "BRAIN_INGEST_WORKERS",
    ("search", "semantic"): "BRAIN_SEMANTIC",
    ("cache", "dir"): "BRAIN_CACHE_DIR", ("cache", "snapshot_dir"): "BRAIN_SNAPSHOT_DIR",
    ("store", "kind"): "BRAIN_STORE", ("store", "neo4j_uri"): "NEO4J_URI",
    ("store", "neo4j_user"): "NEO4J_USER", ("store", "neo4j_database"): "NEO4J_DATABASE",
    ("store", "neo4j_atomic_rows"): "BRAIN_NEO4J_ATOMIC_ROWS",
    ("store", "neo4j_lease_seconds"): "BRAIN_NEO4J_LEASE_SECONDS",
    **{("budgets", key): name for key, name in BUDGET_ENV_NAMES.items()},
}
