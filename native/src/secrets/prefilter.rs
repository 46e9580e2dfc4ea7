//! The ingest's secret prefilter in one native call: brain/layouts/secrets.py
//! `might_hold_secret`, whose two-call path (`secret_gate`, then `secret_clear`) is the
//! reference (tests/unit/test_secret_prefilter.py holds them to the detector).
//!
//! The two calls read every byte twice over: the gate flattened the text and looked for
//! needles in that copy, then `secret_clear` looked for them again in the text and its
//! reassembled view. Where `secret_clear` answers "clear" the gate's needles are not asked
//! (only its base64 runs are), so this call skips them. And a text with one `ℹ` or `…` in it
//! (a tenth of real notes) went through `visible` and `unicodedata` in Python before its second
//! native call: here the characters such a text holds are undone as `visible` undoes them,
//! from a table, and any other character leaves the question to Python (issue 43).

use pyo3::prelude::*;

use crate::secrets::clear::{clear, clear_as_written};
use crate::secrets::{base64_runs, is_format, plain_char};
use crate::text::non_ascii_chars;

/// Characters NFKC changes that notes hold, each with what NFKC makes of it alone (which is
/// what `visible` puts in its place): ASCII, so the undone text is plain. Each one's NFKC
/// differs from it, so a text holding one is not NFKC (Python's `is_normalized` says no) and
/// goes through `visible`, as here (tests/unit/test_secret_prefilter.py checks each).
const UNDONE: &[(char, &str)] = &[
    ('\u{a0}', " "), ('\u{b2}', "2"), ('\u{b3}', "3"), ('\u{b9}', "1"), ('\u{2026}', "..."),
    ('\u{2122}', "TM"), ('\u{2139}', "i"), ('\u{fb01}', "fi"), ('\u{fb02}', "fl"),
];

fn undone(c: char) -> Option<&'static str> {
    UNDONE.iter().find(|(from, _)| *from == c).map(|(_, to)| *to)
}

/// What a text's non-ASCII characters ask for.
enum Shape {
    /// NFKC without format characters: `visible` leaves the text as it is.
    Plain,
    /// `visible` changes it (a format character dropped, a character of UNDONE replaced).
    Disguised,
    /// A character this code does not know: Python decides.
    Unsure,
}

fn shape(text: &str) -> Shape {
    let mut disguised = false;
    for c in non_ascii_chars(text) {
        if is_format(c) || undone(c).is_some() {
            disguised = true;
        } else if !plain_char(c) {
            return Shape::Unsure;
        }
    }
    if disguised { Shape::Disguised } else { Shape::Plain }
}

/// `visible(text)[0]` for a text `shape` calls disguised: format characters dropped, each
/// character of UNDONE replaced, the others (ASCII and `plain_char`, which NFKC keeps) kept.
fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else if let Some(to) = undone(c) {
            out.push_str(to);
        } else if !is_format(c) {
            out.push(c);
        }
    }
    out
}

/// Some(runs) where no pattern of the detector can match the text, nor what `visible`
/// undoes it to, nor either one reassembled (secrets/clear.rs): then `might_hold_secret` is
/// whether one of `runs` decodes to text (the distinct base64 runs of the text and of its
/// undone form that may, as `secret_gate` gives them). None where that is not so or this
/// code is unsure, and on a panic: Python asks its two-call path. A text with a lone
/// surrogate cannot be given (it is not UTF-8): the caller asks Python.
#[pyfunction]
pub fn secret_prefilter(text: &str) -> Option<Vec<String>> {
    std::panic::catch_unwind(|| prefilter(text)).unwrap_or(None)
}

fn prefilter(text: &str) -> Option<Vec<String>> {
    match shape(text) {
        Shape::Unsure => None,
        Shape::Plain => clear(text).then(|| base64_runs(text).into_iter().map(str::to_owned).collect()),
        Shape::Disguised => {
            let view = visible(text);
            if !(clear(&view) && clear_as_written(text)) {
                return None;
            }
            let mut runs = base64_runs(text);
            for run in base64_runs(&view) {
                if !runs.contains(&run) {
                    runs.push(run);
                }
            }
            Some(runs.into_iter().map(str::to_owned).collect())
        }
    }
}
