"""Many generated texts per hypothesis example, drawn cheaply (issue 40).

The scanner equivalence tests compare a native twin with its Python reference on thousands of
texts joined from a list of pieces. Drawn one text an example, with
`st.lists(st.sampled_from(pieces)).map("".join)`, most of their time was hypothesis' own: about
a millisecond an example of its bookkeeping and of the list's element-by-element draws, more
than the scanners took. Here one example is a batch of texts cut from a single drawn byte
string: each text from its own span of bytes (a length, then two bytes a piece: every piece
drawn as often, or one the text holds repeated), the same kind of text as before (the same
pieces, 0 to `max_size` of them, about 8 on average, as hypothesis' lists gave), at a fraction
of the cost an input.

Nested lists (`st.lists(texts, min_size=20)`) were tried first and rejected: hypothesis drew
each batch's texts alike, a sixth of the inputs of the one-text tests were distinct. A byte
string's spans are drawn independently. Hypothesis still shrinks a failure (its shrinker lowers
the bytes: the other texts go empty, the failing one loses pieces), and `for_each` names the
text that failed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeVar

from hypothesis import strategies as st

T = TypeVar("T")

BATCH = 20
"""Texts an example."""

# A text's number of pieces from its first byte: none for the zero byte (hypothesis' simplest
# and what its shrinker goes to), else 1 + an exponential draw of mean 8 (of a cap under 11,
# three quarters of the cap), capped: texts about as long as hypothesis' lists drew (37.5
# characters on average of test_native_body's pieces, 36.3 before; frontmatters of at most 6
# lines 3.7 lines, 4.6 before, with more of them simple enough to be compared: 44 to 30).
def _lengths(max_size: int) -> list[int]:
    mean = min(8.0, 0.75 * max_size)
    return [0] + [min(max_size, 1 + int(-mean * math.log(1 - (b + 0.5) / 256))) for b in range(1, 256)]


_REPEAT = 16384  # of a piece's 65,536 values (two bytes)


def examples_for(inputs: int, batch: int = BATCH) -> int:
    """The examples of `batch` texts that compare more distinct texts than `inputs` examples of
    one text did: a fifth more texts, as short texts repeat more often here (derandomized,
    test_native_body's 4,008 texts were 3,992 distinct before, its 4,808 here 4,337)."""
    return -(-inputs * 6 // (5 * batch))


def _cut(blob: bytes, pieces: Sequence[str], lengths: list[int], sep: str, batch: int) -> list[str]:
    span = 1 + 2 * lengths[-1]
    texts = []
    for start in range(0, batch * span, span):
        size = lengths[blob[start]]
        drawn: list[str] = []
        for at in range(start + 1, start + 1 + 2 * size, 2):
            drawn.append(_piece(int.from_bytes(blob[at:at + 2], "big"), pieces, drawn))
        texts.append(sep.join(drawn))
    return texts


def _piece(value: int, pieces: Sequence[str], drawn: list[str]) -> str:
    """A quarter of the values repeat a piece the text already holds (the one before it half
    the time), as hypothesis' own generation repeats what it drew: runs such as
    `g h p _ g h p _ ` are where a scanner's counts go wrong (without repeats, a planted
    off-by-one in the spaced-run hint went unfound in 4,800 texts). The rest draw any piece."""
    if value < _REPEAT:
        if drawn:
            return drawn[-1] if value & 1 else drawn[(value >> 1) % len(drawn)]
        return pieces[value * len(pieces) // _REPEAT]
    return pieces[(value - _REPEAT) * len(pieces) // (65536 - _REPEAT)]


def joined_texts(
    pieces: Sequence[str], max_size: int, sep: str = "", batch: int = BATCH,
) -> st.SearchStrategy[list[str]]:
    """`batch` texts, each 0 to `max_size` pieces joined by `sep`."""
    pieces = list(pieces)
    lengths = _lengths(max_size)
    size = batch * (1 + 2 * lengths[-1])
    return st.binary(min_size=size, max_size=size).map(lambda blob: _cut(blob, pieces, lengths, sep, batch))


def batched(test: Callable[..., None]) -> Callable[..., None]:
    """Marks a test whose examples are batches (above its @settings): BRAIN_MAX_EXAMPLES
    (tests/plan.py, `make check`) caps its texts, not its examples."""
    test.brain_batch = BATCH  # type: ignore[attr-defined]
    return test


def for_each(inputs: Sequence[T], check: Callable[[T], None]) -> None:
    """`check` on each input; a failure says which input it was."""
    for value in inputs:
        try:
            check(value)
        except BaseException as error:
            error.add_note(f"on the generated input {value!r}")
            raise
