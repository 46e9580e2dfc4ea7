"""The nodes within `depth` links of one, breadth first: the embedded store's neighbourhood
walk, apart from the store that says what each node's neighbours are."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable


def reach(
    start: str, depth: int, limit: int, neighbours: Callable[[str], set[str]],
) -> tuple[dict[str, int], bool]:
    """Each node found and its distance from `start`, up to `limit` nodes (neighbours taken
    in sorted order, so the same nodes every time); and whether the limit cut the walk."""
    seen = {start: 0}
    queue = deque([start])
    while queue:
        current = queue.popleft()
        if seen[current] >= depth:
            continue
        for neighbour in sorted(neighbours(current)):
            if neighbour in seen:
                continue
            if len(seen) >= limit:
                return seen, True
            seen[neighbour] = seen[current] + 1
            queue.append(neighbour)
    return seen, False
