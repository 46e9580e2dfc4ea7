"""brain/allocator.py: with the mmap threshold kept fixed, blocks of a few MB that a sync
frees go back to the system even after a bigger block was freed (which otherwise moves
glibc's threshold up and serves them from the heap, where freed ones stay resident)."""

from __future__ import annotations

import json
import platform
import subprocess
import sys

import pytest

# Frees one 16 MB block (glibc then raises its threshold to 16 MB unless it is fixed), then
# allocates 60 blocks of 2 MB, each followed by a small object that lives on (so the heap
# cannot shrink from its top), frees the big blocks and reports how much stayed resident.
PROGRAM = """
import json, sys
from brain.allocator import keep_big_blocks_apart
took = keep_big_blocks_apart() if sys.argv[1] == "fixed" else None
def resident():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
big = bytearray(16 << 20); del big
before = resident()
blocks, kept = [], []
for i in range(60):
    block = bytearray(2 << 20)
    block[::4096] = bytes(len(block[::4096]))  # every page touched: resident
    blocks.append(block)
    kept.append(bytearray(2000))
del blocks
print(json.dumps({"took": took, "held": resident() - before}))
"""


def held_after_free(mode: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", PROGRAM, mode], check=True, capture_output=True, text=True)
    found: dict[str, object] = json.loads(out.stdout)
    return found


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the setting is glibc's")
def test_freed_blocks_go_back_once_the_threshold_is_fixed() -> None:
    fixed, moving = held_after_free("fixed"), held_after_free("moving")
    assert fixed["took"] is True
    assert int(fixed["held"]) < 16 << 20  # type: ignore[call-overload]  # the small objects' pages
    assert int(moving["held"]) > 100 << 20  # type: ignore[call-overload]  # the 120 MB stayed


ONCE = """
import json
from brain.allocator import keep_big_blocks_apart
answers = [keep_big_blocks_apart() for _ in range(3)]
info = keep_big_blocks_apart.cache_info()
print(json.dumps({"answers": answers, "asked": info.misses, "remembered": info.hits}))
"""


def test_the_setting_is_asked_once_a_process() -> None:
    """In a fresh process (this one may have asked already): three calls, one mallopt."""
    out = subprocess.run([sys.executable, "-c", ONCE], check=True, capture_output=True, text=True)
    found = json.loads(out.stdout)
    glibc = platform.libc_ver()[0] == "glibc"
    assert found == {"answers": [glibc] * 3, "asked": 1, "remembered": 2}
