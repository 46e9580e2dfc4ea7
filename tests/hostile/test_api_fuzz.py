"""A Hypothesis fuzzer for GraphQL documents against a real `brain serve` process.

Documents are built from the schema's own names plus junk: aliases, arguments of every type
(huge numbers, long strings), directives, inline fragments, fragment spreads (to fragments
that exist, do not exist, or spread each other in cycles and fan-outs), several operations,
and random variables. Whatever arrives, the server answers within its budget with data or a
proper GraphQL error (or a 400 for a request it cannot run), never a 500, and keeps
answering `/healthz` and an ordinary query. Examples are bounded (BRAIN_FUZZ_EXAMPLES, 120 by
default) and drawn the same way every CI run (the `ci` profile in tests/conftest.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain.api.graphql.errors import MASKED_MESSAGE
from tests.api.files import make_workspace
from tests.hostile.api_server import (
    ADMIN_TOKEN,
    AGENT_TOKEN,
    HostileServer,
    hostile_server,
    probe,
    write_tokens,
)

BUDGET = 10.0
EXAMPLES = int(os.environ.get("BRAIN_FUZZ_EXAMPLES", "120"))

NAMES = [
    "__typename", "stats", "agents", "memories", "problems", "memory", "agent", "neighborhood",
    "linkReport", "workflows", "chats", "workItems", "edges", "node", "id", "name", "path", "links",
    "target", "backlinks", "totalCount", "pageInfo", "endCursor", "memoryHistory", "records",
    "__schema", "types", "fields", "ofType", "__type", "nope", "_",
]
ARGUMENTS = ["first", "after", "path", "name", "id", "depth", "limit", "scope", "before", "x"]
TYPES = ["Query", "Memory", "Agent", "Node", "Entity", "Nope"]
FRAGMENTS = ["A", "B", "C"]

values = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.text(max_size=30).map(lambda t: '"' + t.replace("\\", "").replace('"', "") + '"'),
    st.sampled_from(["true", "null", "[1, 2]", "{a: 1}", "$v", "$missing", '"' + "A" * 5000 + '"',
                     "ENUM", "1.5e300"]),
)
arguments = st.lists(st.tuples(st.sampled_from(ARGUMENTS), values), max_size=2).map(
    lambda pairs: "(" + ", ".join(f"{k}: {v}" for k, v in pairs) + ")" if pairs else ""
)
directives = st.lists(
    st.sampled_from(["@skip(if: false)", "@include(if: true)", "@include(if: $v)", "@nope"]), max_size=2
).map(" ".join)


def selections(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    field = st.tuples(
        st.sampled_from(["", "a: ", "b: ", "__typename: "]), st.sampled_from(NAMES), arguments,
        directives, st.one_of(st.just(""), inner.map(lambda s: "{ " + s + " }")),
    ).map("".join)
    spread = st.sampled_from([*FRAGMENTS, "Missing"]).map(lambda name: f"...{name}")
    inline = st.tuples(st.sampled_from(TYPES), inner).map(lambda t: f"... on {t[0]} {{ {t[1]} }}")
    return st.lists(st.one_of(field, field, spread, inline), min_size=1, max_size=4).map(" ".join)


selection_sets = st.recursive(st.sampled_from(NAMES), selections, max_leaves=20)
fragments = st.lists(
    st.tuples(st.sampled_from(FRAGMENTS), st.sampled_from(TYPES), selection_sets), max_size=3
).map(lambda defs: " ".join(f"fragment {n} on {t} {{ {s} }}" for n, t, s in defs))
operations = st.tuples(
    st.sampled_from(["", "query ", "query Q($v: Boolean) ", "mutation ", "subscription ", "query Q "]),
    selection_sets,
).map(lambda t: f"{t[0]}{{ {t[1]} }}")
documents = st.tuples(st.lists(operations, min_size=1, max_size=2), fragments, st.integers(0, 40)).map(
    lambda t: " ".join(t[0]) + " " + t[1] + (" " * t[2])
)
# Sometimes a cut or spliced document: the parser must fail politely too.
splices = st.sampled_from(["", "{", "}", "...", "$", "\x00", "é"])
mangled = st.tuples(documents, st.integers(0, 200), splices).map(lambda t: t[0][: t[1]] + t[2] + t[0][t[1]:])
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostileServer]:
    root = tmp_path_factory.mktemp("fuzz-api")
    workspace = make_workspace(root / "ws")
    tokens = write_tokens(root / "tokens.json")
    with hostile_server(workspace, env={"BRAIN_TOKENS_FILE": str(tokens)}) as live:
        yield live


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    document=st.one_of(documents, mangled),
    variables=st.one_of(st.none(), st.dictionaries(st.sampled_from(["v", "w"]), json_values, max_size=2)),
    token=st.sampled_from([ADMIN_TOKEN, AGENT_TOKEN]),
    method=st.sampled_from(["POST", "POST", "GET"]),
)
def test_any_document_gets_data_or_a_proper_error(
    server: HostileServer, document: str, variables: dict[str, Any] | None, token: str, method: str
) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    try:
        if method == "POST":
            response = httpx.post(server.url, json={"query": document, "variables": variables},
                                  headers=headers, timeout=BUDGET)
        else:
            response = httpx.get(server.url, params={"query": document}, headers=headers, timeout=BUDGET)
    except httpx.TimeoutException as exc:
        raise AssertionError(f"no answer within {BUDGET} s to {document!r}") from exc
    assert response.status_code in (200, 400), (response.status_code, response.text, document)
    if response.status_code == 200:
        body = response.json()
        assert "data" in body or "errors" in body
        for error in body.get("errors") or ():
            assert error["message"] != MASKED_MESSAGE, f"a server error for {document!r}"
    else:
        assert response.text, "a 400 says why"


def test_after_fuzzing_the_server_still_answers(server: HostileServer) -> None:
    assert server.alive(), server.stderr_tail()
    probe(server)
