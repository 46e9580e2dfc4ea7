"""Which errors a caller sees (their own mistakes in full, the server's only as a reference),
and how each is logged: a refused request is one line, only the server's own failures carry
a traceback (strawberry logged every error with one, a syntax error as loudly as a bug)."""

from __future__ import annotations

import logging

from graphql import GraphQLError
from strawberry.exceptions import MissingQueryError
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError

from brain.store.base import StoreUnavailable

# What strawberry raises about the request itself (no `query`, an `operationName` the
# document does not define, a mutation over GET): the caller's mistakes, as a 400 would say.
REQUEST_ERRORS = (MissingQueryError, CannotGetOperationTypeError, InvalidOperationTypeError)
NO_QUERY = 'the request has no `query`: send {"query": "{ ... }"} (a GraphQL document as a string)'

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
    return not isinstance(original, (UserError, GraphQLError, StoreUnavailable, *REQUEST_ERRORS))


def operation_error_message(error: CannotGetOperationTypeError) -> str:
    """What to tell the caller whose `operationName` picks no operation of the document."""
    if error.operation_name is None:
        return "cannot tell which operation of the document to run: name it in `operationName`"
    return (
        f"the document has no operation named `{clip(str(error.operation_name), 200)}`: "
        "`operationName` must name one of its operations (or be left out if it has only one)"
    )


def log_error(logger: logging.Logger, error: GraphQLError) -> None:
    """A refused request as one warning line; the server's own failure with its traceback."""
    if should_mask(error):
        logger.error("%s", clip(str(error.message)), exc_info=error.original_error)
        return
    where = f" (at {'.'.join(map(str, error.path))})" if error.path else ""
    logger.warning("refused%s: %s", where, clip(" ".join(str(error.message).split())),
                   extra={"event": "refused"})


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
