"""bench/workload.py's real profile (issue 43): deterministic from its seed, and what it
says it wrote is what brain reads (its links and broken links counted as brain counts them),
so its benchmark figures mean what they say. The default profile is tested by every suite
that generates it (its bytes are unchanged)."""

from __future__ import annotations

from pathlib import Path

from bench.workload import generate
from brain.service.brain import Brain


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_real_profile_is_deterministic_and_counted_as_brain_reads_it(tmp_path: Path) -> None:
    info = generate(tmp_path / "a", notes=400, agents=4, seed=5, profile="real")
    generate(tmp_path / "b", notes=400, agents=4, seed=5, profile="real")
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    brain = Brain(tmp_path / "a")
    brain.sync()
    stats = brain.stats()
    assert stats.memories == info.notes == 400
    assert stats.links == info.links
    assert stats.broken == info.missing_links > info.links // 20  # many broken, as promised
    texts = [p.read_text() for p in (tmp_path / "a" / "memory").rglob("*.md")]
    assert sum("```" in t for t in texts) > len(texts) // 5  # fenced code in about a third
    assert sum("| Name |" in t for t in texts) > 0  # tables
    assert max(t.count("[[") for t in texts) >= 150  # index notes
    assert any(not p.name.isascii() for p in (tmp_path / "a" / "memory").rglob("*.md"))
    assert len(list((tmp_path / "a" / "agents").iterdir())) == 2  # half the agents undefined
