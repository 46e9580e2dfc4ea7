//! A body cut into chunks, and what code each holds: brain/chunks.py (`body_chunks`,
//! `has_code_hint`, `has_indented_fence`), and the chunks whose only code is fenced blocks and
//! one-line code spans, which parse.py left to mistune (`chunk_code`).

use memchr::{memchr, memchr3, memmem};

use crate::text::{closing_ticks, has, is_python_space, line_end, unicode_number_at, Declined};

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
pub type Ranges = Vec<(usize, usize)>;

pub fn body_chunks(body: &str) -> (Ranges, Option<Ranges>) {
    let b = body.as_bytes();
    let whole = (vec![(0, b.len())], None);
    if memchr(b'\t', b).is_some() || has_indented_fence(b) {
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
    if html_may_start(b, &fences) {
        return whole;
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

/// `html_may_start` (brain/chunks.py): a `<` outside the fenced blocks with only blanks,
/// quote and list marks before it on its line, where an HTML block may start (and run on past
/// an empty line). A `<` elsewhere is inline (a paragraph ends at an empty line) or code.
fn html_may_start(b: &[u8], fences: &[(usize, usize)]) -> bool {
    memchr::memchr_iter(b'<', b).any(|at| {
        let ls = memchr::memrchr(b'\n', &b[..at]).map_or(0, |i| i + 1);
        b[ls..at].iter().all(|&c| matches!(c, b' ' | b'>' | b'*' | b'+' | b'-' | b'.' | b')') || c.is_ascii_digit())
            && !fences.iter().any(|&(s, e)| s <= at && at < e)
    })
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
pub fn has_code_hint(body: &str, start: usize, end: usize) -> Result<bool, Declined> {
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
        // Text to mistune, which reads no tables: a table row, an opening quote or bracket.
        Some(b'|' | b'(' | b'"' | b'\'') => true,
        // A code span (a run of three or more may be a fence: mistune's).
        Some(b'`') => !b.starts_with(b"```"),
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
pub fn chunk_code(body: &str, start: usize, end: usize, fences: &[(usize, usize)]) -> Result<Option<(Ranges, bool)>, Declined> {
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
        // A `\|` (a `|` in a table cell's link) is text; other escapes are mistune's.
        let escape = memchr::memchr_iter(b'\\', seg).any(|i| seg.get(i + 1) != Some(&b'|'));
        if memchr(b'<', seg).is_some() || escape || has(seg, b"~~~") || !plain_destinations(seg) {
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
                let close = closing_ticks(b, i + run, le, run);
                let Some(close) = close else { return Ok(None) }; // it may close on a later line
                code.push((i, close));
                i = close;
            }
            ls = le + 1;
        }
        let spans = &code[spans_before..];
        if !spans.is_empty()
            && (s..e).any(|i| emphasis_mark(b, i) && !spans.iter().any(|&(a, z)| a <= i && i < z))
        {
            return Ok(None);
        }
    }
    let spans = code.len() > fences.iter().filter(|&&(s, _)| start <= s && s < end).count();
    code.sort_unstable();
    Ok(Some((code, spans)))
}

/// Whether every `](` of `seg` opens a plain link destination: no blanks, balanced
/// parentheses, no `[[`, closed by `)` right after it (no title). A wikilink candidate in a
/// destination or a title is no link to mistune, and the text of a link is text; so beside
/// such links (`[the docs](https://...)`, common in notes) the chunk reads as it looks.
fn plain_destinations(seg: &[u8]) -> bool {
    memmem::find_iter(seg, b"](").all(|at| {
        let mut depth = 1;
        let mut i = at + 2;
        while i < seg.len() {
            match seg[i] {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return !has(&seg[at..i], b"[[");
                    }
                }
                c if c.is_ascii_whitespace() => return false,
                _ => {}
            }
            i += 1;
        }
        false
    })
}

/// A `*`, or a `_` that is not between two ASCII letters or digits: one that may open or
/// close emphasis. An intraword `_` (`feedback_retry_rules`, a snake_case name in a link)
/// can do neither, in CommonMark and in mistune.
fn emphasis_mark(b: &[u8], i: usize) -> bool {
    match b[i] {
        b'*' => true,
        b'_' => !(i > 0 && b[i - 1].is_ascii_alphanumeric() && b.get(i + 1).is_some_and(u8::is_ascii_alphanumeric)),
        _ => false,
    }
}

/// Whether byte `pos` lies strictly inside one of the (sorted) code ranges.
pub fn in_code(code: &[(usize, usize)], pos: usize) -> bool {
    code.iter().any(|&(s, e)| s < pos && pos < e)
}
