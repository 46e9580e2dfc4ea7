"""Names of memory files and agents: which are allowed, and the nearest allowed one. Pure.

A memory file name is one path segment ending in `.md`, in NFKC normal form, without
invisible characters, hidden-file dots, `..`, or characters that mean something to a shell,
a URL or a wikilink. Anything else is refused with the nearest allowed name, so a refusal can
name the call that would have worked.
"""

from __future__ import annotations

import re
import unicodedata

from brain.model import SHARED_SCOPE
from brain.tool.refusal import RefusalCode, invisible, shown

MD = ".md"
MAX_NAME_CHARS = 100
MAX_NAME_BYTES = 200  # leaves room for the ".<name>.<random>.tmp" of an atomic write
NAME_PUNCTUATION = frozenset("-_. ()+,&'@!~")
_WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul"} | {f"com{i}" for i in range(1, 10)} | {f"lpt{i}" for i in range(1, 10)}
)
_DROPPABLE_EXTENSION = re.compile(r"\.[A-Za-z]{1,9}$")
ALLOWED_TEXT = "letters, digits, spaces and - _ . ( ) + , & ' @ ! ~"


class NameProblem(Exception):
    """A name that is not allowed: why, and the nearest allowed name (if there is one)."""

    def __init__(self, code: RefusalCode, reason: str, fixed: str | None) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.fixed = fixed


def fold(name: str) -> str:
    """The comparison key of a name on a case-insensitive, normalising file system."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def check_filename(name: str) -> str:
    """`name` itself if it is an allowed memory file name; else NameProblem."""
    if not name:
        raise NameProblem(RefusalCode.INVALID_PATH, "names no file", None)
    hidden = [ch for ch in name if invisible(ch)]
    if hidden:
        codes = ", ".join(f"U+{ord(ch):04X}" for ch in dict.fromkeys(hidden))
        cleaned = "".join(ch for ch in name if not invisible(ch))
        raise NameProblem(
            RefusalCode.INVALID_PATH,
            f"`{shown(name)}` contains invisible or control characters ({codes})",
            _fix(cleaned),
        )
    normal = unicodedata.normalize("NFKC", name)
    if normal != name:
        raise NameProblem(RefusalCode.INVALID_PATH, unnormal_reason(name, normal), _fix(normal))
    if name.startswith("."):
        raise NameProblem(
            RefusalCode.INVALID_PATH, f"`{name}` starts with `.`: hidden files are not memories",
            _fix(name.lstrip(".")),
        )
    if not name.endswith(MD):
        if name.lower().endswith(MD):
            fixed = name[: -len(MD)] + MD
            reason = f"`{name}` must end in lower-case `.md`"
        else:
            stem = _DROPPABLE_EXTENSION.sub("", name) if "." in name else name
            fixed = stem if stem.endswith(MD) else stem + MD
            reason = f"`{name}` is not a .md file: only .md files are memories"
        raise NameProblem(RefusalCode.NOT_MARKDOWN, reason, _fix(fixed))
    stem = name[: -len(MD)]
    if not stem.strip(" ."):
        raise NameProblem(RefusalCode.INVALID_PATH, f"`{name}` has no name before `.md`", None)
    if ".." in name:
        raise NameProblem(RefusalCode.INVALID_PATH, f"`{name}` contains `..`", _fix(name))
    if stem != stem.strip() or "  " in stem or stem.startswith("-") or stem.endswith("."):
        raise NameProblem(
            RefusalCode.INVALID_PATH,
            f"`{name}` starts or ends with a space, dash or dot, or has double spaces",
            _fix(name),
        )
    bad = sorted({ch for ch in stem if not (ch.isalnum() or _is_mark(ch) or ch in NAME_PUNCTUATION)})
    if bad:
        listed = " ".join(f"`{ch}`" for ch in bad)
        raise NameProblem(
            RefusalCode.INVALID_PATH,
            f"`{name}` contains {listed}: names may use {ALLOWED_TEXT}", _fix(name),
        )
    if stem.split(".")[0].strip().lower() in _WINDOWS_RESERVED:
        raise NameProblem(
            RefusalCode.INVALID_PATH,
            f"`{name}` is a reserved device name on Windows", _fix(stem + "-note" + MD),
        )
    if len(name) > MAX_NAME_CHARS or len(name.encode("utf-8")) > MAX_NAME_BYTES:
        raise NameProblem(
            RefusalCode.INVALID_PATH,
            f"`{name[:40]}…` is too long ({len(name)} characters; at most {MAX_NAME_CHARS})",
            _fix(name),
        )
    return name


def unnormal_reason(text: str, normal: str) -> str:
    if unicodedata.normalize("NFC", text) == normal:
        return (
            f"`{text}` uses decomposed characters (a letter followed by a combining accent); "
            f"write it precomposed, as `{normal}`"
        )
    return (
        f"`{text}` uses full-width or compatibility characters; in plain form it reads `{normal}`"
    )


def check_agent_name(name: str) -> str:
    """`name` itself if it can name an agent (the stem of agents/<name>.md); else NameProblem."""
    if not name or not name.strip():
        raise NameProblem(RefusalCode.NO_AGENT, "no agent name", None)
    if name == SHARED_SCOPE or fold(name) == SHARED_SCOPE:
        raise NameProblem(
            RefusalCode.INVALID_PATH, f"`{name}` is the shared scope, not an agent", None
        )
    try:
        check_filename(name + MD)
    except NameProblem as problem:
        fixed = problem.fixed[: -len(MD)] if problem.fixed else None
        reason = problem.reason.replace(f"`{name}{MD}`", f"`{name}`")
        raise NameProblem(RefusalCode.INVALID_PATH, f"agent name {reason}", fixed) from None
    return name


def nearest_filename(text: str) -> str | None:
    """A kebab-case memory file name made from any text, or None when nothing is left."""
    text = unicodedata.normalize("NFKC", "".join(ch for ch in text if not invisible(ch)))
    text = text.replace("\\", "/").rsplit("/", 1)[-1]
    if text.lower().endswith(MD):
        text = text[: -len(MD)]
    elif "." in text.strip("."):
        text = _DROPPABLE_EXTENSION.sub("", text)
    words = [w for w in re.split(r"[^\w]+|_", text.lower()) if w]
    stem = "-".join(words)[: MAX_NAME_CHARS - len(MD)].strip("-")
    if not stem:
        return None
    while len((stem + MD).encode("utf-8")) > MAX_NAME_BYTES:
        stem = stem[:-1].rstrip("-")
    if stem.split(".")[0] in _WINDOWS_RESERVED:
        stem += "-note"
    candidate = stem + MD
    try:
        return check_filename(candidate)
    except NameProblem:
        return None


def _fix(candidate: str) -> str | None:
    """The candidate if it is allowed as it is, else its kebab-case form."""
    try:
        return check_filename(candidate)
    except NameProblem:
        return nearest_filename(candidate)


def _is_mark(ch: str) -> bool:
    return unicodedata.category(ch).startswith("M")
