"""What the consolidation model is told: its one tool, the house rules, and where to start."""

from __future__ import annotations

from typing import Any

from brain.maintain.findings import MaintenanceReport
from brain.model import SHARED_SCOPE

MAX_FINDINGS_SHOWN = 200

MEMORY_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "memory",
        "description": (
            "Read and change the memory files of the scope being consolidated. Commands: "
            "view (a directory listing with ages, or one file with numbered lines; view_range "
            "[start, end], -1 reads to the bottom), create (write or overwrite a whole file), "
            "str_replace (old_str must match exactly once; the splice is literal), insert (add "
            "insert_text after insert_line, 0 = top), delete (remove a file), rename (move a file). "
            "Every refusal names the call that would have worked."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "command": {
                    "type": "string",
                    "enum": ["view", "create", "str_replace", "insert", "delete", "rename"],
                },
                "path": {"type": "string", "description": "e.g. /memories/house-style.md"},
                "view_range": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
                "file_text": {"type": "string"},
                "old_str": {"type": "string"},
                "new_str": {"type": "string"},
                "insert_line": {"type": "integer"},
                "insert_text": {"type": "string"},
                "old_path": {"type": "string"},
                "new_path": {"type": "string"},
            },
            "required": ["command"],
        },
    },
}


def system_prompt(scope: str, root: str, max_turns: int) -> str:
    where = (
        f"the shared memory, files under {root}/"
        if scope == SHARED_SCOPE
        else f"the private memory of agent `{scope}`, files under {root}/ (the shared folder "
        "/memories/shared/ is not yours to touch in this run)"
    )
    return f"""You consolidate {where}. Memory accumulates; tidy it:
- merge duplicates (keep the newest, fold in what the others add, delete the rest);
- rewrite weak descriptions (one line, at most 120 characters) and add missing types
  (`type:` is one of user, feedback, project, reference);
- fix broken [[wikilinks]] when the right target is clear;
- delete notes that are obsolete or contradict a newer one;
- when unsure, keep the note and say so in your report; never invent a fact.
House rules: one topic per file, kebab-case names, each file starts with the frontmatter
`---` / `description: ...` / `type: ...` / `---`, link related notes with [[wikilinks]],
never store secrets.
You have one tool, memory. Read a file before changing it. You have at most {max_turns} turns.
When you are done, answer without a tool call, with a short report in two parts:
"Changed:" (each change and its path) and "Look at:" (what a human should check)."""


def first_message(scope: str, listing: str, report: MaintenanceReport) -> str:
    lines = [f"Consolidate scope `{scope}`.", "", listing, ""]
    if report.findings:
        lines.append(
            f"A deterministic pass found {len(report.findings)} thing(s) to look at "
            "(code, file, reason, and a proposed call you may use, adapt or skip):"
        )
        for f in report.findings[:MAX_FINDINGS_SHOWN]:
            lines.append(f"- {f.code} {f.proposal.arguments.get('path', '')}: {f.reason}")
            lines.append(f"  proposed: {f.proposal.text()}")
        if len(report.findings) > MAX_FINDINGS_SHOWN:
            lines.append(f"- … and {len(report.findings) - MAX_FINDINGS_SHOWN} more of the same kinds")
    else:
        lines.append("A deterministic pass found nothing mechanical to fix; look for what it cannot see.")
    return "\n".join(lines)
