"""Which errors a caller sees: their own mistakes in full, the server's only as a reference."""

from __future__ import annotations

import logging

from graphql import GraphQLError

from brain.store.base import StoreUnavailable

MASKED_MESSAGE = "internal error: the server log has the details"


class UserError(Exception):
    """A request the caller can fix (a bad argument, an unknown cursor): shown as written.

    Raise it from resolvers with a message that says what was wrong and what would work.
    """


class Forbidden(GraphQLError):
    """The caller's token may not read this field (raised by permission classes): shown."""


def should_mask(error: GraphQLError) -> bool:
    """Mask everything but syntax, validation and input errors, `UserError`s, `Forbidden`
    (and any GraphQLError), and `StoreUnavailable` (a store that went away: the client
    should retry, not file a bug).

    graphql-core leaves `original_error` empty for errors it reports about the document
    and the variables; anything raised by a resolver is kept as `original_error`.
    """
    original = error.original_error
    if original is None:
        return False
    # graphql-core wraps its own coercion errors (a variable of the wrong type) in another
    # GraphQLError: those are the caller's mistake, shown as written.
    return not isinstance(original, UserError | GraphQLError | StoreUnavailable)


MAX_MESSAGE_CHARS = 1000  # graphql-core quotes rejected values; a caller may send a megabyte


def clip(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """At most `limit` characters of a message that may quote a caller's input."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters not shown)"


class ClipLongMessages(logging.Filter):
    """Keeps log lines bounded: strawberry logs every error with the value it quotes."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if len(message) > MAX_MESSAGE_CHARS:
            record.msg, record.args = clip(message), ()
        return True


def clip_logged_errors() -> None:
    """Once per process: errors logged by strawberry are clipped."""
    logger = logging.getLogger("strawberry.execution")
    if not any(isinstance(f, ClipLongMessages) for f in logger.filters):
        logger.addFilter(ClipLongMessages())
