//! A note's mention seed in one pass: brain/parse/mention_seeds.py `seed_of`'s candidates (the
//! text of wikilinks left out) and, for each, whether it is prose (brain/parse/mentions.py
//! `_prose_only`), whose Python code is the reference (tests/unit/test_native_mention_prose.py
//! holds the two equal on the table, random bodies and the benchmark's notes).
//!
//! The prose decision was most of a seed's cost in Python: mistune on every paragraph with
//! code or link syntax. Here the body is cut into the same chunks (crate::chunks), and a
//! candidate is decided where this code is sure, as crate::body decides a wikilink: in a
//! wikilink, URL or math (never prose); in a chunk without code or link syntax (prose); in a
//! chunk whose only code is fenced blocks and one-line code spans and that has no markdown
//! link (prose unless in the code). Every other candidate is ASK: Python decides it with
//! mistune, exactly as before. A body this code cannot be sure of (a non-ASCII character
//! before a URL's scheme, where Python's `\b` decides; a non-ASCII number where its `\d`
//! does) is ASK whole.
//!
//! Offsets given back are in characters, as Python counts them.

use std::sync::OnceLock;

use memchr::{memchr, memmem};
use pyo3::prelude::*;
use regex::Regex;
use rustc_hash::FxHashSet;

use crate::chunks::{body_chunks, chunk_code, has_code_hint, in_code};
use crate::math::math_ranges_before;
use crate::mentions::{is_word, name_runs, words, MentionWords};
use crate::text::{has, Declined};

const NOT_PROSE: u8 = 0;
const PROSE: u8 = 1;
const ASK: u8 = 2;

/// (first character, length in characters, first character, end character, the name's
/// number, prose state). Its first two fields are all that orders candidates and skips
/// overlaps (brain/parse/mention_seeds.py `seed_survivors`: `i < after`, `after = i + n`):
/// a candidate starting before the end of the last match lies inside it, as one whose first
/// word came before that match's last word did. They were a word index and a word count,
/// which only a scan of every word of the body knows (crate::seeded_count's is sparse).
pub(crate) type Candidate = (usize, usize, usize, usize, usize, u8);

/// `seed_of`'s candidates: as `mention_candidates` on the body with its wikilinks blanked
/// (`blank_links`: LINK_CORE_RE's matches), those spanning a line dropped, each with its
/// state (0: not prose, 1: prose, 2: Python decides). `lowered` is `body.lower()` (of the
/// same length: the caller checks) and `extra_word_chars` its non-ASCII characters that `\w`
/// matches; without them (None), the body is lower-cased here where each of its non-ASCII
/// characters is one `known` (else None: the caller lower-cases it and asks again).
#[pyfunction]
#[pyo3(signature = (body, lowered, extra_word_chars, table, blank_links))]
pub fn mention_seed_candidates(
    body: &str,
    lowered: Option<&str>,
    extra_word_chars: &str,
    table: &MentionWords,
    blank_links: bool,
) -> Option<Vec<Candidate>> {
    let mut extra: FxHashSet<char> = extra_word_chars.chars().collect();
    let owned;
    // Lower-cased here, each character keeps its UTF-8 length: a word's byte offsets in `low`
    // are its offsets in the body, and no character is counted but a candidate's.
    let (low, aligned) = match lowered {
        Some(l) => (l, false),
        None if body.is_ascii() => {
            owned = body.to_ascii_lowercase();
            (owned.as_str(), true)
        }
        None => {
            owned = lower_known(body, &mut extra)?;
            (owned.as_str(), true)
        }
    };
    let b = body.as_bytes();
    let found: Vec<(&str, usize, usize)> = if aligned {
        word_bytes(low, &extra)
    } else {
        // Python's lower-casing (rare): characters are what the two have in common.
        let offsets: Vec<usize> = body.char_indices().map(|(i, _)| i).chain(std::iter::once(b.len())).collect();
        if offsets.len() != low.chars().count() + 1 {
            return None; // not the same length: the caller's contract is broken, Python's then
        }
        words(low, &extra).into_iter().map(|(w, s, e)| (w, offsets[s], offsets[e])).collect()
    };
    Some(seed_from_words(body, found, table, blank_links))
}

/// `mention_seed_candidates`' answer from the body's words (lower-cased, byte offsets in the
/// body, in order).
fn seed_from_words(body: &str, mut found: Vec<(&str, usize, usize)>, table: &MentionWords, blank_links: bool) -> Vec<Candidate> {
    let b = body.as_bytes();
    if blank_links && has_link(b) {
        // Words and links both ascend: one walk down the links, not a search a word (a
        // binary search for each of a body's words was a fifth of the scan).
        let links = link_cores(b);
        let mut k = 0;
        found.retain(|&(_, start, _)| {
            while k < links.len() && links[k].1 <= start {
                k += 1;
            }
            !(k < links.len() && links[k].0 <= start)
        });
    }
    let runs: Vec<(usize, usize, usize)> =
        name_runs(&found, table).into_iter().map(|(i, n, k)| (found[i].1, found[i + n - 1].2, k)).collect();
    seed_from_runs(body, &runs, &mut Vec::new(), None)
}

/// The candidates of the runs of words that spell a name (byte offsets in the body, the
/// name's number; in order, a word's runs longest first): the part shared with the one-scan
/// count (crate::seeded_count), which finds the runs while it counts the words. `spans`: a
/// buffer (each candidate's byte offsets in the body), kept from body to body there; `links`:
/// the body's `link_cores` where the caller has them.
pub(crate) fn seed_from_runs(
    body: &str,
    runs: &[(usize, usize, usize)],
    spans: &mut Vec<(usize, usize)>,
    links: Option<&[(usize, usize)]>,
) -> Vec<Candidate> {
    let b = body.as_bytes();
    let ascii = body.is_ascii();
    let (mut at_byte, mut at_char) = (0, 0); // candidates' starts ascend: characters counted once
    let mut out = Vec::with_capacity(runs.len());
    spans.clear();
    for &(bs, be, k) in runs {
        if memchr(b'\n', &b[bs..be]).is_some() {
            continue; // as seed_of: a name never spans lines
        }
        let (start, end) = if ascii {
            (bs, be)
        } else {
            at_char += body[at_byte..bs].chars().count();
            at_byte = bs;
            (at_char, at_char + body[bs..be].chars().count())
        };
        out.push((start, end - start, start, end, k, ASK));
        spans.push((bs, be));
    }
    if out.is_empty() {
        return out;
    }
    // A bug that panics leaves every candidate to Python: the ingest goes on.
    let states = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| prose_states(body, spans, links)));
    if let Ok(Ok(states)) = states {
        for (candidate, state) in out.iter_mut().zip(states) {
            candidate.5 = state;
        }
    }
    out
}

/// `words` of `low`, in byte offsets.
fn word_bytes<'a>(low: &'a str, extra: &FxHashSet<char>) -> Vec<(&'a str, usize, usize)> {
    let mut out = Vec::with_capacity(low.len() / 6); // a word and its separator: ~6 bytes
    let mut start: Option<usize> = None;
    let mut push = |at: usize, word: bool, start: &mut Option<usize>| match (word, *start) {
        (true, None) => *start = Some(at),
        (false, Some(s)) => {
            out.push((&low[s..at], s, at));
            *start = None;
        }
        _ => {}
    };
    if low.is_ascii() {
        for (at, &c) in low.as_bytes().iter().enumerate() {
            push(at, c.is_ascii_alphanumeric() || c == b'_', &mut start);
        }
    } else {
        // Byte by byte, a character decoded only where a byte is not ASCII (most of a body
        // is ASCII around a few accented names or dashes).
        let bytes = low.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let c = bytes[at];
            if c < 0x80 {
                push(at, c.is_ascii_alphanumeric() || c == b'_', &mut start);
                at += 1;
            } else {
                let ch = low[at..].chars().next().expect("a character starts here");
                push(at, is_word(ch, extra), &mut start);
                at += ch.len_utf8();
            }
        }
    }
    push(low.len(), false, &mut start);
    out
}

/// `body.lower()`, the non-ASCII word characters of it added to `extra`; None if a character
/// is not `known`.
fn lower_known(body: &str, extra: &mut FxHashSet<char>) -> Option<String> {
    let mut out = String::with_capacity(body.len());
    for c in body.chars() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
            continue;
        }
        let (lower, word) = known(c)?;
        if word {
            extra.insert(lower);
        }
        out.push(lower);
    }
    Some(out)
}

/// Python's `c.lower()` (one character) and whether `\w` matches it, for the non-ASCII
/// characters notes are full of: Latin-1's letters and signs, CJK ideographs, punctuation,
/// arrows, symbols, emoji and their variation selectors. Python's Unicode tables are the
/// reference: tests/unit/test_native_mention_prose.py asks Python about every one of them.
/// Any other character: None (Python lower-cases the body, as before).
pub(crate) fn known(c: char) -> Option<(char, bool)> {
    let u = c as u32;
    let sign = Some((c, false));
    match u {
        0xD7 | 0xF7 => sign,
        0xC0..=0xDE => Some((char::from_u32(u + 0x20)?, true)),
        0xDF..=0xFF => Some((c, true)),
        0xAA | 0xB2 | 0xB3 | 0xB5 | 0xB9 | 0xBA | 0xBC..=0xBE => Some((c, true)),
        0xA0..=0xBF => sign,
        0x2139 => Some((c, true)), // ℹ: a lower-case letter to Python
        0x4E00..=0x9FFF => Some((c, true)),
        0x2776..=0x2793 => None, // dingbat digits: numbers, so `\w`
        0x2000..=0x206F | 0x2190..=0x23FF | 0x2500..=0x27BF | 0x2B00..=0x2BFF => sign,
        0x3000..=0x3004 | 0x3008..=0x3011 | 0xFE00..=0xFE0F => sign,
        0x1F300..=0x1F64F | 0x1F680..=0x1F6FF | 0x1F900..=0x1F9FF => sign,
        _ => None,
    }
}

/// LINK_CORE_RE `\[\[[^\[\]\n]*\]\]`'s matches (byte offsets), in order.
pub(crate) fn link_cores(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    link_cores_into(b, &mut out);
    out
}

/// `link_cores` into `out` (cleared first): a buffer the one-scan count keeps.
pub(crate) fn link_cores_into(b: &[u8], out: &mut Vec<(usize, usize)>) {
    static OPEN: OnceLock<memmem::Finder<'static>> = OnceLock::new();
    let finder = OPEN.get_or_init(|| memmem::Finder::new(b"[["));
    out.clear();
    let mut from = 0;
    while let Some(k) = finder.find(&b[from..]) {
        let at = from + k;
        let mut end = at + 2;
        while end < b.len() && !matches!(b[end], b'[' | b']' | b'\n') {
            end += 1;
        }
        if b[end..].starts_with(b"]]") {
            out.push((at, end + 2));
            from = end + 2;
        } else {
            from = at + 1;
        }
    }
}

/// `_inside`: whether [start, end) touches one of the sorted disjoint `spans`.
fn touches(spans: &[(usize, usize)], start: usize, end: usize) -> bool {
    let k = spans.partition_point(|&(s, _)| s < end);
    k > 0 && spans[k - 1].1 > start
}

/// URL_RE (below), compiled once.
fn url_regex() -> &'static Regex {
    static URL: OnceLock<Regex> = OnceLock::new();
    URL.get_or_init(|| {
        Regex::new(r"(?:(?-u:\b)[a-zA-Z][a-zA-Z0-9+.\-]*://|(?-u:\b)www\.)[^\s\x1c-\x1f]+").expect("URL pattern")
    })
}

/// URL_RE `(?:\b[a-zA-Z][a-zA-Z0-9+.-]*://|\bwww\.)\S+` (Python's `\S`: not `str.isspace`).
/// Its `\b` is ASCII's here: one that a non-ASCII character decides declines the body.
fn url_spans(body: &str) -> Result<Vec<(usize, usize)>, Declined> {
    let url = url_regex();
    let b = body.as_bytes();
    let mut out = Vec::new();
    for m in url.find_iter(body) {
        if m.start() > 0 && b[m.start() - 1] >= 0x80 {
            return Err(Declined); // Python's `\w` on that character decides the `\b`
        }
        out.push((m.start(), m.end()));
    }
    Ok(out)
}

/// `url_spans` of an ASCII body (nothing to decline) on the lines of these spans (ascending
/// starts, none spanning a line) only: the same matches there, as a match never spans lines
/// and a line's start is a `\b` as the body's is.
fn url_spans_on_lines(body: &str, spans: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let b = body.as_bytes();
    let mut out = Vec::new();
    let mut read = 0; // the lines before this byte are read
    for &(start, _) in spans {
        if start < read {
            continue;
        }
        let line = memchr::memrchr(b'\n', &b[..start]).map_or(0, |i| i + 1);
        let end = memchr(b'\n', &b[start..]).map_or(b.len(), |i| start + i);
        if has_url(&b[line..end]) {
            out.extend(url_regex().find_iter(&body[line..end]).map(|m| (line + m.start(), line + m.end())));
        }
        read = end + 1;
    }
    out
}

/// `_needs_ast` of body[start..end]: code hints or a reference link's `][`.
fn needs_ast(body: &str, start: usize, end: usize) -> Result<bool, Declined> {
    Ok(has_code_hint(body, start, end)? || has(&body.as_bytes()[start..end], b"]["))
}

/// Whether `b` holds `[[`, with one searcher built once (`memmem::find` builds one a call).
pub(crate) fn has_link(b: &[u8]) -> bool {
    static LINK: OnceLock<memmem::Finder<'static>> = OnceLock::new();
    LINK.get_or_init(|| memmem::Finder::new(b"[[")).find(b).is_some()
}

/// Whether `b` may hold a URL (`://` or `www.`), as `has` would say, with searchers built once.
fn has_url(b: &[u8]) -> bool {
    static SCHEME: OnceLock<memmem::Finder<'static>> = OnceLock::new();
    static WWW: OnceLock<memmem::Finder<'static>> = OnceLock::new();
    SCHEME.get_or_init(|| memmem::Finder::new(b"://")).find(b).is_some()
        || WWW.get_or_init(|| memmem::Finder::new(b"www.")).find(b).is_some()
}

/// `_prose_only` on candidates at these byte spans (ascending starts): each one's state;
/// `known_links`: the body's `link_cores`, if found already.
fn prose_states(body: &str, spans: &[(usize, usize)], known_links: Option<&[(usize, usize)]>) -> Result<Vec<u8>, Declined> {
    let b = body.as_bytes();
    let found;
    let links: &[(usize, usize)] = match known_links {
        Some(links) => links,
        None => {
            found = if has_link(b) { wikilink_spans(b) } else { Vec::new() };
            &found
        }
    };
    // On an ASCII body nothing declines it, so URLs and math are looked for only where they
    // may touch a candidate: URLs (which never span lines) on the candidates' lines, math
    // before the last candidate's end.
    let ascii = body.is_ascii();
    let urls = if ascii { url_spans_on_lines(body, spans) } else if has_url(b) { url_spans(body)? } else { Vec::new() };
    let limit = if ascii { spans.iter().map(|&(_, e)| e).max().unwrap_or(0) } else { b.len() };
    let math = if memchr(b'$', &b[..limit]).is_some() { math_ranges_before(body, limit)? } else { Vec::new() };
    let mut states: Vec<u8> = spans
        .iter()
        .map(|&(s, e)| {
            let skip = [links, &urls, &math].into_iter().any(|l| !l.is_empty() && touches(l, s, e));
            if skip { NOT_PROSE } else { PROSE }
        })
        .collect();
    if !needs_ast(body, 0, b.len())? {
        return Ok(states);
    }
    let (chunks, fences) = body_chunks(body);
    let mut j = 0;
    for &(cs, ce) in &chunks {
        let first = j;
        while j < spans.len() && spans[j].0 < ce {
            j += 1;
        }
        if !states[first..j].contains(&PROSE) || !needs_ast(body, cs, ce)? {
            continue;
        }
        // A markdown link's text is no prose: where the chunk may hold one, mistune decides.
        let chunk = &b[cs..ce];
        let code = match fences.as_deref() {
            Some(f) if !has(chunk, b"](") && !has(chunk, b"][") => chunk_code(body, cs, ce, f)?.map(|(c, _)| c),
            _ => None,
        };
        for k in first..j {
            if states[k] != PROSE {
                continue;
            }
            states[k] = match &code {
                Some(c) if in_code(c, spans[k].0) => NOT_PROSE,
                Some(_) => PROSE,
                None => ASK,
            };
        }
    }
    Ok(states)
}

/// WIKILINK_SPAN_RE `!?\[\[[^\[\]\n]*\]\]`'s matches, less their `!` (a `!` is no word: a
/// match touches the span or not alike).
fn wikilink_spans(b: &[u8]) -> Vec<(usize, usize)> {
    link_cores(b)
}
