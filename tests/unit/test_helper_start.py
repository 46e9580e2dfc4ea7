"""A parse helper starts without `site` (brain/ingest/parse_helpers.py `_BOOT`): it is given
this process's import path, the folder this brain was imported from first, so it parses
with the same brain and the same native scanners, from any working folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import brain
from brain.ingest import parse_helpers
from brain.ingest.memory_files import build_memory

PROBE = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[1]); import brain, brain.parse.native as n; "
    "import msgpack; print(json.dumps([brain.__file__, n.native is not None, 'site' in sys.modules]))"
)


def test_a_helpers_path_imports_this_brain_and_its_libraries_without_site(tmp_path: Path) -> None:
    from brain.parse.native import native

    path = parse_helpers.helper_path()
    assert path[0] == str(Path(brain.__file__).resolve().parent.parent)
    done = subprocess.run([sys.executable, "-S", "-c", PROBE, json.dumps(path)], cwd=tmp_path,
                          capture_output=True, text=True, env={k: v for k, v in os.environ.items()
                                                               if k != "PYTHONPATH"})
    assert done.returncode == 0, done.stderr[-2000:]
    where, has_native, has_site = json.loads(done.stdout)
    assert Path(where).resolve() == Path(brain.__file__).resolve()
    assert has_native == (native is not None)
    assert has_site is False


def test_a_helper_started_elsewhere_parses_what_this_process_parses(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    """From a working folder that holds no brain and without PYTHONPATH, every chunk is
    parsed by the helper (none falls back here) and the results are the serial ones."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.setattr(parse_helpers, "PARALLEL_MIN", 10)
    monkeypatch.setattr(parse_helpers, "CHUNK", 7)
    monkeypatch.setattr(parse_helpers, "LEAD", 8)  # every chunk fits the helper's queue
    monkeypatch.setenv("BRAIN_INGEST_WORKERS", "2")
    files = [(f"memory/shared/n{i}.md", "shared", f"n{i}", f"# H{i}\nsee [[n{i + 1}]]\n".encode(), 1.0 * i)
             for i in range(28)]
    builder = parse_helpers.MemoryBuilder(expected=len(files))
    builder.extend(files)
    assert builder._helpers is not None
    helper = builder._helpers[0]
    deadline = time.monotonic() + 60
    while helper.answered < helper.sent and helper.proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert helper.sent == 4
    assert helper.answered == 4
    assert not helper.failed
    assert builder.finish() == [build_memory(*f) for f in files]
