"""What the deterministic pass finds, what it proposes, what it applied, and how that reads.

A finding is one thing a person (or the consolidation model) should fix, with the reason and
one proposed memory-tool call in the addressing of the scope's own tool (`/memories/x.md`
with `agent` for an agent's scope, `/memories/shared/x.md` for shared). `safe` findings are
the classes `--apply` carries out on its own: exact duplicates, expired daily notes, and
broken links with exactly one close candidate. The rest are proposals only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from brain.model import SHARED_SCOPE, JSONValue, MemoryNode
from brain.tool.files.paths import virtual_path
from brain.tool.files.requirements import Required

#: Every finding code, in the order reports list them (design.md section 10; keep these names).
CODES = (
    "duplicate", "near-duplicate", "same-name", "expired-daily-note", "weak-description", "missing-type",
    "fixable-link", "large-note", "unlinked-mention",
)
SAFE_CODES = frozenset({"duplicate", "expired-daily-note", "fixable-link"})


def vpath(memory: MemoryNode) -> str:
    """The note's path as its scope's memory tool names it."""
    return virtual_path(memory.scope == SHARED_SCOPE, memory.name + ".md")


@dataclass(frozen=True, slots=True)
class Proposal:
    """One call, as the scope's tool takes it: the memory tool's command (latchai, lab), or
    the verb of a layout with verbs of its own (`tool="mindlink"`: brain.maintain.layout_calls)."""

    scope: str
    command: str
    arguments: dict[str, JSONValue]
    expected_hash: str | None = None
    tool: str = "memory"
    # Other files the change depends on as the pass saw them (the kept copy of a duplicate,
    # a fixed link's new target): checked in the step that makes it (brain/tool/files/requirements.py).
    requires: tuple[Required, ...] = ()

    @property
    def agent(self) -> str | None:
        return None if self.scope == SHARED_SCOPE else self.scope

    def payload(self) -> dict[str, object]:
        return {"command": self.command, **self.arguments}

    def text(self) -> str:
        shown: dict[str, JSONValue] = {"command" if self.tool == "memory" else "verb": self.command}
        for key, value in self.arguments.items():
            shown[key] = value if not isinstance(value, str) or len(value) <= 160 else value[:120] + "…"
        return json.dumps(shown, ensure_ascii=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "agent": self.agent,
            "command": self.command,
            "arguments": dict(self.arguments),
            "expectedHash": self.expected_hash,
            "requires": [r.to_json() for r in self.requires],
            "text": self.text(),
        }


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    path: str  # relative to the workspace, with `/`
    scope: str
    reason: str
    proposal: Proposal
    safe: bool = False
    line: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code, "path": self.path, "reason": self.reason,
            "proposal": self.proposal.to_json(), "scope": self.scope, "safe": self.safe,
        }
        if self.line is not None:
            out["line"] = self.line
        return out


@dataclass(frozen=True, slots=True)
class Applied:
    """One safe finding carried out (or refused) through the memory tool."""

    code: str
    path: str
    call: str
    ok: bool
    result: str

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "path": self.path, "call": self.call, "ok": self.ok, "result": self.result}


@dataclass(slots=True)
class MaintenanceReport:
    scope: str | None
    findings: list[Finding] = field(default_factory=list)
    applied: list[Applied] = field(default_factory=list)
    apply: bool = False
    cap: int = 0
    skipped: int = 0  # safe findings left for the next run by the cap
    notes: list[str] = field(default_factory=list)  # what the pass left undone, and why
    seconds: float = 0.0
    run: str | None = None  # an applying run's id: each change it made is recorded with it

    @property
    def safe(self) -> list[Finding]:
        return [f for f in self.findings if f.safe]

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(CODES, 0)
        for finding in self.findings:
            out[finding.code] = out.get(finding.code, 0) + 1
        return {k: v for k, v in out.items() if v}

    def to_json(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "findings": [f.to_json() for f in self.findings],
            "applied": [a.to_json() for a in self.applied],
            "counts": self.counts(),
            "cap": self.cap,
            "skipped": self.skipped,
            "notes": self.notes,
            **({"run": self.run} if self.run is not None else {}),
            "seconds": round(self.seconds, 3),
        }

    def summary(self) -> str:
        where = f"scope `{self.scope}`" if self.scope else "every scope"
        counts = ", ".join(f"{n} {code}" for code, n in self.counts().items()) or "nothing to fix"
        line = f"{len(self.findings)} finding{'' if len(self.findings) == 1 else 's'} in {where} ({counts})"
        if self.apply:
            done = sum(1 for a in self.applied if a.ok)
            refused = len(self.applied) - done
            line += f"; applied {done}" + (f", {refused} refused" if refused else "")
            if self.skipped:
                line += f", {self.skipped} left for the next run (cap {self.cap} per run)"
        elif self.safe:
            line += f"; {len(self.safe)} safe to apply with --apply"
        return line

    def to_text(self) -> str:
        out: list[str] = []
        by_path: dict[str, list[Finding]] = {}
        for finding in self.findings:
            by_path.setdefault(finding.path, []).append(finding)
        for path in sorted(by_path):
            out.append(path)
            for f in by_path[path]:
                mark = "*" if f.safe else " "
                where = f" (line {f.line})" if f.line else ""
                out.append(f"  {mark} {f.code:<18} {f.reason}{where}")
                agent = f"as {f.proposal.agent}: " if f.proposal.agent else ""
                out.append(f"    {'':<18} -> {agent}{f.proposal.text()}")
        if self.findings:
            out.append("(* = safe: --apply carries it out)")
        if self.applied:
            out.append("applied:")
            for a in self.applied:
                out.append(f"  {'done' if a.ok else 'REFUSED':<7} {a.code:<18} {a.path}: {a.result}")
        out.extend(f"note: {note}" for note in self.notes)
        out.append(self.summary())
        return "\n".join(out)
