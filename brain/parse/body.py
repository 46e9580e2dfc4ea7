"""A markdown body's headings and wikilinks, with exact positions. Pure.

Wikilinks are found in the source with a regular expression (which gives exact positions)
and then confirmed with mistune's AST: every candidate gets a private-use marker inserted
after its `[[`, the body is parsed, and only markers that end up in text nodes are links.
Markers inside code spans, fenced or indented code blocks or raw HTML never reach a text
node, so nothing in code counts, by mistune's own reading of the markdown. The native
scanner (brain/parse/native.py) answers the same where it is installed; this is its reference.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate
from typing import Any
from urllib.parse import unquote

from brain.model import (
    Heading,
    WikiLink,
    new_heading,
    new_wikilink,
)
from brain.parse.chunks import body_chunks, has_code_hint
from brain.parse.mistune_ast import tokens as markdown_tokens
from brain.parse.native import NativeScan, native
from brain.parse.spans.anchors import with_sources
from brain.parse.spans.math import outside_math

WIKILINK_RE = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
# The same without the `!`: a literal start, which the regex engine finds eight times faster.
# It finds the same `[[...]]` in the same order (a `!` is never part of one), so each is
# matched again with WIKILINK_RE at its `!` if one is right before it.
LINK_CORE_RE = re.compile(r"\[\[[^\[\]\n]+?\]\]")
# An ATX heading, also inside list items and quotes (`- # x`, `> ## y`); possessive, so a
# line of many markers cannot make the regex backtrack.
ATX_RE = re.compile(
    r"^ {0,3}(?:(?:>|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t]))[ \t]*+)*+(#{1,6})(?:[ \t]+|$)", re.MULTILINE
)
CLOSING_SEQUENCE_RE = re.compile(r"[ \t]+#+[ \t]*$|^#+[ \t]*$")
MARKER_RE = re.compile("\ue000(\\d+)\ue001")
EMPHASIS_RE = re.compile(r"[*_]")
# Lines whose kind a marker appended to them would change: they are never setext text anyway.
NOT_SETEXT_TEXT_RE = re.compile(r"^ {0,3}(?:`{3,}|~{3,}|#|([-*_])(?: *\1){2,} *$)")
SETEXT_UNDERLINE_RE = re.compile(r"\n {0,3}(?:=+|-+)[ \t]*(?=\n|$)")

def split_link(inner: str) -> tuple[str, str | None, str | None]:
    """`target#anchor|label` -> (target, anchor, label); `\\|` (a table cell) counts as `|`."""
    inner = inner.replace("\\|", "|")
    label: str | None = None
    if "|" in inner:
        inner, label = inner.split("|", 1)
        label = label.strip() or None
    anchor: str | None = None
    if "#" in inner:
        inner, anchor = inner.split("#", 1)
        anchor = anchor.strip() or None
    return inner.strip(), anchor, label


def scan_body(
    body: str, body_line: int, *, whole: bool = False
) -> tuple[tuple[Heading, ...], tuple[WikiLink, ...]]:
    """Headings and wikilinks of a markdown body whose first line is `body_line`.

    The body is cut into independent chunks (see brain.parse.chunks); mistune reads every chunk that
    holds a candidate and any code syntax, and only chunks with no code syntax at all are
    taken as they look. `whole=True` has mistune read the whole body in one piece (the
    reference the chunked reading is tested against).

    The native scanner (brain/parse/native.py) reads the chunks taken as they look, and hands back
    the others, which mistune reads here; a body it declines (math, say) is read here whole.
    """
    scanned = _native_scan(body, body_line) if not whole else None
    if scanned is not None:
        return _scanned(body, body_line, scanned)
    return _python_scan(body, body_line, whole)


def headings_and_links(body: str, body_line: int) -> tuple[tuple[Heading, ...], tuple[WikiLink, ...]]:
    """`scan_body`, its headings with their sources (brain.parse.spans.anchors.with_sources). A heading
    the native scanner read is written as shown (its source is its text): only those mistune
    read are looked at again."""
    scanned = _native_scan(body, body_line)
    if scanned is not None:
        return _scanned(body, body_line, scanned, sources=True)
    headings, links = _python_scan(body, body_line)
    return with_sources(headings, body, body_line), links


def _native_scan(body: str, body_line: int) -> NativeScan | None:
    if native is None:
        return None
    try:
        return native.scan_body(body, body_line)
    except UnicodeEncodeError:  # a lone surrogate (a YAML escape) is not UTF-8
        return None


def _python_scan(
    body: str, body_line: int, whole: bool = False,
) -> tuple[tuple[Heading, ...], tuple[WikiLink, ...]]:
    """`scan_body` in Python: the reference of the native scanner, and its fallback."""
    link_matches = [m for m in _wikilinks(body) if _is_link(m)]
    if "$" in body and link_matches:  # math holds no links (brain.parse.spans.math)
        keep = outside_math(body, [m.start() for m in link_matches])
        link_matches = [m for m, kept in zip(link_matches, keep, strict=True) if kept]
    atx = list(_atx_lines(body))
    if not link_matches and not atx and "\n-" not in body and "\n=" not in body:
        return (), ()
    line_starts = _line_starts(body)
    chunks = [(0, len(body))] if whole else body_chunks(body)
    # A chunk's underline is the body's too (chunks end after an empty line): with none in
    # the body, a chunk without candidates is skipped before it is cut out.
    underlines = whole or SETEXT_UNDERLINE_RE.search(body) is not None
    # Candidates by the chunk that holds them.
    chunk_starts = [start for start, _ in chunks]
    by_chunk: dict[int, tuple[list[re.Match[str]], list[re.Match[str]]]] = {}
    for group, matches in ((0, link_matches), (1, atx)):
        for m in matches:
            by_chunk.setdefault(bisect_right(chunk_starts, m.start()) - 1, ([], []))[group].append(m)
    headings: list[Heading] = []
    links: list[WikiLink] = []
    for index in range(len(chunks)) if underlines else sorted(by_chunk):
        start, end = chunks[index]
        chunk_links, chunk_atx = by_chunk.get(index, ([], []))
        setext = _setext_candidates(body[start:end]) if underlines else []
        if not chunk_links and not chunk_atx and not setext:
            continue
        # Emphasis in a heading changes its text as mistune reads it: let mistune read it.
        plain_headings = not any(
            EMPHASIS_RE.search(body, m.end(), _line_end(body, m.end())) for m in chunk_atx
        )
        if not setext and plain_headings and not has_code_hint(body[start:end]):
            # No code syntax in this chunk: every candidate is what it looks like.
            for m in chunk_atx:
                heading = _atx_heading(body, m, line_starts, body_line)
                if heading.text:
                    headings.append(heading)
            links.extend(_link(m, line_starts, body_line) for m in chunk_links)
            continue
        live, found = _read_with_mistune(
            body[start:end], start, chunk_links, chunk_atx, setext, line_starts, body_line
        )
        headings.extend(found)
        links.extend(_link(m, line_starts, body_line) for m in live)
    headings.sort(key=lambda h: h.line)
    return tuple(headings), tuple(links)


def _scanned(
    body: str, body_line: int, scanned: NativeScan, sources: bool = False,
) -> tuple[tuple[Heading, ...], tuple[WikiLink, ...]]:
    """`scan_body`'s answer from the native scanner's: its chunks' headings and links, and
    those of the chunks it left to mistune, read here as `scan_body` reads them (with their
    sources if `sources`)."""
    found_headings, found_links, left, underlines = scanned
    # Their values as the named tuples hold them: each built in one C call, in the body's
    # order (the scanner reads the chunks in order).
    if not left:
        return tuple(map(new_heading, found_headings)), tuple(map(new_wikilink, found_links))
    headings = list(map(new_heading, found_headings))
    links = list(map(new_wikilink, found_links))
    line_starts = _line_starts(body)
    read: list[Heading] = []
    for start, end in left:
        chunk_links = [m for m in _wikilinks(body, start, end) if _is_link(m)]
        if "$" in body and chunk_links:  # math holds no links (brain.parse.spans.math)
            keep = outside_math(body, [m.start() for m in chunk_links])
            chunk_links = [m for m, kept in zip(chunk_links, keep, strict=True) if kept]
        setext = _setext_candidates(body[start:end]) if underlines else []
        live, found = _read_with_mistune(
            body[start:end], start, chunk_links, list(_atx_lines(body, start, end)), setext,
            line_starts, body_line,
        )
        read.extend(found)
        links.extend(_link(m, line_starts, body_line) for m in live)
    headings.extend(with_sources(tuple(read), body, body_line) if sources else read)
    links.sort(key=lambda link: (link.line, link.column))  # the body's order
    headings.sort(key=lambda h: h.line)
    return tuple(headings), tuple(links)


def _wikilinks(body: str, start: int = 0, end: int | None = None) -> Iterator[re.Match[str]]:
    """WIKILINK_RE.finditer(body) (of the links that start in [start, end)), found faster
    (see LINK_CORE_RE)."""
    match = WIKILINK_RE.match
    for m in LINK_CORE_RE.finditer(body, start, len(body) if end is None else end):
        at = m.start()
        found = match(body, at - 1 if at and body[at - 1] == "!" else at)
        assert found is not None
        yield found


def _atx_lines(body: str, start: int = 0, end: int | None = None) -> Iterator[re.Match[str]]:
    """ATX_RE.finditer(body) (of the lines that start in [start, end): `start` a line's
    start), found faster: a match starts a line and holds a `#`, so only lines with a `#` are
    matched (MULTILINE `^` made the engine try every position)."""
    match = ATX_RE.match
    stop = len(body) if end is None else end
    at = body.find("#", start, stop)
    while at >= 0:
        start = body.rfind("\n", 0, at) + 1
        found = match(body, start)
        if found is not None:
            yield found
        line_end = body.find("\n", at)
        if line_end < 0:
            return
        at = body.find("#", line_end, stop)


def _line_end(text: str, pos: int) -> int:
    """Where the line holding `pos` ends (its `\\n`, or the end of the text)."""
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def _read_with_mistune(
    text: str,
    start: int,
    link_matches: list[re.Match[str]],
    atx: list[re.Match[str]],
    setext: list[tuple[int, int]],
    line_starts: list[int],
    body_line: int,
) -> tuple[list[re.Match[str]], list[Heading]]:
    """Which candidates mistune reads as links and headings in `text` (at `start` of the body)."""
    inserts: list[tuple[int, str]] = []
    for i, m in enumerate(link_matches):
        inserts.append((m.start() - start + len(m.group(1)) + 2, f"\ue000{i}\ue001"))
    n_links = len(link_matches)
    heading_lines: list[int] = []
    for m in atx:
        # The space keeps a closing `#` sequence a closing sequence to mistune.
        inserts.append((m.end() - start, f" \ue000{n_links + len(heading_lines)}\ue001 "))
        heading_lines.append(_line_index(line_starts, m.start()))
    first_line = _line_index(line_starts, start)
    for offset, line_index in setext:
        inserts.append((offset, f"\ue000{n_links + len(heading_lines)}\ue001"))
        heading_lines.append(first_line + line_index)
    inserts.sort(key=lambda item: item[0])
    pieces: list[str] = []
    last = 0
    for offset, marker in inserts:
        pieces.append(text[last:offset])
        pieces.append(marker)
        last = offset
    pieces.append(text[last:])
    tokens = markdown_tokens("".join(pieces))
    live: set[int] = set()
    headings: list[Heading] = []
    for token in tokens:
        _walk(token, n_links, live, headings, heading_lines, body_line)
    return [m for i, m in enumerate(link_matches) if i in live], headings


def _is_link(m: re.Match[str]) -> bool:
    inner = m.group(2)
    if "|" in inner or "#" in inner or "\\" in inner:
        target, anchor, _ = split_link(inner)
        if not (target or anchor):
            return False
    elif not inner.strip():  # split_link's target, with no anchor or label to split off
        return False
    at = m.start()
    return at == 0 or m.string[at - 1] != "\\" or not _escaped(m.string, at)


def _escaped(text: str, pos: int) -> bool:
    """An odd number of backslashes before `pos`: `\\[[x]]` is text, `\\\\[[x]]` a link."""
    count = 0
    while pos > 0 and text[pos - 1] == "\\":
        count += 1
        pos -= 1
    return count % 2 == 1


def _walk(
    token: dict[str, Any], n_links: int, live: set[int], headings: list[Heading],
    heading_lines: list[int], body_line: int,
) -> None:
    kind = token.get("type")
    if kind == "text":
        for m in MARKER_RE.finditer(token.get("raw", "")):
            index = int(m.group(1))
            if index < n_links:
                live.add(index)
        return
    if kind == "heading":
        text = "".join(_inline_text(token))
        for m in MARKER_RE.finditer(text):
            index = int(m.group(1))
            if index >= n_links:
                clean = MARKER_RE.sub("", text).strip()
                line = heading_lines[index - n_links] + body_line
                if clean:
                    headings.append(Heading(clean, int(token["attrs"]["level"]), line))
                break
    for child in token.get("children", ()) or ():
        if isinstance(child, dict):
            _walk(child, n_links, live, headings, heading_lines, body_line)
    if kind == "link":
        # `<https://x/[[y]]>`: the marker is in the URL, so the text shown is the URL.
        url = unquote(str((token.get("attrs") or {}).get("url", "")))
        live.difference_update(int(i) for i in MARKER_RE.findall(url))


def _inline_text(token: dict[str, Any]) -> Iterator[str]:
    if token.get("type") in ("text", "codespan"):
        yield token.get("raw", "")
    for child in token.get("children", ()) or ():
        if isinstance(child, dict):
            yield from _inline_text(child)


def _setext_candidates(text: str) -> list[tuple[int, int]]:
    """(offset of the end of the text line, line index) for lines underlined by === or ---."""
    out: list[tuple[int, int]] = []
    line_index = counted = 0  # lines counted incrementally: many underlines stay linear
    for m in SETEXT_UNDERLINE_RE.finditer(text):
        end = m.start()
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end]
        if line.strip() and not line.startswith(("    ", "\t")) and not NOT_SETEXT_TEXT_RE.match(line):
            line_index += text.count("\n", counted, start)
            counted = start
            out.append((start + len(line.rstrip()), line_index))
    return out


def _atx_heading(body: str, m: re.Match[str], line_starts: list[int], body_line: int) -> Heading:
    end = body.find("\n", m.end())
    content = body[m.end() : end if end >= 0 else len(body)]
    content = CLOSING_SEQUENCE_RE.sub("", content).strip()
    return Heading(content, len(m.group(1)), _line_index(line_starts, m.start()) + body_line)


def _link(m: re.Match[str], line_starts: list[int], body_line: int) -> WikiLink:
    line_index = _line_index(line_starts, m.start())
    target, anchor, label = split_link(m.group(2))
    return WikiLink(
        raw=m.group(0),
        target=target,
        label=label,
        anchor=anchor,
        embed=m.group(1) == "!",
        line=line_index + body_line,
        column=m.start() - line_starts[line_index] + 1,
    )


def _line_starts(text: str) -> list[int]:
    """The offset of each line's start: running sums of the lines' lengths, each with its `\\n`."""
    return list(accumulate(map((1).__add__, map(len, text.split("\n"))), initial=0))[:-1]


def _line_index(line_starts: list[int], offset: int) -> int:
    """The index of the line holding `offset` (the last start at or before it)."""
    return bisect_right(line_starts, offset) - 1


