"""Search's tests are the ones that need the semantic model: it stays on for all of them
(the root conftest turns it off elsewhere, tests/plan.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.plan import SEMANTIC_SET_HERE


@pytest.fixture(autouse=True, scope="module")
def _semantic_search() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        if SEMANTIC_SET_HERE:
            patch.delenv("BRAIN_SEMANTIC")
        yield
