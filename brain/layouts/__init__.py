"""Layouts: the on-disk shapes of the seeds' memory systems (design.md section 8).

`get_layout(name)` gives the Layout object of a name; `LAYOUTS` is the registry. A layout
module registers itself here by adding one entry.
"""

from __future__ import annotations

from brain.config.workspace import LAYOUT_NAMES
from brain.layouts.base import Layout, RuleContext
from brain.layouts.detect import (
    LayoutChoice,
    LayoutError,
    choose_layout,
    choose_layout_leniently,
    detect_layout,
)
from brain.layouts.lab import LAB
from brain.layouts.latchai import LATCHAI
from brain.layouts.mindlink import MINDLINK
from brain.layouts.space import SPACE

LAYOUTS: dict[str, Layout] = {
    LATCHAI.name: LATCHAI,
    SPACE.name: SPACE,
    MINDLINK.name: MINDLINK,
    LAB.name: LAB,
}


def get_layout(name: str) -> Layout:
    found = LAYOUTS.get(name)
    if found is None:
        if name in LAYOUT_NAMES:
            raise LayoutError(f"the {name} layout is not part of this build of brain")
        raise LayoutError(f"unknown layout {name!r}: brain knows " + ", ".join(LAYOUT_NAMES))
    return found


__all__ = [
    "LATCHAI",
    "LAYOUTS",
    "SPACE",
    "Layout",
    "LayoutChoice",
    "LayoutError",
    "RuleContext",
    "choose_layout",
    "choose_layout_leniently",
    "detect_layout",
    "get_layout",
]
