"""Virtual paths (`/memories/<file>.md`, `/memories/shared/<file>.md`) -> scope and file. Pure.

Parsing is strict: a path is accepted only in its one canonical spelling, so every accepted
path names exactly one file in exactly one scope folder and nothing else can be reached. Any
other spelling (`..`, backslashes, percent-escapes, NUL bytes, full-width or decomposed
characters, `/Memories`, `/memoriesX`, nested folders, a missing `.md`) is refused with the
canonical path the caller probably meant, when there is one.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from brain.model import SHARED_SCOPE
from brain.tool.calls.refusal import RefusalCode, invisible, shown
from brain.tool.files.names import NameProblem, check_filename, fold, nearest_filename, unnormal_reason

ROOT = "/memories"
SHARED_ROOT = f"{ROOT}/{SHARED_SCOPE}"


@dataclass(frozen=True, slots=True)
class VirtualDir:
    """`/memories` (own notes and the shared folder) or `/memories/shared`."""

    shared: bool

    @property
    def path(self) -> str:
        return SHARED_ROOT if self.shared else ROOT


@dataclass(frozen=True, slots=True)
class VirtualFile:
    shared: bool
    name: str

    @property
    def path(self) -> str:
        return virtual_path(self.shared, self.name)

    def scope(self, agent: str) -> str:
        return SHARED_SCOPE if self.shared else agent


Target = VirtualDir | VirtualFile


class PathProblem(Exception):
    """A virtual path that is refused: why, and the canonical path probably meant."""

    def __init__(self, code: RefusalCode, reason: str, fixed: str | None) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.fixed = fixed


def virtual_path(shared: bool, name: str) -> str:
    return f"{SHARED_ROOT}/{name}" if shared else f"{ROOT}/{name}"


def parse_virtual(raw: object, agent: str | None = None) -> Target:
    """The directory or file a virtual path names, or PathProblem.

    `agent` (the caller's own name) only improves suggestions: `/memories/<agent>/x.md`
    is answered with `/memories/x.md`. A suggested path always parses itself.
    """
    try:
        return _parse(raw, agent)
    except PathProblem as problem:
        if problem.fixed is not None and not is_canonical(problem.fixed):
            problem.fixed = None
        raise


def is_canonical(path: str) -> bool:
    try:
        _parse(path, None)
    except PathProblem:
        return False
    return True


def _parse(raw: object, agent: str | None) -> Target:
    if not isinstance(raw, str):
        raise PathProblem(RefusalCode.INVALID_PATH, "the path must be a string", ROOT)
    if not raw:
        raise PathProblem(RefusalCode.INVALID_PATH, "the path is empty", ROOT)
    if any(invisible(ch) for ch in raw):
        cleaned = "".join(ch for ch in raw if not invisible(ch))
        raise PathProblem(
            RefusalCode.INVALID_PATH,
            f"`{shown(raw)}` contains invisible or control characters", _canonical(cleaned, agent),
        )
    if "\\" in raw:
        raise PathProblem(
            RefusalCode.INVALID_PATH,
            f"`{raw}` contains a backslash: memory paths use `/`",
            _canonical(raw.replace("\\", "/"), agent),
        )
    normal = unicodedata.normalize("NFKC", raw)
    if normal != raw:
        raise PathProblem(
            RefusalCode.INVALID_PATH, unnormal_reason(raw, normal), _canonical(normal, agent)
        )
    if "%" in raw:
        raise PathProblem(
            RefusalCode.INVALID_PATH,
            f"`{raw}` contains `%`: paths are plain text, never percent-encoded",
            _canonical(_percent_decoded(raw), agent),
        )
    if raw != ROOT and not raw.startswith(ROOT + "/"):
        raise PathProblem(
            RefusalCode.INVALID_PATH,
            f"`{raw}` is outside the memory folder: paths start with `{ROOT}/`",
            _canonical(raw, agent),
        )
    rest = raw[len(ROOT) :]
    if rest in ("", "/"):
        return VirtualDir(shared=False)
    segments = rest[1:].split("/")
    trailing = segments[-1] == ""
    if trailing:
        segments.pop()
    if "" in segments:
        raise PathProblem(
            RefusalCode.INVALID_PATH, f"`{raw}` contains an empty segment (`//`)",
            _canonical(raw, agent),
        )
    if any(s in (".", "..") for s in segments):
        raise PathProblem(
            RefusalCode.INVALID_PATH, f"`{raw}` contains a `.` or `..` segment",
            _canonical(raw, agent),
        )
    if segments == [SHARED_SCOPE]:
        return VirtualDir(shared=True)
    if fold(segments[0]) == SHARED_SCOPE and segments[0] != SHARED_SCOPE:
        raise PathProblem(
            RefusalCode.INVALID_PATH, f"`{raw}`: the shared folder is spelled `{SHARED_ROOT}`",
            _canonical(raw, agent),
        )
    shared = segments[0] == SHARED_SCOPE
    names = segments[1:] if shared else segments
    if len(names) > 1:
        folder = SHARED_ROOT if shared else ROOT
        raise PathProblem(
            RefusalCode.NESTED_DIRECTORY,
            f"`{raw}` is in a subfolder: memories live directly in `{ROOT}/` or `{SHARED_ROOT}/`, "
            f"with no other directories",
            _flattened(folder, names, agent),
        )
    if trailing:
        raise PathProblem(
            RefusalCode.INVALID_PATH, f"`{raw}` ends with `/` but names a file",
            _canonical(raw.rstrip("/"), agent),
        )
    try:
        name = check_filename(names[0])
    except NameProblem as problem:
        fixed = virtual_path(shared, problem.fixed) if problem.fixed else None
        raise PathProblem(problem.code, problem.reason, fixed) from None
    return VirtualFile(shared=shared, name=name)


def _canonical(text: str, agent: str | None) -> str | None:
    """The canonical file path nearest to any text, if one can be made from it."""
    segments = [s for s in text.replace("\\", "/").split("/") if s not in ("", ".", "..")]
    if segments and fold(segments[0]).startswith("memories"):
        segments = segments[1:]
    shared = bool(segments) and fold(segments[0]) == SHARED_SCOPE
    if shared:
        segments = segments[1:]
    if not segments:
        return SHARED_ROOT if shared else ROOT
    return _flattened(SHARED_ROOT if shared else ROOT, segments[-1:], agent)


def _flattened(folder: str, segments: list[str], agent: str | None) -> str | None:
    kept = [s for s in segments if agent is None or fold(s) != fold(agent)] or segments[-1:]
    if len(kept) == 1:
        try:
            return f"{folder}/{check_filename(kept[0])}"
        except NameProblem as problem:
            return f"{folder}/{problem.fixed}" if problem.fixed else None
    name = nearest_filename("-".join(s.removesuffix(".md") for s in kept))
    return f"{folder}/{name}" if name else None


def _percent_decoded(text: str) -> str:
    from urllib.parse import unquote

    return unquote(text)
