"""The embedded store holds a link's text only where it is not the plain way of writing it.

Every link leaves the store exactly as written (`as_link(link_row(link)) == link`), and only
the texts `written` cannot give back from the link's parts are held.
"""

from __future__ import annotations

import pytest

from brain.model import Link, LinkStatus, name_key
from brain.parse.body import scan_body
from brain.store.memory.rows import RAW, as_link, link_row


@pytest.mark.parametrize(("text", "held"), [
    ("[[plan]]", None),
    ("[[plan#Steps]]", None),
    ("[[plan|the plan]]", None),
    ("[[plan#Steps|the steps]]", None),
    ("![[diagram]]", None),
    ("![[plan#^block|shown]]", None),
    ("[[drafts/plan]]", None),
    ("[[ plan ]]", "[[ plan ]]"),              # trimmed target
    ("[[plan| spaced ]]", "[[plan| spaced ]]"),  # trimmed label
    ("[[plan|]]", "[[plan|]]"),                # empty label: None
    ("[[plan#]]", "[[plan#]]"),                # empty anchor: None
    ("[[plan # Steps]]", "[[plan # Steps]]"),
    ("| [[plan\\|label]] |", "[[plan\\|label]]"),  # a table cell's escaped pipe
])
def test_a_link_is_held_without_its_text_when_its_parts_give_it_back(text: str, held: str | None) -> None:
    (found,) = scan_body(text + "\n", 1)[1]
    link = Link("memory:shared/n", 0, "unresolved:plan", LinkStatus.BROKEN, found.raw, found.target,
                name_key(found.target), found.label, found.anchor, found.embed, found.line,
                found.column)
    row = link_row(link)
    assert row[RAW] == held
    assert as_link(row) == link
