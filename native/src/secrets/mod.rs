//! The secret detector's cheap question: brain/layouts/secrets.py `might_hold_secret`, whose
//! Python code is the reference (tests/unit/test_ingest_fast_paths.py holds the two equal).
//!
//! `secret_gate` answers, for one text, the two parts of that question that read every byte:
//! whether the text with its line breaks taken out (`_flat`) holds a needle of the detector's
//! patterns or a keyword right before a `:` or `=` (`_has_needle`, the lowered needles,
//! `_keyword_near`), and which distinct runs of the base64 alphabet, 24 bytes or longer, it
//! holds that may decode to text (`_has_base64_text` decides, in Python: rare). Python keeps the rest: the
//! Unicode normalization test, the patterns themselves, the decoding.
//!
//! The rest of the prefilter lives beside it: `view` (the view of a text the patterns read),
//! `clear` (the view's patterns answered without Python) and `prefilter` (both in one pass).

pub mod clear;
pub mod prefilter;
pub mod view;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use memchr::{memchr2, memchr3, memchr_iter};
use pyo3::prelude::*;
use std::sync::OnceLock;

use crate::text::{is_python_space, non_ascii_chars};

/// `_ALL_NEEDLES` (every needle of `_NEEDLES`, and `://`), matched as written.
const NEEDLES: &[&str] = &[
    "-----BEGIN", "AKIA", "ASIA", "ABIA", "ACCA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
    "github_pat_", "glpat-", "xox", "hooks.slack.com", "sk_", "rk_", "sk-ant-", "sk-", "AIza",
    "hf_", "npm_", "pypi-", "SG.", "SK", "AccountKey=", "eyJ", "://",
];
/// `_ALL_LOWER_NEEDLES`: looked for in the text with its ASCII letters lowered.
const LOWER_NEEDLES: &[&str] = &["aws"];
/// `_KEYWORDS`, which `_keyword_near` wants right before a separator (past blanks and quotes).
const KEYWORDS: &[&str] = &["password", "passwd", "pwd", "passphrase", "secret", "key", "token", "bearer"];
const LONGEST_KEYWORD: usize = 10; // "passphrase"
const MIN_RUN: usize = 24;

/// The needles and the lowered ones (each way of writing `aws` in ASCII letters) in one
/// searcher: SIMD (Teddy) where the CPU has it, else one automaton. The automaton alone read
/// notes at 1.7 ns a byte: this text's common letter pairs (`ey`, `ho`, `gh`) kept it from
/// skipping ahead; the packed searcher reads them ten times faster.
enum Needles {
    Packed(aho_corasick::packed::Searcher),
    Automaton(AhoCorasick),
}

impl Needles {
    fn is_match(&self, text: &str) -> bool {
        match self {
            Needles::Packed(searcher) => searcher.find(text).is_some(),
            Needles::Automaton(automaton) => automaton.is_match(text),
        }
    }
}

fn all_needles() -> Vec<String> {
    let mut all: Vec<String> = NEEDLES.iter().map(|n| n.to_string()).collect();
    for needle in LOWER_NEEDLES {
        // Every mix of cases of a short ASCII needle: 2^len spellings.
        for mask in 0..1u32 << needle.len() {
            all.push(needle.chars().enumerate()
                .map(|(at, c)| if mask >> at & 1 == 1 { c.to_ascii_uppercase() } else { c })
                .collect());
        }
    }
    all
}

fn needles() -> &'static Needles {
    static NEEDLES_FOUND: OnceLock<Needles> = OnceLock::new();
    NEEDLES_FOUND.get_or_init(|| {
        let all = all_needles();
        match aho_corasick::packed::Config::new().builder().extend(&all).build() {
            Some(searcher) => Needles::Packed(searcher),
            None => Needles::Automaton(
                AhoCorasickBuilder::new().match_kind(MatchKind::Standard).build(&all).unwrap()),
        }
    })
}

/// Whether the text holds a needle or a lowered needle (brain_native's other scanners ask).
pub(crate) fn needles_match(text: &str) -> bool {
    needles().is_match(text)
}

/// `_LINE_BREAK_RE.sub("", text)`: every `\n` taken out with the blanks around it, and one
/// `\` right before those blanks (`\\?[ \t]*\n[ \t]*`, leftmost matches).
fn flat(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    for line_end in memchr_iter(b'\n', text) {
        // `at` is past the blanks after the last `\n`, which are not `\n`: never past this one.
        out.extend_from_slice(&text[at..line_end]);
        while matches!(out.last(), Some(b' ' | b'\t')) {
            out.pop();
        }
        if out.last() == Some(&b'\\') {
            out.pop();
        }
        at = line_end + 1;
        while at < text.len() && matches!(text[at], b' ' | b'\t') {
            at += 1;
        }
    }
    out.extend_from_slice(&text[at..]);
    out
}

/// A character as `str.lower()` gives it, where that matters here: the keywords are ASCII
/// letters, and of the other characters only the Kelvin sign lowers to one (`İ` lowers to
/// `i` and a combining dot, which ends no keyword).
fn lowered(c: char) -> char {
    if c == '\u{212a}' { 'k' } else { c.to_ascii_lowercase() }
}

/// `_keyword_near(flat)`: before some `:` or `=`, past whitespace and then quotes, the
/// characters lowered end with a keyword.
fn keyword_near(flat: &str) -> bool {
    for (at, b) in flat.bytes().enumerate() {
        if b != b':' && b != b'=' {
            continue;
        }
        // The head, backwards from the separator: whitespace, then quotes, then the last
        // letters (the longest keyword's worth).
        // Any number of blanks (`_ASSIGNMENT`'s `\s*`): a window of 40 characters missed a
        // keyword 41 blanks before its separator. Each separator reads back over its own run
        // of blanks and quotes only.
        let mut head = flat[..at].chars().rev().map(lowered).peekable();
        while head.next_if(|&c| is_python_space(c)).is_some() {}
        while head.next_if(|&c| c == '"' || c == '\'').is_some() {}
        let mut last = [0u8; LONGEST_KEYWORD];
        let mut n = 0;
        for c in head.take(LONGEST_KEYWORD) {
            if !c.is_ascii() {
                break; // no keyword holds it
            }
            last[n] = c as u8;
            n += 1;
        }
        if KEYWORDS.iter().any(|k| k.len() <= n && k.bytes().rev().zip(&last[..n]).all(|(a, &b)| a == b)) {
            return true;
        }
    }
    false
}

const fn base64_table() -> [bool; 256] {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'_' | b'-');
        b += 1;
    }
    table
}
/// The bytes of either base64 alphabet (`_BASE64_BYTES`).
static BASE64: [bool; 256] = base64_table();

/// The 6 bits of a base64 character in either alphabet (`-` and `_` as `+` and `/`).
fn sextet(b: u8) -> u32 {
    match b {
        b'A'..=b'Z' => (b - b'A') as u32,
        b'a'..=b'z' => (b - b'a' + 26) as u32,
        b'0'..=b'9' => (b - b'0' + 52) as u32,
        b'+' | b'-' => 62,
        _ => 63, // `/` and `_`: a run holds nothing else
    }
}

/// Whether `secret_normalize._decode` could accept a run: it refuses a run whose length
/// leaves one character over, that mixes the two alphabets, or whose bytes are not UTF-8 text
/// (the printable share is left to it). Decoded as `base64.b64decode` does, the bits past the
/// last whole byte ignored.
fn may_decode(run: &[u8]) -> bool {
    if run.len() % 4 == 1 {
        return false;
    }
    let url = run.iter().any(|&b| b == b'-' || b == b'_');
    if url && run.iter().any(|&b| b == b'+' || b == b'/') {
        return false;
    }
    let mut out = Vec::with_capacity(run.len() * 3 / 4);
    let (mut bits, mut held) = (0u32, 0u32);
    for &b in run {
        bits = (bits << 6) | sextet(b);
        held += 6;
        if held >= 8 {
            held -= 8;
            out.push((bits >> held) as u8);
            bits &= (1 << held) - 1;
        }
    }
    !out.is_empty() && std::str::from_utf8(&out).is_ok()
}

/// Each distinct maximal run of the base64 alphabet (`_BASE64_BYTES`), MIN_RUN bytes or more,
/// that `_decode` may accept (`may_decode`), in the order first found.
pub(crate) fn base64_runs(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut runs: Vec<&str> = Vec::new();
    // A run of MIN_RUN bytes or more holds a byte at every place modulo MIN_RUN, so one at
    // a probe: MIN_RUN - 1, 2 * MIN_RUN - 1, ... Prose is words of a few letters: a probe on a
    // blank skips MIN_RUN bytes at once, one in a word reads only that word.
    let mut probe = MIN_RUN - 1;
    while probe < bytes.len() {
        if !BASE64[bytes[probe] as usize] {
            probe += MIN_RUN;
            continue;
        }
        let mut start = probe;
        while start > 0 && BASE64[bytes[start - 1] as usize] {
            start -= 1;
        }
        let mut end = probe + 1;
        while end < bytes.len() && BASE64[bytes[end] as usize] {
            end += 1;
        }
        if end - start >= MIN_RUN {
            let run = &text[start..end];
            if !runs.contains(&run) && may_decode(run.as_bytes()) {
                runs.push(run);
            }
        }
        while probe <= end {
            probe += MIN_RUN; // the next probe past the run (the byte at `end` is not in it)
        }
    }
    runs
}

/// A format character the detector takes out (secret_normalize._FORMAT): invisible, it can
/// hide a secret from a plain match.
pub(crate) fn is_format(c: char) -> bool {
    matches!(c, '\u{ad}' | '\u{61c}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}')
}

/// Whether the text holds a format character (`is_format`), found by the first byte of
/// each one's UTF-8: C2, D8 and E1, then E2 and EF. Decoding every character was a third of
/// the gate's time on notes with an accent or a dash in them.
fn has_format(text: &str) -> bool {
    let bytes = text.as_bytes();
    let found = |lead: &dyn Fn(&[u8]) -> Option<usize>| {
        let mut from = 0;
        while let Some(at) = lead(&bytes[from..]).map(|i| from + i) {
            // A lead byte starts a character: `at` is a char boundary.
            if text[at..].chars().next().is_some_and(is_format) {
                return true;
            }
            from = at + 1;
        }
        false
    };
    found(&|b| memchr3(0xC2, 0xD8, 0xE1, b)) || found(&|b| memchr2(0xE2, 0xEF, b))
}

/// Whether NFKC leaves every character of the text as it is, whatever surrounds it: each is
/// ASCII or one of the common ones below, whose quick check is Yes and combining class 0
/// (tests/unit/test_ingest_fast_paths.py checks each against Python's unicodedata). Then
/// Python need not ask `unicodedata.is_normalized` (a quarter of the gate's cost). Any other
/// character answers false: Python decides.
fn plainly_normalized(text: &str) -> bool {
    non_ascii_chars(text).all(plain_char)
}

/// A character NFKC leaves as it is wherever it stands (`plainly_normalized`): quick check
/// Yes, combining class 0, never the second of a canonical pair. The symbols and dingbats
/// (U+2600-U+27BF: `⚠`, `✅`) and the emoji variation selector (U+FE0F) are a tenth of real
/// notes: each sent the text to `unicodedata.is_normalized` (issue 43).
pub(crate) fn plain_char(c: char) -> bool {
    matches!(c, '\u{c0}'..='\u{ff}' | '\u{2013}' | '\u{2014}' | '\u{2018}' | '\u{2019}'
        | '\u{201c}' | '\u{201d}' | '\u{2022}' | '\u{2190}'..='\u{2199}' | '\u{2600}'..='\u{27bf}'
        | '\u{4e00}'..='\u{9fff}' | '\u{ac00}'..='\u{d7a3}' | '\u{fe0f}' | '\u{1f300}'..='\u{1f64f}'
        | '\u{1f680}'..='\u{1f6d7}' | '\u{1f900}'..='\u{1f9ff}')
}

/// (whether `flat` holds a needle, a lowered needle or a keyword before a separator; the
/// distinct base64 runs of the text that may decode; whether it holds a format character;
/// whether NFKC leaves it as it is, where `plainly_normalized` can tell: false if unsure).
/// A text with a lone surrogate cannot be given (it is not UTF-8): the caller asks Python. A
/// bug that panics answers "may hold one" (the detector itself then reads every line).
#[pyfunction]
pub fn secret_gate(text: &str) -> (bool, Vec<String>, bool, bool) {
    std::panic::catch_unwind(|| gate(text)).unwrap_or((true, Vec::new(), true, false))
}

fn gate(text: &str) -> (bool, Vec<String>, bool, bool) {
    let flat_bytes = flat(text.as_bytes());
    // Only ASCII bytes are taken out: what is left is still UTF-8.
    let flat = std::str::from_utf8(&flat_bytes).expect("flat keeps UTF-8");
    let gate = needles().is_match(flat) || keyword_near(flat);
    let invisible = has_format(text);
    let runs = base64_runs(text).into_iter().map(str::to_owned).collect();
    (gate, runs, invisible, plainly_normalized(text))
}
