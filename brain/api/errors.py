"""Which errors a caller sees: their own mistakes in full, the server's only as a reference."""

from __future__ import annotations

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
    """Mask everything but syntax, validation and input errors, `UserError`s, `Forbidden`,
    and `StoreUnavailable` (a store that went away: the client should retry, not file a bug).

    graphql-core leaves `original_error` empty for errors it reports about the document
    and the variables; anything raised by a resolver is kept as `original_error`.
    """
    original = error.original_error
    if original is None:
        return False
    return not isinstance(original, UserError | Forbidden | StoreUnavailable)
