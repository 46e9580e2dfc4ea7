"""`brain check`: the link-integrity report, as text for people and JSON for CI."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from brain.layouts.detect import LayoutChoice
from brain.model import Problem, Severity, Stats


@dataclass(frozen=True, slots=True)
class CheckReport:
    stats: Stats
    problems: Sequence[Problem]
    strict: bool = False
    layout: LayoutChoice | None = None  # which layout the workspace was read as, and why
    # `--mentions`: Severity.INFO problems (unlinked mentions, brain.service.mentions), shown
    # apart and never counted against the exit code, `--strict` or not.
    info: Sequence[Problem] = ()

    @property
    def errors(self) -> int:
        return sum(1 for p in self.problems if p.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for p in self.problems if p.severity is Severity.WARNING)

    @property
    def exit_code(self) -> int:
        failing = self.errors + (self.warnings if self.strict else 0)
        return 1 if failing else 0

    def summary(self) -> dict[str, int | str]:
        layout: dict[str, int | str] = {} if self.layout is None else {
            "layout": self.layout.name, "layoutReason": self.layout.describe(),
        }
        return {
            "agents": self.stats.agents,
            "memories": self.stats.memories,
            "links": self.stats.links,
            "broken": self.stats.broken,
            "ambiguous": self.stats.ambiguous,
            "errors": self.errors,
            "warnings": self.warnings,
            **layout,
        }

    def to_json(self) -> str:
        extra = {"info": [info_json(p) for p in self.info]} if self.info else {}
        return json.dumps(
            {"summary": self.summary(), "problems": [problem_json(p) for p in self.problems], **extra},
            indent=2,
            ensure_ascii=False,
        )

    def to_text(self) -> str:
        lines = [problem_line(p) for p in self.problems]
        lines += [problem_line(p) for p in self.info]
        s = self.summary()
        verdict = "ok" if self.exit_code == 0 else "failed"
        lines.append(
            f"{verdict}: {s['memories']} memories of {s['agents']} agents, {s['links']} links "
            f"({s['broken']} broken, {s['ambiguous']} ambiguous); "
            f"{s['errors']} errors, {s['warnings']} warnings"
            + (f"; {self.layout.describe()}" if self.layout is not None else "")
        )
        return "\n".join(lines)


def problem_json(p: Problem) -> dict[str, object]:
    out: dict[str, object] = {
        "severity": p.severity.value,
        "code": p.code,
        "path": p.path,
    }
    if p.line is not None:
        out["line"] = p.line
    if p.column is not None:
        out["column"] = p.column
    out["message"] = p.message
    if p.target is not None:
        out["target"] = p.target
    if p.candidates:
        out["candidates"] = list(p.candidates)
    if p.fix:
        out["fix"] = p.fix
    return out


def info_json(p: Problem) -> dict[str, object]:
    """An info line: a problem's fields, with `replacement` (the wikilink that links the
    mention, None when the name is ambiguous) and `candidates` always present."""
    return {**problem_json(p), "target": p.target, "candidates": list(p.candidates), "replacement": p.fix}


def problem_line(p: Problem) -> str:
    where = p.path
    if p.line is not None:
        where += f":{p.line}:{p.column or 1}"
    message = p.message + (f" (fix: {p.fix})" if p.fix else "")
    return _one_line(f"{where}: {p.severity.value} {p.code} {message}")


def _one_line(text: str) -> str:
    """One problem, one line: a value quoted in a message (`type: "a\\nb"`) stays on it."""
    return text.replace("\r", "\\r").replace("\n", "\\n")
