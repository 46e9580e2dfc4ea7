"""A pytest plugin (`-p tests.native_trap`): every function of the native scanners raises.

tests/unit/test_plan.py runs the tests marked `no_native_rerun` with it: a test that passes
called no native scanner, so scripts/test's BRAIN_NATIVE=0 pass would run it exactly as the
main run did (tests/plan.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from brain.parse.native import native


def _raises(name: str) -> Callable[..., Any]:
    def called(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"a test marked no_native_rerun called the native scanner's {name}")
    return called


if native is not None:  # the modules that scan hold the module itself, and look up at each call
    for _name in dir(native):
        if not _name.startswith("_") and callable(getattr(native, _name)):
            setattr(native, _name, _raises(_name))
