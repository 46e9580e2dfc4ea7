"""`brain check` on a workspace holding one hostile file: one problem on that file, in budget.

Each case runs `brain check` in a child process with a hard time and memory limit
(tests/hostile/budget.py): before the fixes, the alias bombs and the many-keys note ran past
any limit and the deep JSON files ended in a RecursionError traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile.budget import MIB
from tests.hostile.corpus import Case, check_cases
from tests.hostile.zygote import brain_case

SECONDS = 15.0
MEMORY = 1024 * MIB


def workspace_with(root: Path, case: Case) -> Path:
    (root / "memory" / "shared").mkdir(parents=True)
    (root / "memory" / "shared" / "fine.md").write_text("---\ndescription: a fine note\n---\nhello\n")
    target = root / case.rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(case.data)
    return root


@pytest.mark.parametrize("case", check_cases(), ids=lambda c: c.name)
def test_check_reports_the_file_within_budget(tmp_path: Path, case: Case) -> None:
    root = workspace_with(tmp_path / "ws", case)
    before = (root / case.rel).read_bytes()
    outcome = brain_case(["check", str(root)], seconds=SECONDS, memory=MEMORY)
    print(case.name, outcome.summary())
    assert not outcome.timed_out, f"{case.name}: {outcome.summary()}"
    assert "Traceback" not in outcome.stderr, outcome.stderr[-2000:]
    report = outcome.stdout
    if case.code is None:
        assert outcome.returncode == 0, report[-2000:]
        return
    assert outcome.returncode == 1, report[-2000:] + outcome.stderr[-2000:]
    mine = [line for line in report.splitlines() if line.startswith(case.rel + ":")]
    assert len(mine) == 1, report[-2000:]
    assert f" {case.code} " in mine[0], mine[0]
    assert "(fix: " in mine[0], mine[0]
    assert "fine.md" not in report  # only the hostile file has a problem
    assert (root / case.rel).read_bytes() == before  # check never rewrites a file
