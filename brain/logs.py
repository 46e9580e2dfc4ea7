"""How brain's server processes log: today's text lines, or one JSON object a line.

An operator's collector (journald, Loki, a log shipper) wants one record a line with a time,
a level, an event and its fields, and wants to find every line one request caused: the request
id (from a sane `X-Request-Id`, else made up here) rides in a context variable that the HTTP
layer sets for each request (brain/api/http/requestlog.py), and every line logged while the
request runs carries it, uvicorn's included. In the base layer so any module's logger is
formatted the same way without importing the server.

Log calls that want an event name and fields pass them as `extra={"event": ..., "fields": {...}}`
(or use `event()`); other records get the logger's name as their event.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, TextIO

#: The id of the request being answered in this context; None outside requests.
REQUEST_ID: ContextVar[str | None] = ContextVar("brain_request_id", default=None)
#: Warnings (and worse) logged so far in this request: a refusal a deeper layer already
#: logged (the history cap names the agent) is not said a second time by the request's line.
REQUEST_WARNINGS: ContextVar[list[int] | None] = ContextVar("brain_request_warnings", default=None)
#: An id a client or proxy may choose: short and plain, since it is echoed into logs and headers.
SANE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
FORMATS = ("text", "json")
QUIET = ("mcp", "httpx", "httpcore", "neo4j", "websockets", "watchfiles", "anthropic", "pygls")


def request_id(header: str | None) -> str:
    """The caller's `X-Request-Id` when it is plain text of at most 128 characters, else a new one."""
    if header is not None and SANE_ID.fullmatch(header):
        return header
    return uuid.uuid4().hex[:16]


def event(logger: logging.Logger, level: int, name: str, message: str, **fields: Any) -> None:
    """One log line with an event name and fields (a JSON line's `event` and `fields`)."""
    logger.log(level, "%s", message, extra={"event": name, "fields": fields})


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, event, message, fields, request_id, logger."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "event": getattr(record, "event", None) or record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if fields:
            out["fields"] = fields
        rid = REQUEST_ID.get()
        if rid is not None:
            out["request_id"] = rid
        out["logger"] = record.name
        if record.exc_info:  # a server failure: its traceback inside the one line
            out["traceback"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """`brain serve: <message>` as brain always printed, with the request's id when in one."""

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix

    def format(self, record: logging.LogRecord) -> str:
        line = f"{self.prefix}: {record.getMessage()}"
        rid = REQUEST_ID.get()
        if rid is not None:
            line += f" [request {rid}]"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class CountWarnings(logging.Filter):
    """Counts the request's warnings as they are written (see REQUEST_WARNINGS)."""

    def filter(self, record: logging.LogRecord) -> bool:
        seen = REQUEST_WARNINGS.get()
        if seen is not None and record.levelno >= logging.WARNING:
            seen[0] += 1
        return True


def setup(format: str = "text", level: str = "info", *, prefix: str = "brain",
          stream: TextIO | None = None) -> logging.Handler:
    """Send every logger's records (brain's, uvicorn's, the libraries') through one handler on
    stderr in `format`; the root logger at `level`. Replaces a handler an earlier call set."""
    handler = logging.StreamHandler(sys.stderr if stream is None else stream)
    handler.setFormatter(JsonFormatter() if format == "json" else TextFormatter(prefix))
    handler.set_name("brain")
    handler.addFilter(CountWarnings())
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == "brain"]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    # uvicorn's loggers write to the root's handler, not their own.
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
    # Libraries' news of every session and connection ("Created new transport with session
    # ID ...") is for debugging them: their warnings still show.
    for name in QUIET:
        logging.getLogger(name).setLevel(logging.DEBUG if level.lower() == "debug" else logging.WARNING)
    return handler


def json_lines() -> bool:
    """Whether this process logs JSON lines (`setup("json")`)."""
    return any(h.get_name() == "brain" and isinstance(h.formatter, JsonFormatter)
               for h in logging.getLogger().handlers)
