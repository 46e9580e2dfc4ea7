"""Where an adapter's memory calls go: this process on a workspace, or a brain server.

Both take the model's raw tool input and answer `(ok, text)`: the tool's output, or its
refusal with the call that would work. In process, the call runs `MemoryTool` on the files
(history `via: python`; a `Brain` given too keeps its graph in step at once, otherwise a
running `brain serve` picks the change up through its watcher). Remotely, it is the GraphQL
`memoryTool` mutation under a bearer token, so the server's rules, graph and history apply.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import httpx2

from brain.service.brain import Brain
from brain.tool import Actor, MemoryService, MemoryTool

MUTATION = (
    "mutation($agent: String, $input: JSON!) "
    "{ memoryTool(agent: $agent, input: $input) { ok text } }"
)
DEFAULT_TIMEOUT = 30.0


class BrainUnavailable(RuntimeError):
    """The brain server could not be asked (down, wrong URL, refused token): not the model's fault."""


PROMPT = "query($agent: String!) { memoryPrompt(agent: $agent) }"


class Backend(Protocol):
    def run(self, payload: Mapping[str, object]) -> tuple[bool, str]: ...
    def prompt(self) -> str | None: ...


class AsyncBackend(Protocol):
    async def run(self, payload: Mapping[str, object]) -> tuple[bool, str]: ...
    async def prompt(self) -> str | None: ...


class LocalBackend:
    def __init__(self, workspace: str | os.PathLike[str] | Brain, agent: str) -> None:
        if isinstance(workspace, Brain):
            from brain.tool import memory_service

            service = memory_service(workspace)
        else:
            service = MemoryService(Path(workspace))
        self.tool = MemoryTool(service)
        self.agent = agent
        self.actor = Actor.open("python")

    def run(self, payload: Mapping[str, object]) -> tuple[bool, str]:
        result = self.tool.run(self.agent, payload, actor=self.actor)
        return result.ok, result.text

    def prompt(self) -> str | None:
        return self.tool.service.prompt(self.agent)


class AsyncLocalBackend:
    def __init__(self, local: LocalBackend) -> None:
        self.local = local

    async def run(self, payload: Mapping[str, object]) -> tuple[bool, str]:
        import anyio.to_thread

        return await anyio.to_thread.run_sync(self.local.run, payload)

    async def prompt(self) -> str | None:
        import anyio.to_thread

        return await anyio.to_thread.run_sync(self.local.prompt)


def _request(url: str, token: str | None, agent: str | None) -> tuple[str, dict[str, str], str | None]:
    endpoint = url.rstrip("/")
    if not endpoint.endswith("/graphql"):
        endpoint += "/graphql"
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return endpoint, headers, agent


def _answer(response: httpx2.Response, endpoint: str) -> Any:
    try:
        body: Any = response.json()
    except ValueError:
        body = None
    if response.status_code != 200 or not isinstance(body, dict):
        detail = body.get("errors") if isinstance(body, dict) else response.text[:200]
        raise BrainUnavailable(f"brain at {endpoint} answered {response.status_code}: {detail}")
    if body.get("errors"):
        messages = "; ".join(str(e.get("message")) for e in body["errors"] if isinstance(e, dict))
        raise BrainUnavailable(f"brain at {endpoint}: {messages}")
    return body["data"]


def _tool_answer(data: Any) -> tuple[bool, str]:
    result = data["memoryTool"]
    return bool(result["ok"]), str(result["text"])


def _prompt_request(agent: str | None) -> dict[str, Any]:
    if agent is None:
        raise TypeError("name the agent (agent=...) to read its prompt from a brain server")
    return {"query": PROMPT, "variables": {"agent": agent}}


def _prompt_answer(data: Any) -> str | None:
    found = data["memoryPrompt"]
    return None if found is None else str(found)


class RemoteBackend:
    def __init__(
        self, url: str, token: str | None = None, agent: str | None = None, *,
        client: httpx2.Client | None = None, timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.endpoint, self.headers, self.agent = _request(url, token, agent)
        self.client = client or httpx2.Client(timeout=timeout)

    def run(self, payload: Mapping[str, object]) -> tuple[bool, str]:
        body = {"query": MUTATION, "variables": {"agent": self.agent, "input": dict(payload)}}
        return _tool_answer(self._post(body))

    def prompt(self) -> str | None:
        return _prompt_answer(self._post(_prompt_request(self.agent)))

    def _post(self, body: dict[str, Any]) -> Any:
        try:
            response = self.client.post(self.endpoint, json=body, headers=self.headers)
        except httpx2.HTTPError as exc:
            raise BrainUnavailable(f"brain at {self.endpoint} cannot be reached: {exc}") from exc
        return _answer(response, self.endpoint)


class AsyncRemoteBackend:
    def __init__(
        self, url: str, token: str | None = None, agent: str | None = None, *,
        client: httpx2.AsyncClient | None = None, timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.endpoint, self.headers, self.agent = _request(url, token, agent)
        self.client = client or httpx2.AsyncClient(timeout=timeout)

    async def run(self, payload: Mapping[str, object]) -> tuple[bool, str]:
        body = {"query": MUTATION, "variables": {"agent": self.agent, "input": dict(payload)}}
        return _tool_answer(await self._post(body))

    async def prompt(self) -> str | None:
        return _prompt_answer(await self._post(_prompt_request(self.agent)))

    async def _post(self, body: dict[str, Any]) -> Any:
        try:
            response = await self.client.post(self.endpoint, json=body, headers=self.headers)
        except httpx2.HTTPError as exc:
            raise BrainUnavailable(f"brain at {self.endpoint} cannot be reached: {exc}") from exc
        return _answer(response, self.endpoint)
