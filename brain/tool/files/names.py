"""Names of memory files and agents: which are allowed, and the nearest allowed one. Pure.

A memory file name is one path segment ending in `.md`, in NFKC normal form, without
invisible characters, hidden-file dots, `..`, or characters that mean something to a shell,
a URL or a wikilink. Anything else is refused with the nearest allowed name, so a refusal can
name the call that would have worked.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from brain.model import SHARED_SCOPE
from brain.tool.calls.refusal import RefusalCode, invisible, shown

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
    problem = _problem(name)
    if problem is None:
        return name
    code, reason, candidate = problem
    raise NameProblem(code, reason, _fix(candidate) if candidate is not None else None)


def is_allowed(name: str) -> bool:
    return _problem(name) is None


@functools.lru_cache(maxsize=65_536)
def _problem(name: str) -> tuple[RefusalCode, str, str | None] | None:
    """(code, reason, a candidate fix) for a name that is not allowed; None if it is."""
    if not name:
        return RefusalCode.INVALID_PATH, "names no file", None
    hidden = [ch for ch in name if invisible(ch)]
    if hidden:
        codes = ", ".join(f"U+{ord(ch):04X}" for ch in dict.fromkeys(hidden))
        cleaned = "".join(ch for ch in name if not invisible(ch))
        reason = f"`{shown(name)}` contains invisible or control characters ({codes})"
        return RefusalCode.INVALID_PATH, reason, cleaned
    normal = unicodedata.normalize("NFKC", name)
    if normal != name:
        return RefusalCode.INVALID_PATH, unnormal_reason(name, normal), normal
    if name.startswith("."):
        reason = f"`{name}` starts with `.`: hidden files are not memories"
        return RefusalCode.INVALID_PATH, reason, name.lstrip(".")
    if not name.endswith(MD):
        if name.lower().endswith(MD):
            return RefusalCode.NOT_MARKDOWN, f"`{name}` must end in lower-case `.md`", name[: -len(MD)] + MD
        stem = _DROPPABLE_EXTENSION.sub("", name) if "." in name else name
        reason = f"`{name}` is not a .md file: only .md files are memories"
        return RefusalCode.NOT_MARKDOWN, reason, stem if stem.endswith(MD) else stem + MD
    stem = name[: -len(MD)]
    if not stem.strip(" ."):
        return RefusalCode.INVALID_PATH, f"`{name}` has no name before `.md`", name.strip(". ")
    if ".." in name:
        return RefusalCode.INVALID_PATH, f"`{name}` contains `..`", name
    if stem != stem.strip() or "  " in stem or stem.startswith("-") or stem.endswith("."):
        reason = f"`{name}` starts or ends with a space, dash or dot, or has double spaces"
        return RefusalCode.INVALID_PATH, reason, name
    bad = sorted({ch for ch in stem if not (ch.isalnum() or _is_mark(ch) or ch in NAME_PUNCTUATION)})
    if bad:
        listed = " ".join(f"`{ch}`" for ch in bad)
        return RefusalCode.INVALID_PATH, f"`{name}` contains {listed}: names may use {ALLOWED_TEXT}", name
    if stem.split(".")[0].strip().lower() in _WINDOWS_RESERVED:
        reason = f"`{name}` is a reserved device name on Windows"
        return RefusalCode.INVALID_PATH, reason, stem + "-note" + MD
    if len(name) > MAX_NAME_CHARS or len(name.encode("utf-8")) > MAX_NAME_BYTES:
        reason = f"`{name[:40]}…` is too long ({len(name)} characters; at most {MAX_NAME_CHARS})"
        return RefusalCode.INVALID_PATH, reason, name
    return None


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
    return candidate if is_allowed(candidate) else None


def _fix(candidate: str) -> str | None:
    """The candidate if it is allowed as it is, else its kebab-case form."""
    return candidate if is_allowed(candidate) else nearest_filename(candidate)


def _is_mark(ch: str) -> bool:
    return unicodedata.category(ch).startswith("M")
