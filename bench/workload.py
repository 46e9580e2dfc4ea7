"""Seeded, deterministic generator of the benchmark workspace (design.md section 7).

    python bench/workload.py OUT_DIR --notes N [--agents A] [--seed S] [--layout space]

N notes over A agents plus ``shared`` (10% of the notes), each 1.5 to 3 KB of markdown with
``description``/``type`` frontmatter, headings, a list and a fenced code block, and 3 to 8
wikilinks: to notes of the same scope (bare names), to shared notes (bare, or ``shared/x`` when
the agent has a note of the same name), now and then to another agent's note by its scoped
name, to workflows, chats and work items (with or without a kind prefix), some with a
``|label``, a ``#Heading`` that exists in the target, or as an ``![[embed]]``, and about 5% to
targets that do not exist. Some names exist in two scopes so scope precedence is exercised.
Fenced and inline code sometimes hold ``[[...]]`` text, which is not a link and is not counted.

`--layout space` (seeds/001) writes the same kind of notes as each agent's `<agent>/memory/`
tree instead: N files of which 10% are not markdown (CSV, JSON, text, and binary PNG-like
files), a third of each agent's notes in topic subfolders, the shared notes in the first
agent's `shared/` folder (so `shared/x` links are paths from its root), no agents/ or entity
folders (space has none).

`--profile real` (latchai layout only) writes what agents' real memory holds and this
profile lacks: fenced code and shell commands, tables, long index notes, agents without
definitions, many broken links across scopes, non-ASCII names (bench/workload_real.py).
The default profile is unchanged, so older figures stay comparable.

Same arguments, same bytes: no timestamps in content, and every file's mtime is a fixed,
seeded instant before 2026-11-01 so ages are deterministic too. Only the standard library.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

__all__ = ["WorkloadInfo", "generate", "main"]


if __package__:
    from . import workload_words as vocab
    from .workload_notes import MAX_BYTES, MIN_BYTES, _Gen
else:  # run as a script from bench/
    import workload_words as vocab  # type: ignore[no-redef]
    from workload_notes import MAX_BYTES, MIN_BYTES, _Gen  # type: ignore[no-redef]

MARKER = ".workload.json"
PROFILES = ("default", "real")
LAYOUT = ("agents", "memory", "workflows", "chats", "work-items")
EPOCH = 1_793_491_200  # 2026-11-01T00:00:00Z
MAX_AGE = 120 * 86_400  # note ages spread over the 120 days before EPOCH


@dataclass
class WorkloadInfo:
    """What :func:`generate` wrote. Paths are relative to ``root``, with ``/``.

    ``links`` counts real wikilinks only (not ``[[...]]`` text inside code); ``missing_links``
    are those whose target exists nowhere (each one a ``broken-link``); ``bytes`` is the total
    size of the memory files. Everything else a checker should find is healthy: no ambiguous
    links, no missing anchors, valid frontmatter.
    """

    root: Path
    notes: int
    agents: int
    seed: int
    shared_notes: int
    links: int
    missing_links: int
    anchor_links: int
    label_links: int
    embed_links: int
    entity_links: int
    cross_scope_links: int
    duplicate_names: int
    workflows: int
    chats: int
    work_items: int
    bytes: int
    agent_names: list[str] = field(default_factory=list)
    note_paths: list[str] = field(default_factory=list)
    missing_targets: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, object]:
        """The figures without the long path lists (what ``.workload.json`` holds)."""
        data = asdict(self)
        data["root"] = "."
        del data["note_paths"]
        return data


def _prepare(out_dir: Path) -> None:
    if out_dir.exists():
        entries = [p.name for p in out_dir.iterdir()]
        if entries and MARKER not in entries:
            raise FileExistsError(f"{out_dir} is not empty and holds no {MARKER}; refusing")
        for name in entries:  # a previous workload (of any layout): all of it is ours
            p = out_dir / name
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            else:
                p.unlink()
    out_dir.mkdir(parents=True, exist_ok=True)


def _write(path: Path, text: str, mtime: int) -> int:
    data = text.encode("utf-8")
    with open(path, "wb") as f:
        f.write(data)
    os.utime(path, (mtime, mtime))
    return len(data)


def generate(
    out_dir: Path, notes: int, agents: int = 8, seed: int = 42, layout: str = "latchai",
    profile: str = "default",
) -> WorkloadInfo:
    """Write the workload into ``out_dir`` and describe it.

    ``out_dir`` must be missing, empty, or a previous workload (it holds ``.workload.json``);
    in the last case the layout folders are replaced. `layout` "space": ``notes`` files, 10%
    of them not markdown (see the module docstring).
    """
    if notes < 1:
        raise ValueError("notes must be at least 1")
    if layout not in ("latchai", "space"):
        raise ValueError(f"no workload for layout {layout!r}: latchai or space")
    if profile not in PROFILES or (profile != "default" and layout != "latchai"):
        raise ValueError(f"no workload profile {profile!r} for layout {layout!r}")
    out_dir = Path(out_dir)
    _prepare(out_dir)
    if profile == "real":
        from importlib import import_module

        real = import_module(f"{__package__}.workload_real" if __package__ else "workload_real")
        info: WorkloadInfo = real.generate_real(out_dir, notes, agents, seed)
        return info
    plain = notes // 10 if layout == "space" else 0
    g = _Gen(max(1, notes - plain), agents, seed)
    r = g.rng

    def stamp() -> int:
        return EPOCH - r.randrange(MAX_AGE)

    if layout == "space":
        return _generate_space(out_dir, g, plain, seed, stamp)

    for sub in ("agents", "workflows", "chats", "work-items"):
        (out_dir / sub).mkdir()
    for name in g.agent_names:
        _write(out_dir / "agents" / f"{name}.md", g.agent_file(name), stamp())
    for i, wid in enumerate(g.workflows):
        ext, text = g.workflow_file(i, wid)
        _write(out_dir / "workflows" / f"{wid}.{ext}", text, stamp())
    for i, cid in enumerate(g.chats):
        ext, text = g.chat_file(i, cid)
        _write(out_dir / "chats" / f"{cid}.{ext}", text, stamp())
    for i, wid in enumerate(g.work_items):
        ext, text = g.work_item_file(i, wid)
        _write(out_dir / "work-items" / f"{wid}.{ext}", text, stamp())

    total = 0
    paths: list[str] = []
    for scope, scope_notes in g.scopes.items():
        folder = out_dir / "memory" / scope
        folder.mkdir(parents=True)
        for note in scope_notes:
            rel = f"memory/{scope}/{note.name}.md"
            total += _write(out_dir / rel, g.render(note), stamp())
            paths.append(rel)

    c = g.counts
    info = WorkloadInfo(
        root=out_dir,
        notes=notes,
        agents=len(g.agent_names),
        seed=seed,
        shared_notes=len(g.scopes["shared"]),
        links=c.links,
        missing_links=c.missing,
        anchor_links=c.anchor,
        label_links=c.label,
        embed_links=c.embed,
        entity_links=c.entity,
        cross_scope_links=c.cross,
        duplicate_names=g.duplicates,
        workflows=len(g.workflows),
        chats=len(g.chats),
        work_items=len(g.work_items),
        bytes=total,
        agent_names=list(g.agent_names),
        note_paths=paths,
        missing_targets=list(g.missing),
    )
    marker = json.dumps(info.summary(), indent=2, ensure_ascii=False) + "\n"
    _write(out_dir / MARKER, marker, EPOCH)
    return info


def _generate_space(
    out_dir: Path, g: _Gen, plain: int, seed: int, stamp: Callable[[], int]
) -> WorkloadInfo:
    r = g.rng
    total = 0
    paths: list[str] = []
    first = g.agent_names[0]
    for scope, scope_notes in g.scopes.items():
        for i, note in enumerate(scope_notes):
            if scope == "shared":
                rel = f"{first}/memory/shared/{note.name}.md"
            elif i % 3 == 2:  # a third in topic folders, one or two levels deep
                topic = note.name.split("-")[0]
                rel = f"{scope}/memory/{topic}/{note.name}.md"
                if i % 6 == 5:
                    rel = f"{scope}/memory/{topic}/archive/{note.name}.md"
            else:
                rel = f"{scope}/memory/{note.name}.md"
            path = out_dir / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            total += _write(path, g.render(note), stamp())
            paths.append(rel)
    for i in range(plain):
        agent = g.agent_names[i % len(g.agent_names)]
        kind = i % 4
        size = r.randrange(MIN_BYTES, MAX_BYTES)
        if kind == 0:
            rel, data = f"{agent}/memory/data/table-{i}.csv", _csv(r, size)
        elif kind == 1:
            rel, data = f"{agent}/memory/data/state-{i}.json", _json_blob(r, size)
        elif kind == 2:
            rel, data = f"{agent}/memory/images/shot-{i}.png", _png_like(r, size)
        else:
            rel, data = f"{agent}/memory/downloads/page-{i}.txt", _text(r, size)
        path = out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        mtime = stamp()
        os.utime(path, (mtime, mtime))
        total += len(data)
    c = g.counts
    info = WorkloadInfo(
        root=out_dir, notes=len(paths), agents=len(g.agent_names), seed=seed,
        shared_notes=len(g.scopes["shared"]), links=c.links, missing_links=c.missing,
        anchor_links=c.anchor, label_links=c.label, embed_links=c.embed, entity_links=c.entity,
        cross_scope_links=c.cross, duplicate_names=g.duplicates, workflows=0, chats=0,
        work_items=0, bytes=total, agent_names=list(g.agent_names), note_paths=paths,
        missing_targets=list(g.missing),
    )
    marker = json.dumps({**info.summary(), "layout": "space", "files": len(paths) + plain},
                        indent=2, ensure_ascii=False) + "\n"
    _write(out_dir / MARKER, marker, EPOCH)
    return info


def _csv(r: random.Random, size: int) -> bytes:
    rows = ["day,queue,jobs,p95_ms"]
    while sum(len(x) + 1 for x in rows) < size:
        rows.append(f"2026-{r.randrange(1, 13):02d}-{r.randrange(1, 29):02d},"
                    f"{r.choice(vocab.TOPICS)},{r.randrange(10**6)},{r.randrange(5000)}")
    return ("\n".join(rows) + "\n").encode()


def _json_blob(r: random.Random, size: int) -> bytes:
    items: list[dict[str, object]] = []
    while len(json.dumps(items)) < size:
        items.append({"topic": r.choice(vocab.TOPICS), "count": r.randrange(1000), "ok": r.random() < 0.9})
    return json.dumps(items, indent=1).encode()


def _png_like(r: random.Random, size: int) -> bytes:
    return b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + r.randbytes(size)


def _text(r: random.Random, size: int) -> bytes:
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < size:
        words.append(r.choice(vocab.TOPICS))
    return (" ".join(words) + "\n").encode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate the brain benchmark workspace.")
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--notes", type=int, required=True)
    parser.add_argument("--agents", type=int, default=8)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--layout", choices=("latchai", "space"), default="latchai")
    parser.add_argument("--profile", choices=PROFILES, default="default",
                        help="real: code, tables, index notes, broken cross-scope links (latchai)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    info = generate(args.out_dir, args.notes, args.agents, args.seed, args.layout, args.profile)
    elapsed = time.perf_counter() - started
    figures = info.summary()
    del figures["missing_targets"], figures["agent_names"]
    figures["root"] = str(info.root)
    figures["seconds"] = round(elapsed, 2)
    print(json.dumps(figures, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
