"""Every finding class of the deterministic pass, as tables: the mess, and what is found."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from brain.maintain import LAYOUTS, MaintenanceLayout, find, register_layout
from brain.maintain.finders.catalog import yaml_value
from brain.maintain.findings import SAFE_CODES, Finding
from brain.maintain.scoped_tool import ScopedMemoryTool
from brain.model import MemoryNode
from brain.service.brain import Brain
from brain.tool.access import Actor
from tests.maintain.conftest import note, open_brain, workspace_with

STYLE = note("House style for release notes.", "# House style\n\n- Headline first.")
LONG = "Release notes style " + "with many words about everything " * 5
NEAR = " ".join(f"word{i}" for i in range(60))
OTHER = " ".join(f"other{i}" for i in range(80))
BIG = note("A very long runbook.", "\n".join(f"## Part {i}\n\n" + "text " * 300 for i in range(12)))

# (files, scope, expected [(code, path, safe)])
CASES: dict[str, tuple[dict[str, str | tuple[str, float]], str | None, list[tuple[str, str, bool]]]] = {
    "clean workspace": (
        {"memory/writer/house-style.md": STYLE},
        None,
        [],
    ),
    "exact duplicate: the older copy goes": (
        {"memory/writer/style-a.md": (STYLE, 5), "memory/writer/style-b.md": (STYLE, 1)},
        "writer",
        [("duplicate", "memory/writer/style-a.md", True)],
    ),
    "duplicate up to trailing whitespace": (
        {"memory/writer/a.md": (STYLE, 1), "memory/writer/b.md": (STYLE.replace("first.", "first.   "), 9)},
        None,
        [("duplicate", "memory/writer/b.md", True)],
    ),
    "three copies: the two older go": (
        {
            "memory/shared/x.md": (STYLE, 3),
            "memory/shared/y.md": (STYLE, 2),
            "memory/shared/z.md": (STYLE, 1),
        },
        "shared",
        [("duplicate", "memory/shared/x.md", True), ("duplicate", "memory/shared/y.md", True)],
    ),
    "a linked duplicate is proposed, not applied": (
        {
            "memory/writer/style-a.md": (STYLE, 5),
            "memory/writer/style-b.md": (STYLE, 1),
            "memory/writer/index.md": note("Index of notes.", "See [[style-a]]."),
        },
        "writer",
        [("duplicate", "memory/writer/style-a.md", False)],
    ),
    "same body, another description: a near duplicate to merge, never applied": (
        {
            "memory/writer/a.md": (note("One.", "Same body."), 3),
            "memory/writer/b.md": (note("Two.", "Same body."), 1),
        },
        None,
        [("near-duplicate", "memory/writer/a.md", False)],
    ),
    "same body, another type: a near duplicate": (
        {
            "memory/writer/a.md": (note("One.", "Same body.", "user"), 1),
            "memory/writer/b.md": (note("One.", "Same body.", "project"), 3),
        },
        None,
        [("near-duplicate", "memory/writer/b.md", False)],
    ),
    "nearly the same body (one word of sixty changed): a near duplicate": (
        {
            "memory/writer/a.md": (note("Deploys.", NEAR), 1),
            "memory/writer/b.md": (note("How we deploy.", NEAR.replace("word17", "changed")), 2),
        },
        None,
        [("near-duplicate", "memory/writer/b.md", False)],
    ),
    "one paragraph in common is not a near duplicate": (
        {
            "memory/writer/a.md": note("Deploys.", NEAR + "\n\n" + OTHER),
            "memory/writer/b.md": note("Reviews.", NEAR + "\n\n" + OTHER.replace("other", "else")),
        },
        None,
        [],
    ),
    "near duplicates in two scopes are two scopes' business": (
        {"memory/writer/a.md": note("One.", NEAR), "memory/shared/b.md": note("Two.", NEAR)},
        None,
        [],
    ),
    "duplicates in two scopes are two scopes' business": (
        {"memory/writer/style.md": STYLE, "memory/shared/style-copy.md": STYLE},
        None,
        [],
    ),
    "same name in frontmatter: the older is proposed for merging": (
        {
            "memory/writer/deploy-a.md": (
                "---\nname: deploy\ndescription: Deploys.\ntype: project\n---\nA\n",
                4,
            ),
            "memory/writer/deploy-b.md": (
                "---\nname: Deploy\ndescription: Deploys v2.\ntype: project\n---\nB\n",
                1,
            ),
        },
        "writer",
        [("same-name", "memory/writer/deploy-a.md", False)],
    ),
    "file names that differ only in case": (
        {
            "memory/writer/Deploy.md": (note("Old.", "A"), 4),
            "memory/writer/deploy.md": (note("New.", "B"), 1),
        },
        "writer",
        [("same-name", "memory/writer/Deploy.md", False)],
    ),
    "a private note hides a shared one of the same name": (
        {"memory/writer/tone.md": (note("Mine.", "A"), 9), "memory/shared/tone.md": (note("Ours.", "B"), 1)},
        None,
        [("same-name", "memory/writer/tone.md", False)],
    ),
    "no frontmatter: description falls back to the first line, and no type": (
        {"memory/writer/old.md": "# Deploy on Fridays\n\nNever.\n"},
        None,
        [
            ("missing-type", "memory/writer/old.md", False),
            ("weak-description", "memory/writer/old.md", False),
        ],
    ),
    "empty note": (
        {"memory/writer/empty.md": ""},
        None,
        [
            ("missing-type", "memory/writer/empty.md", False),
            ("weak-description", "memory/writer/empty.md", False),
        ],
    ),
    "an empty quoted description is a weak one": (
        {
            "memory/writer/single.md": "---\ndescription: ''\ntype: project\n---\n\nDeploy on Fridays.\n",
            "memory/writer/double.md": '---\ndescription: ""\ntype: project\n---\n\nReview on Mondays.\n',
            "memory/writer/null.md": "---\ndescription: ~\ntype: project\n---\n\nShip on Tuesdays.\n",
        },
        None,
        [
            ("weak-description", "memory/writer/double.md", False),
            ("weak-description", "memory/writer/null.md", False),
            ("weak-description", "memory/writer/single.md", False),
        ],
    ),
    "a description past the 120-character clip": (
        {"memory/writer/long.md": note(LONG, "Body.")},
        None,
        [("weak-description", "memory/writer/long.md", False)],
    ),
    "frontmatter without a type": (
        {"memory/writer/untyped.md": "---\ndescription: Has no type.\n---\nBody.\n"},
        None,
        [("missing-type", "memory/writer/untyped.md", False)],
    ),
    "an invalid type is a missing type": (
        {"memory/writer/bad.md": "---\ndescription: Bad type.\ntype: opinion\n---\nBody.\n"},
        None,
        [("missing-type", "memory/writer/bad.md", False)],
    ),
    "a typo with one close name": (
        {
            "memory/writer/house-style.md": STYLE,
            "memory/writer/notes.md": note("Notes.", "See [[house-styel]]."),
        },
        "writer",
        [("fixable-link", "memory/writer/notes.md", True)],
    ),
    "a typo of a shared name, written with its scope": (
        {
            "memory/shared/prefers-short-answers.md": note("Short.", "Short.", "user"),
            "memory/writer/notes.md": note("Notes.", "See [[shared/prefers-short-answer|short]]."),
        },
        "writer",
        [("fixable-link", "memory/writer/notes.md", True)],
    ),
    "a typo of a workflow, with its kind prefix": (
        {
            "workflows/release-train.yaml": "title: Release train\n",
            "memory/writer/n.md": note("N.", "Run [[workflow:relase-train]] first."),
        },
        None,
        [("fixable-link", "memory/writer/n.md", True)],
    ),
    "a bare typo of a workflow": (
        {
            "workflows/release-train.yaml": "title: Release train\n",
            "memory/writer/n.md": note("N.", "Run [[relase-train]] first."),
        },
        None,
        [("fixable-link", "memory/writer/n.md", True)],
    ),
    "two close names: no guess": (
        {
            "memory/writer/release-notes.md": note("Notes.", "A"),
            "memory/writer/release-note.md": note("Note.", "B"),
            "memory/writer/index.md": note("Index.", "See [[relase-notes]]."),
        },
        "writer",
        [],
    ),
    "a different word is not a typo": (
        {
            "memory/writer/tutorial-ideas.md": STYLE,
            "memory/writer/n.md": note("N.", "See [[tutorial-outline]]."),
        },
        None,
        [],
    ),
    "another agent's private note is never a candidate": (
        {
            "memory/reviewer/code-rules.md": note("Rules.", "A"),
            "memory/writer/n.md": note("N.", "See [[code-rule]]."),
        },
        "writer",
        [],
    ),
    "a link inside code is no link": (
        {
            "memory/writer/house-style.md": STYLE,
            "memory/writer/n.md": note("N.", "`[[house-styel]]` is code."),
        },
        None,
        [],
    ),
    "a large note": (
        {"memory/writer/runbook.md": BIG},
        None,
        [("large-note", "memory/writer/runbook.md", False)],
    ),
    "latchai has no daily notes: a dated name is an ordinary note": (
        {"memory/writer/2020-01-01.md": note("New year.", "Party.")},
        None,
        [],
    ),
}


def run_case(tmp_path: Path, files: dict[str, str | tuple[str, float]], scope: str | None) -> list[Finding]:
    root = workspace_with(tmp_path / "ws", files)
    brain = Brain(root)
    brain.sync()
    return find(brain, scope).findings


@pytest.mark.parametrize("name", list(CASES))
def test_finding_table(tmp_path: Path, name: str) -> None:
    files, scope, expected = CASES[name]
    found = run_case(tmp_path, files, scope)
    assert sorted((f.code, f.path, f.safe) for f in found) == sorted(expected)
    for finding in found:
        assert finding.reason
        assert finding.safe == (finding.code in SAFE_CODES and finding.safe)
        assert finding.proposal.command in ("view", "create", "str_replace", "insert", "delete", "rename")


def test_a_duplicate_proposes_deleting_the_older_copy_with_its_hash(tmp_path: Path) -> None:
    files, scope, _ = CASES["exact duplicate: the older copy goes"]
    (finding,) = run_case(tmp_path, files, scope)
    assert finding.proposal.payload() == {"command": "delete", "path": "/memories/style-a.md"}
    assert finding.proposal.agent == "writer"
    assert finding.proposal.expected_hash
    assert len(finding.proposal.expected_hash) == 64
    assert "memory/writer/style-b.md" in finding.reason


def test_a_link_fix_keeps_label_and_scope(tmp_path: Path) -> None:
    files, scope, _ = CASES["a typo of a shared name, written with its scope"]
    (finding,) = run_case(tmp_path, files, scope)
    assert finding.proposal.arguments["old_str"] == "[[shared/prefers-short-answer|short]]"
    assert finding.proposal.arguments["new_str"] == "[[shared/prefers-short-answers|short]]"
    assert finding.line == 6


@pytest.mark.parametrize(
    ("case", "old", "new"),
    [
        (
            "a typo of a workflow, with its kind prefix",
            "[[workflow:relase-train]]",
            "[[workflow:release-train]]",
        ),
        ("a bare typo of a workflow", "[[relase-train]]", "[[release-train]]"),
        ("a typo with one close name", "[[house-styel]]", "[[house-style]]"),
    ],
)
def test_link_fixes_are_written_as_the_link_will_resolve(
    tmp_path: Path, case: str, old: str, new: str
) -> None:
    files, scope, _ = CASES[case]
    (finding,) = run_case(tmp_path, files, scope)
    assert (finding.proposal.arguments["old_str"], finding.proposal.arguments["new_str"]) == (old, new)


def test_a_link_written_twice_is_fixed_with_unique_context(tmp_path: Path) -> None:
    body = "First [[house-styel]] here.\n\nThen [[house-styel]] there."
    found = run_case(
        tmp_path, {"memory/writer/house-style.md": STYLE, "memory/writer/n.md": note("N.", body)}, None
    )
    olds = [f.proposal.arguments["old_str"] for f in found]
    assert olds == ["First [[house-styel]] here.", "Then [[house-styel]] there."]


def test_description_proposals_edit_the_right_lines_and_work(tmp_path: Path) -> None:
    root = workspace_with(
        tmp_path / "ws",
        {
            "memory/writer/old.md": "# Deploy on Fridays\n\nNever.\n",
            "memory/writer/untyped.md": "---\ndescription: Has no type.\n---\nBody.\n",
        },
    )
    brain, service = open_brain(root, tmp_path / "history.jsonl")
    found = find(brain).findings
    by = {(f.path, f.code): f.proposal.payload() for f in found}
    assert by[("memory/writer/old.md", "weak-description")] == {
        "command": "insert",
        "path": "/memories/old.md",
        "insert_line": 0,
        "insert_text": "---\ndescription: Deploy on Fridays\ntype: <user|feedback|project|reference>\n---\n",
    }
    assert by[("memory/writer/untyped.md", "missing-type")] == {
        "command": "insert",
        "path": "/memories/untyped.md",
        "insert_line": 2,
        "insert_text": "type: <user|feedback|project|reference>\n",
    }
    # A proposal is a real call: carried out by the scope's tool, the finding is gone.
    tool = ScopedMemoryTool(service, "writer", Actor.admin())
    result = tool.run(by[("memory/writer/old.md", "weak-description")])
    assert result.ok, result.text
    after = {(f.path, f.code) for f in find(brain).findings}
    assert ("memory/writer/old.md", "weak-description") not in after
    assert ("memory/writer/old.md", "missing-type") in after


def test_a_clipped_description_fits_the_index(tmp_path: Path) -> None:
    (finding,) = run_case(tmp_path, {"memory/writer/long.md": note(LONG, "Body.")}, None)
    new = str(finding.proposal.arguments["new_str"])
    assert new.startswith("description: ")
    assert len(new.removeprefix("description: ")) <= 120
    assert "120" in finding.reason


def _dated(memory: MemoryNode) -> date | None:
    found = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", memory.name)
    return date(int(found[1]), int(found[2]), int(found[3])) if found else None


@pytest.fixture
def daily_layout() -> object:
    layout = MaintenanceLayout("dated-test", daily_note=_dated, retain_days=30)
    register_layout(layout)
    yield layout
    LAYOUTS.pop("dated-test", None)


@pytest.mark.parametrize(
    ("name", "age_days", "expired"),
    [
        ("2026-10-31", 1, False),
        ("2026-10-02", 30, False),
        ("2026-10-01", 31, True),
        ("2025-01-01", 669, True),
    ],
)
def test_expired_daily_notes_where_a_layout_has_them(
    tmp_path: Path, daily_layout: MaintenanceLayout, name: str, age_days: int, expired: bool
) -> None:
    root = workspace_with(tmp_path / "ws", {f"memory/writer/{name}.md": note("Day.", "Log.")})
    brain = Brain(root)
    brain.sync()
    found = find(brain, layout=daily_layout, today=date(2026, 11, 1)).findings
    assert [(f.code, f.safe) for f in found] == ([("expired-daily-note", True)] if expired else [])
    if expired:
        assert f"{age_days} days old" in found[0].reason


@pytest.mark.parametrize(
    "text",
    [
        "Plain words.",
        "Refunds: never promise one",
        "- a list?",
        "#hashtag first",
        "ends with colon:",
        "a # comment?",
        "'quoted'",
        '"double"',
        "yes",
        "null",
        "[brackets]",
        "{braces}",
        "100%",
        "@at",
        "emoji 🚀 and 東京",
        "*star",
        "!bang",
        "|pipe",
        ">gt",
        "back`tick",
        "",
    ],
)
def test_yaml_values_read_back_as_written(text: str) -> None:
    import yaml

    loaded = yaml.safe_load(f"description: {yaml_value(text)}")["description"]
    assert (loaded if loaded is not None else "") == text or (
        text in ("yes", "null") and loaded in (True, None)
    )


def test_the_link_search_has_a_budget_and_says_what_it_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from brain.maintain.finders import links

    monkeypatch.setattr(links, "SEARCH_BUDGET", 1)  # one search: the note's own scope, for one target
    files: dict[str, str | tuple[str, float]] = {
        "memory/shared/house-style.md": STYLE,
        "memory/shared/n.md": note("N.", "See [[house-styel]] and [[hose-style]] and [[hoese-style]]."),
    }
    brain = Brain(workspace_with(tmp_path / "ws", files))
    brain.sync()
    report = find(brain, None)
    assert [f.code for f in report.findings] == []  # a shared note searches shared + entities: 2 > 1
    assert report.notes == [
        "fixable-link: 3 broken link(s) were not examined: the pass makes at most 1 near-miss searches; "
        "run it per scope (--scope) to look at the rest"
    ]
    assert "note: fixable-link: 3 broken link(s)" in report.to_text()


@pytest.mark.parametrize(
    ("retain", "expired"),
    [
        (None, ["bot/memory/2026-09-01.md"]),
        (90, []),
        (10, ["bot/memory/2026-09-01.md", "bot/memory/2026-10-20.md"]),
    ],
)
def test_mindlink_daily_notes_expire_as_brain_toml_says(
    tmp_path: Path, retain: int | None, expired: list[str]
) -> None:
    """seeds/003's idle maintain: the mindlink layout's hook, with `daily_note_retain_days`."""
    settings = "" if retain is None else f"\n[mindlink]\ndaily_note_retain_days = {retain}\n"
    (tmp_path / "brain.toml").write_text('layout = "mindlink"\n' + settings)
    for rel in ("bot/memory/2026-09-01.md", "bot/memory/2026-10-20.md", "bot/memory/entries/2026-01-01.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(f"what happened, as {rel} tells it\n")
    brain = Brain(tmp_path)
    brain.sync()
    found = find(brain, today=date(2026, 11, 1)).findings
    assert [(f.code, f.path, f.safe) for f in found if f.code == "expired-daily-note"] == [
        ("expired-daily-note", rel, True) for rel in expired
    ]


def test_lab_daily_logs_never_expire(tmp_path: Path) -> None:
    """seeds/004: the lab keeps its daily logs indefinitely."""
    (tmp_path / "MEMORY.md").write_text("# Lab\n")
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "2001-01-01.md").write_text("a day long ago\n")
    brain = Brain(tmp_path)
    brain.sync()
    assert [f.code for f in find(brain, today=date(2026, 11, 1)).findings] == []
