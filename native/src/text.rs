//! What the scanners share: Python's idea of whitespace and digits, and byte searches.

use memchr::{memchr, memmem};

/// Python's `str.isspace()`: what `strip()` and `\s` take.
pub fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `s.strip()` (Python's whitespace).
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(is_python_space)
}

pub struct Declined;

pub fn line_end(b: &[u8], pos: usize) -> usize {
    memchr(b'\n', &b[pos..]).map_or(b.len(), |i| pos + i)
}

pub fn has(b: &[u8], needle: &[u8]) -> bool {
    memmem::find(b, needle).is_some()
}

pub fn skip_blanks(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    i
}

/// The char at byte `i` is a non-ASCII number: maybe one of Python's `\d` (Unicode digits),
/// which this code does not know.
pub fn unicode_number_at(body: &str, i: usize) -> bool {
    body.as_bytes()[i] >= 0x80 && body[i..].chars().next().is_some_and(char::is_numeric)
}

/// Past the first run of exactly `ticks` backticks in `b[from..stop]`, runs taken whole (a
/// code span's closer, as CommonMark and mistune find it); `from` must not be inside a run.
pub fn closing_ticks(b: &[u8], from: usize, stop: usize, ticks: usize) -> Option<usize> {
    let mut i = from;
    while let Some(k) = memchr(b'`', &b[i..stop]) {
        i += k;
        let run = b[i..stop].iter().take_while(|&&c| c == b'`').count();
        if run == ticks {
            return Some(i + run);
        }
        i += run;
    }
    None
}

/// The characters of a text that are not ASCII, in order. The scanners that care only about
/// those (secrets' `plainly_normalized`, the prefilter's `shape`) skip ASCII eight bytes at a
/// time: most notes are nearly all ASCII.
pub fn non_ascii_chars(text: &str) -> NonAsciiChars<'_> {
    NonAsciiChars { text, at: 0 }
}

pub struct NonAsciiChars<'a> {
    text: &'a str,
    at: usize,
}

impl Iterator for NonAsciiChars<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        let bytes = self.text.as_bytes();
        while self.at < bytes.len() {
            if self.at + 8 <= bytes.len() {
                let word = bytes[self.at..self.at + 8].try_into().expect("eight bytes");
                let eight = u64::from_le_bytes(word);
                if eight & 0x8080_8080_8080_8080 == 0 {
                    self.at += 8;
                    continue;
                }
            }
            if bytes[self.at] < 0x80 {
                self.at += 1;
                continue;
            }
            // The bytes before were ASCII or whole characters: `at` starts a character.
            let c = self.text[self.at..].chars().next()?;
            self.at += c.len_utf8();
            return Some(c);
        }
        None
    }
}
