"""The indexing worker: open buffers feed the graph, and every affected open note is refreshed."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from brain.lsp.session import ProgressEvent, Published, Session

from .conftest import WORKSPACE, write_tree


class Recorder:
    def __init__(self) -> None:
        self.published: list[Published] = []
        self.progress: list[ProgressEvent] = []
        self.logs: list[str] = []
        self.lock = threading.Lock()

    def publish(self, items: list[Published]) -> None:
        with self.lock:
            self.published.extend(items)

    def last(self, uri: str) -> Published:
        with self.lock:
            return [p for p in self.published if p.uri == uri][-1]

    def codes(self, uri: str) -> list[str]:
        return [str(d.code) for d in self.last(uri).diagnostics]


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def session(tmp_path: Path, recorder: Recorder) -> Iterator[Session]:
    write_tree(tmp_path, WORKSPACE)
    started = Session(
        tmp_path, "utf-16", recorder.publish, recorder.progress.append,
        lambda kind, text: recorder.logs.append(text),
    )
    started.start()
    yield started
    started.stop()


def open_doc(session: Session, rel: str, text: str, version: int = 1) -> str:
    uri = (session.root / rel).as_uri()
    session.open(rel, uri, text, version)
    assert session.wait_settled(10)
    return uri


def test_indexing_reports_progress_and_a_summary(session: Session, recorder: Recorder) -> None:
    assert session.ready.wait(10)
    assert session.wait_settled(10)
    kinds = [event.kind for event in recorder.progress]
    assert kinds[0] == "begin"
    assert kinds[-1] == "end"
    assert "3 memories of 1 agent, 3 links (0 broken, 0 ambiguous)" in recorder.progress[-1].message
    assert any("brain: indexed" in line for line in recorder.logs)


def test_open_publishes_diagnostics_of_the_unsaved_text(session: Session, recorder: Recorder) -> None:
    uri = open_doc(session, "memory/bot/new.md", "---\ntype: user\n---\n😀 [[nowhere]]\n", version=3)
    published = recorder.last(uri)
    assert published.version == 3
    (diagnostic,) = published.diagnostics
    assert diagnostic.code == "broken-link"
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (3, 3)
    assert (diagnostic.range.end.character) == 14


def test_creating_the_missing_note_clears_other_open_notes(session: Session, recorder: Recorder) -> None:
    waiting = open_doc(session, "memory/bot/waiting.md", "see [[missing-note]]\n")
    assert recorder.codes(waiting) == ["broken-link"]
    (session.root / "memory/bot/missing-note.md").write_text("here now\n", encoding="utf-8")
    session.files_changed(["memory/bot/missing-note.md"])
    assert session.wait_settled(10)
    assert recorder.codes(waiting) == []


def test_an_edit_in_one_buffer_refreshes_another(session: Session, recorder: Recorder) -> None:
    reader = open_doc(session, "memory/bot/reader.md", "see [[beta#Later]]\n")
    assert recorder.codes(reader) == ["missing-anchor"]
    beta = "---\ndescription: Beta note\ntype: user\n---\n\nBack to [[alpha]].\n"
    open_doc(session, "memory/bot/beta.md", beta)
    open_doc(session, "memory/bot/beta.md", beta + "\n## Later\n", version=2)  # unsaved
    assert recorder.codes(reader) == []
    session.close("memory/bot/beta.md", (session.root / "memory/bot/beta.md").as_uri())
    assert session.wait_settled(10)
    assert recorder.codes(reader) == ["missing-anchor"]  # closed unsaved: the disk counts again


def test_file_level_problems_of_open_files(session: Session, recorder: Recorder) -> None:
    (session.root / "memory/bot/deep").mkdir()
    uri = open_doc(session, "memory/bot/deep/x.md", "nested\n")
    assert recorder.codes(uri) == ["nested-directory"]


def test_a_session_that_never_started_stops_cleanly(tmp_path: Path, recorder: Recorder) -> None:
    Session(tmp_path, "utf-16", recorder.publish, recorder.progress.append, lambda k, t: None).stop()


def test_a_burst_of_keystrokes_is_applied_as_one_round(session: Session, recorder: Recorder) -> None:
    rel = "memory/bot/typing.md"
    uri = open_doc(session, rel, "start\n")
    before = len(recorder.published)
    for version in range(2, 40):
        session.change(rel, uri, "start [[nowhere]]\n"[:version], version)
    assert session.wait_settled(10)
    rounds = [p for p in recorder.published[before:] if p.uri == uri]
    assert len(rounds) < 38 // 2  # coalesced (typically into one round)
    assert rounds[-1].version == 39
    assert [d.code for d in rounds[-1].diagnostics] == ["broken-link"]


def test_a_warm_start_answers_from_the_snapshot_while_the_files_are_checked(
    tmp_path: Path, recorder: Recorder
) -> None:
    """As `brain serve` does: the snapshot's graph answers at once, the check of every file goes
    on behind it, and what changed while brain was down arrives as an ordinary change."""
    import os

    from bench.workload import generate
    from brain.service.brain import Brain

    root = tmp_path / "ws"
    generate(root, 1500, agents=3, seed=11)
    first = Brain(root, cache=True)
    first.sync()
    first.close()  # writes the snapshot
    later = os.stat(root).st_mtime + 60
    for note in root.glob("memory/*/*.md"):  # every file looks changed: the check reads them all
        os.utime(note, (later, later))
    (root / "memory/shared/written-while-down.md").write_text("---\ndescription: new\n---\nBody.\n")

    session = Session(root, "utf-16", recorder.publish, recorder.progress.append,
                      lambda kind, text: recorder.logs.append(text), cache=True)
    session.start()
    try:
        assert session.ready.wait(60)
        checking_when_ready = session.brain.checking
        assert checking_when_ready, "answered only after every file was checked"
        assert session.catalog.memories("shared")  # the snapshot's notes, at once
        assert session.wait_settled(60)
        ended = [e for e in recorder.progress if e.kind == "end"]
        for _ in range(600):
            if ended:
                break
            threading.Event().wait(0.1)
            ended = [e for e in recorder.progress if e.kind == "end"]
        notes = len(list(root.glob("memory/*/*.md")))
        assert ended
        assert f"{notes:,} memories" in ended[0].message, ended
        assert not session.brain.checking
        names = [entry.node.name for entry in session.catalog.memories("shared")]
        assert "written-while-down" in names  # the catalog followed the check's changes
    finally:
        session.stop()


def test_a_warm_start_answers_the_requests_that_waited_before_checking_the_files(
    tmp_path: Path, recorder: Recorder
) -> None:
    """The check takes the CPU (one core's worth of Python at a time): a completion asked while
    the snapshot loaded is answered first, as after the walk (at most FIRST_ANSWERS_WAIT)."""
    from bench.workload import generate
    from brain.service.brain import Brain

    from .test_prewalk import StillWalking

    root = tmp_path / "ws"
    generate(root, 200, agents=2, seed=3)
    first = Brain(root, cache=True)
    first.sync()
    first.close()  # writes the snapshot
    walking = StillWalking(root)  # a big workspace: the child's walk ends after the snapshot load
    session = Session(root, "utf-16", recorder.publish, recorder.progress.append,
                      lambda kind, text: None, cache=True, prewalk=walking)
    session.first_answers_wait = 600.0  # as long as the test holds the answer
    answering = session.first_answer()
    answering.__enter__()
    session.walk_now()
    session.start()
    try:
        assert session.ready.wait(60)
        threading.Event().wait(0.5)  # the check of 200 files would be done by now
        assert session.brain.checking, "the files were checked while a request waited"
        answering.__exit__(None, None, None)
        assert session.wait_settled(60)
        for _ in range(600):
            if not session.brain.checking:
                break
            threading.Event().wait(0.1)
        assert not session.brain.checking
    finally:
        walking.done.set()
        session.stop()


@pytest.mark.parametrize("warm", [False, True])
def test_a_warm_start_loads_the_snapshot_without_waiting_for_the_childs_walk(
    warm: bool, tmp_path: Path, recorder: Recorder
) -> None:
    """At 100,000 notes the child walks for 3 s and the snapshot loads in 0.9: a warm start
    begins the load at once (the index used to wait WALK_WAIT for the walk first, idle). Cold,
    the index still waits for the walk, whose names answer before the full read ends."""
    from bench.workload import generate
    from brain.service.brain import Brain

    from .test_prewalk import StillWalking

    root = tmp_path / "ws"
    generate(root, 60, agents=2, seed=5)
    if warm:
        first = Brain(root, cache=True)
        first.sync()
        first.close()  # writes the snapshot
    walking = StillWalking(root)
    session = Session(root, "utf-16", recorder.publish, recorder.progress.append,
                      lambda kind, text: None, cache=True, prewalk=walking)
    session.walk_wait = 600.0  # longer than the test: only a warm start is ready within it
    session.walk_now()
    session.start()
    try:
        assert session.ready.wait(10 if warm else 2) is warm
        assert not walking.done.is_set()  # the child is still walking
    finally:
        walking.done.set()
        session.stop()


@pytest.mark.parametrize("snapshot", ["sound", "refused"])
def test_without_a_child_a_warm_start_skips_the_walk_in_a_thread(
    snapshot: str, tmp_path: Path, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One core or TCP: no child walks, and a walk in a thread shares the core with the
    snapshot load (100,000 notes: first completion 3.4 s against 1.3 s without it). A
    snapshot that is then refused still gets its walk, before the full read."""
    from bench.workload import generate
    from brain.lsp import session as session_module
    from brain.service.brain import Brain
    from brain.snapshot.cachepaths import snapshot_path

    root = tmp_path / "ws"
    generate(root, 80, agents=2, seed=6)
    first = Brain(root, cache=True)
    first.sync()
    first.close()  # writes the snapshot
    if snapshot == "refused":
        path = snapshot_path(root)
        path.write_bytes(path.read_bytes()[:-10])  # truncated: refused when read
    walks: list[Path] = []
    real_walk = session_module.walk_names

    def recorded(where: Path, layout: object) -> object:
        walks.append(where)
        return real_walk(where, layout)  # type: ignore[arg-type]

    monkeypatch.setattr(session_module, "walk_names", recorded)
    session = Session(root, "utf-16", recorder.publish, recorder.progress.append,
                      lambda kind, text: None, cache=True)
    session.walk_now()
    session.start()
    try:
        assert session.ready.wait(60)
        assert session.brain.snapshots is not None
        assert session.brain.snapshots.loaded is (snapshot == "sound")
        assert walks == ([] if snapshot == "sound" else [root])
        assert session.catalog.memories("shared")
    finally:
        session.stop()
