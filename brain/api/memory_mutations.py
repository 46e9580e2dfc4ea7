"""The memory tool over GraphQL: six mutations, the raw tool call, the prompt block, history.

    mutation { memoryView(agent: "writer", path: "/memories") { ok text } }
    mutation {
      memoryStrReplace(agent: "writer", path: "/memories/style.md", oldStr: "old",
                       newStr: "new", expectedHash: "…") { ok hash refusal { code suggestion { text } } }
    }
    mutation { memoryTool(agent: "writer", input: {command: "view", path: "/memories"}) { text } }
    query { agent(name: "writer") { memoryPrompt } }
    query { memoryHistory(agent: "writer") { records { command path } } }

Every call answers a `MemoryToolResult`: `output` when it worked, `refusal` (code, message
and the call that would have worked) when it did not; `text` is either, ready to hand back to
the model. Accepted writes reach the graph at once and are announced on `graphChanged`.
An agent's token acts only as that agent; an admin (or an open server) may act as any.
"""

from __future__ import annotations

from typing import cast

import strawberry
from strawberry.scalars import JSON

from brain.api.graphql.context import Info
from brain.api.graphql.errors import UserError
from brain.api.graphql.fields import field
from brain.api.graphql.loaders import in_thread
from brain.api.http.auth import actor_of
from brain.tool import memory_service
from brain.tool.access import Actor, visible_history
from brain.tool.calls.refusal import Refusal, RefusalCode
from brain.tool.calls.tool import MemoryTool, ToolResult
from brain.tool.history.log import DEFAULT_LIMIT, MAX_LIMIT, HistoryRecord, origin_of
from brain.tool.service import MemoryService

# The GraphQL enum is the service's own: one list of codes, named for the schema.
MemoryRefusalCode = strawberry.enum(
    RefusalCode,
    name="MemoryRefusalCode",
    description="Why the memory tool refused a call; each has its HTTP status on the REST API.",
)


@strawberry.type(description="A call that would have worked, as the model would make it.")
class MemorySuggestion:
    command: str = strawberry.field(description="`view`, `create`, ... (or `GET`, `PUT`, ... over HTTP).")
    arguments: JSON = strawberry.field(description="Its arguments, e.g. {\"path\": \"/memories\"}.")
    text: str = strawberry.field(description="The call as one line of JSON, long strings clipped.")


@strawberry.type(description="What was wrong with a memory call, and the call to make instead.")
class MemoryRefusal:
    code: RefusalCode
    message: str
    status: int = strawberry.field(description="The HTTP status the REST API gives this refusal.")
    suggestion: MemorySuggestion | None
    text: str = strawberry.field(description="`Refused: <message>` and `Try: <call>`: a tool result.")

    @classmethod
    def of(cls, refusal: Refusal) -> MemoryRefusal:
        suggestion = refusal.suggestion
        return cls(
            code=refusal.code,
            message=refusal.message,
            status=refusal.status,
            suggestion=None if suggestion is None else MemorySuggestion(
                command=suggestion.command, arguments=cast(JSON, dict(suggestion.args)),
                text=suggestion.text(),
            ),
            text=refusal.text(),
        )


@strawberry.type(description="The answer to one memory tool call: its output, or its refusal.")
class MemoryToolResult:
    ok: bool
    command: str
    output: str | None = strawberry.field(description="What the call did or read (null when refused).")
    refusal: MemoryRefusal | None
    text: str = strawberry.field(description="`output` or `refusal.text`: the tool result for the model.")
    path: str | None = strawberry.field(description="The virtual path the call ended on.")
    hash: str | None = strawberry.field(
        description="sha256 of the file after the call (after a view: as read); pass it as "
        "`expectedHash` to make the next write fail if someone else wrote in between."
    )
    previous_hash: str | None = strawberry.field(description="sha256 of the file before a write.")

    @classmethod
    def of(cls, result: ToolResult) -> MemoryToolResult:
        return cls(
            ok=result.ok,
            command=result.command,
            output=result.output,
            refusal=MemoryRefusal.of(result.refusal) if result.refusal else None,
            text=result.text,
            path=result.path,
            hash=result.hash,
            previous_hash=result.previous_hash,
        )


@strawberry.type(description="One accepted write of a memory file.")
class MemoryHistoryRecord:
    id: strawberry.ID = strawberry.field(description="Its position in the log; a paging cursor.")
    at: str = strawberry.field(description="When, ISO 8601 in UTC.")
    actor: str = strawberry.field(description="`agent:<name>`, `admin` or `anonymous`.")
    agent: str | None = strawberry.field(description="The agent that made the call, if one did.")
    via: str = strawberry.field(description="`graphql`, `rest`, `cli` or `python`.")
    command: str = strawberry.field(description="create, str_replace, insert, delete, rename, or put.")
    scope: str
    path: str = strawberry.field(description="Relative to the workspace, e.g. memory/shared/x.md.")
    before: str | None = strawberry.field(description="sha256 before; null for a new file.")
    after: str | None = strawberry.field(description="sha256 after; null after a delete.")
    new_scope: str | None = strawberry.field(description="A rename's destination scope.")
    new_path: str | None = strawberry.field(description="A rename's destination path.")
    origin: str = strawberry.field(
        default="tool",
        description=(
            "`tool`, `ui` (the web UI), `maintain`, `consolidate`, or `external` (a change made "
            "outside brain)."
        ),
    )
    kept: str | None = strawberry.field(
        default=None, description="Why the content after it is not kept, e.g. `not kept: cap`.",
    )
    run: str | None = strawberry.field(
        default=None, description="The maintenance or consolidation run that made it, by its id.",
    )
    commit: str | None = strawberry.field(
        default=None, description="An outside change whose content is this git commit's version of the file.",
    )

    @field(description=(
        "The file's text before this write; null for a new file, or when that version was not "
        "kept (written before brain kept versions, or over the file cap)."
    ))
    async def before_text(self, info: Info) -> str | None:
        return await in_thread(_service(info).blobs.text, self.before)

    @field(description="The file's text after this write; null after a delete, or when not kept.")
    async def after_text(self, info: Info) -> str | None:
        return await in_thread(_service(info).blobs.text, self.after)

    @classmethod
    def of(cls, record: HistoryRecord) -> MemoryHistoryRecord:
        return cls(
            id=strawberry.ID(str(record.id)), at=record.at, actor=record.actor, agent=record.agent,
            via=record.via, command=record.command, scope=record.scope, path=record.path,
            before=record.before, after=record.after, new_scope=record.new_scope,
            new_path=record.new_path, origin=origin_of(record), kept=record.kept, run=record.run,
            commit=record.commit,
        )


@strawberry.type
class MemoryHistoryPage:
    records: list[MemoryHistoryRecord]
    next_before: strawberry.ID | None = strawberry.field(
        description="Pass as `before` for older records; null when there are none."
    )


def _service(info: Info) -> MemoryService:
    return memory_service(info.context.brain)


def _actor(info: Info) -> Actor:
    # The web UI's edits are recorded with origin `ui` (brain/api/http/auth.py ui_origin).
    return actor_of(info.context.principal, "graphql", info.context.request)


async def _run(
    info: Info, agent: str | None, payload: dict[str, object], expected_hash: str | None = None
) -> MemoryToolResult:
    tool = MemoryTool(_service(info))
    result = await in_thread(tool.run, agent, payload, actor=_actor(info), expected_hash=expected_hash)
    return MemoryToolResult.of(result)


_AGENT = "The agent whose memory this is; defaults to the agent of the caller's token."
_EXPECTED = "Refuse the write unless the file's sha256 is this (\"\" = it must not exist yet)."


@strawberry.type
class MemoryMutation:
    @field(description="The memory tool's raw call, as a model makes it: {command, path, ...}.")
    async def memory_tool(
        self, info: Info, input: JSON, agent: str | None = None, expected_hash: str | None = None
    ) -> MemoryToolResult:
        if not isinstance(input, dict):
            raise UserError('input must be an object such as {"command": "view", "path": "/memories"}')
        return await _run(info, agent, dict(input), expected_hash)

    @field(description="view: the index of /memories (or /memories/shared), or a file with numbered lines.")
    async def memory_view(
        self, info: Info, path: str, agent: str | None = None, view_range: list[int] | None = None
    ) -> MemoryToolResult:
        return await _run(info, agent, {"command": "view", "path": path, "view_range": view_range})

    @field(description="create: write or overwrite a whole file.")
    async def memory_create(
        self, info: Info, path: str, file_text: str, agent: str | None = None,
        expected_hash: str | None = None,
    ) -> MemoryToolResult:
        payload: dict[str, object] = {"command": "create", "path": path, "file_text": file_text}
        return await _run(info, agent, payload, expected_hash)

    @field(description="str_replace: old_str must match exactly once; the splice is literal.")
    async def memory_str_replace(
        self, info: Info, path: str, old_str: str, new_str: str = "", agent: str | None = None,
        expected_hash: str | None = None,
    ) -> MemoryToolResult:
        payload: dict[str, object] = {
            "command": "str_replace", "path": path, "old_str": old_str, "new_str": new_str,
        }
        return await _run(info, agent, payload, expected_hash)

    @field(description="insert: add lines after insert_line (0 = the top).")
    async def memory_insert(
        self, info: Info, path: str, insert_line: int, insert_text: str, agent: str | None = None,
        expected_hash: str | None = None,
    ) -> MemoryToolResult:
        payload: dict[str, object] = {
            "command": "insert", "path": path, "insert_line": insert_line, "insert_text": insert_text,
        }
        return await _run(info, agent, payload, expected_hash)

    @field(description="delete: remove a file.")
    async def memory_delete(
        self, info: Info, path: str, agent: str | None = None, expected_hash: str | None = None
    ) -> MemoryToolResult:
        return await _run(info, agent, {"command": "delete", "path": path}, expected_hash)

    @field(description="rename: move a file (between your folder and /memories/shared too).")
    async def memory_rename(
        self, info: Info, old_path: str, new_path: str, agent: str | None = None,
        expected_hash: str | None = None,
    ) -> MemoryToolResult:
        payload: dict[str, object] = {"command": "rename", "old_path": old_path, "new_path": new_path}
        return await _run(info, agent, payload, expected_hash)


@strawberry.type
class MemoryQuery:
    @field(description="An agent's `## Your memory` prompt block; null when its memory is off.")
    async def memory_prompt(self, info: Info, agent: str) -> str | None:
        return await memory_prompt(info, agent)

    @field(description="Accepted memory writes, newest first, as far as the caller may see.")
    async def memory_history(
        self, info: Info, agent: str | None = None, scope: str | None = None, path: str | None = None,
        first: int = DEFAULT_LIMIT, before: strawberry.ID | None = None,
    ) -> MemoryHistoryPage:
        if not 0 <= first <= MAX_LIMIT:
            raise UserError(f"first must be between 0 and {MAX_LIMIT}, not {first}")
        try:
            cursor = int(before) if before is not None else None
        except ValueError:
            raise UserError(f"before must be a record id from an earlier page, not {before!r}") from None
        records = await in_thread(
            visible_history, _service(info).history, _actor(info), agent, scope, path, cursor, first
        )
        more = len(records) > first
        records = records[:first]
        return MemoryHistoryPage(
            records=[MemoryHistoryRecord.of(r) for r in records],
            next_before=strawberry.ID(str(records[-1].id)) if more and records else None,
        )


async def memory_prompt(info: Info, agent: str) -> str | None:
    """The prompt block of `agent`, for `Agent.memoryPrompt` and `memoryPrompt(agent:)`."""
    actor = _actor(info)
    if actor.kind == "agent" and actor.agent != agent:
        raise UserError(f"these credentials belong to agent `{actor.agent}`: ask for its own prompt")
    try:
        return await in_thread(_service(info).prompt, agent)
    except Refusal as refusal:
        raise UserError(refusal.message) from None
