"""`If-Match` and `If-None-Match` on the memory REST API, as RFC 9110 section 13.1 reads them.

* `If-Match: *` passes when the note exists (and fails with 412 when it does not): it was
  compared as if `*` were a hash, so it always failed.
* `If-Match: "a", "b"` passes when the note's ETag is any of the listed ones; weak tags
  (`W/"…"`) never match, since If-Match uses the strong comparison.
* An empty `If-Match` lists no tag, so no tag can match: 412 (it was ignored, which turned
  a guarded write into an unguarded one).
* `If-None-Match: *` passes only when the note does not exist (create-only).

A bare hash without quotes is accepted too: agents often send the `hash` field as is.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.datastructures import Headers

from brain.tool.calls.refusal import Refusal, RefusalCode

EMPTY_IF_MATCH = (
    "the If-Match header is empty, so no version can match (RFC 9110): send the note's ETag "
    'from GET (If-Match: "<hash>"), `If-Match: *` to require that it exists, or no If-Match'
)


@dataclass(frozen=True, slots=True)
class Precondition:
    """What the request requires of the note's current version."""

    tags: tuple[str, ...] = ()  # one of these hashes (If-Match)
    must_exist: bool = False  # If-Match: *
    must_not_exist: bool = False  # If-None-Match: *

    @property
    def present(self) -> bool:
        return bool(self.tags) or self.must_exist or self.must_not_exist

    def expected(self, current: str | None) -> str | None:
        """The hash to hand the service (which checks it under the folder's lock), given the
        note's current hash as last read (only needed when several tags are listed)."""
        if self.must_not_exist:
            return ""
        if not self.tags:
            return None
        if current is not None and current in self.tags:
            return current
        return self.tags[0]  # none matches: the service refuses with its conflict message


def read_preconditions(headers: Headers) -> Precondition:
    if_match = headers.get("if-match")
    if if_match is not None:
        items = [item.strip() for item in if_match.split(",") if item.strip()]
        if not items:
            raise Refusal(RefusalCode.CONFLICT, EMPTY_IF_MATCH, None, status=412)
        if "*" in items:
            return Precondition(must_exist=True)
        tags = tuple(_strong(item) for item in items)
        # Only weak tags: none can match, so the request must fail; a tag no hash equals.
        return Precondition(tags=tuple(t for t in tags if t is not None) or ("W/",))
    if headers.get("if-none-match", "").strip() == "*":
        return Precondition(must_not_exist=True)
    return Precondition()


def _strong(item: str) -> str | None:
    if item.startswith("W/"):
        return None
    return item.strip('"')
