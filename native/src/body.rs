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

use memchr::{memchr, memchr2, memchr3, memmem};
use pyo3::prelude::*;

/// Python's `str.isspace()`: what `strip()` and `\s` take.
pub fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `s.strip()` (Python's whitespace).
fn py_strip(s: &str) -> &str {
    s.trim_matches(is_python_space)
}

struct Declined;

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

fn line_end(b: &[u8], pos: usize) -> usize {
    memchr(b'\n', &b[pos..]).map_or(b.len(), |i| pos + i)
}

fn has(b: &[u8], needle: &[u8]) -> bool {
    memmem::find(b, needle).is_some()
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

fn skip_blanks(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    i
}

/// The char at byte `i` is a non-ASCII number: maybe one of Python's `\d` (Unicode digits),
/// which this code does not know.
fn unicode_number_at(body: &str, i: usize) -> bool {
    body.as_bytes()[i] >= 0x80 && body[i..].chars().next().is_some_and(char::is_numeric)
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

/// `has_indented_fence` (INDENTED_FENCE_RE): a line of blanks then a fence, or a quote line
/// holding a backtick or `~~~`.
fn has_indented_fence(b: &[u8]) -> bool {
    let mut ls = 0;
    loop {
        let le = line_end(b, ls);
        let line = &b[ls..le];
        let blanks = line.iter().take_while(|&&c| c == b' ' || c == b'\t').count();
        if blanks > 0 && (line[blanks..].starts_with(b"```") || line[blanks..].starts_with(b"~~~")) {
            return true;
        }
        let spaces = line.iter().take(3).take_while(|&&c| c == b' ').count();
        if line.get(spaces) == Some(&b'>') {
            let rest = &line[spaces + 1..];
            if memchr(b'`', rest).is_some() || has(rest, b"~~~") {
                return true;
            }
        }
        if le == b.len() {
            return false;
        }
        ls = le + 1;
    }
}

/// `body_chunks`: byte offsets of the chunks, and of the fenced blocks (opener line start to
/// closer line end) when the body was cut (None: one chunk, its fences not looked for).
type Ranges = Vec<(usize, usize)>;

fn body_chunks(body: &str) -> (Ranges, Option<Ranges>) {
    let b = body.as_bytes();
    let whole = (vec![(0, b.len())], None);
    if memchr2(b'<', b'\t', b).is_some() || has_indented_fence(b) {
        return whole;
    }
    // Fenced blocks (fence_lines: a line that starts with ``` or ~~~).
    let mut fences: Vec<(usize, usize)> = Vec::new();
    let mut opener: Option<(usize, u8, usize)> = None; // start, marker char, marker length
    let mut ls = 0;
    loop {
        let le = line_end(b, ls);
        let line = &b[ls..le];
        if line.len() >= 3 && (line.starts_with(b"```") || line.starts_with(b"~~~")) {
            let mark = line[0];
            let len = line.iter().take_while(|&&c| c == mark).count();
            let rest = &line[len..];
            match opener {
                None => {
                    if mark == b'`' && rest.contains(&b'`') {
                        return whole;
                    }
                    opener = Some((ls, mark, len));
                }
                Some((start, open_mark, open_len)) => {
                    if mark == open_mark && len >= open_len && rest.iter().all(|&c| c == b' ') {
                        fences.push((start, le));
                        opener = None;
                    }
                }
            }
        }
        if le == b.len() {
            break;
        }
        ls = le + 1;
    }
    if let Some((start, _, _)) = opener {
        fences.push((start, b.len()));
    }
    // BOUNDARY_RE `\n\n(?=\S)`, outside the fenced blocks.
    let mut bounds = vec![0];
    let mut fence_index = 0;
    let blank = memmem::Finder::new(b"\n\n");
    let mut i = 0;
    while let Some(k) = blank.find(&b[i..]) {
        i += k;
        {
            let pos = i + 2;
            let next_is_text = body[pos..].chars().next().is_some_and(|c| !is_python_space(c));
            if next_is_text {
                while fence_index < fences.len() && fences[fence_index].1 < pos {
                    fence_index += 1;
                }
                let in_fence = fence_index < fences.len() && fences[fence_index].0 < pos && pos <= fences[fence_index].1;
                if !in_fence {
                    bounds.push(pos);
                }
                i = pos;
                continue;
            }
        }
        i += 1;
    }
    bounds.push(b.len());
    let chunks = bounds.windows(2).filter(|w| w[0] < w[1]).map(|w| (w[0], w[1])).collect();
    (chunks, Some(fences))
}

/// Whether a line (from `ls`, up to `end`) starts with what LINE_CODE_HINT_RE matches: a
/// reference definition `[r]:`, or list and quote marks, digits and blanks then four spaces
/// or a tab (indented code). A non-ASCII number where Python's `\d` decides declines the body.
fn line_code_hint(body: &str, ls: usize, end: usize) -> Result<bool, Declined> {
    let b = &body.as_bytes()[..end];
    let spaces = b[ls..].iter().take(3).take_while(|&&c| c == b' ').count();
    let at = ls + spaces;
    if b.get(at) == Some(&b'[') {
        let mut j = at + 1;
        while j < b.len() && b[j] != b']' && b[j] != b'\n' {
            j += 1;
        }
        if j > at + 1 && b.get(j) == Some(&b']') && b.get(j + 1) == Some(&b':') {
            return Ok(true);
        }
    }
    let mut p = ls;
    loop {
        if b[p..].starts_with(b"    ") || b.get(p) == Some(&b'\t') {
            return Ok(true);
        }
        match b.get(p) {
            Some(b' ' | b'>' | b'*' | b'+' | b'-' | b'.' | b')') => p += 1,
            Some(c) if c.is_ascii_digit() => p += 1,
            Some(&c) if c >= 0x80 && unicode_number_at(body, p) => return Err(Declined),
            _ => return Ok(false),
        }
    }
}

/// `has_code_hint` of the chunk [start, end).
fn has_code_hint(body: &str, start: usize, end: usize) -> Result<bool, Declined> {
    let b = &body.as_bytes()[start..end];
    if memchr3(b'`', b'<', b'\\', b).is_some() || has(b, b"~~~") || has(b, b"](") {
        return Ok(true);
    }
    let mut ls = start;
    loop {
        if ls < end && line_code_hint(body, ls, end)? {
            return Ok(true);
        }
        match memchr(b'\n', &body.as_bytes()[ls..end]) {
            Some(i) => ls = ls + i + 1,
            None => return Ok(false),
        }
    }
}

/// A line whose reading beside code (a chunk mistune read until now) is surely the fast
/// path's: empty, or plain text (a letter, a `#` heading or tag, a wikilink), maybe in a
/// `- ` list item. Numbers (ordered lists), quotes, reference definitions, indents and the
/// rest are mistune's there: its reading of them near code spans differs from the fast path's.
fn plain_line(body: &str, line: usize, end: usize) -> bool {
    let b = &body.as_bytes()[line..end];
    match b.first() {
        None => true,
        Some(c) if c.is_ascii_alphabetic() || *c == b'#' => true,
        Some(b'[') => b.starts_with(b"[["),
        Some(b'!') => b.starts_with(b"![["),
        Some(b'-') => b.len() > 2 && b[1] == b' ' && b[2] != b' ' && plain_line(body, line + 2, end),
        Some(&c) if c >= 0x80 => body[line..end].chars().next().is_some_and(char::is_alphabetic),
        _ => false,
    }
}

/// The code of a chunk of a cut body whose only code syntax is fenced blocks and code spans
/// on one line: the byte ranges of both, or None (other code syntax: mistune reads it).
///
/// Fenced blocks at a line's start are blocks of their own (a fence interrupts a paragraph,
/// and no line after a fenced block continues what came before it), so outside them the chunk
/// reads as it looks, but for code spans. A code span is found as CommonMark finds it (a run of
/// backticks, closed by the next run of the same length); one that would not close on its own
/// line may run on into the next: mistune decides. So does a paragraph with code spans and
/// emphasis (`*` or `_`) outside them: mistune may read the emphasis first. Returns the
/// ranges, and whether any is a code span.
fn chunk_code(body: &str, start: usize, end: usize, fences: &[(usize, usize)]) -> Result<Option<(Ranges, bool)>, Declined> {
    let b = body.as_bytes();
    let mut code: Vec<(usize, usize)> = fences.iter().copied().filter(|&(s, _)| start <= s && s < end).collect();
    let mut segments = Vec::new(); // the chunk outside its fenced blocks
    let mut at = start;
    for &(s, e) in &code {
        segments.push((at, s));
        at = e.min(end);
    }
    segments.push((at, end));
    for (s, e) in segments {
        let seg = &b[s..e];
        if memchr2(b'<', b'\\', seg).is_some() || has(seg, b"~~~") || has(seg, b"](") {
            return Ok(None);
        }
        let spans_before = code.len();
        let mut ls = s;
        while ls < e {
            let le = line_end(&b[..e], ls);
            let starts_line = ls == start || b[ls - 1] == b'\n';
            if starts_line && (line_code_hint(body, ls, e)? || !plain_line(body, ls, le)) {
                return Ok(None);
            }
            let mut i = ls;
            while i < le {
                if b[i] != b'`' {
                    i += 1;
                    continue;
                }
                let run = b[i..le].iter().take_while(|&&c| c == b'`').count();
                let mut j = i + run;
                let mut close = None;
                while j < le {
                    if b[j] != b'`' {
                        j += 1;
                        continue;
                    }
                    let other = b[j..le].iter().take_while(|&&c| c == b'`').count();
                    if other == run {
                        close = Some(j + other);
                        break;
                    }
                    j += other;
                }
                let Some(close) = close else { return Ok(None) }; // it may close on a later line
                code.push((i, close));
                i = close;
            }
            ls = le + 1;
        }
        let spans = &code[spans_before..];
        if !spans.is_empty()
            && (s..e).any(|i| matches!(b[i], b'*' | b'_') && !spans.iter().any(|&(a, z)| a <= i && i < z))
        {
            return Ok(None);
        }
    }
    let spans = code.len() > fences.iter().filter(|&&(s, _)| start <= s && s < end).count();
    code.sort_unstable();
    Ok(Some((code, spans)))
}

/// Whether byte `pos` lies strictly inside one of the (sorted) code ranges.
fn in_code(code: &[(usize, usize)], pos: usize) -> bool {
    code.iter().any(|&(s, e)| s < pos && pos < e)
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

type Heading = (String, usize, usize); // text, level, line index
type Link = (String, String, Option<String>, Option<String>, bool, usize, usize); // raw, target, label, anchor, embed, line index, column
type Scan = (Vec<Heading>, Vec<Link>, Vec<(usize, usize)>, bool);

/// `scan_body`'s reading of a body, or None (declined: Python reads it whole). Returns the
/// headings and links of the chunks read here (line indexes from 0, columns from 1), the
/// character offsets of the chunks left to mistune, and whether the body has a setext
/// underline (which those chunks' reading needs). A bug that panics declines the body too:
/// Python reads it, the ingest goes on.
#[pyfunction]
pub fn scan_body(body: &str) -> Option<Scan> {
    std::panic::catch_unwind(|| scan(body).ok()).ok().flatten()
}

fn scan(body: &str) -> Result<Scan, Declined> {
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
        let heading_code = |m: &&AtxMatch| b[m.end..line_end(b, m.end)].iter().any(|&c| matches!(c, b'*' | b'_' | b'`'));
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
                headings.push((text, m.level, line_index(m.line_start)));
            }
        }
        for m in kept_links {
            let line = line_index(m.start);
            let column = body[line_starts[line]..m.start].chars().count() + 1;
            let inner = &body[m.start + 2 + m.embed as usize..m.end - 2];
            let (target, anchor, label) = split_link(inner);
            found.push((body[m.start..m.end].to_owned(), target, label, anchor, m.embed, line, column));
        }
    }
    Ok((headings, found, slow, underlines))
}

/// `_paragraph_end` (BLANK_LINE_RE `\n[ \t>]*\n`): where the paragraph holding `pos` ends.
fn paragraph_end(b: &[u8], pos: usize) -> usize {
    let mut i = pos;
    while let Some(k) = memchr(b'\n', &b[i..]) {
        let at = i + k;
        let mut j = at + 1;
        while j < b.len() && matches!(b[j], b' ' | b'\t' | b'>') {
            j += 1;
        }
        if j < b.len() && b[j] == b'\n' {
            return at;
        }
        i = at + 1;
    }
    b.len()
}

/// FENCE_RE `^ {0,3}(`{3,}|~{3,})(.*)$` at a line start: (marker start, marker length, line end).
fn fence_at(b: &[u8], line_start: usize) -> Option<(usize, usize, usize)> {
    let spaces = b[line_start..].iter().take(3).take_while(|&&c| c == b' ').count();
    let at = line_start + spaces;
    let mark = *b.get(at)?;
    if mark != b'`' && mark != b'~' {
        return None;
    }
    let len = b[at..].iter().take_while(|&&c| c == mark).count();
    (len >= 3).then(|| (at, len, line_end(b, at)))
}

/// `_fence_end`: past the closing fence line (same character, as long or longer, nothing but
/// whitespace after it), else the body's end.
fn fence_end(body: &str, opener: (usize, usize, usize)) -> usize {
    let b = body.as_bytes();
    let (at, len, end) = opener;
    let mark = b[at];
    let mut ls = end + 1;
    while ls <= b.len() && end < b.len() {
        if let Some((cat, clen, cend)) = fence_at(b, ls) {
            if b[cat] == mark && clen >= len && py_strip(&body[cat + clen..cend]).is_empty() {
                return cend;
            }
        }
        let le = line_end(b, ls);
        if le == b.len() {
            break;
        }
        ls = le + 1;
    }
    b.len()
}

/// `_code_span_end`: past the closing run of exactly `ticks` backticks in the paragraph,
/// else `after`.
fn code_span_end(b: &[u8], after: usize, ticks: usize) -> usize {
    let stop = paragraph_end(b, after);
    let mut i = after;
    while i < stop {
        if b[i] != b'`' {
            i += 1;
            continue;
        }
        let run = b[i..stop].iter().take_while(|&&c| c == b'`').count();
        // (?<!`)`{ticks}(?!`), searched up to `stop` (its end of text): a whole run of `ticks`.
        if (i == 0 || b[i - 1] != b'`') && run == ticks {
            return i + run;
        }
        i += run;
    }
    after
}

/// `math_ranges`: [start, end) byte offsets of every math span and block, in order.
fn math_ranges(body: &str) -> Result<Vec<(usize, usize)>, Declined> {
    let b = body.as_bytes();
    let n = b.len();
    let mut out = Vec::new();
    let mut pos = 0;
    let mut no_closer_until = 0; // an inline `$` search already failed up to here
    while pos < n {
        let Some(k) = b[pos..].iter().position(|&c| matches!(c, b'`' | b'~' | b'\\' | b'$')) else { break };
        let start = pos + k;
        let c = b[start];
        if c == b'`' || c == b'~' {
            let line_start = memchr::memrchr(b'\n', &b[..start]).map_or(0, |i| i + 1);
            let fence = if start - line_start <= 3 { fence_at(b, line_start) } else { None };
            match fence {
                Some(f) if f.0 == start => pos = fence_end(body, f),
                _ if c == b'`' => {
                    let run = b[start..].iter().take_while(|&&x| x == b'`').count();
                    pos = code_span_end(b, start + run, run);
                }
                _ => pos = start + 1,
            }
        } else if c == b'\\' {
            pos = start + 2;
        } else if b.get(start + 1) == Some(&b'$') {
            // DISPLAY_CLOSER_RE `(?<!\\)\$\$` from start + 2.
            let mut close = None;
            let mut i = start + 2;
            while i + 1 < n {
                if b[i] == b'$' && b[i + 1] == b'$' && b[i - 1] != b'\\' {
                    close = Some(i + 2);
                    break;
                }
                i += 1;
            }
            match close {
                Some(end) => {
                    out.push((start, end));
                    pos = end;
                }
                None => pos = start + 2,
            }
        } else {
            pos = start + 1;
            if pos >= n || body[pos..].chars().next().is_some_and(is_python_space) || start < no_closer_until {
                continue;
            }
            let stop = paragraph_end(b, pos);
            // INLINE_CLOSER_RE `(?<=[^\s\\])\$(?!\d)` in [pos + 1, stop).
            let mut close = None;
            let mut i = pos + 1;
            while i < stop {
                if b[i] == b'$' {
                    let prev = body[..i].chars().next_back().expect("i > 0");
                    if !is_python_space(prev) && prev != '\\' {
                        let next = if i + 1 < stop { body[i + 1..].chars().next() } else { None };
                        match next {
                            Some(d) if d.is_ascii_digit() => {}
                            Some(d) if !d.is_ascii() && d.is_numeric() => return Err(Declined),
                            _ => {
                                close = Some(i + 1);
                                break;
                            }
                        }
                    }
                }
                i += 1;
            }
            match close {
                Some(end) => {
                    out.push((start, end));
                    pos = end;
                }
                None => no_closer_until = stop,
            }
        }
    }
    Ok(out)
}
