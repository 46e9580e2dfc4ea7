//! A note body's headings and wikilinks: brain/parse.py `scan_body`, whose Python code is the
//! reference (tests/unit/test_native_body.py holds the two equal on random and real bodies).
//!
//! The body is cut into chunks as brain/chunks.py `body_chunks` cuts it. A chunk with a
//! candidate (a wikilink or an ATX heading) and no code syntax, setext underline or emphasis
//! in a heading is read here, as parse.py's fast path reads it; the other chunks are handed
//! back by their offsets for Python to read with mistune. Links in math (brain/mathspans.py)
//! are dropped as there. A body this code cannot be sure of is declined whole (`None`): one
//! with a non-ASCII number where Python's `\d` (Unicode's digits) decides (an ATX heading's
//! list marker, a digit after a closing `$`).
//!
//! Offsets and columns given back are in characters, as Python counts them.

use memchr::{memchr, memmem};
use pyo3::prelude::*;

use crate::chunks::{body_chunks, chunk_code, has_code_hint, in_code};
use crate::math::math_ranges;
use crate::text::{has, line_end, py_strip, skip_blanks, unicode_number_at, Declined};

/// A wikilink candidate that `_is_link` keeps: byte offsets of its `!` or `[[`, and its end.
struct LinkMatch {
    start: usize,
    end: usize,
    embed: bool,
}

/// An ATX heading's match (ATX_RE): the line's start, the `#` run's length, the match's end.
struct AtxMatch {
    line_start: usize,
    level: usize,
    end: usize,
}

/// Every `(!?)\[\[([^\[\]\n]+?)\]\]` match (`_wikilinks`), in order.
fn wikilinks(b: &[u8]) -> Vec<(usize, usize, usize)> {
    // (match start, inner start, inner end): the match ends two bytes after the inner part.
    let mut out = Vec::new();
    let finder = memmem::Finder::new(b"[[");
    let mut from = 0;
    while let Some(k) = finder.find(&b[from..]) {
        let at = from + k;
        let inner = at + 2;
        let mut end = inner;
        while end < b.len() && !matches!(b[end], b'[' | b']' | b'\n') {
            end += 1;
        }
        if end > inner && end + 1 < b.len() && b[end] == b']' && b[end + 1] == b']' {
            let start = if at > 0 && b[at - 1] == b'!' { at - 1 } else { at };
            out.push((start, inner, end));
            from = end + 2;
        } else {
            from = at + 1;
        }
    }
    out
}

/// `split_link(inner)`: (target, anchor, label).
fn split_link(inner: &str) -> (String, Option<String>, Option<String>) {
    let replaced = inner.replace("\\|", "|");
    let (mut rest, label) = match replaced.split_once('|') {
        Some((head, tail)) => (head.to_owned(), Some(py_strip(tail).to_owned()).filter(|l| !l.is_empty())),
        None => (replaced.clone(), None),
    };
    let mut anchor = None;
    if let Some((head, tail)) = rest.split_once('#') {
        anchor = Some(py_strip(tail).to_owned()).filter(|a| !a.is_empty());
        rest = head.to_owned();
    }
    (py_strip(&rest).to_owned(), anchor, label)
}

/// An odd number of backslashes right before `pos` (`_escaped`).
fn escaped(b: &[u8], mut pos: usize) -> bool {
    let mut count = 0;
    while pos > 0 && b[pos - 1] == b'\\' {
        count += 1;
        pos -= 1;
    }
    count % 2 == 1
}

/// `_is_link`: a target or an anchor, and not escaped by a backslash.
fn is_link(body: &str, start: usize, inner: usize, end: usize) -> bool {
    let text = &body[inner..end];
    if text.contains(['|', '#', '\\']) {
        let (target, anchor, _) = split_link(text);
        if target.is_empty() && anchor.is_none() {
            return false;
        }
    } else if py_strip(text).is_empty() {
        return false;
    }
    let b = body.as_bytes();
    start == 0 || b[start - 1] != b'\\' || !escaped(b, start)
}

/// ATX_RE matched at a line start:
/// `^ {0,3}(?:(?:>|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t]))[ \t]*+)*+(#{1,6})(?:[ \t]+|$)`.
fn atx_at(body: &str, line_start: usize) -> Result<Option<AtxMatch>, Declined> {
    let b = body.as_bytes();
    let n = b.len();
    let mut i = line_start;
    while i < n && i < line_start + 3 && b[i] == b' ' {
        i += 1;
    }
    loop {
        if i >= n {
            break;
        }
        let c = b[i];
        let bullet = matches!(c, b'-' | b'*' | b'+') && i + 1 < n && matches!(b[i + 1], b' ' | b'\t');
        if c == b'>' || bullet {
            i = skip_blanks(b, i + 1);
        } else if c.is_ascii_digit() || unicode_number_at(body, i) {
            let mut j = i;
            while j < n && j - i < 9 && b[j].is_ascii_digit() {
                j += 1;
            }
            if j < n && (unicode_number_at(body, j) || (j == i)) {
                return Err(Declined);
            }
            if j < n && matches!(b[j], b'.' | b')') && j + 1 < n && matches!(b[j + 1], b' ' | b'\t') {
                i = skip_blanks(b, j + 1);
            } else {
                break;
            }
        } else {
            break;
        }
    }
    let mut hashes = 0;
    while i + hashes < n && b[i + hashes] == b'#' {
        hashes += 1;
    }
    if hashes == 0 || hashes > 6 {
        return Ok(None);
    }
    let after = i + hashes;
    if after == n || b[after] == b'\n' {
        return Ok(Some(AtxMatch { line_start, level: hashes, end: after }));
    }
    if matches!(b[after], b' ' | b'\t') {
        return Ok(Some(AtxMatch { line_start, level: hashes, end: skip_blanks(b, after) }));
    }
    Ok(None)
}

/// `_atx_lines`: ATX_RE on each line holding a `#`.
fn atx_lines(body: &str) -> Result<Vec<AtxMatch>, Declined> {
    let b = body.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = memchr(b'#', &b[from..]) {
        let at = from + k;
        let line_start = memchr::memrchr(b'\n', &b[..at]).map_or(0, |i| i + 1);
        if let Some(m) = atx_at(body, line_start)? {
            out.push(m);
        }
        let end = line_end(b, at);
        if end == b.len() {
            break;
        }
        from = end + 1;
    }
    Ok(out)
}

/// A heading's text (`_atx_heading`): the rest of its line without a closing `#` sequence
/// (CLOSING_SEQUENCE_RE), stripped.
fn atx_text(body: &str, m: &AtxMatch) -> String {
    let b = body.as_bytes();
    let content = &body[m.end..line_end(b, m.end)];
    let c = content.as_bytes();
    let mut k = c.len();
    while k > 0 && matches!(c[k - 1], b' ' | b'\t') {
        k -= 1;
    }
    let hashes_end = k;
    while k > 0 && c[k - 1] == b'#' {
        k -= 1;
    }
    let cut = if k == hashes_end {
        c.len() // no closing hashes
    } else if k == 0 {
        0 // `^#+[ \t]*$`: nothing but hashes
    } else if matches!(c[k - 1], b' ' | b'\t') {
        let mut s = k;
        while s > 0 && matches!(c[s - 1], b' ' | b'\t') {
            s -= 1;
        }
        s
    } else {
        c.len() // `a#`: hashes that are part of the text
    };
    py_strip(&content[..cut]).to_owned()
}

/// A setext underline line (SETEXT_UNDERLINE_RE after its `\n`): up to three spaces, a run of
/// `=` or of `-`, blanks, then the line's end.
fn is_underline(line: &[u8]) -> bool {
    let spaces = line.iter().take(3).take_while(|&&c| c == b' ').count();
    let rest = &line[spaces..];
    let Some(&mark) = rest.first() else { return false };
    if mark != b'=' && mark != b'-' {
        return false;
    }
    let run = rest.iter().take_while(|&&c| c == mark).count();
    rest[run..].iter().all(|&c| c == b' ' || c == b'\t')
}

/// NOT_SETEXT_TEXT_RE `^ {0,3}(?:`{3,}|~{3,}|#|([-*_])(?: *\1){2,} *$)`: a line whose kind a
/// marker appended would change (a fence, a heading, a thematic break).
fn not_setext_text(line: &str) -> bool {
    let b = line.as_bytes();
    let spaces = b.iter().take(3).take_while(|&&c| c == b' ').count();
    let rest = &b[spaces..];
    if rest.starts_with(b"```") || rest.starts_with(b"~~~") || rest.first() == Some(&b'#') {
        return true;
    }
    match rest.first() {
        Some(&c @ (b'-' | b'*' | b'_')) => {
            rest.iter().all(|&x| x == c || x == b' ') && rest.iter().filter(|&&x| x == c).count() >= 3
        }
        _ => false,
    }
}

/// Whether the chunk [start, end) holds a setext heading candidate (`_setext_candidates`):
/// an underline after a line of text that is not indented and not NOT_SETEXT_TEXT.
fn has_setext(body: &str, start: usize, end: usize) -> bool {
    let b = body.as_bytes();
    let mut prev = start; // the start of the line before the one looked at
    let mut ls = match memchr(b'\n', &b[start..end]) {
        Some(i) => start + i + 1,
        None => return false,
    };
    while ls <= end {
        let le = line_end(&b[..end], ls);
        if is_underline(&b[ls..le]) {
            let line = &body[prev..ls - 1];
            if !py_strip(line).is_empty()
                && !line.starts_with("    ")
                && !line.starts_with('\t')
                && !not_setext_text(line)
            {
                return true;
            }
        }
        if le >= end {
            return false;
        }
        prev = ls;
        ls = le + 1;
    }
    false
}

/// Any SETEXT_UNDERLINE_RE match in the body (an underline after a line break).
fn any_underline(b: &[u8]) -> bool {
    let mut i = 0;
    while let Some(k) = memchr(b'\n', &b[i..]) {
        let ls = i + k + 1;
        if is_underline(&b[ls..line_end(b, ls)]) {
            return true;
        }
        i = ls;
    }
    false
}

/// Character offsets of byte offsets, asked for in ascending order.
struct CharCounter<'a> {
    body: &'a str,
    ascii: bool,
    byte: usize,
    chars: usize,
}

impl CharCounter<'_> {
    fn at(&mut self, byte: usize) -> usize {
        if self.ascii {
            return byte;
        }
        if byte < self.byte {
            self.byte = 0;
            self.chars = 0;
        }
        self.chars += self.body[self.byte..byte].chars().count();
        self.byte = byte;
        self.chars
    }
}

type Heading = (String, usize, usize, &'static str); // text, level, line, source ("": its text)

type Link = (String, String, Option<String>, Option<String>, bool, usize, usize); // raw, target, label, anchor, embed, line, column

type Scan = (Vec<Heading>, Vec<Link>, Vec<(usize, usize)>, bool);

/// `scan_body`'s reading of a body whose first line is `first_line`, or None (declined:
/// Python reads it whole). Returns the headings and links of the chunks read here, as the
/// values of a `Heading` and a `WikiLink` (lines from `first_line`, columns from 1), the
/// character offsets of the chunks left to mistune, and whether the body has a setext
/// underline (which those chunks' reading needs). A bug that panics declines the body too:
/// Python reads it, the ingest goes on.
#[pyfunction]
#[pyo3(signature = (body, first_line = 0))]
pub fn scan_body(body: &str, first_line: usize) -> Option<Scan> {
    std::panic::catch_unwind(|| scan(body, first_line).ok()).ok().flatten()
}

fn scan(body: &str, first_line: usize) -> Result<Scan, Declined> {
    let b = body.as_bytes();
    let mut links: Vec<LinkMatch> = wikilinks(b)
        .into_iter()
        .filter(|&(start, inner, end)| is_link(body, start, inner, end))
        .map(|(start, _, end)| LinkMatch { start, end: end + 2, embed: b[start] == b'!' })
        .collect();
    if !links.is_empty() && memchr(b'$', b).is_some() {
        let ranges = math_ranges(body)?;
        let mut index = 0;
        links.retain(|m| {
            while index < ranges.len() && ranges[index].1 <= m.start {
                index += 1;
            }
            !(index < ranges.len() && ranges[index].0 <= m.start)
        });
    }
    let atx = atx_lines(body)?;
    let has_dash_or_equals = has(b, b"\n-") || has(b, b"\n=");
    if links.is_empty() && atx.is_empty() && !has_dash_or_equals {
        return Ok((Vec::new(), Vec::new(), Vec::new(), false));
    }
    let underlines = any_underline(b);
    let (chunks, fences) = body_chunks(body);
    let mut line_starts = vec![0];
    line_starts.extend(memchr::memchr_iter(b'\n', b).map(|i| i + 1));
    let line_index = |offset: usize| line_starts.partition_point(|&s| s <= offset) - 1;
    let mut counter = CharCounter { body, ascii: body.is_ascii(), byte: 0, chars: 0 };
    let (mut headings, mut found, mut slow) = (Vec::new(), Vec::new(), Vec::new());
    let (mut li, mut ai) = (0, 0);
    for &(start, end) in &chunks {
        let first_link = li;
        while li < links.len() && links[li].start < end {
            li += 1;
        }
        let first_atx = ai;
        while ai < atx.len() && atx[ai].line_start < end {
            ai += 1;
        }
        let (chunk_links, chunk_atx) = (&links[first_link..li], &atx[first_atx..ai]);
        let setext = underlines && has_setext(body, start, end);
        if chunk_links.is_empty() && chunk_atx.is_empty() && !setext {
            continue;
        }
        // The code: none, or the chunk's fenced blocks and code spans (None: mistune's).
        let (code, spans) = if setext {
            (None, false)
        } else if !has_code_hint(body, start, end)? {
            (Some(Vec::new()), false)
        } else {
            match fences.as_deref() {
                Some(f) => match chunk_code(body, start, end, f)? {
                    Some((code, spans)) => (Some(code), spans),
                    None => (None, false),
                },
                None => (None, false),
            }
        };
        let (kept_links, kept_atx);
        if let Some(code) = code.as_ref().filter(|c| !c.is_empty()) {
            // What code holds is not text: a link whose marker (after its `[[`) is in code,
            // a heading line in a fenced block.
            kept_links = chunk_links.iter().filter(|m| !in_code(code, m.start + m.embed as usize + 2)).collect::<Vec<_>>();
            kept_atx = chunk_atx.iter().filter(|m| !in_code(code, m.line_start + 1)).collect::<Vec<_>>();
        } else {
            kept_links = chunk_links.iter().collect();
            kept_atx = chunk_atx.iter().collect();
        }
        // Emphasis, code and escapes (`\|`) in a heading change its text as mistune reads it.
        let heading_code = |m: &&AtxMatch| {
            let text = &b[m.end..line_end(b, m.end)];
            text.iter().any(|&c| matches!(c, b'*' | b'_' | b'`' | b'\\')) || has(text, b"](")
        };
        // mistune reads a heading after an ordered list's number differently when a code span
        // is near (`a\n99. # b\n`x`` holds none, `a\n99. # b\nx` does): it decides.
        let numbered = |m: &&AtxMatch| b[m.line_start..m.end].iter().any(u8::is_ascii_digit);
        // Nor does it close a heading as parse.py's fast path does where a `#` is followed by
        // a blank that is not a space or tab (`# a #\u{a0}`): where the chunk has code
        // (mistune's until now), a heading whose text holds a `#` is left to it.
        let closing = |m: &&AtxMatch| memchr(b'#', &b[m.end..line_end(b, m.end)]).is_some();
        let has_code = code.as_ref().is_some_and(|c| !c.is_empty());
        if code.is_none()
            || kept_atx.iter().any(heading_code)
            || (spans && kept_atx.iter().any(numbered))
            || (has_code && kept_atx.iter().any(closing))
        {
            slow.push((counter.at(start), counter.at(end)));
            continue;
        }
        for m in kept_atx {
            let text = atx_text(body, m);
            if !text.is_empty() {
                headings.push((text, m.level, line_index(m.line_start) + first_line, ""));
            }
        }
        for m in kept_links {
            let line = line_index(m.start);
            let column = body[line_starts[line]..m.start].chars().count() + 1;
            let inner = &body[m.start + 2 + m.embed as usize..m.end - 2];
            let (target, anchor, label) = split_link(inner);
            found.push((body[m.start..m.end].to_owned(), target, label, anchor, m.embed, line + first_line, column));
        }
    }
    Ok((headings, found, slow, underlines))
}
