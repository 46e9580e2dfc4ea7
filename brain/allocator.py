"""glibc's allocator, asked to give freed memory back to the system.

A big sync allocates and frees many large blocks: the parse helpers' result frames (a few MB
each), batches, and lists and dict tables of 100,000 entries. glibc serves a block this big
from mmap, and returns it when freed, but after each free of such a block it raises its
threshold to that block's size (up to 32 MB): from then on blocks of that size come from the
heap, and freed ones in its middle are never given back. At 100,000 notes that held 60 MiB
of free pages at the end of a first sync: 571 MiB resident, 516 with the threshold fixed at
1 MiB, 509 at glibc's default of 128 KiB (which costs more CPU: every numpy temporary of a
few hundred KB is then a fresh mapping, its pages faulted in again; in a parse helper that
doubled the page faults and cost a tenth more CPU, for no less memory, so helpers keep the
moving threshold). `keep_big_blocks_apart` fixes it; `give_back_memory` trims what the heap
holds free (before a snapshot write, which allocates on another thread's arena). Both do
nothing where the C library is not glibc.
"""

from __future__ import annotations

import ctypes
import functools
from typing import Any

M_MMAP_THRESHOLD = -3  # mallopt's parameter (malloc.h)
MMAP_THRESHOLD = 1 << 20  # frames, batches and big tables; not every numpy temporary


@functools.cache
def _libc() -> Any:
    # The symbols already loaded (ctypes.util.find_library would start ldconfig: a child
    # process at every start, counted with the parse helpers' memory).
    try:
        return ctypes.CDLL(None)
    except OSError:
        return None


@functools.cache
def keep_big_blocks_apart() -> bool:
    """Serve every block of 1 MiB or more from mmap for the life of the process; True if
    glibc took the setting. Once a process: it is process-wide."""
    mallopt = getattr(_libc(), "mallopt", None)
    return bool(mallopt is not None and mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def give_back_memory() -> None:
    """Hand the pages the C allocator holds free back to the system."""
    trim = getattr(_libc(), "malloc_trim", None)  # glibc's; other C libraries give memory back
    if trim is not None:
        trim(0)
