"""`LinkTable.index_into` as it was before the grouping of `grouped_into`
(brain/store/memory/links/index.py): a dict of every string listed, an object array of them,
and each name's refs cut with a numpy slice. Kept as a second reference for the tests of the
index built from the columns (tests/unit/test_link_index_columns.py)."""

from __future__ import annotations

from array import array

import numpy as np

from brain.model import UnresolvedNode
from brain.store.memory.links.index import SET_AFTER, LinkIndex, Refs
from brain.store.memory.links.table import UNRESOLVED, LinkTable


def refs_of(numbers: array[int]) -> Refs:
    """The refs of one target or key, as `add_all` leaves them: an array in the order they
    were added, a set past SET_AFTER."""
    return set(numbers) if len(numbers) > SET_AFTER else numbers


def index_before(table: LinkTable, index: LinkIndex) -> None:
    image = table._live_now()
    keep = image.live_links()
    blocks = image.live_blocks()
    counts = np.diff(image.starts)[blocks]
    linked = [image.sources[b] for b, n in zip(blocks.tolist(), counts.tolist(), strict=True) if n]
    bases = np.array([index._base(source) for source in linked], dtype=np.int64)
    ordinal = image.columns["ordinal"]
    ordinal = ordinal if keep is None else ordinal[keep]
    refs = np.repeat(bases, counts[counts > 0]) | ordinal.astype(np.int64)
    table_of = image.string_array()
    first = dict(zip(reversed(image.strings), range(len(image.strings) - 1, -1, -1), strict=True))
    canonical = np.fromiter(map(first.__getitem__, image.strings), np.int64, len(image.strings))
    for name, out in (("target_id", index.incoming), ("key", index.by_key)):
        values = canonical[image.columns[name] if keep is None else image.columns[name][keep]]
        if not len(values):
            continue
        order = np.argsort(values, kind="stable")
        ranked = values[order]
        cuts = (np.flatnonzero(np.diff(ranked)) + 1).tolist()
        starts, ends = [0, *cuts], [*cuts, len(ranked)]
        grouped = refs[order]
        keys = table_of[ranked[starts]].tolist()
        firsts = order[starts]
        for at in np.argsort(firsts, kind="stable").tolist():
            out[keys[at]] = refs_of(array("q", grouped[starts[at] : ends[at]].tobytes()))
    index.unresolved = {
        t: UnresolvedNode(t.split(":", 1)[1]) for t in index.incoming if t.startswith(UNRESOLVED)
    }
