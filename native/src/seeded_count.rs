//! A chunk's keyword counts and its notes' mention seed candidates from one scan of each
//! body: brain/index/seeded_counting.py `count_and_seed`, whose reference is the two scans
//! apart (`count_block` and `mention_seed_candidates`; tests/unit/test_native_seeded_count.py
//! holds them equal on a table of bodies and the benchmark's notes).
//!
//! A first sync asked to seed mentions cut every body into words twice, in the same helper:
//! once to count its keywords (crate::keywords), once to look its words up among the sync's
//! names (crate::mention_prose). Here the body is counted exactly as the plain count counts
//! it (`pieces`, `Tally::piece`), and the mention scan is sparse: only the words that may
//! start a name are looked at, and only from those is the text read on.
//!
//! The mention scan's words are the runs of `\w` of the body lower-cased: letters, digits,
//! `_` and the non-ASCII characters Python's `\w` takes. A piece of ASCII letters and digits
//! with no `_` on either side is such a word, whole, and its count id says whether it starts
//! a name (`Tally::starts`, one lookup a distinct word). Every other word lies in a "region",
//! a run of bytes that are letters, digits, `_` or non-ASCII with a piece that is joined by
//! `_` or holds a non-ASCII byte: those few regions are read character by character, as the
//! mention scan reads them (crate::mention_prose `lower_known`, `known`), and a body with a
//! character it does not know gets no seed here (found apart, as before). A word of `_`
//! alone is in no piece: a body with `_` is left to the two scans where a name starts so.
//!
//! From each first word, the names it starts are followed along a trie of the table's word
//! numbers (crate::name_trie) as the scan meets the words after it (the words of wikilinks
//! skipped where they are blanked): each word's number is looked up once a chunk, so no
//! string is made or hashed a try. Where the scan cannot be sure the next piece is the next
//! word (a region, a `_` between), that first word is read on after the scan, as before;
//! a candidate carries where it starts and how long it is, not its word index, which only a
//! scan of every word knows (crate::mention_prose `Candidate`).

use memchr::memchr;
use pyo3::prelude::*;

use crate::keywords::{counted_seeded, pieces, Block, Seeding, Tally, CLASS};
use crate::mention_prose::{known, link_cores_into, seed_from_runs, Candidate};
use crate::mentions::MentionWords;
use crate::name_trie::NONE;

/// `count_block(texts, split_slow)`'s block, and for each note (three texts a note) given a
/// `(table, blank_links)` in `seeding`, `mention_seed_candidates(body, None, "", table,
/// blank_links)`'s answer where the one scan can find it; None for any other note.
#[pyfunction]
pub fn count_block_seeded<'py>(
    py: Python<'py>,
    texts: Vec<String>,
    split_slow: &Bound<'py, PyAny>,
    seeding: Vec<Option<(Bound<'py, MentionWords>, bool)>>,
) -> PyResult<(Block<'py>, Vec<Option<Vec<Candidate>>>)> {
    if !texts.len().is_multiple_of(3) || seeding.len() * 3 != texts.len() {
        return Err(pyo3::exceptions::PyValueError::new_err("texts come three a note, a seeding a note"));
    }
    let tables: Vec<Seeding<'_>> = seeding.iter().map(|s| s.as_ref().map(|(t, blank)| (t.get(), *blank))).collect();
    // A bug that panics is a ValueError, on which Python counts and seeds the chunk apart.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| counted_seeded(py, &texts, split_slow, &tables)))
        .unwrap_or_else(|_| Err(pyo3::exceptions::PyValueError::new_err("the native count panicked")))
}

/// The seeded scan's buffers, kept from body to body: a body's few vectors were a tenth of
/// the scan's time in malloc and realloc.
#[derive(Default)]
pub(crate) struct Scratch {
    /// The words that start a name: byte spans, and whether the trie's walk from it decided
    /// its names (in `found`); else they are read on from it after the scan.
    heads: Vec<(usize, usize, bool)>,
    /// The walks along the trie (crate::name_trie) from first words: (head, node, words).
    walks: Vec<(u32, u32, u32)>,
    found: Vec<(u32, u32, usize, usize)>, // names walked: (head, words, end byte, the name's number)
    runs: Vec<(usize, usize, usize)>,     // (first byte, end byte, the name's number)
    key: String,                          // the words read from a first word, NUL-joined
    ends: Vec<(usize, usize)>,            // after each word: the key's length, its end
    word: String,
    pub(crate) spans: Vec<(usize, usize)>, // crate::mention_prose::seed_from_runs'
    links: Vec<(usize, usize)>,            // the body's wikilinks (`link_cores`)
}

/// A body counted as `pieces` and `Tally::piece` count it (the same words, ids and order),
/// and its mention seed candidates (`mention_seed_candidates`' answer), or None where the
/// body is to be seeded apart (the module docstring).
pub(crate) fn seeded_body(
    text: &str,
    table: &MentionWords,
    blank_links: bool,
    tally: &mut Tally,
    weight: u32,
) -> Option<Vec<Candidate>> {
    let mut scratch = std::mem::take(&mut tally.scratch);
    let out = seeded_with(text, table, blank_links, tally, weight, &mut scratch);
    tally.scratch = scratch;
    out
}

/// The walks' first words left to be read on after the scan (a word the walks cannot be
/// sure is the next one came: of a region, or after a `_`).
fn undecide(walks: &mut Vec<(u32, u32, u32)>, heads: &mut [(usize, usize, bool)]) {
    for &(head, _, _) in walks.iter() {
        heads[head as usize].2 = false;
    }
    walks.clear();
}

fn seeded_with(
    text: &str,
    table: &MentionWords,
    blank_links: bool,
    tally: &mut Tally,
    weight: u32,
    scratch: &mut Scratch,
) -> Option<Vec<Candidate>> {
    let b = text.as_bytes();
    let n = b.len();
    let bare_underscore = table.bare_underscore && memchr(b'_', b).is_some();
    let Scratch { heads, walks, found, runs, key, ends, word, spans, links } = scratch;
    heads.clear();
    walks.clear();
    found.clear();
    runs.clear();
    let trie = &table.trie;
    // The words of wikilinks are no words where links are blanked (LINK_CORE_RE); found here,
    // they serve the prose states too.
    if blank_links {
        link_cores_into(b, links);
    }
    let linked: &[(usize, usize)] = if blank_links { links } else { &[] };
    let mut known_all = true;
    let mut region_end = 0; // the end of the last region read
    let mut next_link = 0; // the first link not before the piece
    let mut last = 0; // the end of the last word the walks read
    pieces(b, |start, end, ascii| {
        let id = tally.piece(&b[start..end], ascii, weight);
        if start < region_end || !known_all || bare_underscore {
            return;
        }
        let joined = (start > 0 && b[start - 1] == b'_') || (end < n && b[end] == b'_');
        match id {
            Some(id) if !joined => {
                // A whole word (this piece is the `\w` run): the walks go on along it.
                while next_link < linked.len() && linked[next_link].1 <= start {
                    next_link += 1;
                }
                if next_link < linked.len() && linked[next_link].0 <= start {
                    return; // in a wikilink: no word
                }
                let number = tally.table_word(id, &b[start..end], table);
                if !walks.is_empty() {
                    if memchr(b'_', &b[last..start]).is_some() {
                        undecide(walks, heads); // a word of `_` alone may be between
                    } else {
                        walks.retain_mut(|(head, node, words)| {
                            *node = if number == NONE { NONE } else { trie.next(*node, number) };
                            if *node == NONE {
                                return false;
                            }
                            *words += 1;
                            let name = trie.name(*node);
                            if name != NONE {
                                found.push((*head, *words, end, name as usize));
                            }
                            trie.more(*node)
                        });
                    }
                }
                last = end;
                if number != NONE && (trie.name(number) != NONE || trie.more(number)) {
                    let head = heads.len() as u32;
                    heads.push((start, end, true));
                    if trie.name(number) != NONE {
                        found.push((head, 1, end, trie.name(number) as usize));
                    }
                    if trie.more(number) {
                        walks.push((head, number, 1));
                    }
                }
            }
            _ => {
                undecide(walks, heads);
                // Its region's first piece (a region's pieces are joined by `_`): only `_`
                // can be before it in the region.
                let mut from = start;
                while from > 0 && b[from - 1] == b'_' {
                    from -= 1;
                }
                let mut to = end;
                while to < n && (CLASS[b[to] as usize] != 0 || b[to] == b'_') {
                    to += 1;
                }
                region_end = to;
                known_all = region_heads(text, from, to, table, word, heads);
            }
        }
    });
    if !known_all || bare_underscore {
        return None;
    }
    if !walks.is_empty() && memchr(b'_', &b[last..]).is_some() {
        undecide(walks, heads); // a word of `_` alone may come after
    }
    walks.clear(); // the body ended: no name goes on
    if heads.is_empty() {
        return Some(Vec::new());
    }
    let in_link = |at: usize| {
        let k = linked.partition_point(|&(_, e)| e <= at);
        k < linked.len() && linked[k].0 <= at
    };
    // A head's names longest first, as `mentions::name_runs` gives them.
    found.sort_unstable_by_key(|&(head, words, _, _)| (head, std::cmp::Reverse(words)));
    let mut next_found = 0;
    for (at, &(start, end, decided)) in heads.iter().enumerate() {
        if decided {
            while next_found < found.len() && (found[next_found].0 as usize) < at {
                next_found += 1;
            }
            while next_found < found.len() && found[next_found].0 as usize == at {
                let (_, _, last, k) = found[next_found];
                runs.push((start, last, k));
                next_found += 1;
            }
            continue;
        }
        if !linked.is_empty() && in_link(start) {
            continue;
        }
        // Most first words are followed by no name's second word: the first two words as
        // numbers say so (`MentionWords::pairs`), and only a one-word name is left to find.
        if let Some(first) = lowered_packed(text, start, end) {
            let next = next_word(text, end, &in_link);
            let second = next.map(|(s, e)| lowered_packed(text, s, e));
            if !matches!(second, Some(None)) && !second.flatten().is_some_and(|w| table.pairs.contains(&(first, w))) {
                if let Some(&k) = table.single.get(&first) {
                    runs.push((start, end, k));
                }
                continue;
            }
        }
        key.clear();
        ends.clear();
        push_lowered(text, start, end, key);
        let Some(counts) = table.lengths.get(key.as_str()) else { continue };
        ends.push((key.len(), end));
        for &count in counts {
            while ends.len() < count {
                let Some((s, e)) = next_word(text, ends[ends.len() - 1].1, &in_link) else { break };
                key.push('\0');
                push_lowered(text, s, e, key);
                ends.push((key.len(), e));
            }
            if ends.len() < count {
                continue; // the body ends first
            }
            let (len, last) = ends[count - 1];
            if let Some(&k) = table.named.get(&key[..len]) {
                runs.push((start, last, k));
            }
        }
    }
    Some(seed_from_runs(text, runs, spans, blank_links.then_some(linked)))
}

/// The character at byte `at`: (lower-cased, whether `\w` matches it, its length in bytes),
/// as crate::mention_prose's `lower_known` and `is_word` decide; None for a character they
/// do not know.
#[inline]
fn char_at(text: &str, at: usize) -> Option<(char, bool, usize)> {
    let c = text.as_bytes()[at];
    if c < 0x80 {
        return Some((c.to_ascii_lowercase() as char, c.is_ascii_alphanumeric() || c == b'_', 1));
    }
    let ch = text[at..].chars().next()?;
    let (lower, word) = known(ch)?;
    Some((lower, word, ch.len_utf8()))
}

/// The words of `text[from..to]` (a region, between bytes that are no word's) that start a
/// name, added to `heads`; false where a character is not one `char_at` knows.
fn region_heads(
    text: &str,
    from: usize,
    to: usize,
    table: &MentionWords,
    word: &mut String,
    heads: &mut Vec<(usize, usize, bool)>,
) -> bool {
    let mut start: Option<usize> = None;
    let mut at = from;
    while at < to {
        let Some((lower, is_word, len)) = char_at(text, at) else { return false };
        if is_word {
            if start.is_none() {
                start = Some(at);
                word.clear();
            }
            word.push(lower);
        } else if let Some(s) = start.take() {
            if table.lengths.contains_key(word.as_str()) {
                heads.push((s, at, false));
            }
        }
        at += len;
    }
    if let Some(s) = start {
        if table.lengths.contains_key(word.as_str()) {
            heads.push((s, to, false));
        }
    }
    true
}

/// The next word at or after byte `at` that is not in a link (`in_link`), as a byte span.
fn next_word(text: &str, mut at: usize, in_link: &impl Fn(usize) -> bool) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let n = b.len();
    let word_at = |at: usize| -> Option<(bool, usize)> {
        let c = b[at];
        if c < 0x80 {
            Some((c.is_ascii_alphanumeric() || c == b'_', 1))
        } else {
            char_at(text, at).map(|(_, word, len)| (word, len))
        }
    };
    loop {
        while at < n {
            let (word, len) = word_at(at)?;
            if word {
                break;
            }
            at += len;
        }
        if at >= n {
            return None;
        }
        let start = at;
        while at < n {
            let (word, len) = word_at(at)?;
            if !word {
                break;
            }
            at += len;
        }
        if !in_link(start) {
            return Some((start, at));
        }
    }
}

/// `text[from..to]` lower-cased (its characters are ones `char_at` knows), added to `out`.
fn push_lowered(text: &str, from: usize, to: usize, out: &mut String) {
    let mut at = from;
    while at < to {
        match char_at(text, at) {
            Some((lower, _, len)) => {
                out.push(lower);
                at += len;
            }
            None => return,
        }
    }
}

/// `text[from..to]` lower-cased as one number (crate::mentions `packed`), if of up to 16
/// bytes (lower-casing keeps a character's length in bytes: crate::mention_prose `known`).
fn lowered_packed(text: &str, from: usize, to: usize) -> Option<u128> {
    if to - from > 16 {
        return None;
    }
    let b = text.as_bytes();
    let mut bytes = [0u8; 16];
    let mut at = from;
    while at < to {
        if b[at] < 0x80 {
            bytes[at - from] = b[at].to_ascii_lowercase();
            at += 1;
        } else {
            let (lower, _, len) = char_at(text, at)?;
            lower.encode_utf8(&mut bytes[at - from..at - from + len]);
            at += len;
        }
    }
    Some(u128::from_le_bytes(bytes))
}
