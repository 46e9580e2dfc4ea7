"""The embedding helper process: same vectors as in process, a crash means keyword only, clean stop."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from brain.search.embedding import EmbedderFailed, load_encoder
from brain.search.remote import HELPER_THREADS, HelperEmbedder
from brain.search.service import Embedding, Mode
from brain.service.brain import Brain
from brain.store.memory.store import MemoryStore
from tests.search.helpers import needs_model
from tests.search.workspace import private_workspace


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAIN_CACHE_DIR", str(tmp_path / "vector-cache"))


@pytest.fixture
def helper_brain(tmp_path: Path) -> Iterator[Brain]:
    needs_model()
    brain = private_workspace(tmp_path / "ws").brain(MemoryStore())
    brain.embedding = Embedding.HELPER
    assert brain.search.indexer.wait(timeout=600)
    yield brain
    brain.close()


def helper_pid(brain: Brain) -> int:
    embedder = brain.search.indexer.embedder
    assert isinstance(embedder, HelperEmbedder)
    assert embedder.pid is not None
    return embedder.pid


def test_the_helper_gives_the_vectors_the_encoder_gives_in_process() -> None:
    needs_model()
    encoder, _ = load_encoder()
    assert encoder is not None
    texts = ["deploy checklist", "how we refund a customer", "deploy checklist"]
    helper = HelperEmbedder()
    try:
        vectors, computed = helper.embed(texts)
        again, computed_again = helper.embed(texts)
    finally:
        helper.close()
    assert computed == 2  # the repeated text is looked up, not computed twice
    assert computed_again == 0  # the cache by content hash answers
    local = encoder.encode_texts(texts)
    for got, want in zip(vectors, local, strict=True):
        assert max(abs(a - b) for a, b in zip(got, want, strict=True)) < 1e-5
    assert [list(v) for v in again] == [list(v) for v in vectors]


def test_the_helper_runs_at_the_lowest_priority_and_stops_with_its_server(helper_brain: Brain) -> None:
    pid = helper_pid(helper_brain)
    nice = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])
    assert nice == 19
    # One thread of work: no BLAS or tokenizer thread pool spread over the server's cores.
    environ = dict(
        item.split("=", 1) for item in Path(f"/proc/{pid}/environ").read_text().split("\0") if "=" in item
    )
    assert {k: environ.get(k) for k in HELPER_THREADS} == HELPER_THREADS
    # It has embedded the workspace: any pool it would start is started. Two: the main
    # thread, and ONNX Runtime's own housekeeping where it runs the model.
    assert len(list(Path(f"/proc/{pid}/task").iterdir())) <= 2
    helper_brain.close()
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]


def test_a_crashed_helper_leaves_keyword_search_with_a_clear_status(
    helper_brain: Brain, tmp_path: Path
) -> None:
    assert helper_brain.search.status().ready
    os.kill(helper_pid(helper_brain), signal.SIGKILL)
    note = tmp_path / "ws" / "memory" / "shared" / "rollback.md"
    note.write_text("---\ndescription: Rolling back a release\ntype: reference\n---\nUndo the deploy.\n")
    helper_brain.sync()
    assert helper_brain.search.indexer.wait(timeout=60)
    status = helper_brain.search.status()
    assert status.state == "off"
    assert "embedding helper stopped (signal 9)" in status.describe()
    assert "keyword only" in status.describe()
    answer = helper_brain.search.search("rolling back")
    assert answer.mode is Mode.KEYWORD
    assert answer.notice == status.describe()
    assert [h.path for h in answer.hits] == ["memory/shared/rollback.md"]


def test_a_helper_that_cannot_start_says_why() -> None:
    helper = HelperEmbedder([sys.executable, "-c", "import sys; sys.exit(3)"])
    with pytest.raises(EmbedderFailed, match="exit status 3"):
        helper.embed(["anything"])
    helper.close()
    with pytest.raises(EmbedderFailed, match="stopped"):
        helper.embed(["anything"])


def test_the_language_server_searches_by_keyword_only(tmp_path: Path) -> None:
    brain = private_workspace(tmp_path / "ws").brain(MemoryStore())
    brain.embedding = Embedding.OFF
    brain.embedding_off_reason = "the language server searches by keyword"
    try:
        status = brain.search.status()
        assert status.state == "off"
        assert brain.search.indexer.embedder is None
        assert brain.search.search("deploy", mode=Mode.HYBRID).notice == (
            "keyword only: the language server searches by keyword"
        )
    finally:
        brain.close()


BUSY_HELPER = (  # says hello like the helper, then computes "forever" and never reads its input
    "import json, struct, sys, time\n"
    "hello = json.dumps({'model': 'busy', 'dims': 2}).encode()\n"
    "sys.stdout.buffer.write(struct.pack('>I', len(hello)) + hello); sys.stdout.buffer.flush()\n"
    "time.sleep(600)\n"
)


def test_closing_stops_a_busy_helper_at_once_rather_than_waiting_for_its_batch() -> None:
    helper = HelperEmbedder([sys.executable, "-c", BUSY_HELPER])
    process = helper._started()
    helper.close()
    # SIGTERM at once; waited out, it would have been killed (SIGKILL) after STOP_SECONDS.
    assert process.returncode == -signal.SIGTERM
