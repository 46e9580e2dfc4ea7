"""`brain check --mentions` sweeps from the seeds its first sync's parse leaves
(brain/ingest/mention_seeds.py, brain/service/mention_sweep.py), and answers exactly what
reading every note again answers (`workspace_mentions`, the reference): through the real CLI,
after edits the seeds do not know, with aliases no file name has, with private notes of other
agents, and from real parse helper processes."""

from __future__ import annotations

import gc
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from bench.workload import generate
from brain.ingest.memory_files import MemoryFile, shipped
from brain.ingest.mention_seeds import walk_vocabulary
from brain.ingest.parse_helpers import MemoryBuilder
from brain.layouts import LATCHAI
from brain.service.brain import Brain
from brain.service.mention_sweep import sweep_mentions
from brain.service.mentions import workspace_mentions
from brain.store.base import GraphStore
from brain.store.memory.store import MemoryStore

Row = tuple[str, int, int, str, str | None, tuple[str, ...], str | None]


def workspace(root: Path, notes: int = 120) -> Path:
    generate(root, notes)
    shared = root / "memory" / "shared"
    shared.mkdir(parents=True, exist_ok=True)
    (shared / "release-train.md").write_text(
        "---\ndescription: How a release leaves.\ntype: reference\n---\nThe train.\n", encoding="utf-8")
    scopes = sorted(p for p in (root / "memory").iterdir() if p.is_dir() and p.name != "shared")
    own, other = scopes[0], scopes[1]
    (other / "private-plan.md").write_text("---\ndescription: Only theirs.\n---\nsecret plan\n",
                                           encoding="utf-8")
    (own / "mentions-all.md").write_text(
        "---\ndescription: Names notes in prose and elsewhere.\n---\n"
        "The release train leaves at nine; `release train` in code is not prose.\n\n"
        "```\nrelease train\n```\n\nA private plan of another agent is never named.\n",
        encoding="utf-8")
    (own / "mentions-linked.md").write_text(
        "---\ndescription: Links it.\n---\nSee [[release-train]]; the release train, linked, is none.\n",
        encoding="utf-8")
    (own / "mentions-code.md").write_text(
        "---\ndescription: Only in code.\n---\nRun `release train` or:\n\n    release train\n",
        encoding="utf-8")
    (own / "mentions-plain.md").write_text(
        "---\ndescription: One mention.\n---\nAsk about the release train before Friday.\n",
        encoding="utf-8")
    # Names inside names: the longest a word starts wins, and the words of a match start none.
    for name in ("release-train-schedule", "train-schedule-board"):
        (shared / f"{name}.md").write_text(f"---\ndescription: {name}.\n---\nA board.\n", encoding="utf-8")
    (own / "mentions-nested.md").write_text(
        "---\ndescription: Nested names.\n---\n"
        "The release train schedule board, then a train schedule board.\n",
        encoding="utf-8")
    # A shared note with an own note's name (linked as `shared/...` from that scope only),
    # two own notes of one name written two ways (ambiguous), names that squash alike with
    # other words across scopes, and a note that only names itself.
    (shared / "ownership-map.md").write_text("---\ndescription: Shared map.\n---\nMaps.\n", encoding="utf-8")
    (own / "ownership-map.md").write_text("---\ndescription: Own map.\n---\nOwn.\n", encoding="utf-8")
    (own / "Deploy Plan.md").write_text("---\ndescription: One way.\n---\nPlan.\n", encoding="utf-8")
    (own / "deploy-plan.md").write_text("---\ndescription: Another way.\n---\nPlan.\n", encoding="utf-8")
    (shared / "deploy_steps.md").write_text("---\ndescription: Steps.\n---\nSteps.\n", encoding="utf-8")
    (other / "deploy-steps.md").write_text("---\ndescription: Theirs.\n---\nSteps.\n", encoding="utf-8")
    (own / "mentions-shared.md").write_text(
        "---\ndescription: Names shared and ambiguous notes.\n---\n"
        "The ownership map, the deploy plan, the deploy steps and deploy_steps.\n", encoding="utf-8")
    (other / "mentions-theirs.md").write_text(
        "---\ndescription: Names from another scope.\n---\n"
        "The ownership map, the deploy plan, the deploy steps and deploy_steps.\n", encoding="utf-8")
    # The same name in NFD (own) and NFC (shared): one name key, two squashed names, so the
    # own scope's mention of the NFC text names the shared note, linked as `shared/...`.
    (own / "cafe\u0301-notes.md").write_text("---\ndescription: NFD.\n---\nOwn.\n", encoding="utf-8")
    (shared / "caf\u00e9-notes.md").write_text("---\ndescription: NFC.\n---\nShared.\n", encoding="utf-8")
    (own / "mentions-nfc.md").write_text("---\ndescription: NFC text.\n---\nSee the caf\u00e9 notes.\n",
                                         encoding="utf-8")
    (own / "only-itself.md").write_text("---\ndescription: Itself.\n---\nonly itself, only itself.\n",
                                        encoding="utf-8")
    return root


def rows(found: object) -> list[Row]:
    return [(memory.path, m.line, m.column, m.text, m.target, m.candidates, m.link)  # type: ignore[attr-defined]
            for memory, mentions in found for m in mentions]  # type: ignore[attr-defined]


def reference(root: Path) -> list[Row]:
    brain = Brain(root, MemoryStore())
    try:
        brain.sync()
        return rows(workspace_mentions(brain.store, brain.root))
    finally:
        brain.close()


def seeded_brain(root: Path) -> Brain:
    brain = Brain(root, MemoryStore())
    brain.ingester.seed_mentions = True
    brain.sync()
    return brain


def test_check_mentions_answers_as_reading_every_note(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    env = {**os.environ, "BRAIN_SEMANTIC": "off", "PYTHONPATH": str(Path(__file__).parents[2])}
    done = subprocess.run([sys.executable, "-m", "brain", "check", str(root), "--mentions", "--format",
                           "json"], capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode in (0, 1), done.stderr
    info = json.loads(done.stdout)["info"]
    got = [(i["path"], i["line"], i["column"], i["message"].split("`")[1], i["target"],
            tuple(i["candidates"])) for i in info]
    want = [r[:6] for r in reference(root)]  # the link is in `replacement`
    assert got == want
    mine = [r for r in want if r[0].endswith("mentions-all.md")]
    assert [(r[1], r[2], r[3]) for r in mine] == [(4, 5, "release train")]  # the code ones are not
    assert not [r for r in want if r[0].endswith(("mentions-linked.md", "mentions-code.md"))]
    assert not any(r[4] is not None and "private-plan" in r[4] for r in want)


def test_seeds_hold_every_note_and_the_sweep_equals_the_reference(store: GraphStore, tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    brain = Brain(root, store)  # the embedded store, then a real Neo4j
    brain.ingester.seed_mentions = True
    try:
        brain.sync()
        seeds = brain.ingester.mention_seeds
        assert seeds is not None
        assert len(seeds) == brain.stats().memories
        got = rows(sweep_mentions(brain.store, brain.root, seeds=seeds))
        assert got == rows(workspace_mentions(brain.store, brain.root))
        assert len(got) > 2
        assert [(r[4], r[6]) for r in got if r[0].endswith("mentions-nfc.md")] == [
            ("memory:shared/caf\u00e9-notes", "shared/caf\u00e9-notes")]
    finally:
        brain.close()


def test_an_edit_after_the_sync_is_read_not_seeded(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    brain = seeded_brain(root)
    try:
        note = next((root / "memory").rglob("mentions-plain.md"))
        note.write_text("---\ndescription: Edited.\n---\nNo names here now; the release train left.\n"
                        "And the release train again.\n", encoding="utf-8")
        brain.sync([str(note.relative_to(root))])
        got = rows(sweep_mentions(brain.store, brain.root, seeds=brain.ingester.mention_seeds))
        assert got == rows(workspace_mentions(brain.store, brain.root))
        assert [(r[1], r[2]) for r in got if r[0].endswith("mentions-plain.md")] == [(4, 24), (5, 9)]
    finally:
        brain.close()


def test_an_alias_no_file_has_is_found(tmp_path: Path) -> None:
    # The vocabulary is the walk's file names: an alias outside it (here a shared note's, so
    # every scope reaches it) makes the sweep read those notes as before.
    root = workspace(tmp_path / "ws")
    (root / "memory/shared/release-train.md").write_text(
        "---\ndescription: How a release leaves.\naliases: [choo choo]\n---\nThe train.\n", encoding="utf-8")
    note = next((root / "memory").rglob("mentions-plain.md"))
    note.write_text("---\ndescription: Alias.\n---\nThe choo choo leaves.\n", encoding="utf-8")
    brain = seeded_brain(root)
    try:
        got = rows(sweep_mentions(brain.store, brain.root, seeds=brain.ingester.mention_seeds))
        assert got == rows(workspace_mentions(brain.store, brain.root))
        assert [r[3] for r in got if r[0].endswith("mentions-plain.md")] == ["choo choo"]
    finally:
        brain.close()


@pytest.mark.parametrize("workers", ["2"])
def test_parse_helpers_seed_as_this_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            workers: str) -> None:
    monkeypatch.setenv("BRAIN_INGEST_WORKERS", workers)
    root = workspace(tmp_path / "ws", 450)
    rels = sorted(str(p.relative_to(root)) for p in (root / "memory").rglob("*.md"))
    vocabulary = walk_vocabulary(rels, LATCHAI.classify)
    files: list[MemoryFile] = []
    for rel in rels:
        role = LATCHAI.classify(rel)
        files.append((rel, role.scope, role.name, str(root / rel), 0.0))
    builder = MemoryBuilder(None, parallel_min=1)
    builder.seed_mentions(vocabulary)
    builder.extend(files)
    assert builder._helpers, "no parse helper started"  # the point: seeds across the pipe
    results = builder.finish()
    here: dict[str, tuple[str, object]] = {}
    shipped(files, None, False, False, pickle.loads(pickle.dumps(vocabulary)), here)  # type: ignore[arg-type]
    assert len(results) == len(files)
    assert builder.seeds == here
    assert sum(len(seed) for _hash, seed in here.values()) > 20  # type: ignore[arg-type]


def test_maintain_mentions_proposes_as_reading_every_note(tmp_path: Path) -> None:
    from brain.maintain.run import maintain

    root = workspace(tmp_path / "ws")
    brain = Brain(root, MemoryStore())  # not seeded: every note read again, the reference
    try:
        brain.sync()
        want = sorted((f.path, f.line, f.proposal.to_json()["arguments"]["new_str"])
                      for f in maintain(brain, mentions=True).findings if f.code == "unlinked-mention")
    finally:
        brain.close()
    env = {**os.environ, "BRAIN_SEMANTIC": "off", "PYTHONPATH": str(Path(__file__).parents[2])}
    ran = subprocess.run([sys.executable, "-m", "brain", "maintain", str(root), "--mentions", "--format",
                          "json"], capture_output=True, text=True, env=env, timeout=300, check=False)
    assert ran.returncode == 0, ran.stderr
    got = sorted((f["path"], f["line"], f["proposal"]["arguments"]["new_str"])
                 for f in json.loads(ran.stdout)["findings"] if f["code"] == "unlinked-mention")
    assert got == want
    assert [(line, "[[release-train|release train]]" in new) for path, line, new in got
            if path.endswith("mentions-all.md")] == [(4, True)]
    assert not [path for path, _line, _new in got if path.endswith("mentions-code.md")]


def test_the_collector_runs_while_the_caller_holds_a_batch(tmp_path: Path) -> None:
    """The sweep pauses cyclic collection only while it allocates: the caller's code between
    batches, and after the sweep, runs with the collector on, as it was."""
    root = workspace(tmp_path / "ws")
    brain = seeded_brain(root)
    try:
        assert gc.isenabled()
        seeds = brain.ingester.mention_seeds
        seen = [gc.isenabled() for _m, _found in sweep_mentions(brain.store, root, seeds=seeds)]
        assert len(seen) > 2
        assert all(seen)
        assert gc.isenabled()
    finally:
        brain.close()
