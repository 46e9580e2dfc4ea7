"""tests/skips.py: under CI=true a skip CI did not plan fails the run; every run counts skips.

The oracle is a real pytest run (a subprocess) over a small test folder whose conftest loads
the same hooks as tests/conftest.py, so what is checked is what CI sees: the exit status, the
outcome line and the skip count.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CONFTEST = (
    "from tests.skips import pytest_make_collect_report, pytest_runtest_makereport, pytest_terminal_summary\n"
)
TESTS = """
import pytest
def test_ok(): pass
def test_unplanned(): pytest.skip("no widget here")
def test_planned(): pytest.skip("the native scanner is not built (cargo)")
@pytest.mark.skipif(True, reason="a marker's skip")
def test_marked(): pass
@pytest.mark.xfail(reason="known", strict=True)
def test_expected_to_fail(): assert False
"""
MODULE_SKIP = "import pytest\npytest.importorskip('no_such_module_here')\ndef test_x(): pass\n"


def run(tmp_path: Path, module_skip: bool = False, **env: str) -> tuple[int, str]:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_some.py").write_text(TESTS)
    if module_skip:
        (tmp_path / "test_module_skip.py").write_text(MODULE_SKIP)
    clean = {k: v for k, v in os.environ.items() if k not in ("CI", "BRAIN_NATIVE")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path, env={**clean, "PYTHONPATH": str(REPO), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", **env},
        capture_output=True, text=True, timeout=120, check=False,
    )
    return done.returncode, done.stdout


def test_outside_ci_skips_pass_and_are_counted(tmp_path: Path) -> None:
    status, out = run(tmp_path, module_skip=True)
    assert status == 0, out
    assert "skips: 4 (not CI: a skip does not fail the run)" in out
    assert "1 passed, 4 skipped, 1 xfailed" in out


@pytest.mark.parametrize(("env", "failed"), [
    ({"CI": "true"}, ["test_unplanned", "test_planned", "test_marked"]),
    # The BRAIN_NATIVE=0 pass plans the native scanner's skips, and only those.
    ({"CI": "true", "BRAIN_NATIVE": "0"}, ["test_unplanned", "test_marked"]),
])
def test_in_ci_an_unplanned_skip_fails_the_run(
    tmp_path: Path, env: dict[str, str], failed: list[str]
) -> None:
    status, out = run(tmp_path, **env)
    assert status == 1, out
    reported = [line for line in out.splitlines() if line.startswith(("FAILED", "ERROR"))]
    assert len(reported) == len(failed), out
    for name, line in zip(failed, sorted(reported, key=lambda r: [n in r for n in failed].index(True)),
                          strict=True):
        assert name in line
        assert "CI (CI=true) did not plan this skip" in line
    planned = 3 - len(failed)
    assert f"skips: {planned} (CI: only planned skips allowed)" in out
    assert "1 xfailed" in out  # an expected failure is not a skip


def test_in_ci_a_module_that_skips_itself_is_an_error(tmp_path: Path) -> None:
    status, out = run(tmp_path, module_skip=True, CI="true")
    assert status == 2, out  # a collection error: the run stops
    assert "ERROR test_module_skip.py - skipped, and CI (CI=true) did not plan this skip: " \
        "could not import 'no_such_module_here'" in out
