//! Unlinked mentions' candidates: brain/parse/mentions.py `_candidates_py`, whose Python code
//! is the reference (tests/unit/test_native_mentions.py holds the two equal on the table and
//! random bodies).
//!
//! The body is cut into words as Python's `\w+` cuts the lower-cased body, and each word that
//! starts a name is tried with every word count of the names it starts (longest first). A
//! try whose words are a name's words is a candidate: Python keeps the first candidate of a
//! word whose text (separators included) squashes to the name, exactly as it did alone. So
//! every decision that depends on Unicode (case folding, `\w` for a non-ASCII character) is
//! Python's: the caller passes the lower-cased body and the non-ASCII characters of it that
//! `\w` matches.
//!
//! Offsets given back are in characters, as Python counts them.

use std::sync::atomic::{AtomicU32, Ordering};

use pyo3::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::name_trie::NameTrie;

/// The tables made so far: each one's number (`MentionWords::serial`).
static SERIAL: AtomicU32 = AtomicU32::new(1);

/// The names' words: first word -> the word counts of the names it starts (longest first),
/// and the words of each name (NUL-joined: `\w` never matches NUL) -> its number.
#[pyclass(frozen, module = "brain_native")]
pub struct MentionWords {
    pub(crate) lengths: FxHashMap<String, Vec<usize>>,
    pub(crate) named: FxHashMap<String, usize>,
    /// Whether a name's first word is `_` alone (`_`, `__`): such a word holds no letter or
    /// digit, so the one-scan count (crate::seeded_count), which looks for first words among
    /// the pieces it counts, would never see it; it gives those bodies to the two scans.
    pub(crate) bare_underscore: bool,
    /// The same, for the one-scan count where it reads on from a first word itself (one in a
    /// region, or one whose next words the trie could not be sure of), by words of up to 16
    /// bytes as numbers (`packed`): the one-word names' numbers, and each name's first two
    /// words (nearly all first words are followed by no name).
    pub(crate) single: FxHashMap<u128, usize>,
    pub(crate) pairs: FxHashSet<(u128, u128)>,
    /// The names as a trie of word numbers, which the one-scan count follows word by word.
    pub(crate) trie: NameTrie,
    /// This table's own number (never 0), by which the one-scan count keeps what each of a
    /// chunk's words is in the table last asked.
    pub(crate) serial: u32,
}

/// A word of up to 16 bytes as one number (little-endian, zero-padded: no word holds a NUL).
#[inline]
pub(crate) fn packed(word: &[u8]) -> Option<u128> {
    if word.len() > 16 {
        return None;
    }
    let mut bytes = [0u8; 16];
    bytes[..word.len()].copy_from_slice(word);
    Some(u128::from_le_bytes(bytes))
}

#[pymethods]
impl MentionWords {
    /// `names`: each name's words, lower-cased (`name_words`); a name's number is its place.
    #[new]
    fn new(names: Vec<Vec<String>>) -> Self {
        let mut lengths: FxHashMap<String, Vec<usize>> = FxHashMap::default();
        let mut named = FxHashMap::default();
        let (mut single, mut pairs) = (FxHashMap::default(), FxHashSet::default());
        for (k, words) in names.iter().enumerate() {
            if words.is_empty() {
                continue;
            }
            if let Some(first) = packed(words[0].as_bytes()) {
                if words.len() == 1 {
                    single.entry(first).or_insert(k);
                } else if let Some(second) = packed(words[1].as_bytes()) {
                    pairs.insert((first, second));
                }
            }
            let counts = lengths.entry(words[0].clone()).or_default();
            if !counts.contains(&words.len()) {
                counts.push(words.len());
            }
            named.entry(words.join("\0")).or_insert(k);
        }
        for counts in lengths.values_mut() {
            counts.sort_unstable_by(|a, b| b.cmp(a));
        }
        let bare_underscore = lengths.keys().any(|w| w.bytes().all(|c| c == b'_'));
        let trie = NameTrie::new(&names);
        let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
        MentionWords { lengths, named, bare_underscore, single, pairs, trie, serial }
    }
}

/// `\w` on one character of the lower-cased body: ASCII by rule, the rest as Python said.
pub(crate) fn is_word(c: char, extra: &FxHashSet<char>) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || c == '_'
    } else {
        extra.contains(&c)
    }
}

/// The words of `lowered`: (text, first character, end character).
pub(crate) fn words<'a>(lowered: &'a str, extra: &FxHashSet<char>) -> Vec<(&'a str, usize, usize)> {
    let mut out = Vec::new();
    let mut start: Option<(usize, usize)> = None; // byte, character
    let mut cp = 0;
    for (byte, c) in lowered.char_indices() {
        let word = is_word(c, extra);
        match (word, start) {
            (true, None) => start = Some((byte, cp)),
            (false, Some((b, s))) => {
                out.push((&lowered[b..byte], s, cp));
                start = None;
            }
            _ => {}
        }
        cp += 1;
    }
    if let Some((b, s)) = start {
        out.push((&lowered[b..], s, cp));
    }
    out
}

/// Every candidate, in order: (word index, word count, first character, end character,
/// the name's number). A word's candidates come longest first.
#[pyfunction]
pub fn mention_candidates(
    lowered: &str,
    extra_word_chars: &str,
    table: &MentionWords,
) -> Vec<(usize, usize, usize, usize, usize)> {
    let extra: FxHashSet<char> = extra_word_chars.chars().collect();
    let found = words(lowered, &extra);
    name_runs(&found, table)
        .into_iter()
        .map(|(i, n, k)| (i, n, found[i].1, found[i + n - 1].2, k))
        .collect()
}

/// Each run of words that spells a name, in order: (first word's index, word count, the
/// name's number); a word's runs come longest first. Shared by mention_candidates and the
/// prose pass (mention_prose.rs), which differ only in what they do with a run.
pub(crate) fn name_runs(found: &[(&str, usize, usize)], table: &MentionWords) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    let mut key = String::new();
    for (i, (word, _, _)) in found.iter().enumerate() {
        let Some(counts) = table.lengths.get(*word) else { continue };
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
                out.push((i, n, k));
            }
        }
    }
    out
}
