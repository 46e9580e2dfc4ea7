"""Lines of markdown outside fenced code: what the line-based rules look at. Pure."""

from __future__ import annotations

import re
from collections.abc import Iterator

_FENCE_RE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})(.*)$")


def prose_lines(body: str) -> Iterator[tuple[int, str]]:
    """(0-based index, line) of every line of body that is not in a fenced code block.

    A fence closes on a line of the same character, at least as long, with nothing after
    it (CommonMark); an unclosed fence runs to the end, as markdown renders it.
    """
    fence: str | None = None
    for index, line in enumerate(body.split("\n")):
        opener = _FENCE_RE.match(line)
        if fence is None:
            if opener is not None and not (opener.group(1)[0] == "`" and "`" in opener.group(2)):
                fence = opener.group(1)
                continue
            yield index, line
        elif (
            opener is not None and opener.group(1)[0] == fence[0]
            and len(opener.group(1)) >= len(fence) and not opener.group(2).strip()
        ):
            fence = None
