//! The secret scan's reassembled view in Rust: brain/parse/secrets/stream.py `joined_view`
//! (comments and tags, markup inside a word, spaced letters and in-token line breaks taken
//! out), each pass a port of stream.py's with its leftmost, non-overlapping matches; the
//! Python code is the reference (tests/unit/test_secret_native_view.py). secrets/clear.rs runs
//! the detector's patterns over it. Wherever the view depends on what this code does not know
//! (whether a non-ASCII character is one of Python's `\w` outside the ranges of `word`; `İ`
//! and `ı`, which Python's case-insensitive matching folds to `i`), it answers None and Python
//! decides. Only for NFKC text without format characters: `visible` leaves such a text as it
//! is, so the view starts from the text itself.

use pyo3::prelude::*;
use memchr::{memchr, memchr2, memchr3};
use regex::Regex;
use std::sync::OnceLock;

use crate::text::is_python_space;

/// A question this code cannot answer as Python would: Python decides.
struct Unsure;

type Spans = Vec<(usize, usize)>;

/// Python's `\w` (`str.isalnum()` or `_`) where this code knows it: ASCII, Latin-1, the
/// common punctuation, arrows, CJK, Hangul and emoji (tests/unit/test_secret_native_view.py
/// checks each range against Python).
fn word(c: char) -> Result<bool, Unsure> {
    let n = c as u32;
    if n < 0x80 {
        return Ok(c.is_ascii_alphanumeric() || c == '_');
    }
    match n {
        0xaa | 0xb2 | 0xb3 | 0xb5 | 0xb9 | 0xba | 0xbc..=0xbe => Ok(true),
        0x80..=0xbf | 0xd7 | 0xf7 => Ok(false),
        0xc0..=0xff => Ok(true),
        0x100..=0x24f | 0x4e00..=0x9fff | 0xac00..=0xd7a3 => Ok(true),
        0x2000..=0x206f | 0x218a..=0x245f | 0x2500..=0x2775 | 0x2794..=0x2bff | 0xfe00..=0xfe0f
        | 0x1f10d..=0x1faff => Ok(false),
        _ => Err(Unsure),
    }
}

/// stream.py `_TOKEN`: `[\w+/=-]`.
fn token(c: char) -> Result<bool, Unsure> {
    if matches!(c, '+' | '/' | '=' | '-') {
        return Ok(true);
    }
    word(c)
}

fn token_at(text: &str, at: usize) -> Result<bool, Unsure> {
    match text[at..].chars().next() {
        Some(c) => token(c),
        None => Ok(false),
    }
}

fn token_before(text: &str, at: usize) -> Result<bool, Unsure> {
    match text[..at].chars().next_back() {
        Some(c) => token(c),
        None => Ok(false),
    }
}

/// stream.py `_delete`: the text without the sorted, disjoint spans.
fn delete(text: &str, spans: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for &(start, end) in spans {
        out.push_str(&text[last..start]);
        last = end;
    }
    out.push_str(&text[last..]);
    out
}

fn tag() -> &'static Regex {
    static TAG: OnceLock<Regex> = OnceLock::new();
    TAG.get_or_init(|| {
        Regex::new(r"</?[A-Za-z][A-Za-z0-9-]{0,30}(?:[ \t][^<>\n]{0,200})?/?>").expect("the tag pattern compiles")
    })
}

/// stream.py `_comments_and_tags`.
fn comments_and_tags(text: &str) -> Spans {
    let mut spans: Spans = Vec::new();
    if !text.contains('<') {
        return spans;
    }
    let mut from = 0;
    while let Some(at) = text[from..].find("<!--").map(|i| from + i) {
        let Some(end) = text[at + 4..].find("-->").map(|i| at + 4 + i) else { break };
        spans.push((at, end + 3));
        from = end + 3;
    }
    let comments = spans.len();
    for m in tag().find_iter(text) {
        // Not one that starts inside a comment (`_inside`).
        let at = spans[..comments].partition_point(|&(start, _)| start <= m.start());
        if at == 0 || m.start() >= spans[at - 1].1 {
            spans.push((m.start(), m.end()));
        }
    }
    spans.sort_unstable();
    spans
}

fn is_mark(b: u8) -> bool {
    matches!(b, b'`' | b'*' | b'~')
}

/// stream.py `_markup`: `[`*~\\](?<=T[`*~\\])(?:(?<=[`*~])[`*~]{0,2}|(?<=\\)(?=[_*`~-]))(?=T)`.
fn markup(text: &str) -> Result<Spans, Unsure> {
    let b = text.as_bytes();
    let mut spans: Spans = Vec::new();
    let mut i = 0;
    // The next `\` at or after `i` (found again once passed): prose has few marks.
    let mut slash = memchr(b'\\', b).unwrap_or(b.len());
    loop {
        if slash < i {
            slash = memchr(b'\\', &b[i..]).map_or(b.len(), |k| i + k);
        }
        let mark = memchr3(b'`', b'*', b'~', &b[i..]).map_or(b.len(), |k| i + k);
        i = mark.min(slash);
        if i >= b.len() {
            break;
        }
        let c = b[i];
        if !token_before(text, i)? {
            i += 1;
            continue;
        }
        if c == b'\\' {
            // `\` then a `_` or `-` (the set's characters that are token characters).
            if matches!(b.get(i + 1), Some(b'_' | b'-')) {
                spans.push((i, i + 1));
            }
            i += 1;
            continue;
        }
        let mut run = 1;
        while i + run < b.len() && is_mark(b[i + run]) {
            run += 1;
        }
        // Up to two more marks, then a token character: a run of 1 to 3 marks before one.
        if run <= 3 && token_at(text, i + run)? {
            spans.push((i, i + run));
            i += run;
        } else {
            i += 1;
        }
    }
    Ok(spans)
}

const MIN_SPACED: usize = 8; // stream.py MIN_SPACED

fn char_at(text: &str, at: usize) -> Option<char> {
    text[at..].chars().next()
}

fn is_non_space_at(text: &str, at: usize) -> bool {
    char_at(text, at).is_some_and(|c| !is_python_space(c))
}

/// A single `\S` at `at` (followed by whitespace or the end): the byte after it, or None.
fn single_at(text: &str, at: usize) -> Option<usize> {
    let c = char_at(text, at)?;
    if is_python_space(c) {
        return None;
    }
    let next = at + c.len_utf8();
    (!is_non_space_at(text, next)).then_some(next)
}

/// Whether the text holds MIN_SPACED - 1 (blanks, single character) pairs in a row, as any
/// spaced run does: read a blank run at a time, where the pass reads every character.
fn may_be_spaced(b: &[u8], text: &str) -> bool {
    let (mut chain, mut chain_end) = (0, usize::MAX);
    let mut i = 0;
    while let Some(k) = memchr2(b' ', b'\t', &b[i..]) {
        let start = i + k;
        let end = skip_blanks(b, start);
        i = end;
        if end - start > 3 {
            continue;
        }
        let Some(next) = single_at(text, end) else { continue };
        chain = if chain_end == start { chain + 1 } else { 1 };
        if chain >= MIN_SPACED - 1 {
            return true;
        }
        chain_end = next;
    }
    false
}

/// stream.py `_spaced`: the blanks inside each `(?<!\S)\S(?!\S)(?:[ \t]{1,3}\S(?!\S))+` run
/// of MIN_SPACED characters or more.
fn spaced(text: &str) -> Spans {
    let b = text.as_bytes();
    let mut spans: Spans = Vec::new();
    if !may_be_spaced(b, text) {
        return spans;
    }
    let mut i = 0;
    while i < b.len() {
        let before_ok = i == 0 || text[..i].chars().next_back().is_some_and(is_python_space);
        let first = if before_ok { single_at(text, i) } else { None };
        let Some(mut end) = first else {
            i += char_at(text, i).map_or(1, char::len_utf8);
            continue;
        };
        let mut blanks: Spans = Vec::new();
        loop {
            let mut j = end;
            while j < b.len() && j - end < 4 && matches!(b[j], b' ' | b'\t') {
                j += 1;
            }
            let count = j - end;
            if !(1..=3).contains(&count) {
                break;
            }
            let Some(next) = single_at(text, j) else { break };
            blanks.push((end, j));
            end = next;
        }
        if blanks.is_empty() {
            i += char_at(text, i).map_or(1, char::len_utf8);
            continue;
        }
        if blanks.len() + 1 >= MIN_SPACED {
            spans.extend(blanks);
        }
        i = end;
    }
    spans
}

/// The characters of `_BREAK`'s last look-ahead, lowered as Python's case-insensitive match
/// folds them (the Kelvin sign and the long s; `İ` and `ı` make the whole text unsure).
fn folded(c: char) -> Option<u8> {
    match c {
        '\u{212a}' => Some(b'k'),
        '\u{17f}' => Some(b's'),
        c if c.is_ascii() => Some(c.to_ascii_lowercase() as u8),
        _ => None,
    }
}

/// The prefixes `_BREAK` does not join a line to (`[pousr]`, `[abposr]`, `[-_]` spelled out).
const NO_JOIN: &[&str] = &[
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxa-", "xoxb-", "xoxp-",
    "xoxo-", "xoxs-", "xoxr-", "sk-", "sk_", "rk_", "akia", "asia", "abia", "acca", "aiza", "hf_",
    "npm_", "pypi-", "sg.", "eyj", "password", "passwd", "pwd", "passphrase", "secret", "client",
    "api", "access", "auth", "bearer", "private", "token", "aws",
];

fn starts_no_join(text: &str, at: usize) -> bool {
    let mut head = [0u8; 11];
    let mut n = 0;
    for c in text[at..].chars().take(head.len()) {
        match folded(c) {
            Some(low) => {
                head[n] = low;
                n += 1;
            }
            None => break,
        }
    }
    NO_JOIN.iter().any(|p| head[..n].starts_with(p.as_bytes()))
}

/// `(?!T{0,200}[ \t]*[:=])` fails at `at`: a `=` among the first 201 token characters, or
/// (a run of 200 or fewer) blanks and then `:` or `=` after the run.
fn starts_key(text: &str, at: usize) -> Result<bool, Unsure> {
    let mut j = at;
    let mut run = 0;
    while let Some(c) = char_at(text, j) {
        if !token(c)? {
            break;
        }
        if c == '=' {
            return Ok(true);
        }
        run += 1;
        j += c.len_utf8();
        if run > 200 {
            return Ok(false);
        }
    }
    let b = text.as_bytes();
    while j < b.len() && matches!(b[j], b' ' | b'\t') {
        j += 1;
    }
    Ok(matches!(b.get(j), Some(b':' | b'=')))
}

/// Where a join may end at `at` (after the blanks): its look-aheads hold.
fn joins_at(text: &str, at: usize) -> Result<bool, Unsure> {
    Ok(token_at(text, at)? && !starts_key(text, at)? && !starts_no_join(text, at))
}

fn skip_blanks(b: &[u8], mut at: usize) -> usize {
    while at < b.len() && matches!(b[at], b' ' | b'\t') {
        at += 1;
    }
    at
}

/// After a `---` or `...` fence line starting at `at`: the byte past its `\n`.
fn past_fence(b: &[u8], at: usize) -> Option<usize> {
    let at = skip_blanks(b, at);
    let mark = b.get(at..at + 3)?;
    if mark != b"---" && mark != b"..." {
        return None;
    }
    let end = skip_blanks(b, at + 3);
    (b.get(end) == Some(&b'\n')).then_some(end + 1)
}

/// stream.py `_breaks`: each line break inside a token (`_BREAK`'s leftmost matches).
fn breaks(text: &str) -> Result<Spans, Unsure> {
    let b = text.as_bytes();
    let mut spans: Spans = Vec::new();
    let mut from = 0;
    // Each match holds a `\n`, and the only places `_BREAK` can start for the `\n` at `n` are
    // right before it: the first of the blanks before it, or a `\` before those, or the `\n`
    // itself when no blank is there; each after a token character (a blank or `\` is not one).
    while let Some(k) = memchr(b'\n', &b[from..]) {
        let n = from + k;
        let mut start = n;
        while start > from && matches!(b[start - 1], b' ' | b'\t') {
            start -= 1;
        }
        if start > from && b[start - 1] == b'\\' {
            start -= 1;
        }
        if !token_before(text, start)? {
            from = n + 1;
            continue;
        }
        let after = n + 1;
        let mut end = None;
        if let Some(fence) = past_fence(b, after) {
            let at = skip_blanks(b, fence);
            if joins_at(text, at)? {
                end = Some(at);
            }
        }
        if end.is_none() {
            let at = skip_blanks(b, after);
            if joins_at(text, at)? {
                end = Some(at);
            }
        }
        match end {
            Some(end) => {
                spans.push((start, end));
                from = end;
            }
            None => from = n + 1,
        }
    }
    Ok(spans)
}

/// stream.py `joined_view(text).text` for a text `visible` leaves as it is.
fn view(text: &str) -> Result<String, Unsure> {
    let mut current = text.to_owned();
    let found = comments_and_tags(&current);
    if !found.is_empty() {
        current = delete(&current, &found);
    }
    let found = markup(&current)?;
    if !found.is_empty() {
        current = delete(&current, &found);
    }
    let found = spaced(&current);
    if !found.is_empty() {
        current = delete(&current, &found);
    }
    let found = breaks(&current)?;
    if !found.is_empty() {
        current = delete(&current, &found);
    }
    Ok(current)
}

/// The view as stream.py's `joined_view` reassembles it, or None where this code is unsure
/// (the tests hold it to the Python one).
#[pyfunction]
pub fn secret_view(text: &str) -> Option<String> {
    if text.contains(['\u{130}', '\u{131}']) {
        return None;
    }
    view(text).ok()
}
