"""The arguments of the six commands: which each takes, their types, and fixes for mistakes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import cast

from brain.model import SHARED_SCOPE, JSONValue
from brain.tool.calls.refusal import Call, Refusal, RefusalCode
from brain.tool.files.paths import ROOT

COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")
_ARGUMENTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # command: (required, optional)
    "view": (("path",), ("view_range",)),
    "create": (("path", "file_text"), ()),
    "str_replace": (("path", "old_str"), ("new_str",)),
    "insert": (("path", "insert_line", "insert_text"), ()),
    "delete": (("path",), ()),
    "rename": (("old_path", "new_path"), ()),
}
_ALIASES = {"file_text": ("content", "text", "body"), "insert_text": ("new_str", "text")}


def check_arguments(command: str, args: dict[str, object]) -> None:
    required, optional = _ARGUMENTS[command]
    for name in required:
        value = args.get(name)
        if value is None:
            alias = next((a for a in _ALIASES.get(name, ()) if a in args and a not in optional), None)
            fixed = {k: v for k, v in args.items() if k in required + optional}
            if alias is not None:
                fixed[name] = args[alias]
            suggestion = Call(command, json_args(fixed)) if alias is not None else None
            raise Refusal(
                RefusalCode.INVALID_ARGUMENT,
                f"{command} needs `{name}`"
                + (f" (not `{alias}`)" if alias else "")
                + f"; its arguments are {_signature(command)}",
                suggestion or example(command),
            )
    for name in (*required, *optional):
        value = args.get(name)
        if value is None:
            continue
        expected_type: type | tuple[type, ...] = str
        if name == "insert_line":
            expected_type = int
        elif name == "view_range":
            expected_type = (list, tuple)
        if not isinstance(value, expected_type) or isinstance(value, bool):
            kind = "a whole number" if expected_type is int else (
                "[start, end]" if name == "view_range" else "a string"
            )
            fixed = {**args, name: _coerced(name, value)}
            raise Refusal(
                RefusalCode.INVALID_ARGUMENT, f"`{name}` must be {kind}, not {value!r}",
                Call(command, json_args({k: v for k, v in fixed.items() if k in required + optional})),
            )


def _coerced(name: str, value: object) -> object:
    """The value a mistyped argument most likely meant, in the right type."""
    numbers = [int(n) for n in re.findall(r"(?<!\d)-?\d+", str(value))] if value is not None else []
    if name == "insert_line":
        return numbers[0] if numbers else 0
    if name == "view_range":
        return numbers[:2] if len(numbers) >= 2 else [1, -1]
    return "" if value is None else str(value)


def _signature(command: str) -> str:
    required, optional = _ARGUMENTS[command]
    return ", ".join(required) + "".join(f", [{o}]" for o in optional)


def example(command: str) -> Call:
    examples: dict[str, dict[str, object]] = {
        "view": {"path": ROOT},
        "create": {"path": f"{ROOT}/topic.md", "file_text": "---\ndescription: …\ntype: project\n---\n"},
        "str_replace": {"path": f"{ROOT}/topic.md", "old_str": "old text", "new_str": "new text"},
        "insert": {"path": f"{ROOT}/topic.md", "insert_line": 0, "insert_text": "a new line\n"},
        "delete": {"path": f"{ROOT}/topic.md"},
        "rename": {"old_path": f"{ROOT}/topic.md", "new_path": f"{ROOT}/{SHARED_SCOPE}/topic.md"},
    }
    return Call(command, json_args(examples[command]))


def json_args(args: Mapping[str, object]) -> dict[str, JSONValue]:
    """Arguments as JSON values (they came from JSON, or were checked by `_check_arguments`)."""
    return {k: cast(JSONValue, v) for k, v in args.items() if v is not None}
