"""unlinked-mention: prose that names a note the writer could link, with the edit that links it.

Proposal only (never `safe`): whether a word in a sentence means the note of that name is
the writer's call, and `--apply` carries out only what cannot be wrong. One finding per
note and target (its first mention: one link is what the graph needs), never for an
ambiguous name. Off unless asked for (`brain maintain --mentions`): it reads every body.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from brain.maintain.findings import Finding, Proposal, vpath
from brain.parse.mentions import Mention
from brain.service.mention_sweep import sweep_mentions
from brain.tool.calls.textedit import occurrences, widen_to_unique

if TYPE_CHECKING:
    from brain.maintain.finders.snapshot import Snapshot

CODE = "unlinked-mention"


def unlinked_mentions(snap: Snapshot) -> Iterator[Finding]:
    notes = [m for m in snap.memories if m.path not in snap.going]
    brain = snap.brain  # from a first sync's seeds where `brain maintain --mentions` asked for them
    for memory, found in sweep_mentions(brain.store, brain.root, notes, brain.ingester.mention_seeds):
        seen: set[str] = set()
        text: str | None = None
        for mention in found:
            if mention.target is None or mention.target in seen or mention.replacement is None:
                continue
            seen.add(mention.target)
            text = snap.read_text(memory) if text is None else text
            edit = mention_edit(text or "", mention)
            if edit is None:
                continue
            old_str, new_str = edit
            yield Finding(
                CODE, memory.path, memory.scope,
                f"`{mention.text}` names {mention.target} without linking it",
                Proposal(memory.scope, "str_replace", {
                    "path": vpath(memory), "old_str": old_str, "new_str": new_str,
                }, expected_hash=memory.hash),
                line=mention.line,
            )


def mention_edit(text: str, mention: Mention) -> tuple[str, str] | None:
    """(old_str, new_str) of a str_replace that links exactly this mention: the mention, or
    as many whole lines around it as make it unique in the note; None if the file moved on."""
    assert mention.replacement is not None
    lines = text.split("\n")
    if not 1 <= mention.line <= len(lines):
        return None
    offset = sum(len(line) + 1 for line in lines[: mention.line - 1]) + mention.column - 1
    if text[offset : offset + len(mention.text)] != mention.text:
        return None
    if len(occurrences(text, mention.text)) == 1:
        return mention.text, mention.replacement
    wide = widen_to_unique(text, offset, mention.text, mention.replacement)
    return None if wide is None else (wide.old_str, wide.new_str)
