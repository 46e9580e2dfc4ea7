"""The edges of "as of": moments the history cannot show exactly are refused, naming the
oldest moment it can; real files, the real blob store and retention, `brain check --as-of`
and `brain show --as-of` as subprocesses."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from brain.budgets import HISTORY_WORKSPACE_ENV
from brain.config.sections import HistoryConfig
from brain.service.brain import Brain
from brain.tool import memory_service
from brain.tool.diff.changes import _iso
from brain.tool.history.log import History
from brain.tool.history.retention import Retention
from tests.hostile.zygote import UNLIMITED, brain_case
from tests.mcp.conftest import TOKENS, http_session
from tests.tool.conftest import make_workspace
from tests.tool.serving import serving
from tests.tool.test_as_of import WRITER, gql, iso


def brain_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m brain ARGS` as a process of its own, forked from an interpreter that imported
    brain once (tests/hostile/zygote.py): its exit code and its stdout and stderr as written."""
    done = brain_case(args, seconds=300, memory=UNLIMITED, as_module=True)
    assert not done.timed_out, (args, done.summary())
    return subprocess.CompletedProcess(list(args), done.returncode or 0, done.stdout, done.stderr)


def write(root: Path, text: str) -> float:
    done = brain_cli("memory", "-w", str(root), "writer", "create", "/memories/a.md", "--text", text)
    assert done.returncode == 0, done.stderr
    moment = time.time()
    time.sleep(0.01)
    return moment


def times(root: Path) -> list[str]:
    return [r.at for r in History(root / ".brain" / "history.jsonl").all()]


def test_before_the_history_in_the_future_and_past_retention_are_refused(tmp_path: Path) -> None:
    """Planted bugs, each seen to fail this test: the blob check skipped (the moment past
    retention is answered, with the note missing, instead of refused); the first-record
    bound removed (a moment before the history is answered as the oldest one)."""
    root = make_workspace(tmp_path / "ws")
    before = time.time() - 60
    t1 = write(root, "---\ndescription: One.\n---\n\nsee [[house-style]]\n")
    t2 = write(root, "---\ndescription: Two.\n---\n\nsee [[nowhere]]\n")
    write(root, "---\ndescription: Three.\n---\n\nsee [[house-style]]\n")
    first, second, _ = times(root)

    early = brain_cli("check", str(root), "--as-of", iso(before))
    assert early.returncode == 2
    assert early.stdout == ""
    assert early.stderr.strip() == (
        f"brain check: --as-of: brain cannot show the memory as it was at {iso(before)[:19]}Z: the history "
        f"begins at {first}, and brain keeps nothing from before it. The oldest moment brain can show is "
        f"{first}: ask for a moment at or after it"
    )
    future = brain_cli("check", str(root), "--as-of", "2999-01-01T00:00:00Z")
    assert future.returncode == 2
    assert "2999-01-01T00:00:00Z is in the future" in future.stderr
    bad = brain_cli("show", str(root), "memory/writer/a.md", "--as-of", "last tuesday")
    assert bad.returncode == 2
    assert "is not a time: give ISO 8601" in bad.stderr
    huge = brain_cli("check", str(root), "--as-of", "99999999999999d")  # once a traceback
    assert huge.returncode == 2
    assert huge.stderr.count("\n") == 1, huge.stderr
    assert "'99999999999999d' is out of range" in huge.stderr

    shown = brain_cli("show", str(root), "memory/writer/a.md", "--as-of", iso(t2), "--format", "json")
    assert shown.returncode == 0, shown.stderr
    assert "see [[nowhere]]" in shown.stdout

    # Retention keeps one version of each note: the first version's content goes.
    service = memory_service(Brain(root))
    retention = Retention(service.blobs, HistoryConfig(keep_versions=1, keep_days=0), grace=0.0)
    retention.prune(service.history.all())
    past = brain_cli("check", str(root), "--as-of", iso(t1))
    assert past.returncode == 2
    assert "is no longer kept (history retention or its cap)" in past.stderr
    assert past.stderr.rstrip().endswith(f"The oldest moment brain can show is {second}: ask for a moment "
                                         "at or after it")
    kept = brain_cli("check", str(root), "--as-of", second, "--format", "json")
    assert kept.returncode == 1, kept.stderr  # the broken [[nowhere]] of the second version
    assert "`[[nowhere]]` points to nothing" in kept.stdout


def _edit_a_note_from_before_the_history(tmp_path: Path, pad: int = 0) -> tuple[Path, float, str]:
    """house-style.md (`pad` bytes longer) is on disk before the history begins; brain starts
    (its first full sync), then the note is edited outside brain while it watches."""
    root = make_workspace(tmp_path / "ws")
    with (root / "memory/writer/house-style.md").open("a") as fh:
        fh.write("x" * pad)
    t1 = write(root, "---\ndescription: One.\n---\n\nsee [[house-style]]\n")
    brain = Brain(root)
    service = memory_service(brain)  # records the changes made outside brain while its brain syncs
    brain.sync()
    thread = service.baselines.thread
    assert thread is not None
    thread.join(60)  # the first versions are kept on a thread of their own
    (root / "memory/writer/house-style.md").write_text("---\ndescription: Edited.\n---\n\nnew\n")
    brain.sync(["memory/writer/house-style.md"])
    edited = times(root)[-1]
    assert History(root / ".brain" / "history.jsonl").all()[-1].origin == "external"
    return root, t1, edited


def test_a_note_from_before_the_history_edited_outside_brain_is_shown_as_brain_first_saw_it(
    tmp_path: Path,
) -> None:
    """Its first version was kept when brain first saw it (history/baseline.py), so the moments
    before the edit are shown with it (issue 44, item 5), on every front end's path: the whole
    moment (`brain check --as-of`) and one note (`brain show --as-of`); and retention keeps it.

    Planted bug, seen to fail: the recorder not keeping the baselines (refused as before)."""
    root, t1, edited = _edit_a_note_from_before_the_history(tmp_path)
    checked = brain_cli("check", str(root), "--as-of", iso(t1))
    assert checked.returncode in (0, 1), checked.stderr
    shown = brain_cli("show", str(root), "memory/writer/house-style.md", "--as-of", iso(t1))
    assert shown.returncode == 0, shown.stderr
    assert "House style for release notes" in shown.stdout
    assert "description: Edited." not in shown.stdout
    service = memory_service(Brain(root))
    service.prune_history()  # the baseline is now the record's `before`: kept while the record is
    assert brain_cli("show", str(root), "memory/writer/house-style.md", "--as-of", iso(t1)).returncode == 0
    shown = brain_cli("show", str(root), "memory/writer/house-style.md", "--as-of", edited)
    assert shown.returncode == 0, shown.stderr
    assert "description: Edited." in shown.stdout


def test_past_the_history_cap_a_first_version_is_not_kept_and_the_moments_before_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The baselines are bounded by the history's cap: past it, a note's first version is not
    kept (the smaller notes still are), and the moments before its outside edit are refused,
    naming the edit's time."""
    monkeypatch.setenv(HISTORY_WORKSPACE_ENV, "1024")  # the least cap: the write, not the note
    root, t1, edited = _edit_a_note_from_before_the_history(tmp_path, pad=1024)
    monkeypatch.delenv(HISTORY_WORKSPACE_ENV)
    refused = brain_cli("check", str(root), "--as-of", iso(t1))
    assert refused.returncode == 2
    assert refused.stderr.rstrip().endswith(f"The oldest moment brain can show is {edited}: ask for a "
                                            "moment at or after it")
    shown = brain_cli("show", str(root), "memory/writer/house-style.md", "--as-of", edited)
    assert shown.returncode == 0, shown.stderr
    assert "description: Edited." in shown.stdout


async def test_a_moment_not_kept_is_refused_naming_the_oldest_kept_on_every_front_end(tmp_path: Path) -> None:
    """Before the history and past retention, the whole moment and one note alike, on the CLI,
    GraphQL, REST and MCP: the same words, naming the oldest moment that can be shown (the
    second record's, once retention took the first version), not the history's first record.

    Planted bugs, each seen to fail: the refusal naming the history's first record (the words
    of before); one note's refusal left as note.py words it ("ask for the moment as a whole")."""
    root = make_workspace(tmp_path / "ws")
    before = time.time() - 60
    t1 = write(root, "---\ndescription: One.\n---\n\nsee [[house-style]]\n")
    write(root, "---\ndescription: Two.\n---\n\nsee [[nowhere]]\n")
    write(root, "---\ndescription: Three.\n---\n\nsee [[house-style]]\n")
    first, second, _ = times(root)
    service = memory_service(Brain(root))
    retention = Retention(service.blobs, HistoryConfig(keep_versions=1, keep_days=0), grace=0.0)
    retention.prune(service.history.all())

    def said(at: float) -> str:
        why = (f"the history begins at {first}, and brain keeps nothing from before it" if at == before else
               "the content some notes had then is no longer kept (history retention or its cap)")
        return (f"brain cannot show the memory as it was at {_iso(at)}: {why}. The oldest moment brain "
                f"can show is {second}: ask for a moment at or after it")

    for at in (before, t1):
        checked = brain_cli("check", str(root), "--as-of", iso(at))
        assert (checked.returncode, checked.stderr) == (2, f"brain check: --as-of: {said(at)}\n")
        shown = brain_cli("show", str(root), "memory/writer/a.md", "--as-of", iso(at))
        assert (shown.returncode, shown.stderr) == (2, f"brain show: {said(at)}\n")
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps(TOKENS), encoding="utf-8")
    with serving(root, tokens) as base:
        for at in (before, t1):
            when = iso(at)
            for query in (f'{{ stats(asOf: "{when}") {{ memories }} }}',
                          f'{{ memories(asOf: "{when}", first: 5) {{ nodes {{ path }} }} }}',
                          f'{{ memory(path: "memory/writer/a.md", asOf: "{when}") {{ body }} }}'):
                answer = gql(base, query)
                assert [e["message"] for e in answer["errors"]] == [f"asOf: {said(at)}"], query
            got = httpx.get(f"{base}/api/memory/writer/a.md", params={"asOf": when}, headers=WRITER,
                            timeout=60)
            assert got.status_code == 410, got.text
            assert got.json()["error"]["message"] == said(at)
            async with http_session(base, "writer-token") as session:
                for args in ({"at": when}, {"at": when, "path": "/memories/a.md"}):
                    ok, text, _ = await session.tool("memory_as_of", args)
                    assert not ok
                    assert said(at) in text, text
