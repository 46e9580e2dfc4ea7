"""Search's tests have semantic search on (tests/search/conftest.py), also on a pytest-xdist
worker, which inherits the variable the suite set in the controller (tests/plan.py)."""

from __future__ import annotations

import pytest

from brain.search.embedding import semantic_off
from tests.plan import SEMANTIC_SET_HERE


def test_semantic_search_is_on_in_search_tests() -> None:
    if not SEMANTIC_SET_HERE:
        pytest.skip("BRAIN_SEMANTIC was set by the person running the tests: theirs to decide")
    assert semantic_off() == ""
