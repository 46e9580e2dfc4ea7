"""Whatever a note carries reads back equal: frontmatter of any JSON shape, headings, problems."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain.model import Heading, JSONValue, MemoryNode, Problem, Severity
from brain.store.base import GraphStore
from brain.store.linking import NoteChange, plan


def memory(properties: dict[str, JSONValue], **fields: Any) -> MemoryNode:
    defaults: dict[str, Any] = {
        "scope": "shared", "name": "values", "path": "memory/shared/values.md", "description": "values",
        "type": None, "hash": "0" * 64, "size": 1, "modified_at": 1_790_000_000.123456, "body": "",
    }
    return MemoryNode(**{**defaults, **fields}, properties=properties)


def round_trip(store: GraphStore, node: MemoryNode) -> MemoryNode:
    store.write(plan(store, [NoteChange(node, ())]))
    back = store.get_nodes([node.id])[node.id]
    assert isinstance(back, MemoryNode)
    return back


CASES: list[dict[str, JSONValue]] = [
    {},
    {"tags": ["a", "b"], "priority": 3, "ratio": 0.5, "pinned": True, "owner": "ops"},
    {"nothing": None, "empty_list": [], "empty_map": {}},
    {"mixed": [1, "two", None, 3.0], "ints_and_floats": [1, 2.5], "bools_and_ints": [True, 1]},
    {"nested": {"a": {"b": [1, {"c": None}]}}, "matrix": [[1, 2], [3]]},
    {"huge": 2**70, "huge_list": [1, 2**64], "negative": -(2**63), "max": 2**63 - 1},
    {"unicode key ✓": "välue", "": "empty key", "fm_x": "a key that looks like ours"},
    {"json_looking": "[1, 2]", "quoted": '{"a": 1}', "null_text": "null"},
    {"z": 1, "a": 2, "m": {"z": 1, "a": 2}},  # key order is kept
    {"inf": math.inf, "floats": [0.1, -0.0, 1e300]},
]


@pytest.mark.parametrize("properties", CASES)
def test_frontmatter_reads_back_equal(store: GraphStore, properties: dict[str, JSONValue]) -> None:
    back = round_trip(store, memory(properties))
    assert back.properties == properties
    assert list(back.properties) == list(properties)
    assert repr(back.properties) == repr(properties)  # same types: 1 stays int, True stays bool


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(properties=st.dictionaries(st.text(max_size=10), json_values, max_size=6))
def test_any_frontmatter_reads_back_equal(store: GraphStore, properties: dict[str, JSONValue]) -> None:
    back = round_trip(store, memory(properties))
    assert repr(back.properties) == repr(properties)


def test_every_memory_field_reads_back_equal(store: GraphStore) -> None:
    problems = (
        Problem("invalid-frontmatter", Severity.ERROR, "memory/bot/full.md", "bad YAML", line=2),
        Problem("invalid-encoding", Severity.ERROR, "memory/bot/full.md", "not UTF-8", 3, 4, 5,
                "t", ("x", "y"), "re-save"),
    )
    full = memory(
        {"k": "v"}, scope="bot", name="full", path="memory/bot/full.md", description="Full – “quoted”",
        type="feedback", hash="f" * 64, size=2048, modified_at=1.5, body="# A\n\n```\n[[x]]\n```\n",
        headings=(Heading("A", 1, 1), Heading("B b", 3, 9)), problems=problems,
    )
    assert round_trip(store, full) == full
    plain = memory({}, body="", headings=(), problems=())
    assert round_trip(store, plain) == plain
