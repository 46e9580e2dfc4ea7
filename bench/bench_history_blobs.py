"""What keeping each written version costs (brain/tool/history/blobs.py), and reading a history page.

    .venv/bin/python bench/bench_history_blobs.py [--writes 300] [--kib 4]

A real MemoryService (no graph) on a temp workspace: `--writes` str_replace calls on one note of
`--kib` KiB, each a new version (scope lock, checks, secret scan, atomic replace with fsyncs,
history record fsynced), with versions kept (the default) and with the store capped at 0 bytes
(nothing kept). Then the 50 newest records' before/after texts read back (what `memoryHistory`
with beforeText/afterText does per page). Prints medians and percentiles, and peak RSS.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
from bench_api import peak_rss_mb, percentiles  # noqa: E402

from brain.tool.calls.tool import MemoryTool  # noqa: E402
from brain.tool.history.blobs import BlobStore  # noqa: E402
from brain.tool.history.log import History  # noqa: E402
from brain.tool.service import MemoryService  # noqa: E402


def run(root: Path, writes: int, kib: int, keep: bool) -> tuple[list[float], MemoryService]:
    (root / "agents").mkdir(parents=True)
    (root / "agents/writer.md").write_text("---\ndescription: W.\nmemory: true\n---\n")
    (root / "memory/writer").mkdir(parents=True)
    filler = "\n".join(f"line {i} of the note, some words to diff" for i in range(kib * 1024 // 40))
    (root / "memory/writer/note.md").write_text(f"---\ndescription: N.\n---\ncounter 0\n{filler}\n")
    service = MemoryService(root, history=History(root / ".brain/history.jsonl"))
    if not keep:
        service.blobs = BlobStore(service.blobs.directory, 0)
    tool = MemoryTool(service)
    samples = []
    for n in range(writes):
        start = time.perf_counter()
        result = tool.str_replace("writer", "/memories/note.md", f"counter {n}\n", f"counter {n + 1}\n")
        samples.append(time.perf_counter() - start)
        assert result.ok, result.text
    return samples, service


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--kib", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        without, _ = run(Path(tmp) / "off", args.writes, args.kib, keep=False)
        kept, service = run(Path(tmp) / "on", args.writes, args.kib, keep=True)
        reads = []
        records = service.history.records(limit=50)
        for _ in range(20):
            start = time.perf_counter()
            texts = [(service.blobs.text(r.before), service.blobs.text(r.after)) for r in records]
            reads.append(time.perf_counter() - start)
            assert all(a is not None and b is not None for a, b in texts)
        stored = sum(p.stat().st_size for p in service.blobs.directory.rglob("*") if p.is_file())
    print(f"str_replace on a {args.kib} KiB note, {args.writes} writes")
    print(f"  versions not kept: {percentiles(without)}")
    print(f"  versions kept:     {percentiles(kept)}")
    print(f"  blob store: {stored / 1024:.0f} KiB for {args.writes + 1} versions")
    print(f"read 50 records' before+after texts: {percentiles(reads)}")
    print(f"peak RSS {peak_rss_mb(__import__('os').getpid()):.0f} MB")


if __name__ == "__main__":
    main()
