"""scripts/dist keeps the native wheel by the hash of what builds it (BRAIN_DIST_NATIVE_CACHE):
the same sources and toolchain take the kept wheel without compiling; a changed source file,
lock or toolchain does not. `make native` (the venv) and scripts/test's dist/ step both use it,
so a fresh clone of unchanged native/ sources compiles the crate no more.

Run on a copy of the files the native build reads, with stand-ins for `cargo`, `rustc` and the
python that makes the build tools' venv, which only say their versions: a build would call
them, and fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NEEDED = ["scripts/dist", "brain/__init__.py", "pyproject.toml", "native/Cargo.toml", "native/Cargo.lock",
          "native/pyproject.toml"]


def copy_of_repo(into: Path) -> Path:
    for name in [*NEEDED, *(str(p.relative_to(REPO)) for p in (REPO / "native" / "src").rglob("*.rs"))]:
        (into / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, into / name)
    return into


def toolchain(into: Path, version: str) -> Path:
    """`cargo`, `rustc` and `python` that say `version` and fail at anything else (a build)."""
    into.mkdir(parents=True, exist_ok=True)
    for tool in ("cargo", "rustc", "python"):
        script = into / tool
        script.write_text(f'#!/bin/sh\n[ "$1" = --version ] && echo "{tool} {version}" && exit 0\n'
                          f'echo "{tool} was asked to build: $*" >&2; exit 3\n')
        script.chmod(0o755)
    return into


def dist(root: Path, tools: Path, *args: str, cache: Path | None = None) -> subprocess.CompletedProcess[str]:
    # PYTHON makes the build front end's venv, the first step of a build: the stand-in python
    # (beside the stand-in cargo) refuses, so a run that builds fails at once instead of
    # fetching the build tools.
    env = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}", "HOME": str(root / "home"),
           "PYTHON": str(tools / "python")}
    env.pop("BRAIN_DIST_NATIVE_CACHE", None)
    if cache is not None:
        env["BRAIN_DIST_NATIVE_CACHE"] = str(cache)
    return subprocess.run(["bash", "scripts/dist", *args], cwd=root, env=env, capture_output=True, text=True,
                          timeout=120)


def key(root: Path, tools: Path) -> str:
    done = dist(root, tools, "--native-key")
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def version() -> str:
    text = (REPO / "brain" / "__init__.py").read_text(encoding="utf-8")
    return text.split('__version__ = "', 1)[1].split('"', 1)[0]


def test_the_key_follows_the_sources_and_the_toolchain_not_the_folder(tmp_path: Path) -> None:
    tools = toolchain(tmp_path / "bin", "1.90.0")
    first, second = copy_of_repo(tmp_path / "a"), copy_of_repo(tmp_path / "b")
    kept = key(first, tools)
    assert len(kept) == 12, kept
    assert set(kept) <= set("0123456789abcdef"), kept
    assert key(second, tools) == kept  # another clone of the same sources

    source = sorted((second / "native" / "src").glob("*.rs"))[-1]
    source.write_text(source.read_text(encoding="utf-8") + "\n// changed\n", encoding="utf-8")
    changed_source = key(second, tools)
    assert changed_source != kept
    nested = sorted((second / "native" / "src").glob("*/*.rs"))[0]  # a module of a folder too
    nested.write_text(nested.read_text(encoding="utf-8") + "\n// changed\n", encoding="utf-8")
    assert key(second, tools) != changed_source
    lock = first / "native" / "Cargo.lock"
    lock.write_text(lock.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    changed_lock = key(first, tools)
    assert changed_lock != kept
    assert key(first, toolchain(tmp_path / "newer", "1.91.0")) != changed_lock


def test_a_kept_wheel_is_taken_without_building_and_a_missing_one_is_built(tmp_path: Path) -> None:
    root, tools = copy_of_repo(tmp_path / "repo"), toolchain(tmp_path / "bin", "1.90.0")
    cache = tmp_path / "cache"
    wheel = f"brain_native-{version()}-cp311-abi3-manylinux_2_34_x86_64.whl"
    kept = cache / f"native-{version()}-{key(root, tools)}"
    kept.mkdir(parents=True)
    (kept / wheel).write_bytes(b"the kept wheel")

    out = tmp_path / "out"
    done = dist(root, tools, "--native", str(out), cache=cache)
    assert done.returncode == 0, done.stderr
    assert (out / wheel).read_bytes() == b"the kept wheel"
    assert "built before from these sources" in done.stdout

    # Under another key it builds: here the stand-in python refuses, and the run fails rather
    # than ship nothing.
    source = sorted((root / "native" / "src").glob("*.rs"))[0]
    source.write_text(source.read_text(encoding="utf-8") + "\n// changed\n", encoding="utf-8")
    again = tmp_path / "again"
    failed = dist(root, tools, "--native", str(again), cache=cache)
    assert failed.returncode != 0
    assert "python was asked to build" in failed.stderr, failed.stderr
    assert not list(again.glob("*.whl"))
    assert len(list(cache.iterdir())) == 1  # nothing half-built was kept
