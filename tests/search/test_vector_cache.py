"""brain/search/embedding.py's VectorCache: a batch of vectors is kept in one transaction
(the connection commits each statement on its own otherwise: a disk sync per vector), and a
batch that fails leaves nothing of itself behind."""

from __future__ import annotations

import array
import sqlite3
from pathlib import Path

from brain.search.embedding import VectorCache


def cache(tmp_path: Path) -> VectorCache:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    made = VectorCache("test-model", folder)
    assert made.path is not None  # on disk: the case that syncs per commit
    return made


def test_a_batch_is_one_transaction(tmp_path: Path) -> None:
    vectors = cache(tmp_path)
    said: list[str] = []
    vectors._db.set_trace_callback(said.append)
    vectors.put_many([(f"k{i}", [float(i), 1.0]) for i in range(50)])
    vectors._db.set_trace_callback(None)
    kinds = [line.split()[0].upper() for line in said]
    assert kinds[0] == "BEGIN"
    assert kinds[-1] == "COMMIT"
    assert kinds.count("INSERT") == 50
    assert kinds.count("BEGIN") == kinds.count("COMMIT") == 1
    assert vectors.get_many(["k0", "k49"]) == {"k0": [0.0, 1.0], "k49": [49.0, 1.0]}


def test_a_batch_that_fails_keeps_none_of_its_rows(tmp_path: Path) -> None:
    vectors = cache(tmp_path)
    vectors.put_arrays([("kept", array.array("f", [1.0]).tobytes())])
    good = [(f"k{i}", array.array("f", [float(i)]).tobytes()) for i in range(5)]
    unbindable = ("bad", {"not": "bytes"})  # sqlite cannot bind a dict: the batch fails midway
    vectors.put_arrays([*good, unbindable, *good])  # type: ignore[list-item]
    assert set(vectors.get_arrays(["kept", *(key for key, _ in good), "bad"])) == {"kept"}
    vectors.put_arrays(good)  # the connection is usable after the rollback
    assert set(vectors.get_arrays(key for key, _ in good)) == {key for key, _ in good}
    with sqlite3.connect(str(vectors.path)) as reader:  # and the rows are on disk for others
        assert reader.execute("SELECT count(*) FROM vectors").fetchone() == (6,)
