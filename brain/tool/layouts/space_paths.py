"""Paths of the Space's memory (`~/memory/<path>`, seeds/001) -> checked segments. Pure.

The Space's bounds are on paths, not sizes: at most 512 bytes of path (UTF-8) and 16 levels
under `~/memory/`. They are enforced on writes (a file already on disk past them can still be
read and deleted; `brain check` reports it as `path-too-long` / `path-too-deep`). Every
refusal comes with a path that fits, so the next call can land.

A segment is any file name except: empty, `.`, `..`, a hidden name (dot-files are brain's
own temporary files and are not part of the graph), invisible or control characters, a
backslash, a form other than NFC (two spellings of one name would be two files), or more
than MAX_SEGMENT_BYTES bytes (the file system's limit, less room for an atomic write's temp
name).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from brain.tool.calls.refusal import RefusalCode, invisible, shown

HOME = "~/memory"
MAX_PATH_BYTES = 512
MAX_DEPTH = 16
MAX_SEGMENT_BYTES = 230


class SpacePathProblem(Exception):
    """A path that is refused: the code, why (saying what to do) and a path that would work."""

    def __init__(self, code: RefusalCode, reason: str, fixed: str | None) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.fixed = fixed


@dataclass(frozen=True, slots=True)
class SpacePath:
    """A checked path under `~/memory/`; no parts is the memory folder itself."""

    parts: tuple[str, ...]

    @property
    def rel(self) -> str:
        return "/".join(self.parts)

    @property
    def home(self) -> str:
        """`~/memory/<path>` as the agent writes it (the folder itself: `~/memory/`)."""
        return f"{HOME}/{self.rel}"

    @property
    def is_root(self) -> bool:
        return not self.parts


def parse_space_path(raw: object, *, writing: bool = False) -> SpacePath:
    """The path `raw` names (`~/memory/a/b.md`, `/a/b.md` or `a/b.md`), or SpacePathProblem.

    `writing` adds the Space's bounds (512 bytes, 16 levels)."""
    if not isinstance(raw, str):
        raise SpacePathProblem(RefusalCode.INVALID_PATH, "the path must be a string", HOME + "/")
    text = raw
    if text == HOME or text.startswith(HOME + "/"):
        text = text[len(HOME) :]
    elif text.startswith("~"):
        raise SpacePathProblem(
            RefusalCode.INVALID_PATH,
            f"`{shown(raw)}` is outside the memory folder: paths start with `{HOME}/`",
            None,
        )
    segments = text.split("/")
    while segments and segments[0] == "":
        segments.pop(0)  # "/a" and "a" are the same path from the memory root
    if segments and segments[-1] == "":
        segments.pop()  # "a/" names the folder a
    for segment in segments:
        _check_segment(raw, segment)
    path = SpacePath(tuple(segments))
    if writing:
        check_bounds(path)
    return path


def check_bounds(path: SpacePath) -> None:
    """Refuse a path past the Space's bounds, with one within them."""
    size = len(path.rel.encode("utf-8"))
    if size > MAX_PATH_BYTES:
        fixed = _shortened(path.parts)
        raise SpacePathProblem(
            RefusalCode.PATH_TOO_LONG,
            f"the path `{_clip(path.home)}` is {size:,} bytes (UTF-8) under {HOME}/; the Space "
            f"allows at most {MAX_PATH_BYTES} bytes of path. Use shorter folder and file names",
            fixed,
        )
    if len(path.parts) > MAX_DEPTH:
        kept = [*path.parts[: MAX_DEPTH - 1], "-".join(path.parts[MAX_DEPTH - 1 :])]
        fixed_path = SpacePath(tuple(kept))
        raise SpacePathProblem(
            RefusalCode.PATH_TOO_DEEP,
            f"the path `{_clip(path.home)}` is {len(path.parts)} levels deep under {HOME}/; the "
            f"Space allows at most {MAX_DEPTH}. Keep the tree flatter: merge the deepest folders "
            "into one name",
            fixed_path.home if len(fixed_path.rel.encode("utf-8")) <= MAX_PATH_BYTES else None,
        )


def _check_segment(raw: str, segment: str) -> None:
    where = f"`{_clip(shown(raw))}`"
    if segment == "":
        raise SpacePathProblem(
            RefusalCode.INVALID_PATH, f"{where} contains an empty segment (`//`)",
            _rebuilt(raw, lambda s: s or None),
        )
    if segment in (".", ".."):
        raise SpacePathProblem(
            RefusalCode.INVALID_PATH,
            f"{where} contains a `{segment}` segment: paths go down from {HOME}/, never up",
            _rebuilt(raw, lambda s: None if s in (".", "..") else s),
        )
    if any(invisible(ch) for ch in segment):
        raise SpacePathProblem(
            RefusalCode.INVALID_PATH, f"{where} contains invisible or control characters",
            _rebuilt(raw, lambda s: "".join(ch for ch in s if not invisible(ch)) or None),
        )
    if "\\" in segment:
        raise SpacePathProblem(
            RefusalCode.INVALID_PATH, f"{where} contains a backslash: folders are separated by `/`",
            _rebuilt(raw.replace("\\", "/"), lambda s: s),
        )
    if segment.startswith("."):
        raise SpacePathProblem(
            RefusalCode.INVALID_PATH,
            f"{where} names a hidden file or folder (`{shown(segment)}`): names starting with `.` "
            "are brain's own; drop the dot",
            _rebuilt(raw, lambda s: s.lstrip(".") or None),
        )
    normal = unicodedata.normalize("NFC", segment)
    if normal != segment:
        raise SpacePathProblem(
            RefusalCode.INVALID_PATH,
            f"{where} is not in Unicode normal form C: the same name could be two files",
            _rebuilt(raw, lambda s: unicodedata.normalize("NFC", s)),
        )
    if len(segment.encode("utf-8")) > MAX_SEGMENT_BYTES:
        raise SpacePathProblem(
            RefusalCode.PATH_TOO_LONG,
            f"the name `{_clip(segment)}` is {len(segment.encode('utf-8'))} bytes; one file or "
            f"folder name holds at most {MAX_SEGMENT_BYTES} bytes",
            None,
        )


def _rebuilt(raw: str, fix: Callable[[str], str | None]) -> str | None:
    """The path with each segment passed through `fix` (None drops it), if it then parses."""
    text = raw[len(HOME) :] if raw.startswith(HOME) else raw
    kept = [f for f in (fix(s) for s in text.split("/")) if f]
    candidate = f"{HOME}/" + "/".join(kept)
    try:
        parse_space_path(candidate)
    except SpacePathProblem:
        return None
    return candidate


def _shortened(parts: tuple[str, ...]) -> str | None:
    """The path with its longest names cut (extensions kept) until it fits in the bound."""
    names = list(parts)
    while len("/".join(names).encode("utf-8")) > MAX_PATH_BYTES:
        i = max(range(len(names)), key=lambda k: len(names[k].encode("utf-8")))
        stem, dot, ext = names[i].rpartition(".")
        if not dot or not stem or len(ext) > 10:
            stem, ext = names[i], ""
        if len(stem) <= 8:
            return None  # every name is already short: the path is too deep to shorten
        stem = stem[: max(8, len(stem) * 2 // 3)].rstrip(" -_.")
        names[i] = f"{stem}.{ext}" if ext else stem
    return f"{HOME}/" + "/".join(names)


def _clip(text: str, keep: int = 120) -> str:
    return text if len(text) <= keep else f"{text[: keep - 40]}…{text[-30:]}"
