"""mindlink's memory tools (seeds/003): memory_search, memory_get, memory_write, memory_delete.

Paths are relative to the agent's `memory/` folder, as mindlink's tools use them:
`entries/<name>.md` for long-term entries, `YYYY-MM-DD.md` for daily notes. memory_write
creates or updates by path; it refuses what `brain check` would report as an error, so a
write never makes the memory worse: a path that is not an entry or a daily note
(`not-a-memory`), an entry without `description` and one of the four `type`s, a `feedback`
entry without its `Why:` and `How to apply:` lines (`feedback-incomplete`), a secret.
memory_search is brain's search (brain/search), confined to the agent's own tree.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from typing import Any

from brain.model import MEMORY_TYPES, Problem
from brain.parse.frontmatter import load_frontmatter, split_frontmatter
from brain.tool.access import Actor
from brain.tool.agent_memory import AgentMemory, FileRead, FolderRead, Where
from brain.tool.calls.refusal import Call, Refusal, RefusalCode, shown
from brain.tool.files.names import NameProblem, check_filename, nearest_filename
from brain.tool.layouts.search_args import checked_search_args
from brain.tool.layouts.space import answer_of

VERBS = ("memory_search", "memory_get", "memory_write", "memory_delete")
ENTRIES = "entries"
DAILY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})\.md$")
ENTRY_EXAMPLE = (
    "---\nname: prefers-short-answers\ndescription: The user wants answers in three sentences or fewer."
    "\ntype: feedback\n---\n\nKeep answers short.\n\nWhy: the user said so.\nHow to apply: answer first.\n"
)

#: (query, agent, limit) -> hits with `path` relative to the workspace; brain.search by default.
SearchFunction = Callable[[str, str, int], Sequence[dict[str, Any]]]


class Mindlink:
    def __init__(self, memory: AgentMemory, search: SearchFunction | None = None) -> None:
        self.memory = memory
        self.search_function = search

    def call(self, actor: Actor, agent: str | None, verb: str, args: dict[str, Any]) -> dict[str, Any]:
        if verb == "memory_get":
            return self.get(actor, agent, args.get("path", ""))
        if verb == "memory_write":
            return self.write(actor, agent, args.get("path"), args.get("content"), args.get("expectedHash"))
        if verb == "memory_delete":
            return self.delete(actor, agent, args.get("path"), args.get("expectedHash"))
        if verb == "memory_search":
            return self.search(actor, agent, args.get("query"), args.get("limit", 10))
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT, f"there is no tool `{verb}`; the tools are " + ", ".join(VERBS),
            Call("memory_get", {"path": ENTRIES}),
        )

    def get(self, actor: Actor, agent: str | None, raw: object) -> dict[str, Any]:
        """An entry or daily note; `entries` (or "") lists them."""
        parts = _parts(raw, "memory_get")
        found = self.memory.read(actor, agent or "", parts, _where(parts))
        return _relative(answer_of(found), found)

    def write(
        self, actor: Actor, agent: str | None, raw: object, content: object, expected: object = None,
    ) -> dict[str, Any]:
        parts = _parts(raw, "memory_write")
        shown_content = content if isinstance(content, str) else ""
        call = Call("memory_write", {"path": "/".join(parts), "content": shown_content})
        if not isinstance(content, str):
            raise Refusal(RefusalCode.INVALID_ARGUMENT, "`content` must be a string (the whole file)", call)
        if expected is not None and not isinstance(expected, str):
            raise Refusal(RefusalCode.INVALID_ARGUMENT, "`expectedHash` must be a string", None)
        kind = memory_kind(parts)
        if kind is None:
            raise _not_a_memory(parts)
        if kind == "entry":
            check_entry(content, "/".join(parts), call)
        data = _text_bytes(content, "/".join(parts), call)
        done = self.memory.write(
            actor, agent or "", parts, data,
            command="memory_write", call=call, where=_where(parts), content_arg="content",
            expected=expected,
        )
        return {
            "path": done.path, "kind": kind, "created": done.created, "changed": done.changed,
            "size": done.size, "hash": done.after, "previousHash": done.before,
        }

    def delete(self, actor: Actor, agent: str | None, raw: object, expected: object = None) -> dict[str, Any]:
        parts = _parts(raw, "memory_delete")
        if expected is not None and not isinstance(expected, str):
            raise Refusal(RefusalCode.INVALID_ARGUMENT, "`expectedHash` must be a string", None)
        done = self.memory.delete(
            actor, agent or "", parts, command="memory_delete", where=_where(parts), expected=expected,
        )
        return {"path": done.path, "deleted": done.kind, "files": [r.path for r in done.removed]}

    def search(self, actor: Actor, agent: str | None, query: object, limit: object) -> dict[str, Any]:
        query, limit = checked_search_args(query, limit)
        tree = self.memory.tree(actor, agent, write=False)
        if self.search_function is None:
            raise Refusal(RefusalCode.INVALID_ARGUMENT, "search is not available on this server", None)
        prefix = f"{tree.rel}/"
        hits: list[dict[str, Any]] = []
        for found in self.search_function(query, tree.agent, limit):
            path = found.get("path")
            if not isinstance(path, str) or not path.startswith(prefix):
                continue  # never another agent's memory, whatever the search returned
            hits.append({**found, "path": path[len(prefix) :]})
        return {"query": query, "hits": hits[:limit]}


def _text_bytes(content: str, path: str, call: Call) -> bytes:
    """A memory is text: UTF-8 without NUL characters (never stored as a binary file)."""
    if "\x00" in content:
        line = content[: content.index("\x00")].count("\n") + 1
        raise Refusal(
            RefusalCode.NOT_TEXT,
            f"the new text of {path} has a NUL character on line {line}: memories are text",
            call.with_args(content=content.replace("\x00", "")),
        )
    try:
        return content.encode("utf-8")
    except UnicodeEncodeError:
        raise Refusal(
            RefusalCode.NOT_TEXT, f"the new text of {path} has unpaired surrogate characters: it is not "
            "valid Unicode", None,
        ) from None


def memory_kind(parts: tuple[str, ...]) -> str | None:
    """"entry" (`entries/<name>.md`), "daily" (`YYYY-MM-DD.md`, a real date) or None."""
    if len(parts) == 2 and parts[0] == ENTRIES and parts[1].endswith(".md"):
        return "entry"
    if len(parts) == 1:
        m = DAILY.match(parts[0])
        if m:
            try:
                dt.date(int(m[1]), int(m[2]), int(m[3]))
            except ValueError:
                return None
            return "daily"
    return None


def check_entry(text: str, path: str, call: Call) -> None:
    """Refuse an entry `brain check` would call an error, or one the index cannot describe."""
    problems: list[Problem] = []
    fm_text, body, _, _ = split_frontmatter(text, path, problems)
    data = load_frontmatter(fm_text, path, problems) if fm_text is not None else {}
    example = call.with_args(content=ENTRY_EXAMPLE)
    if problems:
        first = problems[0]
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT,
            f"the frontmatter of {path} (line {first.line}): {first.message}. {first.fix or ''}".rstrip(),
            example,
        )
    kind, description = data.get("type"), data.get("description")
    if not isinstance(description, str) or not description.strip():
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT,
            f"{path} needs a `description:` in its frontmatter: the one line the memory index shows",
            example,
        )
    if kind not in MEMORY_TYPES:
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT,
            f"{path} needs a `type:` in its frontmatter, one of {', '.join(MEMORY_TYPES)}"
            + (f" (not `{shown(str(kind))}`)" if kind is not None else ""),
            example,
        )
    if kind == "feedback":
        lines = [line.strip() for line in body.splitlines()]
        missing = [
            label for label in ("Why:", "How to apply:") if not any(s.startswith(label) for s in lines)
        ]
        if missing:
            raise Refusal(
                RefusalCode.INVALID_ARGUMENT,
                f"{path} is a feedback entry without "
                + (f"a line starting `{missing[0]}`" if len(missing) == 1 else
                   "lines starting `Why:` and `How to apply:`")
                + " (feedback-incomplete): say why the feedback was given and how to apply it, "
                "so later conversations apply it correctly",
                call.with_args(content=text.rstrip("\n") + "\n\n" + "".join(f"{m} …\n" for m in missing)),
            )


def _parts(raw: object, verb: str) -> tuple[str, ...]:
    """The path under memory/ as segments; `memory/` in front is tolerated."""
    if not isinstance(raw, str):
        raise Refusal(RefusalCode.INVALID_ARGUMENT, "`path` must be a string such as `entries/<name>.md`",
                      Call(verb, {"path": f"{ENTRIES}/notes.md"}))
    text = raw.strip("/")
    if text == "memory" or text.startswith("memory/"):
        text = text[len("memory") :].strip("/")
    parts = tuple(p for p in text.split("/") if p) if text else ()
    for part in parts:
        if part in (".", "..") or part.startswith(".") or "\\" in part or "\x00" in part:
            raise Refusal(
                RefusalCode.INVALID_PATH,
                f"`{shown(raw)}` is not a path inside the agent's memory: use `entries/<name>.md` or "
                "`YYYY-MM-DD.md`",
                Call("memory_get", {"path": ENTRIES}),
            )
    if verb == "memory_write" and len(parts) == 2 and parts[0] == ENTRIES:
        try:
            check_filename(parts[1])
        except NameProblem as problem:
            fixed = f"{ENTRIES}/{problem.fixed}" if problem.fixed else None
            suggestion = Call(verb, {"path": fixed}) if fixed else None
            raise Refusal(problem.code, problem.reason, suggestion) from None
    return parts


def _not_a_memory(parts: tuple[str, ...]) -> Refusal:
    path = "/".join(parts)
    name = nearest_filename(parts[-1]) if parts else None
    fixed = f"{ENTRIES}/{name}" if name else None
    return Refusal(
        RefusalCode.NOT_A_MEMORY,
        f"`{shown(path)}` is not a memory: long-term entries are `entries/<name>.md`, daily notes "
        "`YYYY-MM-DD.md` (a real date) directly in memory/",
        Call("memory_write", {"path": fixed}) if fixed else Call("memory_get", {"path": ENTRIES}),
    )


def _where(parts: tuple[str, ...]) -> Where:
    return Where("/".join(parts) or "memory/", Call("memory_get", {"path": "/".join(parts[:-1])}))


def _relative(answer: dict[str, Any], found: FileRead | FolderRead) -> dict[str, Any]:
    """A Space answer with paths relative to memory/, as mindlink's tools write them."""
    def strip(path: str) -> str:
        return path.removeprefix("~/memory/")

    out = {**answer, "path": strip(answer["path"])}
    if isinstance(found, FolderRead):
        out["entries"] = [{**e, "path": strip(e["path"])} for e in answer["entries"]]
    elif found.text is not None:
        out["kind"] = memory_kind(tuple(found.path.split("/"))) or "file"
    return out


def render(verb: str, answer: dict[str, Any]) -> str:
    """The answer as the text a model reads."""
    if verb == "memory_search":
        if not answer["hits"]:
            return f"No memory matches `{answer['query']}`."
        return "\n".join(
            f"{h['path']} ({h.get('score', 0):.3f}): {h.get('snippet', '')}" for h in answer["hits"]
        )
    from brain.tool.layouts import space

    return space.render({"memory_get": "read"}.get(verb, verb), answer)
