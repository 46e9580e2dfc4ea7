"""The write history's size cap: what it keeps, per agent and for the workspace, and the refusal.

Retention (brain/tool/history/retention.py) keeps every version younger than `keep_days`, so one agent
rewriting one 64 KiB note in a loop grew `.brain/` by about 1 MB/s with nothing to stop it.
The cap bounds what the history keeps: the lines of history.jsonl and the versions in the
blob store, counted for the whole workspace and for each agent (an agent is charged the
versions its own writes name and its own lines; a version two agents wrote is charged to
both, so one agent can never push its bytes onto another's account).

A write that would pass a cap first lets retention remove what it may; if the write still
does not fit it is refused with `history-full` before the file is touched, so the history
never silently loses the record of a change that happened. Deletes and renames add a line
and no content: they are never refused, so an agent can always clean up.

The meter keeps its sums between writes and reads only the records appended since (history
reads are incremental too), so a check costs what the new records cost; a prune, or a blob
another process removed, makes it count again from the files.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from brain.budgets import HISTORY_AGENT_ENV, HISTORY_WORKSPACE_ENV, HistoryCaps, mib
from brain.config.operator import HistoryConfig
from brain.tool.calls.refusal import Refusal, RefusalCode
from brain.tool.history.blobs import BlobStore
from brain.tool.history.log import History, HistoryRecord

log = logging.getLogger(__name__)

LINE_ESTIMATE = 512  # bytes of one history line: a record is paths, hashes and a time


@dataclass(frozen=True, slots=True)
class HistoryUsage:
    """What the history keeps now, against its caps (for /healthz and metrics)."""

    log_bytes: int  # history.jsonl
    blob_bytes: int  # the versions kept for diffs
    agents: dict[str, int]  # agent -> bytes charged to it
    caps: HistoryCaps
    refusals: int = 0  # writes refused with history-full since the service started
    refused_agents: frozenset[str] = frozenset()  # agents whose last write was refused
    workspace_refused: bool = False  # the last write refused passed the workspace's cap

    @property
    def total(self) -> int:
        return self.log_bytes + self.blob_bytes

    @property
    def full(self) -> bool:
        return self.workspace_refused or self.total >= self.caps.workspace_bytes

    def to_json(self) -> dict[str, object]:
        """For /healthz, which answers without a token: sizes and counts, no agent names
        (the server log names the agent of each refusal)."""
        return {
            "bytes": self.total,
            "logBytes": self.log_bytes,
            "blobBytes": self.blob_bytes,
            "capBytes": self.caps.workspace_bytes,
            "agentCapBytes": self.caps.agent_bytes,
            "largestAgentBytes": max(self.agents.values(), default=0),
            "full": self.full,
            "agentsRefused": len(self.refused_agents),
            "refusedWrites": self.refusals,
        }


@dataclass(slots=True)
class _Account:
    digests: set[str] = field(default_factory=set)
    line_bytes: int = 0


class HistoryMeter:
    """Running sums of what the history keeps; `forget()` after anything removed blobs."""

    def __init__(self, history: History, blobs: BlobStore) -> None:
        self.history = history
        self.blobs = blobs
        self._lock = threading.Lock()
        self.refusals = 0
        self._refused_agents: set[str] = set()
        self._workspace_refused = False
        self.forget()

    def forget(self) -> None:
        self._seen = 0
        self._sizes: dict[str, int] = {}  # digest -> bytes on disk, 0 when not kept
        self._blob_bytes = 0
        self._accounts: dict[str, _Account] = {}

    def usage(self, caps: HistoryCaps) -> HistoryUsage:
        with self._lock:
            self._catch_up()
            agents = {name: self._charged(acc) for name, acc in self._accounts.items()}
            return HistoryUsage(
                self._log_bytes(), self._blob_bytes, agents, caps, self.refusals,
                frozenset(self._refused_agents), self._workspace_refused,
            )

    def charged(self, agent: str) -> int:
        with self._lock:
            self._catch_up()
            account = self._accounts.get(agent)
            return 0 if account is None else self._charged(account)

    def adds(self, agent: str | None, digests: dict[str, int]) -> tuple[int, int]:
        """Bytes a write of these versions (digest -> size) adds: (to the workspace, to `agent`)."""
        with self._lock:
            self._catch_up()
            account = self._accounts.get(agent or "")
            workspace = agent_bytes = LINE_ESTIMATE
            for digest, size in digests.items():
                if size > self.blobs.max_bytes:
                    continue  # not kept (blobs.py)
                if not self._sizes.get(digest) and not self._size(digest):
                    workspace += size
                if account is None or digest not in account.digests:
                    agent_bytes += size
            return workspace, agent_bytes

    def check(
        self, agent: str | None, shown: str, versions: dict[str, int], caps: HistoryCaps,
        make_room: Callable[[], bool], policy: HistoryConfig | None,
    ) -> None:
        """Refuse a write of `versions` (digest -> size) by `agent` that would pass a cap;
        `make_room` prunes by retention (False when it may not now) before a second look."""
        for attempt in range(2):
            usage = self.usage(caps)
            workspace, mine = self.adds(agent, versions)
            agent_used = usage.agents.get(agent, 0) if agent is not None else 0
            over_agent = agent is not None and agent_used + mine > caps.agent_bytes
            over_workspace = usage.total + workspace > caps.workspace_bytes
            if not (over_agent or over_workspace):
                with self._lock:
                    self._refused_agents.discard(agent or "")
                    self._workspace_refused = False
                return
            if attempt == 0 and make_room():
                continue
            with self._lock:
                self.refusals += 1
                if over_agent and agent is not None:
                    self._refused_agents.add(agent)
                else:
                    self._workspace_refused = True
            rules = "paused: brain.toml does not read" if policy is None else (
                f"[history] keep_versions = {policy.keep_versions}, keep_days = {policy.keep_days}"
            )
            if over_agent:
                refusal = history_full(shown, agent=agent, used=agent_used, adding=mine,
                                       cap=caps.agent_bytes, retention=rules)
            else:
                refusal = history_full(shown, agent=None, used=usage.total, adding=workspace,
                                       cap=caps.workspace_bytes, retention=rules)
            log.warning("refused a write of %s: %s", shown, refusal.message)
            raise refusal

    def _catch_up(self) -> None:
        records = self.history.all()
        if len(records) < self._seen:  # the file was replaced: count again
            self.forget()
        for record in records[self._seen :]:
            self._add(record)
        self._seen = len(records)

    def _add(self, record: HistoryRecord) -> None:
        digests = [d for d in (record.before, record.after) if d]
        for digest in digests:
            if digest not in self._sizes:
                self._sizes[digest] = size = self._size(digest)
                self._blob_bytes += size
        if record.agent is None:
            return
        account = self._accounts.setdefault(record.agent, _Account())
        account.digests.update(digests)
        account.line_bytes += len(json.dumps(record.to_json(), ensure_ascii=False).encode()) + 1

    def _charged(self, account: _Account) -> int:
        return account.line_bytes + sum(self._sizes.get(d, 0) for d in account.digests)

    def _size(self, digest: str) -> int:
        return self.blobs.size(digest)

    def _log_bytes(self) -> int:
        try:
            return self.history.path.stat().st_size
        except OSError:
            return 0


def history_full(
    shown: str, *, agent: str | None, used: int, adding: int, cap: int, retention: str
) -> Refusal:
    """The teaching refusal of a write past a cap: what the cap is, who raises it, the note unchanged."""
    whose = f"agent {agent}'s" if agent is not None else "this workspace's"
    env = HISTORY_AGENT_ENV if agent is not None else HISTORY_WORKSPACE_ENV
    return Refusal(
        RefusalCode.HISTORY_FULL,
        f"{shown} was NOT changed: {whose} write history keeps {mib(used)} and this write would add "
        f"{adding:,} bytes, past its cap of {mib(cap)} ({env}). Retention already removed every "
        f"version it may ({retention}). Nothing is lost and nothing was written; writes resume when "
        f"the operator raises {env} or shortens the history's keep_days, so tell a person rather "
        "than retrying",
        None,
    )
