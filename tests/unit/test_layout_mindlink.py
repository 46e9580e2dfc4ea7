"""The mindlink layout (seeds/003, design.md section 8): what each file is, where links go,
and its rules as ingest applies them, as tables."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from brain.config.workspace import BrainConfig, MindlinkConfig
from brain.layouts.base import RuleContext
from brain.layouts.mindlink import MINDLINK, classify
from brain.model import Kind
from brain.parse.note import parse_note
from brain.service.brain import Brain
from tests.unit.layout_helpers import assert_role, ingest, links_of, write_files

CLASSIFY = [
    # rel -> (role kind, scope, name, node kind or problem code)
    ("bot/memory/entries/style.md", ("memory", "bot", "style", Kind.MEMORY)),
    ("bot/memory/entries/Style Guide.MD", ("memory", "bot", "Style Guide", Kind.MEMORY)),
    ("bot/memory/2026-03-01.md", ("memory", "bot", "2026-03-01", Kind.DAILY_NOTE)),
    ("bot/memory/2026-02-30.md", ("problem", "", "", "not-a-memory")),
    ("bot/memory/notes.md", ("problem", "", "", "not-a-memory")),
    ("bot/memory/entries/x.json", ("problem", "", "", "not-a-memory")),
    ("bot/memory/entries/old/x.md", ("problem", "", "", "not-a-memory")),
    ("bot/memory/.hidden.md", ("ignored", "", "", None)),
    ("bot/memory/entries/.draft.md", ("ignored", "", "", None)),
    ("bot/notes.md", ("ignored", "", "", None)),
    ("README.md", ("ignored", "", "", None)),
    ("memory/entries/x.md", ("ignored", "", "", None)),  # no agent folder above memory/
]


@pytest.mark.parametrize(("rel", "expected"), CLASSIFY)
def test_classify(rel: str, expected: tuple[str, str, str, object]) -> None:
    assert_role(classify(rel), expected)


FILES = {
    "bot/memory/entries/style.md": "---\nname: style\ndescription: s\ntype: user\n---\nStyle.\n",
    "bot/memory/entries/plan.md": (
        "---\nname: plan\ndescription: p\ntype: project\n---\n"
        "[[style]] [[2026-03-01]] [[bot/style]] [[memory:style]] [[secret-plan]]\n"
        "[[other/secret-plan]] [[release]] [[agent:other]] [[memory:2026-03-01]]\n"
    ),
    "bot/memory/2026-03-01.md": "# 2026-03-01\n- worked on [[plan#nope]] and [[plan]]\n",
    "other/memory/entries/secret-plan.md": "---\ndescription: x\ntype: user\n---\nmine [[style]]\n",
    "other/memory/2026-03-01.md": "other's day\n",
}

LINKS = [
    # (source id, raw) -> (status, target id, candidates)
    (("memory:bot/plan", "[[style]]"), ("resolved", "memory:bot/style", ())),
    (("memory:bot/plan", "[[2026-03-01]]"), ("resolved", "daily-note:bot/2026-03-01", ())),
    (("memory:bot/plan", "[[bot/style]]"), ("resolved", "memory:bot/style", ())),
    (("memory:bot/plan", "[[memory:style]]"), ("resolved", "memory:bot/style", ())),
    # Bare names never reach another agent's memory; the message names what was meant.
    (("memory:bot/plan", "[[secret-plan]]"),
     ("broken", "unresolved:secret-plan", ("memory:other/secret-plan",))),
    (("memory:bot/plan", "[[other/secret-plan]]"), ("resolved", "memory:other/secret-plan", ())),
    (("memory:bot/plan", "[[release]]"), ("broken", "unresolved:release", ())),
    (("memory:bot/plan", "[[agent:other]]"), ("resolved", "agent:other", ())),
    (("memory:bot/plan", "[[memory:2026-03-01]]"),
     ("broken", "unresolved:memory:2026-03-01", ())),  # a daily note is not an entry
    (("daily-note:bot/2026-03-01", "[[plan#nope]]"), ("missing-anchor", "memory:bot/plan", ())),
    (("daily-note:bot/2026-03-01", "[[plan]]"), ("resolved", "memory:bot/plan", ())),
    (("memory:other/secret-plan", "[[style]]"), ("broken", "unresolved:style", ("memory:bot/style",))),
]


def test_links(tmp_path: Path) -> None:
    store, _ = ingest(tmp_path, "mindlink", FILES)
    found = links_of(store)
    assert {key: found[key] for key, _ in LINKS} == dict(LINKS)


def test_nodes_and_owners(tmp_path: Path) -> None:
    store, ingester = ingest(tmp_path, "mindlink", FILES)
    agents = {a.name: a for a in store.list_agents()}
    assert sorted(agents) == ["bot", "other"]
    assert all(a.memory_enabled and not a.memory_off for a in agents.values())
    nodes = store.get_nodes(["daily-note:bot/2026-03-01", "memory:bot/style"])
    day = nodes["daily-note:bot/2026-03-01"]
    assert (day.kind, getattr(day, "owner", None), getattr(day, "date", None)) == (
        Kind.DAILY_NOTE, "bot", "2026-03-01"
    )
    assert nodes["memory:bot/style"].kind is Kind.MEMORY
    assert ingester.problems() == []


def test_rules_in_ingest(tmp_path: Path) -> None:
    """The rules reach `brain check` through ingest: per note, and across an agent's entries."""
    files = {
        "bot/memory/entries/a.md": "---\ntype: feedback\n---\nTabs.\nWhy: lint\n",
        "bot/memory/entries/b.md": "---\ntype: user\n---\n  same body\n",
        "bot/memory/entries/c.md": "---\ntype: project\n---\nsame body\n\n",
        "other/memory/entries/d.md": "same body\n",
        "bot/memory/2001-01-01.md": "an old day\n",
        "bot/memory/notes.txt": "x\n",
    }
    store, ingester = ingest(tmp_path, "mindlink", files)
    problems = sorted(
        (p.code, p.path, p.line) for p in [*store.problems(), *ingester.problems()]
    )
    assert problems == [
        ("duplicate-entry", "bot/memory/entries/b.md", 1),  # b is older than c (written first)
        ("expired-daily-note", "bot/memory/2001-01-01.md", None),
        ("feedback-incomplete", "bot/memory/entries/a.md", 2),
        ("not-a-memory", "bot/memory/notes.txt", None),
    ]


EXPIRY = [
    # (note date, today, retain days) -> expired
    (date(2026, 1, 1), date(2026, 1, 31), 30, False),
    (date(2026, 1, 1), date(2026, 2, 1), 30, True),
    (date(2026, 1, 1), date(2026, 1, 3), 1, True),
]


@pytest.mark.parametrize(("day", "today", "retain", "expired"), EXPIRY)
def test_expiry_follows_today_and_the_setting(day: date, today: date, retain: int, expired: bool) -> None:
    rel = f"bot/memory/{day.isoformat()}.md"
    context = RuleContext(BrainConfig(mindlink=MindlinkConfig(daily_note_retain_days=retain)), today)
    found = MINDLINK.note_rules(rel, classify(rel), "x\n", parse_note("x\n", rel), context)
    assert [p.code for p in found] == (["expired-daily-note"] if expired else [])


def test_rules_follow_unsaved_edits(tmp_path: Path) -> None:
    """What an editor shows as you type: the same rules on the unsaved text (an overlay)."""
    (tmp_path / "brain.toml").write_text('layout = "mindlink"\n')
    write_files(tmp_path, {
        "bot/memory/entries/tabs.md": "---\ntype: feedback\n---\nTabs.\nWhy: lint\nHow to apply: always\n",
        "bot/memory/entries/spaces.md": "---\ntype: user\n---\nSpaces.\n",
    })
    brain = Brain(tmp_path)
    brain.sync()
    tabs, spaces = "bot/memory/entries/tabs.md", "bot/memory/entries/spaces.md"
    assert brain.problems([tabs, spaces]) == []
    brain.set_overlay(tabs, "---\ntype: feedback\n---\nTabs.\nWhy: lint\n")
    brain.set_overlay(spaces, "---\ntype: user\n---\nTabs.\nWhy: lint\n")
    # An unsaved buffer is as new as its last edit: `spaces` was typed last, so `tabs` is the copy.
    assert [(p.code, p.path) for p in brain.problems([tabs, spaces])] == [
        ("duplicate-entry", tabs), ("feedback-incomplete", tabs),
    ]
    brain.set_overlay(tabs, None)
    brain.set_overlay(spaces, None)
    assert brain.problems([tabs, spaces]) == []


def test_a_new_day_expires_daily_notes_on_the_next_full_rescan(tmp_path: Path) -> None:
    """A server runs for weeks: the day a note expires, the watcher's periodic full rescan
    says so, without the file changing (an incremental sync of other files does not)."""
    store, ingester = ingest(tmp_path, "mindlink", {"bot/memory/2026-03-01.md": "a day\n"})
    ingester.today = lambda: date(2026, 3, 31)
    ingester.sync()

    def expired() -> list[str]:
        return [p.path for p in store.problems() if p.code == "expired-daily-note"]

    assert expired() == []
    ingester.today = lambda: date(2026, 4, 1)
    write_files(tmp_path, {"bot/memory/entries/x.md": "x\n"})
    ingester.sync(["bot/memory/entries/x.md"])
    assert expired() == []
    ingester.sync()
    assert expired() == ["bot/memory/2026-03-01.md"]
    ingester.today = lambda: date(2026, 3, 2)  # a clock set back: kept again
    ingester.sync()
    assert expired() == []
