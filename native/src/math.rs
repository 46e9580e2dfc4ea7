//! Where math is in a body: brain/mathspans.py `math_ranges`, its reference. `$...$` spans and
//! `$$...$$` blocks hold no links; code spans and fenced blocks hold no math.

use memchr::{memchr, memchr3};

use crate::text::{closing_ticks, is_python_space, line_end, py_strip, Declined};

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
    closing_ticks(b, after, paragraph_end(b, after), ticks).unwrap_or(after)
}

/// `math_ranges`: [start, end) byte offsets of every math span and block, in order.
pub fn math_ranges(body: &str) -> Result<Vec<(usize, usize)>, Declined> {
    math_ranges_before(body, usize::MAX)
}

/// `math_ranges`' spans and blocks that start before byte `limit` (the same, read no further):
/// for a caller that needs no others, on an ASCII body (where nothing after could decline it).
pub fn math_ranges_before(body: &str, limit: usize) -> Result<Vec<(usize, usize)>, Declined> {
    let b = body.as_bytes();
    let n = b.len();
    let mut out = Vec::new();
    let mut pos = 0;
    let mut no_closer_until = 0; // an inline `$` search already failed up to here
    let mut backslash = memchr(b'\\', b).unwrap_or(n); // the first `\` at or after `pos`, or n
    while pos < n && pos < limit {
        // The first of `` ` ``, `~`, `\`, `$` from `pos`: three looked for at once, `\` apart.
        if backslash < pos {
            backslash = memchr(b'\\', &b[pos..]).map_or(n, |k| pos + k);
        }
        let start = memchr3(b'`', b'~', b'$', &b[pos..]).map_or(n, |k| pos + k).min(backslash);
        if start >= n {
            break;
        }
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
            match display_closer(b, start + 2) {
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
            match inline_closer(body, pos + 1, stop)? {
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

/// DISPLAY_CLOSER_RE `(?<!\\)\$\$` searched from `from`: past the closing `$$`.
fn display_closer(b: &[u8], from: usize) -> Option<usize> {
    (from..b.len().saturating_sub(1)).find(|&i| b[i] == b'$' && b[i + 1] == b'$' && b[i - 1] != b'\\').map(|i| i + 2)
}

/// INLINE_CLOSER_RE `(?<=[^\s\\])\$(?!\d)` in [from, stop): past the closing `$`. A non-ASCII
/// number after a `$` (maybe Python's `\d`) declines the body.
fn inline_closer(body: &str, from: usize, stop: usize) -> Result<Option<usize>, Declined> {
    let b = body.as_bytes();
    let mut next = from;
    while next < stop {
        let Some(k) = memchr(b'$', &b[next..stop]) else { break };
        let i = next + k;
        next = i + 1;
        let prev = body[..i].chars().next_back().expect("i > 0");
        if is_python_space(prev) || prev == '\\' {
            continue;
        }
        match if i + 1 < stop { body[i + 1..].chars().next() } else { None } {
            Some(d) if d.is_ascii_digit() => {}
            Some(d) if !d.is_ascii() && d.is_numeric() => return Err(Declined),
            _ => return Ok(Some(i + 1)),
        }
    }
    Ok(None)
}
