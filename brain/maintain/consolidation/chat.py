"""A small client of an OpenAI-compatible chat-completions endpoint, with tools (httpx).

Only what the consolidation loop needs: POST `<url>/chat/completions` with `messages`,
`tools` and `tool_choice: "auto"`, and the first choice's message back, checked. Anything
else is a `ChatError` with a kind the report can show: `endpoint-error` (cannot connect,
times out, answers an HTTP error) or `malformed-answer` (not JSON, no choice, a tool call
without a name, JSON nested deeper than `MAX_ANSWER_DEPTH`: a chat completion is six
levels deep, and 100,000 were a RecursionError that ended the run as `error`). An answer is
read up to `MAX_ANSWER_BYTES`, so a runaway endpoint cannot fill the server's memory.

What a ChatError says reaches whoever started the run (an agent's token may), so it never
carries the endpoint's own words: a status, a size, a kind. The endpoint is the operator's,
but it may be an internal address, and its error pages (or whatever else answers there) are
not for agents to read; the first bytes go to the server's log, where the operator looks.
The URL is shown without its user, password or query.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from brain.parse import safejson

if TYPE_CHECKING:  # imported by the client itself: `brain serve` loads this module before ready
    import httpx

MAX_ANSWER_BYTES = 8 << 20
log = logging.getLogger("brain.maintain")
MAX_ANSWER_DEPTH = 32  # choices[0].message.tool_calls[0].function: six; arguments are a string


class ChatError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  # "endpoint-error" | "malformed-answer"
        self.message = message


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # JSON text as the model wrote it; parsed (and refused if bad) by the caller


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens
        )

    def to_json(self) -> dict[str, int]:
        return {
            "promptTokens": self.prompt_tokens, "completionTokens": self.completion_tokens,
            "totalTokens": self.total_tokens,
        }


@dataclass(frozen=True, slots=True)
class ChatAnswer:
    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None

    def message(self) -> dict[str, Any]:
        """The assistant message to send back in the next request's history."""
        out: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls
            ]
        return out


@dataclass(frozen=True, slots=True)
class ChatEndpoint:
    url: str
    model: str
    api_key: str | None = None
    timeout: float = 120.0

    @property
    def completions_url(self) -> str:
        base = self.url.rstrip("/")
        return base if base.endswith("/chat/completions") else base + "/chat/completions"


class ChatClient:
    def __init__(self, endpoint: ChatEndpoint, client: httpx.Client | None = None) -> None:
        import httpx  # a tenth of a second, and only a consolidation needs it

        self.endpoint = endpoint
        self._client = client or httpx.Client(timeout=httpx.Timeout(endpoint.timeout, connect=10.0))

    def close(self) -> None:
        self._client.close()

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ChatAnswer:
        headers = {"Content-Type": "application/json"}
        if self.endpoint.api_key:
            headers["Authorization"] = f"Bearer {self.endpoint.api_key}"
        body = {"model": self.endpoint.model, "messages": messages, "tools": tools, "tool_choice": "auto"}
        url = self.endpoint.completions_url
        shown = shown_url(url)
        import httpx

        try:
            with self._client.stream("POST", url, json=body, headers=headers) as response:
                raw = _read_capped(response)
                status = response.status_code
        except httpx.TimeoutException:
            raise ChatError(
                "endpoint-error", f"{shown} did not answer within {self.endpoint.timeout:g} s"
            ) from None
        except httpx.HTTPError as exc:
            log.warning("consolidation: cannot reach %s: %s", shown, exc)
            raise ChatError("endpoint-error", f"cannot reach {shown} ({type(exc).__name__})") from None
        if status != 200:
            log.warning("consolidation: %s answered HTTP %s: %s", shown, status, _preview(raw))
            raise ChatError(
                "endpoint-error",
                f"{shown} answered HTTP {status} ({len(raw):,} bytes; the server's log shows their start)",
            )
        try:
            return parse_answer(raw)
        except ChatError:
            log.warning("consolidation: %s answered what is not a chat completion: %s", shown, _preview(raw))
            raise


def shown_url(url: str) -> str:
    """The URL as reports show it: scheme, host, port and path (no user, password or query)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "the model endpoint"
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}{port}{parts.path}"


def _read_capped(response: httpx.Response) -> bytes:
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            raise ChatError("malformed-answer", f"the answer is larger than {MAX_ANSWER_BYTES >> 20} MB")
        chunks.append(chunk)
    return b"".join(chunks)


def parse_answer(raw: bytes) -> ChatAnswer:
    try:
        data = safejson.loads(raw, MAX_ANSWER_DEPTH)
    except safejson.JSONBudgetError as exc:
        raise ChatError("malformed-answer", f"the answer is not a chat completion: {exc.message}") from None
    except ValueError:  # not JSON, or not UTF-8
        raise ChatError("malformed-answer", f"the answer is not JSON ({len(raw):,} bytes)") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ChatError("malformed-answer", "the answer has no `choices[0]`")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ChatError("malformed-answer", "`choices[0].message` is missing or not an object")
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise ChatError("malformed-answer", "`message.content` is not a string")
    calls: list[ToolCall] = []
    raw_calls = message.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise ChatError("malformed-answer", "`message.tool_calls` is not a list")
    for number, item in enumerate(raw_calls):
        function = item.get("function") if isinstance(item, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str):
            raise ChatError("malformed-answer", f"tool call {number} has no `function.name`")
        arguments = function.get("arguments", "") if isinstance(function, dict) else ""
        if isinstance(arguments, dict):  # some servers send the object itself
            arguments = json.dumps(arguments)
        call_id = item.get("id") if isinstance(item.get("id"), str) else f"call_{number}"
        calls.append(ToolCall(call_id, name, arguments if isinstance(arguments, str) else ""))
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    finish = choices[0].get("finish_reason")
    return ChatAnswer(
        content=content, tool_calls=calls,
        usage=Usage(_int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))),
        finish_reason=finish if isinstance(finish, str) else None,
    )


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _preview(raw: bytes) -> str:
    text = raw[:120].decode("utf-8", errors="replace")
    return repr(text) + ("…" if len(raw) > 120 else "")
