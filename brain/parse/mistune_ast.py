"""mistune's AST of a markdown text, by one parser made the first time one is needed.

brain reads links, headings, block ids and empty links with mistune only where a fast path
cannot be sure (code nearby, emphasis in a heading): most notes never need it, and importing
mistune and building a parser was a tenth of a parse helper's start.
"""

from __future__ import annotations

import functools
from typing import Any


def tokens(text: str) -> list[dict[str, Any]]:
    """The block tokens of `text` (mistune's AST renderer)."""
    found = _markdown()(text)
    assert isinstance(found, list)
    return found


@functools.cache
def _markdown() -> Any:
    import mistune

    return mistune.create_markdown(renderer=None)
