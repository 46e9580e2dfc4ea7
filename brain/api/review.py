"""Memory review over GraphQL: the scopes and files as a person sees them (seeds/000, Settings ▸ Memory).

    query { memoryScopes { scope memoryOff files { name type age size description } } }
    query { memoryFile(scope: "shared", file: "glossary.md") { text hash problems { line message } } }
    mutation { memoryWrite(scope: "shared", file: "x.md", content: "…", expectedHash: "…") { ok hash } }

The agent's tool (`memoryCreate` …) addresses notes by virtual path and acts *as* an agent,
so it refuses to touch the notes of an agent whose memory is off. A person reviewing the
workspace addresses notes by scope and file, as `/api/memory/<scope>/<file>` does, and may
read or clear those notes too. Same service, same checks (expected hash, size, secrets,
atomic write, history); an agent's token still reaches only its own scope and shared.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import strawberry

from brain.api.graph.paging.links import PAGE
from brain.api.graph.problems import Problem
from brain.api.graphql.context import Info
from brain.api.graphql.enums import MemoryType
from brain.api.graphql.errors import UserError
from brain.api.graphql.fields import field
from brain.api.graphql.loaders import in_thread
from brain.api.http.auth import actor_of
from brain.api.memory_mutations import MemoryRefusal
from brain.api.rest import ADDR
from brain.api.rest import _file as check_file
from brain.api.rest import _scope as check_scope
from brain.ingest.memory_files import content_hash
from brain.model import SHARED_SCOPE, sorted_problems
from brain.tool import memory_service
from brain.tool.access import Actor
from brain.tool.calls.refusal import Call, Refusal
from brain.tool.catalog import NoteInfo, summarize
from brain.tool.files.names import MD, fold
from brain.tool.prompt import human_age
from brain.tool.service import MemoryService, ScopeInfo, WriteOutcome


@strawberry.type(description="One note of a scope, as the review screen lists it.")
class MemoryFileInfo:
    scope: str
    file: str = strawberry.field(description="The file name, e.g. `glossary.md`.")
    name: str = strawberry.field(description="The file stem: the note's name in links.")
    path: str = strawberry.field(description="Relative to the workspace root.")
    type: MemoryType | None
    description: str
    size: int = strawberry.field(description="Bytes on disk.")
    modified_at: float = strawberry.field(description="Seconds since the epoch (the file's mtime).")
    age: str = strawberry.field(description="How long ago it was written, as the prompt index says it.")

    @classmethod
    def of(cls, note: NoteInfo, now: float) -> MemoryFileInfo:
        return cls(
            scope=note.scope, file=note.name, name=note.name[: -len(MD)], path=note.rel,
            type=MemoryType.of(note.type), description=note.description, size=note.size,
            modified_at=note.modified_at, age=human_age(now - note.modified_at),
        )


@strawberry.type(description="A memory folder: `shared`, or one agent's.")
class MemoryScope:
    scope: str
    agent: str | None = strawberry.field(description="The agent it belongs to; null for shared.")
    memory_off: bool = strawberry.field(
        description="Its agent has no definition or no `memory: true`: notes it can no longer write."
    )
    defined: bool = strawberry.field(description="Its agent has a definition in agents/ (true for shared).")
    description: str = strawberry.field(description="The agent's description, if any.")
    file_count: int = strawberry.field(description="How many notes it holds.")
    # Built only when a query asks for `files`: the scope list asks every scope for its
    # count alone, and 10,000 file entries cost more than the rest of that answer.
    notes: strawberry.Private[list[NoteInfo]]
    now: strawberry.Private[float]

    @field(description="Its notes by name; `first` and `after` page through them, so a screen can ask "
           "for the rows it shows first and the rest after.")
    def files(
        self,
        first: Annotated[int | None, strawberry.argument(
            description="At most this many (all when null; at most 100, as every `first`).")] = None,
        after: Annotated[str | None, strawberry.argument(
            description="Only the files listed after this file name (the page before's last).")] = None,
    ) -> list[MemoryFileInfo]:
        notes = self.notes
        if after is not None:
            # Names, not offsets: a page boundary stays put while notes come and go before it.
            key = (fold(after), after)
            notes = [n for n in notes if (fold(n.name), n.name) > key]
        if first is not None:
            notes = notes[:first]
        return [MemoryFileInfo.of(n, self.now) for n in notes]

    @classmethod
    def of(cls, info: ScopeInfo, now: float) -> MemoryScope:
        agent = info.agent
        return cls(
            scope=info.scope, agent=None if agent is None else agent.name, memory_off=info.memory_off,
            defined=True if agent is None else agent.defined,
            description="" if agent is None else agent.description,
            file_count=len(info.notes), notes=list(info.notes), now=now,
        )


@strawberry.type(description="One note's text as it is on disk, with its hash and problems.")
class MemoryFileContent:
    info: MemoryFileInfo
    text: str
    hash: str = strawberry.field(description="sha256 of the file: pass as `expectedHash` when saving.")
    problems: list[Problem] = strawberry.field(description="Its problems, in line order (by the graph).")


@strawberry.type(description="The answer to a review write: what it did, or why it was refused.")
class MemoryWriteResult:
    ok: bool
    path: str | None = strawberry.field(description="The note's path after the call.")
    hash: str | None = strawberry.field(description="sha256 after the write; null after a delete.")
    previous_hash: str | None
    refusal: MemoryRefusal | None

    @classmethod
    def of(cls, outcome: WriteOutcome) -> MemoryWriteResult:
        return cls(ok=True, path=outcome.rel, hash=outcome.after, previous_hash=outcome.before, refusal=None)

    @classmethod
    def refused(cls, refusal: Refusal) -> MemoryWriteResult:
        return cls(ok=False, path=None, hash=None, previous_hash=None, refusal=MemoryRefusal.of(refusal))


def _service(info: Info) -> MemoryService:
    return memory_service(info.context.brain)


def _actor(info: Info) -> Actor:
    # The web UI's edits are recorded with origin `ui` (brain/api/http/auth.py ui_origin).
    return actor_of(info.context.principal, "graphql", info.context.request)


def _scope_info(service: MemoryService, actor: Actor, scope: str) -> ScopeInfo | None:
    """One entry of `service.scopes(actor)`, without listing every other folder."""
    if scope == SHARED_SCOPE:
        return ScopeInfo(SHARED_SCOPE, None, service.notes(SHARED_SCOPE))
    if not actor.can_see(scope):
        return None
    state = next((a for a in service.agents.all() if a.name == scope), None)
    if state is None or not (state.memory_enabled or state.has_folder):
        return None
    return ScopeInfo(scope, state, service.notes(scope))


def _scope_order(scope: str) -> tuple[bool, str]:
    """The order `service.scopes` lists them in: shared first, then agents by name."""
    return (scope != SHARED_SCOPE, scope)


def _read(info: Info, scope: str, file: str) -> MemoryFileContent:
    service, actor = _service(info), _actor(info)
    scope = check_scope(scope)
    file = check_file(scope, file, "GET")
    found = service.read(actor, scope, file, call=Call("GET", {"path": ADDR.path(scope, file)}, "http"),
                         addr=ADDR)
    rel = f"memory/{scope}/{file}"
    description, kind = summarize(found.data, rel)
    note = NoteInfo(scope, file, found.size, found.mtime_ns, description, kind)
    # An agent sees its note's links as if other agents' notes did not exist (visibility.py).
    problems = sorted_problems(info.context.brain.problems([rel], actor.reach))
    return MemoryFileContent(
        info=MemoryFileInfo.of(note, service.clock()), text=found.data.decode("utf-8", errors="replace"),
        hash=content_hash(found.data), problems=[Problem.of(p) for p in problems],
    )


Expected = Annotated[str | None, strawberry.argument(
    description="Refuse unless the file's sha256 is this (\"\" = it must not exist yet); see memoryFile."
)]


@strawberry.type
class ReviewQuery:
    @field(description="Memory folders the caller may see: shared first, then each agent with notes "
           "or memory on, with their files (type, age, size, description); `first` and `after` (the "
           "`scope` of the page before's last) page through them.")
    async def memory_scopes(
        self, info: Info, first: int = PAGE,
        after: Annotated[str | None, strawberry.argument(
            description="Only the scopes listed after this one (the page before's last `scope`).")] = None,
    ) -> list[MemoryScope]:
        service, actor = _service(info), _actor(info)
        scopes = sorted(await in_thread(service.scopes, actor), key=lambda s: _scope_order(s.scope))
        now = service.clock()
        if after is not None:  # a name, not an offset: the boundary stays put as agents come and go
            scopes = [s for s in scopes if _scope_order(s.scope) > _scope_order(after)]
        return [MemoryScope.of(s, now) for s in scopes[: max(0, first)]]

    @field(description="One memory folder the caller may see, with its files; null if there is none.")
    async def memory_scope(self, info: Info, scope: str) -> MemoryScope | None:
        service, actor = _service(info), _actor(info)
        found = await in_thread(_scope_info, service, actor, scope)
        return None if found is None else MemoryScope.of(found, service.clock())

    @field(description="One note's text and hash by scope and file name; null if it does not exist.")
    async def memory_file(self, info: Info, scope: str, file: str) -> MemoryFileContent | None:
        try:
            return await in_thread(_read, info, scope, file)
        except Refusal as refusal:
            if refusal.status == 404:
                return None
            raise UserError(refusal.message) from None


@strawberry.type
class ReviewMutation:
    @field(description="Write a whole note by scope and file (created if new), as a person editing it.")
    async def memory_write(
        self, info: Info, scope: str, file: str, content: str,
        expected_hash: Expected = None,
    ) -> MemoryWriteResult:
        def run() -> WriteOutcome:
            s = check_scope(scope)
            f = check_file(s, file, "PUT")
            call = Call("PUT", {"path": ADDR.path(s, f), "content": content}, style="http")
            return _service(info).write(
                _actor(info), s, f, lambda _old: content, command="put", call=call, addr=ADDR,
                expected=expected_hash, create=True, content_arg="content",
            )

        return await _guarded(run)

    @field(description="Delete a note by scope and file.")
    async def memory_remove(
        self, info: Info, scope: str, file: str,
        expected_hash: Expected = None,
    ) -> MemoryWriteResult:
        def run() -> WriteOutcome:
            s = check_scope(scope)
            f = check_file(s, file, "DELETE")
            call = Call("DELETE", {"path": ADDR.path(s, f)}, style="http")
            return _service(info).delete(_actor(info), s, f, call=call, addr=ADDR, expected=expected_hash)

        return await _guarded(run)

    @field(description="Rename or move a note (also between scopes); links to it are not rewritten.")
    async def memory_move(
        self, info: Info, scope: str, file: str, new_scope: str, new_file: str,
        expected_hash: Expected = None,
    ) -> MemoryWriteResult:
        def run() -> WriteOutcome:
            s, t = check_scope(scope), check_scope(new_scope)
            f, g = check_file(s, file, "GET"), check_file(t, new_file, "PUT")
            call = Call("MOVE", {"path": ADDR.path(s, f), "to": ADDR.path(t, g)}, style="http")
            return _service(info).rename(_actor(info), (s, f), (t, g), call=call, addr=ADDR,
                                         expected=expected_hash)

        return await _guarded(run)


async def _guarded(run: Callable[[], WriteOutcome]) -> MemoryWriteResult:
    try:
        outcome = await in_thread(run)
    except Refusal as refusal:
        return MemoryWriteResult.refused(refusal)
    return MemoryWriteResult.of(outcome)
