"""The MCP server: tools, resources and the prompt, over one workspace's services.

`BrainMcp` is transport-free: `brain mcp` runs it over stdio for one agent, `brain serve`
mounts it at `/mcp` (streamable HTTP) where each request's bearer token decides the agent.
Blocking work (files, the store) runs in worker threads, so one slow call never holds the
event loop that serves the others.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server import InitializationOptions, NotificationOptions, Server, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from brain import __version__
from brain.api.http.events import ChangeHub
from brain.mcp import resources
from brain.mcp.caller import Caller
from brain.mcp.listen import AgentListens
from brain.mcp.notify import Notifier
from brain.mcp.tools import graph
from brain.mcp.tools.asof import as_of
from brain.mcp.tools.asof import render as render_as_of
from brain.mcp.tools.layouts import call_layout_tool, layout_instructions, layout_tools
from brain.mcp.tools.schemas import (
    AS_OF_TOOL,
    BACKLINKS_TOOL,
    CHANGES_TOOL,
    LINKS_TOOL,
    MEMORY_TOOL,
    NEIGHBORHOOD_TOOL,
    PROBLEMS_TOOL,
    RELATED_TOOL,
    SEARCH_TOOL,
    graph_tools,
    memory_tool,
    search_tool,
)
from brain.mcp.tools.search import SearchFunction, find_search, run_search
from brain.metrics import bounded
from brain.service.brain import Brain
from brain.tool import MemoryTool, Refusal, memory_service
from brain.tool.access import Actor
from brain.tool.calls.refusal import RefusalCode
from brain.tool.calls.tool import ToolResult
from brain.tool.diff.query import memory_changes
from brain.tool.layouts.verbs import layout_verbs

CallerOf = Callable[[ServerRequestContext[Any, Any]], Caller]
Context = ServerRequestContext[Any, Any]
INSTRUCTIONS = (
    "brain keeps this agent's memory: markdown notes under /memories (its own) and "
    "/memories/shared (every agent's). Use the `memory` tool to view, create, str_replace, "
    "insert, delete and rename notes; view /memories before starting a task. The `your-memory` "
    "prompt is the index to put in the system prompt."
)


class BrainMcp:
    """One MCP server over a Brain; `caller_of` says who each request acts for."""

    def __init__(
        self,
        brain: Brain,
        caller_of: CallerOf,
        *,
        hub: ChangeHub | None = None,
        search: SearchFunction | None = None,
        background: Callable[[], Coroutine[Any, Any, None]] | None = None,
    ) -> None:
        self.brain = brain
        self.service = memory_service(brain)
        self.tool = MemoryTool(self.service)
        self.caller_of = caller_of
        self.hub = hub
        self.search = search if search is not None else find_search(brain)
        self.listens = AgentListens(self.service, caller_of)
        # space and mindlink workspaces: the seeds' own verbs instead of the memory tool
        self.layout_verbs = layout_verbs(brain, self.service)
        self.notifier = Notifier(self.listens)
        # The tool names a metric may carry: the ones this server lists (brain/metrics.py).
        graph_names = (MEMORY_TOOL, *_GRAPH, SEARCH_TOOL)
        self.tool_names = frozenset(self.layout_verbs.names if self.layout_verbs is not None else graph_names)
        self._background = background
        self.server: Server[Any] = Server(
            "brain",
            version=__version__,
            title="brain: agent memory",
            instructions=layout_instructions(self.layout_verbs) or INSTRUCTIONS,
            lifespan=self._lifespan,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_resources=self._list_resources,
            on_list_resource_templates=self._list_templates,
            on_read_resource=self._read_resource,
            on_subscribe_resource=self._subscribe,
            on_unsubscribe_resource=self._unsubscribe,
            on_list_prompts=self._list_prompts,
            on_get_prompt=self._get_prompt,
            on_subscriptions_listen=self.listens,
        )

    def initialization_options(self) -> InitializationOptions:
        return self.server.create_initialization_options(NotificationOptions(resources_changed=True))

    # ------------------------------------------------------------------ lifespan

    @asynccontextmanager
    async def _lifespan(self, _server: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        """Forward graph changes to sessions while the server runs (and start the watcher, stdio)."""
        hub = self.hub
        own_hub = hub is None
        if hub is None:
            hub = ChangeHub(self.brain)
            hub.start()
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self.notifier.pump, hub)
                if self._background is not None:
                    tg.start_soon(self._background)
                yield {}
                tg.cancel_scope.cancel()
        finally:
            if own_hub:
                hub.stop()

    def _who(self, ctx: Context) -> Caller:
        caller = self.caller_of(ctx)
        if ctx.protocol_version not in _MODERN:
            self.notifier.seen(ctx.session, caller)
        return caller

    # ------------------------------------------------------------------ tools

    async def _list_tools(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        if self.layout_verbs is not None:
            return types.ListToolsResult(tools=layout_tools(self.layout_verbs))
        tools = [memory_tool(), *graph_tools()]
        if self.search is not None:
            tools.append(search_tool())
        return types.ListToolsResult(tools=tools)

    async def _call_tool(self, ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        metrics = self.brain.metrics
        if metrics is None:
            return await self._answer_tool(ctx, params)
        started = time.perf_counter()
        tool = bounded(params.name, self.tool_names)
        outcome = "error"
        try:
            result = await self._answer_tool(ctx, params)
            outcome = "refused" if result.is_error else "ok"
            return result
        finally:
            metrics.mcp_calls.labels(tool, outcome).inc()
            metrics.mcp_seconds.labels(tool).observe(time.perf_counter() - started)

    async def _answer_tool(self, ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        caller = self._who(ctx)
        args: dict[str, Any] = dict(params.arguments or {})
        verbs = self.layout_verbs
        if verbs is not None:
            run_verb = functools.partial(call_layout_tool, verbs, caller, params.name, args)
            return await anyio.to_thread.run_sync(run_verb)
        if params.name == MEMORY_TOOL:
            run = functools.partial(self.tool.run, caller.agent, args, actor=caller.actor)
            return memory_result(await anyio.to_thread.run_sync(run))
        if params.name in _GRAPH or (params.name == SEARCH_TOOL and self.search is not None):
            try:
                data = await anyio.to_thread.run_sync(self._graph_call, caller, params.name, args)
            except Refusal as refusal:
                return _error(refusal.text(), {"ok": False, "refusal": refusal.to_json()})
            if params.name == SEARCH_TOOL:
                text = json.dumps(data, ensure_ascii=False)
            else:
                text = render_as_of(data) if params.name == AS_OF_TOOL else graph.render(params.name, data)
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=text)], structured_content=data
            )
        known = [MEMORY_TOOL, *_GRAPH, *([SEARCH_TOOL] if self.search is not None else [])]
        return _error(f"there is no tool `{params.name}`; the tools are " + ", ".join(known), None)

    def _graph_call(self, caller: Caller, name: str, args: dict[str, Any]) -> dict[str, Any]:
        agent = caller.resolve(self.service)
        view = graph.AgentView(self.brain, agent)
        if name == LINKS_TOOL:
            return graph.links(view, args.get("path"), args.get("after"))
        if name == BACKLINKS_TOOL:
            return graph.backlinks(view, args.get("path"), args.get("after"))
        if name == NEIGHBORHOOD_TOOL:
            return graph.neighborhood(view, args.get("path"), args.get("depth", 1), args.get("limit", 50))
        if name == PROBLEMS_TOOL:
            return graph.problems(view, args.get("path", "/memories"), args.get("after"))
        if name == RELATED_TOOL:
            return graph.related(view, args.get("path"), args.get("first", 10))
        if name == AS_OF_TOOL:  # as the agent: its own notes and the shared ones, then
            return as_of(self.service, agent, args.get("at"), args.get("path"))
        if name == CHANGES_TOOL:  # as the agent: its own scope and the shared one, nothing else
            return memory_changes(
                self.service, Actor.of_agent(agent, "mcp"), _text(args, "since") or "",
                _text(args, "until"), _text(args, "agent"),
            )
        assert self.search is not None
        return run_search(self.search, agent, args)

    # ------------------------------------------------------------------ resources and prompt

    def _agent(self, caller: Caller) -> str:
        try:
            return caller.resolve(self.service)
        except Refusal as refusal:
            raise MCPError(types.INVALID_PARAMS, refusal.text()) from None

    async def _list_resources(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        if self.layout_verbs is not None:  # memory:// notes are latchai's; the verbs read the rest
            return types.ListResourcesResult(resources=[])
        caller = self._who(ctx)
        agent = self._agent(caller)
        found = await anyio.to_thread.run_sync(resources.list_notes, self.service, agent)
        return types.ListResourcesResult(resources=found)

    async def _list_templates(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        found = resources.templates() if self.layout_verbs is None else []
        return types.ListResourceTemplatesResult(resource_templates=found)

    async def _read_resource(
        self, ctx: Context, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        caller = self._who(ctx)
        agent = self._agent(caller)
        read = functools.partial(resources.read_note, self.service, agent, caller.actor, str(params.uri))
        return await anyio.to_thread.run_sync(read)

    async def _subscribe(self, ctx: Context, params: types.SubscribeRequestParams) -> types.EmptyResult:
        caller = self._who(ctx)
        self._agent(caller)
        self.notifier.subscribe(ctx.session, caller, str(params.uri))
        return types.EmptyResult()

    async def _unsubscribe(self, ctx: Context, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        self.notifier.unsubscribe(ctx.session, str(params.uri))
        return types.EmptyResult()

    async def _list_prompts(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=resources.prompts() if self.layout_verbs is None else [])

    async def _get_prompt(self, ctx: Context, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        caller = self._who(ctx)
        agent = self._agent(caller)
        get = functools.partial(resources.get_prompt, self.service, agent, params.name)
        return await anyio.to_thread.run_sync(get)


_GRAPH = (LINKS_TOOL, BACKLINKS_TOOL, NEIGHBORHOOD_TOOL, PROBLEMS_TOOL, RELATED_TOOL, CHANGES_TOOL,
          AS_OF_TOOL)
_MODERN = tuple(MODERN_PROTOCOL_VERSIONS)


def memory_result(result: ToolResult) -> types.CallToolResult:
    """The tool's answer: its text for the model; a refusal is a tool error carrying the lesson."""
    data: dict[str, Any] = {
        "ok": result.ok, "command": result.command, "path": result.path, "hash": result.hash,
        "previousHash": result.previous_hash,
    }
    if result.refusal is not None:
        data["refusal"] = result.refusal.to_json()
        return _error(result.text, data)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=result.text)], structured_content=data
    )


def _error(text: str, data: dict[str, Any] | None) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=data, is_error=True
    )


def build_server(brain: Brain, caller_of: CallerOf, **kwargs: Any) -> BrainMcp:
    return BrainMcp(brain, caller_of, **kwargs)


def _text(args: dict[str, Any], name: str) -> str | None:
    """A string argument, or a refusal that names it (a model may send a number)."""
    value = args.get(name)
    if value is None or isinstance(value, str):
        return value
    raise Refusal(RefusalCode.INVALID_ARGUMENT, f"`{name}` is a string such as \"7d\" or an ISO 8601 time")
