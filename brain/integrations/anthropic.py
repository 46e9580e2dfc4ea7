"""brain as the Anthropic SDK's memory tool: `BetaAbstractMemoryTool` backed by brain.

    from anthropic import Anthropic
    from brain.integrations.anthropic import BrainMemoryTool

    runner = Anthropic().beta.messages.tool_runner(
        model="claude-sonnet-4-5", max_tokens=2048, messages=[...],
        tools=[BrainMemoryTool("path/to/workspace", agent="release-writer")],
    )

`BrainMemoryTool(workspace, agent=...)` works in this process on the workspace's files;
`BrainMemoryTool.remote(url, token=...)` asks a running `brain serve` (an agent's token is
that agent). Either way the model's input reaches brain's memory tool exactly as sent, so
brain's rules apply (only `.md` notes directly in /memories or /memories/shared, no
secrets, atomic writes, history), and a refusal comes back as a tool error (`is_error`)
whose text names the call that would have worked. `BrainAsyncMemoryTool` is the same for
the SDK's async client and runner. Needs the `anthropic` extra: `pip install 'brain-memory[anthropic]'`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import httpx2
from anthropic.lib.tools import BetaAbstractMemoryTool, BetaAsyncAbstractMemoryTool, ToolError
from anthropic.types.beta import (
    BetaCacheControlEphemeralParam,
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)
from pydantic import BaseModel

from brain.integrations.backends import (
    AsyncBackend,
    AsyncLocalBackend,
    AsyncRemoteBackend,
    Backend,
    BrainUnavailable,
    LocalBackend,
    RemoteBackend,
)
from brain.service.brain import Brain

__all__ = ["BrainAsyncMemoryTool", "BrainMemoryTool", "BrainUnavailable"]

Workspace = str | os.PathLike[str] | Brain


def _payload(command: BaseModel) -> dict[str, object]:
    return command.model_dump(exclude_none=True)


def _raw(input: object) -> Mapping[str, object]:
    if not isinstance(input, Mapping):
        raise ToolError(f'Refused: the memory tool takes an object such as {{"command": "view", '
                        f'"path": "/memories"}}, not {type(input).__name__}')
    return input


def _answer(ok: bool, text: str) -> str:
    if not ok:
        raise ToolError(text)
    return text


class BrainMemoryTool(BetaAbstractMemoryTool):
    """The memory tool on brain, for `client.beta.messages.tool_runner(tools=[...])`."""

    def __init__(
        self, workspace: Workspace | None = None, *, agent: str | None = None,
        backend: Backend | None = None, cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        if backend is None:
            if workspace is None or agent is None:
                raise TypeError("BrainMemoryTool needs a workspace and agent=..., or .remote(url, token=...)")
            backend = LocalBackend(workspace, agent)
        self.backend = backend

    @classmethod
    def remote(
        cls, url: str, *, token: str | None = None, agent: str | None = None,
        client: httpx2.Client | None = None, cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> BrainMemoryTool:
        """Through a running `brain serve` at `url`; the agent is the token's (or `agent`)."""
        return cls(backend=RemoteBackend(url, token, agent, client=client), cache_control=cache_control)

    def call(self, input: object) -> str:
        # The model's input as sent, not the SDK's parsed command: brain's own checks then
        # see a missing or mistyped argument and teach the fix.
        return _answer(*self.backend.run(_raw(input)))

    def run(self, payload: Mapping[str, Any]) -> str:
        return _answer(*self.backend.run(payload))

    def prompt(self) -> str:
        """The `## Your memory` block for the system prompt ("" when the agent's memory is off)."""
        return self.backend.prompt() or ""

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return self.run(_payload(command))

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return self.run(_payload(command))

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return self.run(_payload(command))

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return self.run(_payload(command))

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return self.run(_payload(command))

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return self.run(_payload(command))


class BrainAsyncMemoryTool(BetaAsyncAbstractMemoryTool):
    """The same for `AsyncAnthropic`: in-process calls run in a worker thread."""

    def __init__(
        self, workspace: Workspace | None = None, *, agent: str | None = None,
        backend: AsyncBackend | None = None,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        if backend is None:
            if workspace is None or agent is None:
                raise TypeError(
                    "BrainAsyncMemoryTool needs a workspace and agent=..., or .remote(url, token=...)"
                )
            backend = AsyncLocalBackend(LocalBackend(workspace, agent))
        self.backend = backend

    @classmethod
    def remote(
        cls, url: str, *, token: str | None = None, agent: str | None = None,
        client: httpx2.AsyncClient | None = None,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> BrainAsyncMemoryTool:
        return cls(backend=AsyncRemoteBackend(url, token, agent, client=client), cache_control=cache_control)

    async def call(self, input: object) -> str:
        return _answer(*await self.backend.run(_raw(input)))

    async def run(self, payload: Mapping[str, Any]) -> str:
        return _answer(*await self.backend.run(payload))

    async def prompt(self) -> str:
        """The `## Your memory` block for the system prompt ("" when the agent's memory is off)."""
        return await self.backend.prompt() or ""

    async def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return await self.run(_payload(command))

    async def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return await self.run(_payload(command))

    async def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return await self.run(_payload(command))

    async def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return await self.run(_payload(command))

    async def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return await self.run(_payload(command))

    async def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return await self.run(_payload(command))
