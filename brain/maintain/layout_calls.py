"""Findings in a layout with verbs of its own: proposals as that layout's calls, applied by them.

The finders speak the latchai memory tool (`delete`, `view`, `str_replace`, `insert` on
`/memories/...`), which has no agent to act as in a mindlink workspace. There a proposal is
a mindlink call in the seed's own terms (seeds/003), with the path relative to the agent's
`memory/`: `memory_delete` for a delete, `memory_get` for a look, and `memory_write` with
the note's whole new text for an edit (mindlink has no partial edit). `--apply` runs them
through the same verbs the API serves (brain.tool.layouts.mindlink): confined to the agent's tree,
atomic, recorded in the history, refused if the file changed since the pass read it.
"""

from __future__ import annotations

from dataclasses import replace

from brain import safefs
from brain.ingest.memory_files import content_hash
from brain.maintain.finders.snapshot import Snapshot
from brain.maintain.findings import Finding, Proposal
from brain.model import JSONValue
from brain.tool.access import Actor
from brain.tool.calls.refusal import Call, Refusal
from brain.tool.calls.textedit import insert_after, line_count
from brain.tool.files.requirements import check_required
from brain.tool.layouts.verbs import LayoutVerbs, verbs_for
from brain.tool.service import MemoryService


def as_layout_calls(findings: list[Finding], snap: Snapshot, tool: str) -> list[Finding]:
    """`findings` with their proposals as `tool`'s calls (findings come sorted by path, line).

    Safe edits of one note chain: each `memory_write` holds the text after the safe edits
    before it and expects the hash that text has, so a run applies them one after another.
    """
    texts: dict[str, tuple[str, str] | None] = {}  # path -> (text as the safe edits leave it, hash)
    out: list[Finding] = []
    for finding in findings:
        p = finding.proposal
        path = finding.path.split("/", 2)[2]  # `<agent>/memory/<path>`: as the agent's tools name it
        if p.command == "delete":
            call = Proposal(
                p.scope, "memory_delete", {"path": path}, p.expected_hash, tool=tool, requires=p.requires,
            )
        elif p.command in ("str_replace", "insert"):
            if finding.path not in texts:
                raw = _read(snap, finding.path)
                texts[finding.path] = None if raw is None else (raw, content_hash(raw.encode("utf-8")))
            held = texts[finding.path]
            edited = _edited(held[0], p.arguments) if held is not None else None
            if held is None or edited is None:  # gone, or changed since: nothing safe to write
                out.append(replace(finding, safe=False, proposal=Proposal(
                    p.scope, "memory_get", {"path": path}, tool=tool)))
                continue
            call = Proposal(
                p.scope, "memory_write", {"path": path, "content": edited}, held[1], tool=tool,
                requires=p.requires,
            )
            if finding.safe:
                texts[finding.path] = (edited, content_hash(edited.encode("utf-8")))
        else:
            call = Proposal(p.scope, "memory_get", {"path": path}, tool=tool)
        out.append(replace(finding, proposal=call))
    return out


def _read(snap: Snapshot, rel: str) -> str | None:
    try:
        return safefs.read_regular_file(snap.brain.root / rel).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _edited(text: str, args: dict[str, JSONValue]) -> str | None:
    """The text after the memory tool's `str_replace` or `insert` (None: it would refuse)."""
    if "old_str" in args:
        old, new = args.get("old_str"), args.get("new_str")
        if not isinstance(old, str) or not isinstance(new, str) or text.count(old) != 1:
            return None
        return text.replace(old, new, 1)
    line, insert = args.get("insert_line"), args.get("insert_text")
    if not isinstance(line, int) or not isinstance(insert, str) or not 0 <= line <= line_count(text):
        return None
    return insert_after(text, line, insert)


def run_layout_call(service: MemoryService, proposal: Proposal, actor: Actor) -> tuple[bool, str]:
    """One proposal through its layout's verbs: (done, what happened, in one line)."""
    verbs: LayoutVerbs | None = verbs_for(proposal.tool, service, None)
    if verbs is None:
        return False, f"the {proposal.tool} layout has no verbs"
    args: dict[str, object] = dict(proposal.arguments)
    if proposal.expected_hash is not None:
        args["expectedHash"] = proposal.expected_hash
    try:
        # The verbs take no requirement: checked right before the call, not under its lock.
        check_required(service.root, proposal.requires, Call(proposal.command, {}), service.links_sources)
        answer = verbs.call(actor, proposal.agent, proposal.command, args)
    except Refusal as refusal:
        return False, refusal.message
    return True, verbs.render(proposal.command, answer).split("\n", 1)[0]
