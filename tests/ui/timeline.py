"""A scripted timeline on a served workspace, for the UI of memory through time (issue 44).

One server with tokens (an admin, and the agents on-call and support-triage), and a day in
its memory, each step a second apart so that a moment between two steps separates them:

    step 0   an editor outside brain appends to memory/shared/glossary.md (brain never
             saw the version before: the history begins here, and no moment before it
             can be shown)
    ---- moment `start` ----
    step 1   on-call creates memory/on-call/pager-rotation.md (version one; it links
             [[who-is-on-call]] and the missing [[missing-runbook]]) through REST
    ---- moment `first` ----
    step 2   support-triage changes memory/support-triage/refund-policy.md through REST
             (linking [[customer-tiers]])
    step 3   on-call rewrites pager-rotation.md (version two) through REST
    step 4   the admin removes memory/shared/team-calendar.md through GraphQL
    ---- moment `end` ----

Tests read the moments (ISO 8601 UTC, to the second) and the expected rows from `Timeline`.

The three modules that read it (test_changes, test_graph_as_of, test_note_as_of) share one
timeline a worker: the fixture is session-scoped and their modules mark the xdist group
TIMELINE, so it is built and served once, not once a module. Their tests only read it, but
for one: a test that writes after the timeline's end (its live test) is marked
`@writes_after_the_timeline`, and tests/ui/conftest.py runs it after every other test that
takes `timeline`, since a later write would be counted by their "what changed since".
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx

from tests.ui.server import BrainServer, copy_example

# The xdist group of the modules that read the timeline (their pytestmark): one worker builds it.
TIMELINE = "ui-timeline"
ADMIN = "timeline-admin-token"
TOKENS = {ADMIN: "*", "timeline-on-call-token": "on-call", "timeline-triage-token": "support-triage"}
ON_CALL = "timeline-on-call-token"
TRIAGE = "timeline-triage-token"

PAGER = "memory/on-call/pager-rotation.md"
REFUNDS = "memory/support-triage/refund-policy.md"
GLOSSARY = "memory/shared/glossary.md"
CALENDAR = "memory/shared/team-calendar.md"

PAGER_V1 = """---
description: Who carries the pager, version one
type: project
---

Version one: the pager rotates weekly. See [[who-is-on-call]] and [[missing-runbook]].
"""
PAGER_V2 = """---
description: Who carries the pager, version two
type: project
---

Version two: the pager rotates daily. See [[who-is-on-call]].
"""


@dataclass
class Timeline:
    server: BrainServer
    root: Path
    start: str
    first: str
    end: str


def moment() -> str:
    """Now, rounded up to the next whole second (ISO 8601, UTC), after waiting past it: a
    step taken after this returns is later than the moment, one taken before is earlier."""
    now = time.time()
    whole = int(now) + 1
    time.sleep(whole - now + 0.05)
    return dt.datetime.fromtimestamp(whole, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def put(server: BrainServer, token: str, path: str, text: str) -> None:
    scope, name = path.split("/")[1:]
    r = httpx.put(f"{server.base}/api/memory/{scope}/{name}", content=text.encode(),
                  headers={"Authorization": f"Bearer {token}", "Content-Type": "text/markdown"})
    assert r.status_code in (200, 201), r.text


def graphql(server: BrainServer, query: str, variables: dict[str, Any] | None = None) -> Any:
    r = httpx.post(f"{server.base}/graphql", json={"query": query, "variables": variables or {}},
                   headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30)
    body = r.json()
    assert not body.get("errors"), body
    return body["data"]


def changes(server: BrainServer, since: str, until: str | None = None) -> dict[str, Any]:
    query = "query($s: String!, $u: String) { changes(since: $s, until: $u) }"
    found: dict[str, Any] = graphql(server, query, {"s": since, "u": until})["changes"]
    return found


def wait_recorded(server: BrainServer, since: str, path: str, timeout: float = 20) -> None:
    """Until the history holds a change of `path` after `since` (the watcher saw an edit)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        notes = changes(server, since)["notes"]
        if any(n["path"] == path for kind in notes.values() for n in kind):
            return
        time.sleep(0.3)
    raise AssertionError(f"brain did not record the change of {path} in {timeout} s")


F = TypeVar("F", bound=Callable[..., None])


def writes_after_the_timeline(test: F) -> F:
    """Marks a test that writes to the timeline's server: it runs after every other test that
    takes `timeline` (tests/ui/conftest.py orders them), which read the state it ended in."""
    test.writes_after_the_timeline = True  # type: ignore[attr-defined]
    return test


def writes_after(item: object) -> bool:
    return bool(getattr(getattr(item, "obj", None), "writes_after_the_timeline", False))


@contextlib.contextmanager
def served_timeline(tmp: Path) -> Iterator[Timeline]:
    """The example served in `tmp` with the scripted day above in its history (the `timeline`
    fixture of tests/ui/conftest.py)."""
    root = copy_example(tmp)
    tokens = tmp / "tokens.json"
    tokens.write_text(json.dumps(TOKENS))
    server = BrainServer(root, env={"BRAIN_TOKENS_FILE": str(tokens)}).start()
    try:
        # The first sync keeps the notes that predate the history, on a thread of its own; the
        # outside edit comes after, so the glossary's version before it is kept (not a race).
        baselines = root / ".brain" / "history" / "baseline-v1.jsonl"
        deadline = time.monotonic() + 60
        while not (baselines.exists() and GLOSSARY.encode() in baselines.read_bytes()):
            assert time.monotonic() < deadline, "brain kept no first version of the glossary in 60 s"
            time.sleep(0.1)
        before = moment()
        with (root / GLOSSARY).open("a") as f:
            f.write("\nPager: the phone that wakes the on-call engineer.\n")
        wait_recorded(server, before, GLOSSARY)
        start = moment()
        put(server, ON_CALL, PAGER, PAGER_V1)
        first = moment()
        refunds = (root / REFUNDS).read_text()
        put(server, TRIAGE, REFUNDS, refunds + "\nTiers decide who answers: see [[customer-tiers]].\n")
        put(server, ON_CALL, PAGER, PAGER_V2)
        remove = 'mutation { memoryRemove(scope: "shared", file: "team-calendar.md") { ok } }'
        removed = graphql(server, remove)
        assert removed["memoryRemove"]["ok"], removed
        end = moment()
        yield Timeline(server, root, start, first, end)
    finally:
        server.stop()


def when(iso: str) -> str:
    """A moment (ISO 8601, UTC, to the second) as the pages write it (web/src/time/moments.ts)."""
    text = iso.replace("T", " ").removesuffix("Z")
    return (text[:16] if text.endswith(":00") else text[:19]) + " UTC"


def signed_in(page: Any, token: str = ADMIN) -> Any:
    """The page signed in with `token` (the admin's unless given), kept as the sign-in keeps it."""
    page.add_init_script(f"sessionStorage.setItem('brain.token', {json.dumps(token)})")
    return page
