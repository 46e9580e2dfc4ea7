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
use crate::math::math_ranges;
use crate::mentions::{words, MentionWords};
use crate::text::{has, Declined};

const NOT_PROSE: u8 = 0;
const PROSE: u8 = 1;
const ASK: u8 = 2;

/// (word index, word count, first character, end character, the name's number, prose state).
type Candidate = (usize, usize, usize, usize, usize, u8);

/// `seed_of`'s candidates: as `mention_candidates` on the body with its wikilinks blanked
/// (`blank_links`: LINK_CORE_RE's matches), those spanning a line dropped, each with its
/// state (0: not prose, 1: prose, 2: Python decides). `lowered` is `body.lower()` when the
/// body is not ASCII (of the same length: the caller checks), None for an ASCII body.
#[pyfunction]
#[pyo3(signature = (body, lowered, extra_word_chars, table, blank_links))]
pub fn mention_seed_candidates(
    body: &str,
    lowered: Option<&str>,
    extra_word_chars: &str,
    table: &MentionWords,
    blank_links: bool,
) -> Vec<Candidate> {
    let owned;
    let low = match lowered {
        Some(l) => l,
        None => {
            owned = body.to_ascii_lowercase();
            &owned
        }
    };
    let b = body.as_bytes();
    // Byte offsets of the body's characters (and of its end): words are counted in characters.
    let offsets: Option<Vec<usize>> =
        (!body.is_ascii()).then(|| body.char_indices().map(|(i, _)| i).chain(std::iter::once(b.len())).collect());
    let byte = |c: usize| offsets.as_ref().map_or(c, |o| o[c]);
    if offsets.as_ref().is_some_and(|o| o.len() != low.chars().count() + 1) {
        return Vec::new(); // not the same length: the caller's contract is broken, Python's then
    }
    let extra: FxHashSet<char> = extra_word_chars.chars().collect();
    let mut found = words(low, &extra);
    if blank_links && has(b, b"[[") {
        let links = link_cores(b);
        found.retain(|&(_, start, _)| !within(&links, byte(start)));
    }
    let mut out = Vec::new();
    let mut spans = Vec::new(); // each candidate's byte offsets in the body
    let mut key = String::new();
    for (i, &(word, start, _)) in found.iter().enumerate() {
        let Some(counts) = table.lengths.get(word) else { continue };
        for &n in counts {
            if i + n > found.len() {
                continue;
            }
            key.clear();
            for (j, (w, _, _)) in found[i..i + n].iter().enumerate() {
                if j > 0 {
                    key.push('\0');
                }
                key.push_str(w);
            }
            if let Some(&k) = table.named.get(key.as_str()) {
                let end = found[i + n - 1].2;
                let (bs, be) = (byte(start), byte(end));
                if memchr(b'\n', &b[bs..be]).is_some() {
                    continue; // as seed_of: a name never spans lines
                }
                out.push((i, n, start, end, k, ASK));
                spans.push((bs, be));
            }
        }
    }
    if out.is_empty() {
        return out;
    }
    // A bug that panics leaves every candidate to Python: the ingest goes on.
    let states = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| prose_states(body, &spans)));
    if let Ok(Ok(states)) = states {
        for (candidate, state) in out.iter_mut().zip(states) {
            candidate.5 = state;
        }
    }
    out
}

/// LINK_CORE_RE `\[\[[^\[\]\n]*\]\]`'s matches (byte offsets), in order.
fn link_cores(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let finder = memmem::Finder::new(b"[[");
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
    out
}

/// Whether `pos` lies in one of the sorted disjoint `spans`.
fn within(spans: &[(usize, usize)], pos: usize) -> bool {
    let k = spans.partition_point(|&(s, _)| s <= pos);
    k > 0 && pos < spans[k - 1].1
}

/// `_inside`: whether [start, end) touches one of the sorted disjoint `spans`.
fn touches(spans: &[(usize, usize)], start: usize, end: usize) -> bool {
    let k = spans.partition_point(|&(s, _)| s < end);
    k > 0 && spans[k - 1].1 > start
}

/// URL_RE `(?:\b[a-zA-Z][a-zA-Z0-9+.-]*://|\bwww\.)\S+` (Python's `\S`: not `str.isspace`).
/// Its `\b` is ASCII's here: one that a non-ASCII character decides declines the body.
fn url_spans(body: &str) -> Result<Vec<(usize, usize)>, Declined> {
    static URL: OnceLock<Regex> = OnceLock::new();
    let url = URL.get_or_init(|| {
        Regex::new(r"(?:(?-u:\b)[a-zA-Z][a-zA-Z0-9+.\-]*://|(?-u:\b)www\.)[^\s\x1c-\x1f]+").expect("URL pattern")
    });
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

/// `_needs_ast` of body[start..end]: code hints or a reference link's `][`.
fn needs_ast(body: &str, start: usize, end: usize) -> Result<bool, Declined> {
    Ok(has_code_hint(body, start, end)? || has(&body.as_bytes()[start..end], b"]["))
}

/// `_prose_only` on candidates at these byte spans (ascending starts): each one's state.
fn prose_states(body: &str, spans: &[(usize, usize)]) -> Result<Vec<u8>, Declined> {
    let b = body.as_bytes();
    let mut skip: Vec<Vec<(usize, usize)>> = Vec::new();
    if has(b, b"[[") {
        skip.push(wikilink_spans(b));
    }
    if has(b, b"://") || has(b, b"www.") {
        skip.push(url_spans(body)?);
    }
    if memchr(b'$', b).is_some() {
        skip.push(math_ranges(body)?);
    }
    let mut states: Vec<u8> =
        spans.iter().map(|&(s, e)| if skip.iter().any(|l| touches(l, s, e)) { NOT_PROSE } else { PROSE }).collect();
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
        let mine: Vec<usize> = (first..j).filter(|&k| states[k] == PROSE).collect();
        if mine.is_empty() || !needs_ast(body, cs, ce)? {
            continue;
        }
        // A markdown link's text is no prose: where the chunk may hold one, mistune decides.
        let chunk = &b[cs..ce];
        let code = match fences.as_deref() {
            Some(f) if !has(chunk, b"](") && !has(chunk, b"][") => chunk_code(body, cs, ce, f)?.map(|(c, _)| c),
            _ => None,
        };
        for k in mine {
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
