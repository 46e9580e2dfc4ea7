"""A note's frontmatter block: where it is, its keys' lines, and its YAML within budget. Pure.

The block is the text between a first line `---` and the next `---` (or `...`). Its YAML is
read by brain.parse.safeyaml under a tighter size budget than whole YAML files (frontmatter is a
few lines of metadata; MAX_FRONTMATTER_BYTES leaves room for hundreds of keys), so a note can
cost no more to read than its size says. Every finding is an `invalid-frontmatter` problem
with the line and a fix; nothing here raises.
"""

from __future__ import annotations

import re
from typing import Any

from brain.model import Problem, Severity

MAX_FRONTMATTER_BYTES = 256 * 1024
_CLOSE_RE = re.compile(r"^(?:---|\.\.\.)[^\S\n]*$", re.MULTILINE)  # `---` or `...` closes it
FM_KEY_RE = re.compile(r"^[\"']?([A-Za-z_][\w-]*)[\"']?[ \t]*:", re.MULTILINE)  # also `"type": x`


def split_frontmatter(
    text: str, path: str, problems: list[Problem]
) -> tuple[str | None, str, int, bool]:
    """(frontmatter text or None, body, 1-based line of the body, frontmatter present)."""
    if not (text.startswith("---\n") or text.rstrip(" \t") == "---"):
        return None, text, 1, False
    close = _CLOSE_RE.search(text, 4)  # C speed: a frontmatter of 60,000 lines is one search
    if close is None:
        problems.append(
            Problem(
                "invalid-frontmatter", Severity.ERROR, path,
                "frontmatter opened on line 1 is never closed",
                line=1, column=1, length=3,
                fix="add a line `---` after the last frontmatter key",
            )
        )
        return None, text, 1, False
    end = close.start()
    line_no = text.count("\n", 0, end) + 1
    fm_text = text[4:end]
    nl = text.find("\n", end)
    body = "" if nl < 0 else text[nl + 1 :]
    return fm_text, body, line_no + 1, True


def key_lines(fm_text: str) -> dict[str, int]:
    """Top-level key -> its 1-based line in the note (the frontmatter starts on line 2).

    Lines are counted incrementally from one key to the next: counting from the start for
    each key made a frontmatter of many keys quadratic (0.8 MB of keys took 16 s).
    """
    out: dict[str, int] = {}
    line, pos = 2, 0
    for m in FM_KEY_RE.finditer(fm_text):
        line += fm_text.count("\n", pos, m.start())
        pos = m.start()
        out[m.group(1)] = line
    return out


def load_frontmatter(fm_text: str, path: str, problems: list[Problem]) -> dict[str, Any]:
    simple = simple_mapping(fm_text)
    if simple is not None:
        return simple
    # Imported here: nearly every note's frontmatter is simple, and a parse helper starts
    # 20 ms sooner without YAML.
    import yaml

    from brain.parse.safeyaml import YAMLBudgetError, safe_load

    try:
        data = safe_load(fm_text, max_bytes=MAX_FRONTMATTER_BYTES)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        column = mark.column + 1 if mark is not None else 1
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if isinstance(exc, YAMLBudgetError):
            message, fix = f"{TOO_COSTLY}: {reason}", exc.fix
        else:
            message = f"frontmatter is not valid YAML: {reason}"
            fix = "fix the YAML (quote values that contain `: ` or start with `[`, `{`, `*`)"
        problems.append(
            Problem("invalid-frontmatter", Severity.ERROR, path, message, line=line, column=column, fix=fix)
        )
        return {}
    if data is None:
        return {}
    if not isinstance(data, dict):
        problems.append(
            Problem(
                "invalid-frontmatter", Severity.ERROR, path,
                f"frontmatter must be a mapping of keys, not a {type(data).__name__}",
                line=2, column=1, fix="write it as `description: ...` and `type: ...` lines",
            )
        )
        return {}
    return data


# The frontmatter nearly every note has: `key: text` lines. Such a line is read here exactly
# as YAML reads it (a plain scalar that starts with a letter is a string unless it is one of
# YAML 1.1's booleans or nulls, the only implicit types such a scalar can take, read here
# too: an agent's `memory: true` loaded libyaml, 13 ms before a first sync's first note went
# to a helper), six times faster than libyaml's events and constructor; anything else goes to
# brain.parse.safeyaml.
SIMPLE_MAX_CHARS = 4096  # far under every budget of brain.parse.safeyaml: no check needed
_SIMPLE_LINE_RE = re.compile(r"([A-Za-z][A-Za-z0-9_-]*):[ ]+([^\W\d_][^\t]*)")
_YAML_VALUES: dict[str, bool | None] = {
    word: value
    for base, value in (("yes", True), ("no", False), ("true", True), ("false", False), ("on", True),
                        ("off", False), ("null", None))
    for word in (base, base.capitalize(), base.upper())
}


# Two more forms a note's metadata often takes (issue 43: half the notes of the real profile
# went to libyaml, 250 us each): a quoted string without escapes (`name: "Release: Q4"`), and
# a flow list of plain words (`tags: [release, free-tier]`), each word a string (it starts
# with a letter and is no boolean or null).
_OTHER_LINE_RE = re.compile(r"([A-Za-z][A-Za-z0-9_-]*):[ ]+(.+)")
_QUOTED_RE = re.compile(r"\"([^\"\\]*)\"|'([^']*)'")
_WORD = r"[^\W\d_][\w-]*"
_WORDS_RE = re.compile(rf"\[((?:{_WORD}(?:, {_WORD})*)?)\]")


def simple_mapping(fm_text: str) -> dict[str, Any] | None:
    """The mapping of a frontmatter of `key: text` lines as YAML reads it, or None (not one)."""
    if len(fm_text) > SIMPLE_MAX_CHARS:
        return None
    out: dict[str, Any] = {}
    match = _SIMPLE_LINE_RE.fullmatch
    for line in fm_text.split("\n"):
        if not line:
            continue
        m = match(line)
        if m is None:
            other = _other_value(line)
            if other is None:
                return None
            out[other[0]] = other[1]
            continue
        key, value = m.groups()
        if (
            key in _YAML_VALUES or not value.isprintable()
            or value[-1] in " :" or ": " in value or " #" in value
        ):
            return None
        out[key] = _YAML_VALUES.get(value, value)
    return out or None


def _other_value(line: str) -> tuple[str, str | list[str]] | None:
    """A `key: "quoted"` or `key: [word, word]` line as YAML reads it, or None (not one)."""
    m = _OTHER_LINE_RE.fullmatch(line)
    if m is None or m.group(1) in _YAML_VALUES:
        return None
    key, value = m.groups()
    quoted = _QUOTED_RE.fullmatch(value)
    if quoted is not None:
        text = quoted.group(1) if quoted.group(1) is not None else quoted.group(2)
        return (key, text) if text.isprintable() else None
    words = _WORDS_RE.fullmatch(value)
    if words is None:
        return None
    items = words.group(1).split(", ") if words.group(1) else []
    return None if any(w in _YAML_VALUES for w in items) else (key, items)


TOO_COSTLY = "frontmatter is too costly to read"


def costly_frontmatter(text: str, path: str = "") -> Problem | None:
    """The problem of a frontmatter over the budget (size, depth, aliases), if it is."""
    problems: list[Problem] = []
    fm, _, _, _ = split_frontmatter(text, path, problems)
    if fm is not None:
        load_frontmatter(fm, path, problems)
    return next((p for p in problems if p.message.startswith(TOO_COSTLY)), None)
