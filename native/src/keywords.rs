//! A chunk's keyword counts: brain/search/postings.py `count_block`, whose numpy code and
//! `note_counts` are the reference (tests/search/test_postings.py holds both to it).
//!
//! A note's three texts (its name as words, description, body) are split at every ASCII byte
//! that is not a letter or digit: those separate words whatever the text around them. A piece
//! of ASCII letters and digits is a word, lower-cased here; a piece with a non-ASCII character
//! goes back to Python (`split_slow`: case-folded and split by the regex of `index_words`), so
//! Unicode's rules are Python's own and never copied, but for a piece whose only non-ASCII
//! characters are Latin-1 letters (`is_latin_word`: `José`), lowered here.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rustc_hash::FxHashMap;

use crate::mention_prose::Candidate;
use crate::mentions::MentionWords;
use crate::name_trie::NONE;
use crate::seeded_count::{seeded_body, Scratch};

const WEIGHTS: [u32; 3] = [4, 2, 1]; // name, description, body (postings.py NAME_WEIGHT...)
const MAX_FREQ: u32 = 65_535;

/// Each byte's class: 0 separates words, 1 is an ASCII letter or digit, 2 is a byte of a
/// non-ASCII character.
const fn byte_classes() -> [u8; 256] {
    let mut classes = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        classes[b] = if byte >= 0x80 { 2 } else if byte.is_ascii_alphanumeric() { 1 } else { 0 };
        b += 1;
    }
    classes
}
pub(crate) static CLASS: [u8; 256] = byte_classes();

/// Each maximal piece of word bytes: (start, end, all ASCII).
pub(crate) fn pieces(text: &[u8], mut each: impl FnMut(usize, usize, bool)) {
    let mut at = 0;
    let n = text.len();
    while at < n {
        if CLASS[text[at] as usize] == 0 {
            at += 1;
            continue;
        }
        let start = at;
        let mut seen = 0u8; // the classes of its bytes, or-ed: 1 for an ASCII piece
        while at < n {
            let class = CLASS[text[at] as usize];
            if class == 0 {
                break;
            }
            seen |= class;
            at += 1;
        }
        each(start, at, seen == 1);
    }
}

/// Each maximal piece of word bytes that holds a non-ASCII byte: (start, end). Those bytes
/// are rare in notes, so they are looked for eight at a time.
fn non_ascii_pieces(text: &[u8], mut each: impl FnMut(usize, usize)) {
    let mut at = 0;
    let n = text.len();
    while at < n {
        // Skip ahead eight ASCII bytes at a time.
        while at + 8 <= n {
            let eight = u64::from_le_bytes(text[at..at + 8].try_into().expect("eight bytes"));
            if eight & 0x8080_8080_8080_8080 != 0 {
                break;
            }
            at += 8;
        }
        if at >= n {
            break;
        }
        if text[at] < 0x80 {
            at += 1;
            continue;
        }
        let mut start = at;
        while start > 0 && CLASS[text[start - 1] as usize] != 0 {
            start -= 1;
        }
        let mut end = at + 1;
        while end < n && CLASS[text[end] as usize] != 0 {
            end += 1;
        }
        each(start, end);
        at = end;
    }
}

/// An ASCII piece of up to 16 bytes, lowered, as one number (`packed`).
#[inline]
fn packed_lowered(piece: &[u8]) -> u128 {
    let mut key = 0u128;
    for (at, &b) in piece.iter().enumerate() {
        key |= (b.to_ascii_lowercase() as u128) << (8 * at);
    }
    key
}

/// Whether a piece's non-ASCII characters are all Latin-1 letters whose case folding is one
/// letter of the same block (À..Þ fold to à..þ, à..ÿ stay; not × ÷ ß): then the piece is one
/// word, lowered here (`latin_lowered`), as Python's casefold and `[^\W_]+` would have it. Names
/// like José or Zoë are most of the non-ASCII words of notes.
fn is_latin_word(piece: &[u8]) -> bool {
    let mut at = 0;
    while at < piece.len() {
        let b = piece[at];
        if b < 0x80 {
            at += 1;
            continue;
        }
        if b != 0xC3 || at + 1 >= piece.len() || matches!(piece[at + 1], 0x97 | 0x9F | 0xB7) {
            return false;
        }
        at += 2;
    }
    true
}

/// A piece `is_latin_word` accepts, lowered as casefold lowers it.
fn latin_lowered(piece: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let mut after_c3 = false;
    for &b in piece {
        out.push(if after_c3 && b <= 0x9E { b + 0x20 } else { b.to_ascii_lowercase() });
        after_c3 = b == 0xC3;
    }
}

/// The chunk's words, numbered in the order first seen. A word of up to 16 bytes (nearly
/// all) is looked up as one number, its bytes packed: hashed and compared at once, where a
/// map of byte strings hashed them and called memcmp (a third of the count's time).
struct Vocabulary {
    short: FxHashMap<u128, u32>,
    long: FxHashMap<Vec<u8>, u32>,
    words: Vec<u8>, // "\0"-separated, in the order first seen
    count: u32,
}

/// A word's bytes as one number (little-endian, zero-padded): one number a word, since no
/// word holds a zero byte.
#[inline]
fn packed(word: &[u8]) -> u128 {
    let mut bytes = [0u8; 16];
    bytes[..word.len()].copy_from_slice(word);
    u128::from_le_bytes(bytes)
}

impl Vocabulary {
    fn new() -> Self {
        Vocabulary { short: FxHashMap::default(), long: FxHashMap::default(), words: Vec::new(), count: 0 }
    }

    /// `id` of a word of `len` bytes given `packed`.
    fn short_id(&mut self, key: u128, len: usize) -> u32 {
        let next = self.count;
        let id = *self.short.entry(key).or_insert(next);
        if id == next {
            self.push(&key.to_le_bytes()[..len]);
        }
        id
    }

    fn push(&mut self, word: &[u8]) {
        if self.count > 0 {
            self.words.push(0);
        }
        self.words.extend_from_slice(word);
        self.count += 1;
    }

    fn id(&mut self, word: &[u8]) -> u32 {
        let next = self.count;
        let id = if word.len() <= 16 {
            *self.short.entry(packed(word)).or_insert(next)
        } else if let Some(&id) = self.long.get(word) {
            id
        } else {
            self.long.insert(word.to_vec(), next);
            next
        };
        if id == next {
            self.push(word);
        }
        id
    }
}

/// The weighted counts of the note being counted, by word id: a slot a word, reused from
/// note to note (`note` says which note a slot's sum belongs to), no map a note.
struct Counts {
    sums: Vec<u32>,
    note: Vec<u32>,
    order: Vec<u32>, // the note's words in the order they first appear
    length: u32,
    current: u32,
}

impl Counts {
    fn start(&mut self, note: u32) {
        self.order.clear();
        self.length = 0;
        self.current = note;
    }

    fn add(&mut self, id: u32, weight: u32) {
        self.length += 1;
        let slot = id as usize;
        if slot >= self.sums.len() {
            self.sums.resize(slot + 1, 0);
            self.note.resize(slot + 1, u32::MAX);
        }
        if self.note[slot] != self.current {
            self.note[slot] = self.current;
            self.sums[slot] = 0;
            self.order.push(id);
        }
        self.sums[slot] = self.sums[slot].saturating_add(weight);
    }
}

/// `count_block` of notes given as a flat list of texts, three a note. Returns the
/// PostingsBlock's fields: words ("\0"-separated), terms (int32), freqs (uint16), sizes and
/// lengths (int32), all little-endian.
#[pyfunction]
pub fn count_block<'py>(
    py: Python<'py>,
    texts: Vec<String>,
    split_slow: &Bound<'py, PyAny>,
) -> PyResult<Block<'py>> {
    if !texts.len().is_multiple_of(3) {
        return Err(pyo3::exceptions::PyValueError::new_err("texts come three a note"));
    }
    // A bug that panics is a ValueError, on which Python counts the chunk itself.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| counted(py, &texts, split_slow)))
        .unwrap_or_else(|_| Err(pyo3::exceptions::PyValueError::new_err("the native count panicked")))
}

pub(crate) type Block<'py> = (String, Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>);

fn counted<'py>(py: Python<'py>, texts: &[String], split_slow: &Bound<'py, PyAny>) -> PyResult<Block<'py>> {
    Ok(counted_seeded(py, texts, split_slow, &[])?.0)
}

/// A note's mention seeding where the count finds its body's words (crate::seeded_count):
/// the names it may reach and whether the words of wikilinks are left out.
pub(crate) type Seeding<'a> = Option<(&'a MentionWords, bool)>;

/// `counted`, and for each note `seeding` names (by place), its mention seed candidates
/// (crate::mention_prose::mention_seed_candidates' answer) from the same scan of the body
/// (crate::seeded_count::seeded_body), where that scan can find them; None where not (its
/// seed is found on its own, as before), and for every other note.
pub(crate) fn counted_seeded<'py>(
    py: Python<'py>,
    texts: &[String],
    split_slow: &Bound<'py, PyAny>,
    seeding: &[Seeding<'_>],
) -> PyResult<(Block<'py>, Vec<Option<Vec<Candidate>>>)> {
    // The pieces with a non-ASCII character, in text order, split by Python.
    let mut slow: Vec<&str> = Vec::new();
    for text in texts {
        non_ascii_pieces(text.as_bytes(), |a, b| {
            if !is_latin_word(&text.as_bytes()[a..b]) {
                slow.push(&text[a..b]); // a and b are at ASCII bytes: char boundaries
            }
        });
    }
    let split: Vec<Vec<String>> = if slow.is_empty() { Vec::new() } else { split_slow.call1((slow,))?.extract()? };
    let mut tally = Tally {
        vocabulary: Vocabulary::new(),
        note: Counts { sums: Vec::new(), note: Vec::new(), order: Vec::new(), length: 0, current: 0 },
        split: split.into_iter(),
        lowered: Vec::with_capacity(64),
        failed: None,
        in_table: Vec::new(),
        scratch: Scratch::default(),
    };
    let (mut terms, mut freqs, mut sizes, mut lengths) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut seeds: Vec<Option<Vec<Candidate>>> = vec![None; texts.len() / 3];
    for (index, note_texts) in texts.chunks(3).enumerate() {
        tally.note.start(index as u32);
        let seed = seeding.get(index).copied().flatten();
        for (at, (text, weight)) in note_texts.iter().zip(WEIGHTS).enumerate() {
            if at == 2 {
                if let Some((table, blank_links)) = seed {
                    // Counted there as here; its seed None where it is to be found apart.
                    seeds[index] = seeded_body(text, table, blank_links, &mut tally, weight);
                    continue;
                }
            }
            let bytes = text.as_bytes();
            pieces(bytes, |a, b, ascii| {
                tally.piece(&bytes[a..b], ascii, weight);
            });
        }
        let note = &tally.note;
        for id in &note.order {
            terms.extend_from_slice(&(*id as i32).to_le_bytes());
            freqs.extend_from_slice(&(note.sums[*id as usize].min(MAX_FREQ) as u16).to_le_bytes());
        }
        sizes.extend_from_slice(&(note.order.len() as i32).to_le_bytes());
        lengths.extend_from_slice(&(note.length as i32).to_le_bytes());
    }
    let more = tally.split.next().is_some();
    if let Some(why) = tally.failed.or(if more { Some("split_slow gave more lists than pieces") } else { None }) {
        return Err(pyo3::exceptions::PyValueError::new_err(why));
    }
    let words = String::from_utf8(tally.vocabulary.words)
        .map_err(|_| pyo3::exceptions::PyValueError::new_err("a word is not UTF-8"))?;
    let block = (words, PyBytes::new(py, &terms), PyBytes::new(py, &freqs), PyBytes::new(py, &sizes), PyBytes::new(py, &lengths));
    Ok((block, seeds))
}

/// What counting a chunk holds: its words, the note's counts, Python's split of the pieces
/// with a non-ASCII character (in order), a buffer, and what went wrong.
pub(crate) struct Tally {
    vocabulary: Vocabulary,
    note: Counts,
    split: std::vec::IntoIter<Vec<String>>,
    lowered: Vec<u8>,
    failed: Option<&'static str>,
    /// By word id: (the table last asked, `MentionWords::serial`, 0: none yet; the word's
    /// number in it, `Tally::table_word`): a chunk's words repeat, and a table serves all of
    /// a scope's notes.
    in_table: Vec<(u32, u32)>,
    /// The seeded scan's buffers, kept from body to body (crate::seeded_count).
    pub(crate) scratch: Scratch,
}

impl Tally {
    /// Count one piece of word bytes (`pieces`): a word, or the words Python split it into.
    /// An ASCII piece's id (its one word's, lower-cased).
    pub(crate) fn piece(&mut self, piece: &[u8], ascii: bool, weight: u32) -> Option<u32> {
        if ascii && piece.len() <= 16 {
            let id = self.vocabulary.short_id(packed_lowered(piece), piece.len());
            self.note.add(id, weight);
            return Some(id);
        } else if ascii {
            self.lowered.clear();
            self.lowered.extend(piece.iter().map(u8::to_ascii_lowercase));
            let id = self.vocabulary.id(&self.lowered);
            self.note.add(id, weight);
            return Some(id);
        } else if is_latin_word(piece) {
            latin_lowered(piece, &mut self.lowered);
            let id = self.vocabulary.id(&self.lowered);
            self.note.add(id, weight);
        } else {
            match self.split.next() {
                Some(words) => {
                    for word in words {
                        let id = self.vocabulary.id(word.as_bytes());
                        self.note.add(id, weight);
                    }
                }
                None => self.failed = Some("split_slow gave fewer lists than pieces"),
            }
        }
        None
    }

    /// The number in `table`'s names (crate::name_trie) of the ASCII piece `piece`, counted
    /// as the word of id `id` (looked up once a distinct word a chunk and table), or NONE.
    #[inline]
    pub(crate) fn table_word(&mut self, id: u32, piece: &[u8], table: &MentionWords) -> u32 {
        let slot = id as usize;
        if slot >= self.in_table.len() {
            self.in_table.resize(slot + 1, (0, NONE));
        }
        let (serial, word) = self.in_table[slot];
        if serial == table.serial {
            return word;
        }
        let word = if piece.len() <= 16 {
            table.trie.short_word(packed_lowered(piece))
        } else {
            self.lowered.clear();
            self.lowered.extend(piece.iter().map(u8::to_ascii_lowercase));
            table.trie.word(&self.lowered)
        };
        self.in_table[slot] = (table.serial, word);
        word
    }
}
