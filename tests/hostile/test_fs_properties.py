"""Properties of brain/safefs.py over generated trees (Hypothesis).

For any tree of folders, files, FIFOs and symlinks, with names drawn from raw bytes (so
many are not UTF-8) and depths past the budget: the walk never raises and never recurses,
every path it yields is valid UTF-8, a name that is not UTF-8 is refused exactly where it
is and nothing below it is read, no folder past MAX_DEPTH is entered, and `open_regular`
refuses every FIFO without blocking (checked in a thread with a deadline: a blocking open
of a FIFO with no writer never returns).
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain import safefs
from brain.workspace import walk_dir
from tests.hostile.fs_shapes import remove_tree

SMALL_DEPTH = 4  # the budget the generated trees are walked with (the real one is 64)

# A name: 1 to 8 raw bytes, no `/` and no NUL; a few kinds of bytes so that UTF-8 and not
# UTF-8 (lone continuation bytes, a lead byte without its tail) both come up often.
_BYTE = st.sampled_from([*b"abcXYZ09-_", 0x80, 0xBF, 0xC3, 0xA9, 0xFF, 0xFE, 0xE2, 0x82, 0xAC, ord(".")])
NAMES = st.lists(_BYTE, min_size=1, max_size=8).map(bytes).filter(lambda b: b not in (b".", b".."))


@dataclass
class Node:
    kind: str  # "file" | "fifo" | "link" | "dir"
    children: dict[bytes, Node]


def trees(depth: int = 0) -> st.SearchStrategy[Node]:
    leaf = st.sampled_from(["file", "fifo", "link"]).map(lambda k: Node(k, {}))
    if depth >= SMALL_DEPTH + 2:
        return leaf
    folder = st.dictionaries(NAMES, st.deferred(lambda: trees(depth + 1)), max_size=3).map(
        lambda children: Node("dir", children)
    )
    return st.one_of(leaf, folder, folder)  # folders twice as likely: trees go deep


def build(base: bytes, node: Node) -> None:
    for name, child in node.children.items():
        path = base + b"/" + name
        if child.kind == "dir":
            os.mkdir(path)
            build(path, child)
        elif child.kind == "file":
            with open(path, "wb") as out:
                out.write(b"x")
        elif child.kind == "fifo":
            os.mkfifo(path)
        else:
            os.symlink(b"/etc/passwd", path)


def expected(node: Node, rel: bytes, depth: int) -> dict[str, str | None]:
    """rel -> refusal (None: yielded as is), for every entry the walk must yield."""
    out: dict[str, str | None] = {}
    for name, child in node.children.items():
        if name.startswith(b"."):
            continue
        path = rel + b"/" + name
        try:
            text = path.decode("utf-8")
        except UnicodeDecodeError:
            out[path.decode("utf-8", "backslashreplace")] = safefs.BAD_NAME
            continue
        if child.kind == "dir" and depth >= SMALL_DEPTH:
            out[text] = safefs.TOO_DEEP
            continue
        out[text] = None
        if child.kind == "dir":
            out.update(expected(child, path, depth + 1))
    return out


def in_time(call: Callable[[bytes], object], path: bytes, seconds: float = 5.0) -> object:
    """What `call(path)` returns or raises; fails (never hangs) when it blocks: a blocking
    open of a FIFO with no writer never returns, so it runs in a daemon thread."""
    done: list[object] = []

    def run() -> None:
        try:
            done.append(call(path))
        except Exception as exc:
            done.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert done, f"{path!r}: blocked"
    return done[0]


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="brain-fs-props-"))
    yield folder
    remove_tree(folder)


@settings(max_examples=int(os.environ.get("BRAIN_FUZZ_EXAMPLES", "120")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(tree=trees().filter(lambda n: n.kind == "dir"))
def test_the_walk_the_name_check_and_the_special_file_refusal_hold(scratch: Path, tree: Node) -> None:
    top = scratch / "top"
    if top.exists():
        shutil.rmtree(top)
    top.mkdir()
    build(os.fsencode(top), tree)
    try:
        found = {rel: refusal for rel, _, refusal in safefs.walk(top, "t", max_depth=SMALL_DEPTH)}
        assert found == expected(tree, b"t", 1)
        for rel in found:
            rel.encode("utf-8")  # never a surrogate: every answer can carry it
        for rel, refusal in found.items():
            if refusal is not None:
                continue
            path = os.fsencode(top) + rel.encode()[1:]  # "t" stands for the top folder
            mode = os.lstat(path).st_mode
            if stat.S_ISFIFO(mode):
                assert isinstance(in_time(safefs.open_regular, path), safefs.NotRegular)
            elif stat.S_ISLNK(mode):
                with pytest.raises(OSError, match="symbolic links"):
                    safefs.open_regular(path)  # O_NOFOLLOW
            elif stat.S_ISREG(mode):
                assert safefs.read_regular_file(path) == b"x"
    finally:
        remove_tree(top)


def test_the_workspace_walk_reports_every_shape_and_reads_none(tmp_path: Path) -> None:
    """The ingest walk over the real budget: one refused FileStat for each shape."""
    top = tmp_path / "memory"
    top.mkdir()
    os.mkfifo(top / "pipe.md")
    os.mkdir(os.fsencode(top) + b"/\xff")
    chain = top
    for _ in range(safefs.MAX_DEPTH + 3):
        chain = chain / "d"
    chain.mkdir(parents=True)
    stats = {s.rel: s for s in walk_dir(top, "memory")}
    assert stats["memory/pipe.md"].special == "a FIFO (named pipe)"
    assert stats["memory/\\xff"].refused == safefs.BAD_NAME
    deep = "/".join(["memory", *["d"] * safefs.MAX_DEPTH])
    assert stats[deep].refused == safefs.TOO_DEEP
    assert not [rel for rel in stats if rel.startswith(deep + "/")]
