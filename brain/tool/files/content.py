"""What text a note may hold: UTF-8 without NUL, within the size cap, and no new secrets.

Refusals name the call that would have worked: the same call without the NUL characters or
with the secret replaced, or one that fits (the text cut at the last whole line that fits,
or an edit's new text moved into a second note).
"""

from __future__ import annotations

from brain.parse.frontmatter import TOO_COSTLY, costly_frontmatter
from brain.parse.secrets.scan import find_secret
from brain.tool.calls.refusal import Call, Refusal, RefusalCode
from brain.tool.calls.textedit import changed_lines

REDACTED = "[secret removed: say where it is kept instead]"


def check_content(
    text: str, old: str | None, here: str, call: Call, content_arg: str | None, limit: int,
    second: str,
) -> bytes:
    """The note's bytes, or a refusal. `old` is the text before (secrets are looked for only
    on lines that differ from it); `here` names the note; `second` a note for the overflow."""
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        cleaned = _arg_replace(call, content_arg, "\x00", "")
        raise Refusal(
            RefusalCode.NOT_TEXT,
            f"the new text of {here} has a NUL character on line {line}: memories are text",
            cleaned,
        )
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        raise Refusal(
            RefusalCode.NOT_TEXT,
            f"the new text of {here} has unpaired surrogate characters: it is not valid Unicode",
            None,
        ) from None
    if len(data) > limit:
        raise Refusal(
            RefusalCode.TOO_LARGE,
            f"{here} would be {len(data):,} bytes; one memory "
            f"file holds at most {limit:,} bytes. Keep one topic per file: "
            f"split it and put the rest in a new note such as "
            f"{second}",
            _too_large_call(call, content_arg, second, limit),
        )
    costly = costly_frontmatter(text)
    if costly is not None:
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT,
            f"the frontmatter of {here} (line {costly.line}) is too costly to read: "
            f"{costly.message.removeprefix(TOO_COSTLY + ': ')}. Frontmatter is a few lines of "
            f"metadata: {costly.fix}",
            None,
        )
    check_secrets(text, old, here, call, content_arg)
    return data


def check_secrets(text: str, old: str | None, here: str, call: Call, content_arg: str | None) -> None:
    """Refuse a text whose new or changed lines look like a credential (never echoing it)."""
    lines = changed_lines(old or "", text)
    hit = find_secret(text, lines)
    if hit is not None:
        secret = text[hit.start : hit.end]
        raise Refusal(
            RefusalCode.SECRET,
            f"line {hit.line} of the new text of {here} looks like {hit.kind} "
            f"(`{hit.preview(text)}`). Never store secrets in memory: write where the secret "
            "is kept (a vault, an environment variable) instead of the secret itself",
            _arg_replace(call, content_arg, secret, REDACTED),
        )


def _arg_replace(call: Call, arg: str | None, old: str, new: str) -> Call | None:
    value = call.args.get(arg) if arg else None
    if not isinstance(value, str) or old not in value:
        return None
    assert arg is not None
    return call.with_args(**{arg: value.replace(old, new)})


def _too_large_call(call: Call, arg: str | None, second: str, limit: int) -> Call | None:
    """A call that fits: a whole-file write cut at the last line that fits (the rest goes
    into a second note), or an edit's new text moved into a note of its own."""
    value = call.args.get(arg) if arg else None
    if not isinstance(value, str):
        return None
    if arg in ("file_text", "content"):
        return call.with_args(**{arg: fitting_prefix(value, limit)})
    if len(value.encode("utf-8")) > limit:
        return None
    return Call("create", {"path": second, "file_text": value})


def fitting_prefix(text: str, limit: int) -> str:
    """The longest run of whole lines of `text` within `limit` UTF-8 bytes."""
    head = text.encode("utf-8")[:limit].decode("utf-8", errors="ignore")
    cut = head.rfind("\n")
    return head[: cut + 1] if cut >= 0 else head
