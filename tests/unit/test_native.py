"""The native scanners (brain/parse/native.py): built wherever cargo is, and refused when stale or
turned off. What each scanner answers is tested beside its Python twin (tests/search/
test_postings.py and the others that run on both)."""

from __future__ import annotations

import shutil
import sys
import types
from pathlib import Path

import pytest

from brain.parse import native


def test_built_wherever_cargo_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Makefile builds the module when it finds cargo: then a missing one is a broken
    set-up, not a slower machine (and the native half of the twin tests would be skipped)."""
    cargo = shutil.which("cargo") or (Path.home() / ".cargo/bin/cargo")
    if not Path(cargo).exists():
        pytest.skip("no cargo here: brain runs on the Python scanners")
    monkeypatch.delenv("BRAIN_NATIVE", raising=False)  # the fallback's own run turns it off
    loaded = native.load()
    assert loaded is not None, "cargo is here but brain_native is not installed (or stale): run `make native`"
    assert loaded.ABI == native.ABI


def test_turned_off_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAIN_NATIVE", "0")
    assert native.load() is None


def test_a_module_of_another_abi_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BRAIN_NATIVE", raising=False)
    stale = types.ModuleType("brain_native")
    stale.ABI = native.ABI + 1  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "brain_native", stale)
    assert native.load() is None
    stale.ABI = native.ABI  # type: ignore[attr-defined]
    assert native.load() is stale


def test_a_missing_module_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "brain_native", None)  # import raises ImportError
    assert native.load() is None


def test_split_slow_gives_a_list_a_piece() -> None:
    """The native counter refuses a `split_slow` that loses a piece. (Here rather than in
    tests/search/test_postings.py, whose tests each run on both twins: this one reads the
    native scanner alone, and ran twice there.)"""
    if native.native is None:
        pytest.skip("the native scanner is not built (cargo)")
    with pytest.raises(ValueError, match="fewer lists"):
        native.native.count_block(["", "", "東京"], lambda pieces: [])
    with pytest.raises(ValueError, match="three a note"):
        native.native.count_block(["a"], lambda pieces: [])
