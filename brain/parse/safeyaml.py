"""The one YAML loader of brain: safe types only, and a budget for what a document may cost.

`yaml.safe_load` is safe from code execution, not from cost. Anchors and aliases make a
document a graph: `b: [*a, *a, ...]` nine times over nine levels is 500 bytes that load in
microseconds (the loader shares the node), but every consumer that walks the values
(to JSON, to the store, to the wire) walks a billion of them. That is why the same bytes were
harmless in `workflows/` (only `title` is read) and fatal in a note's frontmatter (every value
is converted). So the budget is checked on the event stream, before anything is built:

- the *expanded* number of values (an alias counts as everything it stands for) is at most
  MAX_VALUES, and at most MAX_ALIASES aliases are used at all;
- nesting is at most MAX_DEPTH deep (the consumers recurse);
- the text is at most `max_bytes` long (the caller's budget: frontmatter is small).

Events come from libyaml (C) when it is there; every event is a bounded amount of work, so
the check itself is linear, and a Python-level loop keeps SIGTERM and Ctrl-C honoured.
A refused document raises `YAMLBudgetError`, a `yaml.YAMLError` with a `problem_mark`, so
callers report it exactly like a syntax error: with its line and a fix.
"""

from __future__ import annotations

from typing import Any

import yaml

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_VALUES = 100_000  # scalars and collections after alias expansion
MAX_ALIASES = 1_000
MAX_DEPTH = 64
MAX_BYTES = 8 * 1024 * 1024  # a whole YAML file (workflows/, work-items/)


class YAMLBudgetError(yaml.YAMLError):
    """A document over budget; `problem` says which, `problem_mark` where, `fix` what to do."""

    def __init__(self, problem: str, mark: Any, fix: str) -> None:  # a yaml.Mark or libyaml's
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = mark
        self.fix = fix


def safe_load(text: str, *, max_bytes: int = MAX_BYTES) -> Any:
    """`yaml.safe_load` within the budget; raises `yaml.YAMLError` (maybe YAMLBudgetError)."""
    try:
        check_budget(text, max_bytes=max_bytes)
    except yaml.MarkedYAMLError as exc:
        if "maximum nesting depth" in str(exc.problem):  # libyaml's own limit, in its scanner
            raise YAMLBudgetError(
                "nested too deeply", exc.problem_mark, "flatten the structure"
            ) from None
        raise
    return yaml.load(text, Loader=_LOADER)


def check_budget(text: str, *, max_bytes: int = MAX_BYTES) -> None:
    """Raise YAMLBudgetError if loading `text` and walking its values would cost too much."""
    size = len(text.encode("utf-8", errors="surrogatepass")) if len(text) * 4 > max_bytes else len(text)
    if size > max_bytes:
        raise YAMLBudgetError(
            f"{size:,} bytes of YAML is over the limit of {max_bytes:,}", None,
            "keep it under the limit: move long text into the body or another file",
        )
    anchors: dict[str, int] = {}  # anchor -> expanded size of its node
    stack: list[tuple[str | None, int]] = []  # open collections: (anchor, total when opened)
    total = aliases = 0  # values so far, expanded
    for event in yaml.parse(text, Loader=_LOADER):
        if isinstance(event, yaml.CollectionStartEvent):
            if len(stack) >= MAX_DEPTH:
                raise YAMLBudgetError(
                    f"nested more than {MAX_DEPTH} levels deep", event.start_mark, "flatten the structure"
                )
            stack.append((event.anchor, total))
            total += 1
        elif isinstance(event, yaml.CollectionEndEvent):
            anchor, opened_at = stack.pop()
            if anchor is not None:
                anchors[anchor] = total - opened_at
        elif isinstance(event, yaml.ScalarEvent):
            total += 1
            if event.anchor is not None:
                anchors[event.anchor] = 1
        elif isinstance(event, yaml.AliasEvent):
            aliases += 1
            if aliases > MAX_ALIASES:
                raise YAMLBudgetError(
                    f"more than {MAX_ALIASES:,} aliases (`*name`)", event.start_mark,
                    "write the values out instead of referring to anchors",
                )
            total += anchors.get(event.anchor or "", 1)
        else:
            continue
        if total > MAX_VALUES:
            raise YAMLBudgetError(
                f"more than {MAX_VALUES:,} values once aliases are expanded"
                + (" (anchors and `*aliases` that multiply: a YAML alias bomb)" if aliases else ""),
                event.start_mark,
                "write the values out instead of `*alias` references, and keep it small"
                if aliases else "keep it small: move bulk data out of YAML",
            )
