"""What a feature needs besides the cursor: the graph, the root, the client, and file texts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from pygls.uris import from_fs_path

from brain import safefs
from brain.lsp.capabilities import ClientFeatures
from brain.lsp.features.catalog import Catalog
from brain.lsp.features.graph import NoteIdentity, identity_of
from brain.lsp.features.positions import LineIndex, split_lines
from brain.parse.note import ParsedNote, normalize_text, parse_note
from brain.store.base import GraphStore

if TYPE_CHECKING:
    from brain.layouts.base import Layout
    from brain.service.mentions import Names


@dataclass(frozen=True)
class Document:
    """One open document as the features see it: its text at one version."""

    uri: str
    rel: str
    text: str
    version: int | None = None
    layout: Layout | None = None  # the workspace's (None: latchai)
    # The names mentions may name, kept by the session's brain until its graph changes
    # (brain.service.mentions.MentionCache): a code action is asked at every cursor move.
    mention_names: Callable[[], Names] | None = None

    @cached_property
    def lines(self) -> list[str]:
        return split_lines(self.text)

    @cached_property
    def note(self) -> ParsedNote:
        return parse_note(self.text, self.rel)

    @cached_property
    def identity(self) -> NoteIdentity | None:
        return identity_of(self.rel, self.layout)

    def index(self, features: ClientFeatures) -> LineIndex:
        return LineIndex(self.lines, features.encoding)


@dataclass(frozen=True)
class Context:
    """A workspace root as the features see it."""

    store: GraphStore
    catalog: Catalog
    root: Path
    features: ClientFeatures
    now: float
    open_text: Callable[[str], str | None] = field(default=lambda rel: None)
    layout: Layout | None = None  # the workspace's (None: latchai)
    # The names mentions may name, kept by the session's brain until its graph changes
    # (brain.service.mentions.MentionCache): a code action is asked at every cursor move.
    mention_names: Callable[[], Names] | None = None

    def uri(self, rel: str) -> str:
        uri: str | None = from_fs_path(str(self.root / rel))
        assert uri is not None
        return uri

    def text_of(self, rel: str) -> str | None:
        """The text the graph was built from: the editor's buffer, else the disk."""
        text = self.open_text(rel)
        if text is not None:
            return text
        try:
            raw = safefs.read_regular_file(self.root / rel)  # never blocks on a FIFO
        except OSError:
            return None
        # Read as the parser reads (no BOM, `\n` line ends), so stored columns line up.
        return normalize_text(raw.decode("utf-8", errors="replace"))

    def lines_of(self, rel: str) -> LineIndex:
        """Lines of a file, to turn stored code point columns into client positions."""
        return LineIndex(split_lines(self.text_of(rel) or ""), self.features.encoding)
