"""The history cap holds under concurrent writers, and a write's outcome is honest
(brain/tool/history/cap.py, brain/tool/service.py).

Before, the cap's check and the history's append were two steps under a lock per scope
folder only: two writes to two folders (an agent's own and shared, or two agents' own)
both passed the check and both appended, so the history grew past its cap. And a write
whose history append failed after the note was replaced answered an error although the
note had changed, with no record of the change.

Writers here are real: threads sending PUTs to a real server, and a `brain memory` process
whose history file cannot grow (RLIMIT_FSIZE). The invariants: the history never keeps more
than its cap; every note a write changed has its history record; a refused write changed
nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from brain.api.http.auth import TokenRegistry
from brain.budgets import HISTORY_AGENT_ENV, HISTORY_WORKSPACE_ENV, history_caps
from brain.store.memory.store import MemoryStore
from brain.tool.history.blobs import BlobStore, default_blob_dir
from brain.tool.history.cap import HistoryMeter
from brain.tool.history.log import History
from brain.tool.service import DEFAULT_MAX_FILE_BYTES
from tests.api.live import live_server
from tests.mcp.conftest import TOKENS, build_workspace

SIZE = 6_000


def note(n: int) -> str:
    head = f"---\ndescription: Note {n}.\ntype: project\n---\n"
    line = f"line of note {n}, kept in the history\n"
    return head + line * ((SIZE - len(head)) // len(line))


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def usage(root: Path) -> tuple[int, dict[str, int]]:
    """What the history keeps, counted afresh from its files."""
    path = root / ".brain" / "history.jsonl"
    found = HistoryMeter(History(path), BlobStore(default_blob_dir(path), DEFAULT_MAX_FILE_BYTES)).usage(
        history_caps())
    return found.total, found.agents


def race(root: Path, writes: list[tuple[str, str, int]]) -> list[tuple[str, int, int]]:
    """Each (token, scope, n) PUT at once from its own thread; (url, n, status) of each."""
    tokens = root.parent / "tokens.json"
    tokens.write_text(json.dumps(TOKENS))
    with live_server(root, MemoryStore(), tokens=TokenRegistry(tokens_file=tokens)) as live:

        def put(write: tuple[str, str, int]) -> tuple[str, int, int]:
            token, scope, n = write
            url = f"/api/memory/{scope}/n{n:03}.md"
            with httpx.Client(base_url=live.base, timeout=60,
                              headers={"Authorization": f"Bearer {token}"}) as http:
                return url, n, http.put(url, json={"content": note(n)}).status_code

        with ThreadPoolExecutor(max_workers=len(writes)) as pool:
            return list(pool.map(put, writes))


def assert_honest(root: Path, results: list[tuple[str, int, int]]) -> None:
    records = {(r.path, r.after) for r in History(root / ".brain" / "history.jsonl").all()}
    for url, n, status in results:
        rel = "memory/" + url.removeprefix("/api/memory/")
        assert status in (201, 507), (url, status)
        if status == 201:  # changed, and recorded
            assert (root / rel).read_text() == note(n)
            assert (rel, sha(note(n))) in records, f"{rel} changed without its history record"
        else:  # refused: nothing changed
            assert not (root / rel).exists(), f"{rel} was refused but written"


def test_concurrent_writes_of_one_agent_to_two_folders_stay_under_its_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cap = 40_000
    monkeypatch.setenv(HISTORY_AGENT_ENV, str(cap))
    root = build_workspace(tmp_path / "ws")
    writes = [("writer-token", "writer" if n % 2 else "shared", n) for n in range(16)]
    results = race(root, writes)
    assert {status for _, _, status in results} == {201, 507}  # the cap was reached
    _, agents = usage(root)
    assert agents["writer"] <= cap, f"writer's history keeps {agents['writer']:,} bytes, past {cap:,}"
    assert_honest(root, results)


def test_concurrent_writers_stay_under_the_workspace_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cap = 60_000
    monkeypatch.setenv(HISTORY_WORKSPACE_ENV, str(cap))
    root = build_workspace(tmp_path / "ws")
    writes = [(("writer-token", "writer"), ("reviewer-token", "reviewer"), ("writer-token", "shared"))[n % 3]
              + (n,) for n in range(18)]
    results = race(root, writes)
    assert {status for _, _, status in results} == {201, 507}
    total, _ = usage(root)
    assert total <= cap, f"the history keeps {total:,} bytes, past its cap of {cap:,}"
    assert_honest(root, results)


def test_a_write_whose_history_cannot_be_recorded_changes_nothing(tmp_path: Path) -> None:
    root = build_workspace(tmp_path / "ws")
    history = root / ".brain" / "history.jsonl"
    history.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"at": "2026-01-01T00:00:00Z", "actor": "admin", "agent": None, "via": "cli",
                       "command": "put", "scope": "shared", "path": "memory/shared/old.md",
                       "before": None, "after": None})
    history.write_text((line + "\n") * 400)  # ~80 KB: past the file size this process may write
    limit = history.stat().st_size - 1_000  # the note (6 KB) and its versions fit; an append does not

    def cap_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    before = history.read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "brain", "memory", "writer", "-w", str(root), "create",
         "/memories/fresh.md", "--text", note(1)],
        capture_output=True, text=True, timeout=120, preexec_fn=cap_files, check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode != 0, done.stdout
    assert "NOT changed" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not (root / "memory" / "writer" / "fresh.md").exists()  # the note was put back
    assert history.read_bytes() == before
    # An edit of a note that exists is put back to its old text, too.
    old = (root / "memory" / "writer" / "house-style.md").read_bytes()
    again = subprocess.run(
        [sys.executable, "-m", "brain", "memory", "writer", "-w", str(root), "create",
         "/memories/house-style.md", "--text", note(2)],
        capture_output=True, text=True, timeout=120, preexec_fn=cap_files, check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert again.returncode != 0
    assert "NOT changed" in again.stderr, again.stderr
    assert (root / "memory" / "writer" / "house-style.md").read_bytes() == old
