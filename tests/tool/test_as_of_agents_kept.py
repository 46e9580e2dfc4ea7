"""Each caller's health rows as of a moment, from the kept detail (brain/tool/asof/counts/agents.py),
equal the whole moment's `health_counts` for that caller at every moment of random timelines,
for the admin, each agent, an agent with no notes then and a token of no agent; on both
stores, and read back from the file (a restart). GraphQL answers an agent's
`memoryHealth(asOf:)` counts from them without building the moment
(tests/tool/test_as_of_detail.py).

The timelines: notes of three agents and `shared` written and deleted outside brain, linking
by bare name, into another agent's notes (`[[b/n1]]`: resolved to the admin, broken to the
others), to a heading, to a name two notes of one scope share (ambiguous), to nothing, and
notes without a description or a type; so links break and heal for one caller and not another.

Planted bugs, each seen to fail: an agent's rows given as the admin's (`caller_rows` ignoring
the differences); the stranger's difference not taking away the scopes it does not see (its
view then holds every agent's scope); a checkpoint's callers' differences merged as the whole
(`_applied` for the agents dropping the entries a line does not name).
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from brain.service.brain import Brain
from brain.service.health import reader
from brain.store.base import GraphStore
from brain.store.health import HealthAsk, ScopeHealth
from brain.store.visibility import Reach
from brain.tool.asof.counts.detail import Detail
from brain.tool.asof.delta import moment_index
from brain.tool.asof.service import graph_at, moments_of
from brain.tool.diff.changes import _iso
from tests.maintain.conftest import workspace_with
from tests.tool.test_as_of_series import Timeline, _reload, kept_detail

AGENTS = ("a", "b", "c")
REACHES = (Reach(), *(Reach.of_agent(x) for x in (*AGENTS, "d")), Reach(frozenset({"shared"})))
NAMES = ("n1", "n2", "n3", "n4")
LINKS = ("[[n1]]", "[[n2#Head]]", "[[shared/n3]]", "[[b/n1]]", "[[a/n2]]", "[[c/n4]]", "[[a/n1]]",
         "[[nowhere]]", "[[b/n2#Gone]]", "[[shared/n1]]")


def _note(rng: random.Random) -> str:
    head = rng.choice(("", "---\ndescription: D.\n---\n", "---\ndescription: D.\ntype: fact\n---\n",
                       "---\ntype: fact\n---\n"))
    body = " ".join(rng.sample(LINKS, rng.randint(0, 4)))
    return f"{head}# T\n\n## Head\n\n{body}\n"


def _random_timeline(root: Path, store: GraphStore, seed: int, steps: int) -> Timeline:
    rng = random.Random(seed)
    # A shared note only an agent's note links to: an orphan to every other caller.
    workspace_with(root, {"memory/shared/base.md": "# Base\n\n[[n1]]\n", "memory/shared/lonely.md": "# L\n",
                          "memory/a/fan.md": "[[shared/lonely]]\n"})
    t = Timeline(root, store)
    present: set[str] = set()
    for _ in range(steps):
        scope = rng.choice((*AGENTS, "shared"))
        # A second folder in a scope: `[[a/n2]]` is then ambiguous between the two.
        rel = f"memory/{scope}/{rng.choice(('', 'sub/'))}{rng.choice(NAMES)}.md"
        if rel in present and rng.random() < 0.3:
            present.discard(rel)
            t.outside(rel, None)
        else:
            present.add(rel)
            t.outside(rel, _note(rng))
    return t


def _whole(t: Timeline, at: float, reach: Reach, scope: str | None) -> list[ScopeHealth]:
    """The reference: the whole moment's store asked for the caller's counts (less stale)."""
    moment = graph_at(t.service, _iso(at))
    rows = reader(moment.store).health_counts(HealthAsk(reach=reach, scope=scope))
    return [dataclasses.replace(row, stale=0) for row in rows]


Wholes = dict[tuple[float, Reach, str | None], list[ScopeHealth]]


def _compare(t: Timeline, detail_at: object, wholes: Wholes) -> set[str]:
    """Every moment, every caller, every scope asked: kept against whole; the kinds of
    difference from the admin's rows that were met. The whole moment's answers are worked out
    once (`wholes`): the second comparison (after a reload) is of the same moments, and its
    kept side is what changed."""
    met: set[str] = set()

    def whole(at: float, reach: Reach, scope: str | None) -> list[ScopeHealth]:
        key = (at, reach, scope)
        if key not in wholes:
            wholes[key] = _whole(t, at, reach, scope)
        return wholes[key]

    for at in t.moments:
        detail = detail_at(at)  # type: ignore[operator]
        admin = whole(at, Reach(), None)
        for reach in REACHES:
            for scope in (None, "shared", "a"):
                if scope == "a" and reach.scopes is not None and "a" not in reach.scopes:
                    continue
                kept = detail.reach_rows(reach, scope)
                assert kept == whole(at, reach, scope), (_iso(at), reach, scope)
            mine = {row.scope: row for row in detail.reach_rows(reach)}
            for row in admin:
                if row.scope in mine and mine[row.scope] != row:
                    met.update(f for f in ("broken", "ambiguous", "orphans", "missing_anchor")
                               if getattr(mine[row.scope], f) != getattr(row, f))
    return met


@pytest.mark.parametrize("seed", [1, 2])
def test_each_callers_kept_rows_are_the_whole_moments_on_both_stores(
    tmp_path: Path, store: GraphStore, seed: int,
) -> None:
    t = _random_timeline(tmp_path / "ws", store, seed, steps=24)
    t.series().ensure(wait=True)
    wholes: Wholes = {}
    met = _compare(t, lambda at: kept_detail(t, at), wholes)
    # The timelines made an agent's rows differ from the admin's in each way a reach can.
    assert met >= {"broken", "orphans"}, met
    # Read back from the file by a new series (a restart): the same answers.
    reloaded = _reload(t)
    records = moments_of(t.service).history.all()

    def kept_again(at: float) -> Detail:
        moments = moments_of(t.service)
        found = reloaded.kept_at(moment_index(records, moments.timeline, at, moments.clock()), records)
        assert found is not None
        return found[1]

    _compare(t, kept_again, wholes)


def test_more_agents_than_kept_leave_the_answer_to_the_whole_moment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from brain.tool.asof.counts import agents

    monkeypatch.setattr(agents, "MAX_AGENTS", 2)
    t = _random_timeline(tmp_path / "ws", Brain(tmp_path / "ws").store, 3, steps=16)
    t.series().ensure(wait=True)
    last = kept_detail(t, t.moments[-1])
    assert len(agents.agents_at(last.rows)) == 3
    assert last.reach_rows(Reach.of_agent("a")) is None
    assert last.reach_rows(Reach()) == _whole(t, t.moments[-1], Reach(), None)
    # While there were two agents or fewer, their rows are kept.
    early = [at for at in t.moments if len(agents.agents_at(kept_detail(t, at).rows)) <= 2]
    assert early
    for at in early:
        assert kept_detail(t, at).reach_rows(Reach.of_agent("b")) == _whole(t, at, Reach.of_agent("b"), None)
