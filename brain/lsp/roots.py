"""Which brain workspace a file belongs to: the nearest folder above it that holds `brain.toml`,
else the nearest one that holds `memory/`.

`brain.toml` wins over a nearer `memory/` because in the space and mindlink layouts every agent
has its own `<agent>/memory/` one level below the workspace. Each workspace folder of the
client is its own brain workspace when it (or a folder above it) is a root by those rules, or
when its folders read as a space or mindlink workspace (layout detection); a file opened
outside those is placed by walking up from it. One `Session` per root, created on first need.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pygls.uris import to_fs_path

from brain.config.workspace import CONFIG_FILE
from brain.workspace import MEMORY_DIR

if TYPE_CHECKING:
    from brain.lsp.session import Session


def find_root(start: Path) -> Path | None:
    """`start` or the nearest folder above it holding `brain.toml`, else the nearest one that
    contains a `memory/` folder."""
    with_memory: Path | None = None
    for folder in (start, *start.parents):
        if (folder / CONFIG_FILE).is_file():
            return folder
        if with_memory is None and (folder / MEMORY_DIR).is_dir():
            with_memory = folder
    return with_memory


def folder_root(folder: Path) -> Path | None:
    """The root of a folder the client opened: as `find_root`, or the folder itself when its
    agents' `<agent>/memory/` make it a space or mindlink workspace without a brain.toml."""
    root = find_root(folder)
    if root is not None and (root == folder or root in folder.parents):
        return root
    from brain.layouts import detect_layout

    try:
        choice = detect_layout(folder)
    except OSError:
        choice = None
    if choice is not None and choice.name in ("space", "mindlink"):
        return folder
    return root


def path_of(uri: str) -> Path | None:
    """The file a `file:` URI names; None for other schemes and for names no file can have."""
    if not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    if not path or "\x00" in path:  # `%00` or a raw NUL: the OS refuses such a name
        return None
    return Path(path).resolve()


class Roots:
    def __init__(self, new_session: Callable[[Path], Session]) -> None:
        self._new_session = new_session
        self._sessions: dict[Path, Session] = {}
        self._located: dict[str, tuple[Session, str] | None] = {}

    def sessions(self) -> list[Session]:
        return list(self._sessions.values())

    def get(self, root: Path) -> Session | None:
        return self._sessions.get(root)

    def ensure(self, root: Path) -> Session:
        session = self._sessions.get(root)
        if session is None:
            session = self._sessions[root] = self._new_session(root)
            self._located.clear()
        return session

    def add_folder(self, uri: str) -> Session | None:
        path = path_of(uri)
        root = folder_root(path) if path is not None else None
        return self.ensure(root) if root is not None else None

    def remove_folder(self, uri: str) -> list[Session]:
        path = path_of(uri)
        if path is None:
            return []
        gone = [root for root in self._sessions if root == path or path in root.parents]
        self._located.clear()
        return [self._sessions.pop(root) for root in gone]

    def locate(self, uri: str, discover: bool = True) -> tuple[Session, str] | None:
        """The session of a file and the file's workspace-relative path (with `/`)."""
        if uri in self._located:
            return self._located[uri]
        path = path_of(uri)
        if path is None:
            return None
        roots = [root for root in self._sessions if root in path.parents]
        root = max(roots, key=lambda r: len(r.parts)) if roots else None
        if root is None and discover:
            root = find_root(path.parent)
        if root is None:
            if discover:
                self._located[uri] = None
            return None
        session = self.ensure(root)
        found = (session, path.relative_to(root).as_posix())
        self._located[uri] = found
        return found
