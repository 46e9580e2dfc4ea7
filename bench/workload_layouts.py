"""The benchmark workload (design.md section 7) in the other layouts' shapes (section 8).

    python bench/workload_layouts.py OUT_DIR --layout mindlink|lab --notes N [--seed S]

A layout's workspace is the latchai workload of the same size reshaped: every note keeps its
bytes and its modification time and moves to where the layout keeps notes of its kind, so
notes per second compare with the latchai figure on the same text, links and sizes. Names that
a layout fixes (daily notes are named by their date) change; links to those names then miss,
which `brain check` reports like any broken link. Deterministic; only the standard library.

- mindlink: `memory/<scope>/x.md` -> `<scope>/memory/entries/x.md`; one note in eight of each
  scope becomes a daily note `<scope>/memory/YYYY-MM-DD.md` (one a day, going back from the
  workload's epoch).
- lab: one note per agent becomes `agents/<agent>/MEMORY.md` (the first agent's is the root
  `MEMORY.md`); of the rest, one in three becomes a daily log `memory/YYYY-MM-DD.md`, one in
  twenty a skill `skills/<name>/SKILL.md`, one in twenty a tool `tools/<name>/TOOL.md`, and
  the others project notes `projects/<project>/x.md` over 24 projects.
"""

from __future__ import annotations

import argparse
import random
import shutil
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

from workload import MARKER, generate

EPOCH_DAY = date(2026, 11, 1)
PROJECTS = 24


def _notes(source: Path) -> dict[str, list[Path]]:
    """scope -> its notes in the latchai workload, sorted (deterministic order)."""
    memory = source / "memory"
    return {d.name: sorted(d.glob("*.md")) for d in sorted(memory.iterdir()) if d.is_dir()}


def _place(note: Path, target: Path) -> None:
    """Copy the bytes and the mtime; a name already taken gets the source scope as a suffix
    (the workload has the same name in two scopes), so no note is lost."""
    if target.exists():
        scope = note.parent.name
        if target.name in ("SKILL.md", "TOOL.md"):
            target = target.parent.with_name(f"{target.parent.name}-{scope}") / target.name
        else:
            target = target.with_name(f"{target.stem}-{scope}.md")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(note, target)


def _days() -> Callable[[], str]:
    """A new day each call, going back from the epoch: distinct daily-note names."""
    state = [EPOCH_DAY]

    def next_day() -> str:
        state[0] -= timedelta(days=1)
        return state[0].isoformat()

    return next_day


def reshape_mindlink(source: Path, target: Path, seed: int) -> None:
    for scope, notes in _notes(source).items():
        day = _days()
        for index, note in enumerate(notes):
            if index % 8 == 7:
                _place(note, target / scope / "memory" / f"{day()}.md")
            else:
                _place(note, target / scope / "memory" / "entries" / note.name)
    (target / "brain.toml").write_text('layout = "mindlink"\n')


def reshape_lab(source: Path, target: Path, seed: int) -> None:
    rng = random.Random(seed)
    projects = [f"project-{i:02d}" for i in range(PROJECTS)]
    day = _days()
    agents = [s for s in _notes(source) if s != "shared"]
    for scope, notes in _notes(source).items():
        rest = notes
        if scope in agents:
            first, rest = notes[0], notes[1:]
            main = scope == agents[0]
            _place(first, target / ("MEMORY.md" if main else f"agents/{scope}/MEMORY.md"))
        for index, note in enumerate(rest):
            stem = note.name[:-3]
            if index % 3 == 0:
                _place(note, target / "memory" / f"{day()}.md")
            elif index % 20 == 1:
                _place(note, target / "skills" / stem / "SKILL.md")
            elif index % 20 == 2:
                _place(note, target / "tools" / stem / "TOOL.md")
            else:
                _place(note, target / "projects" / rng.choice(projects) / note.name)
    (target / "brain.toml").write_text('layout = "lab"\n')


#: layout -> reshaper(latchai workload, new workspace, seed)
RESHAPERS: dict[str, Callable[[Path, Path, int], None]] = {
    "mindlink": reshape_mindlink,
    "lab": reshape_lab,
}


def generate_layout(root: Path, notes: int, layout: str, cache: Path, seed: int = 7) -> Path:
    """The workspace of `layout` with `notes` notes at `root` (cached: made once)."""
    if (root / MARKER).exists():
        return root
    source = cache / f"workload-{notes}"
    if not (source / MARKER).exists():
        generate(source, notes)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    RESHAPERS[layout](source, root, seed)
    shutil.copy2(source / MARKER, root / MARKER)
    return root


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--layout", choices=sorted(RESHAPERS), required=True)
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    args = parser.parse_args()
    generate_layout(args.out, args.notes, args.layout, args.cache, args.seed)
    print(f"wrote a {args.layout} workspace of {args.notes} notes to {args.out}")


if __name__ == "__main__":
    main()
