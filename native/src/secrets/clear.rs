//! The rest of the secret prefilter in one native call: whether a text, as written and as a
//! reader reassembles it, can match any of the detector's patterns.
//!
//! brain/layouts/secrets.py `might_hold_secret` is the reference. After the cheap gate
//! (secrets.rs), the Python code ran the detector's regular expressions over the text and its
//! reassembled view (stream.py `joined_view`), and asked `needs_view` of every text: on a
//! workload with links, code and keyword-like YAML that was as much CPU as parsing the notes
//! (issue 43). `secret_clear` builds the same view (secrets/view.rs) and runs a superset of
//! every pattern over both strings: the detector's patterns without their word-boundary and
//! look-behind assertions, bounded repetitions opened, `\W` as any character, Python's extra
//! whitespace (\x1c-\x1f) added where `\s` is asked for. So where it answers "clear", no
//! pattern of `_pattern_in_views` can match either string, and the Python answer is the
//! base64 part alone. Where it is unsure it answers "not clear" and Python decides.

use pyo3::prelude::*;
use memchr::memchr2;
use regex::Regex;
use std::sync::OnceLock;

use crate::secrets::view::secret_view;
use crate::secrets::needles_match;
use crate::text::is_python_space;

/// Every pattern of brain/parse/secrets/scan.py (`_PATTERNS`, `_URL_PASSWORD`, `_ASSIGNMENT`),
/// each widened so that it matches wherever the Python one does (see the module's doc).
const PATTERNS: &[&str] = &[
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
    r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}",
    r"(?i)aws_?secret_?access_?key(?s:.){0,3}[:=](?s:.){0,3}[A-Za-z0-9/+=]{40}",
    r"gh[pousr]_[A-Za-z0-9]{36}",
    r"github_pat_[A-Za-z0-9_]{22}",
    r"glpat-[A-Za-z0-9_-]{20}",
    r"xox[abposr]-[A-Za-z0-9-]{10}",
    r"https://hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]+",
    r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16}",
    r"sk-ant-[A-Za-z0-9_-]{20}",
    r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20}",
    r"AIza[0-9A-Za-z_-]{35}",
    r"hf_[A-Za-z0-9]{30}",
    r"npm_[A-Za-z0-9]{36}",
    r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50}",
    r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
    r"SK[0-9a-f]{32}",
    r"AccountKey=[A-Za-z0-9+/=]{80}",
    r"eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10}",
    // A password in a URL: `\s` widened by Python's \x1c-\x1f (a negated class: wider without).
    r"[a-zA-Z0-9+.-]://[^\s:/@]+:[^\s@/]+@",
    r#"(?i)(?:password|passwd|pwd|passphrase|secret|client[_-]?secret|secret[_-]?key|api[_-]?key|apikey|access[_-]?key|access[_-]?token|auth[_-]?token|bearer|private[_-]?key|token)["']?[\s\x1c-\x1f]*[:=][\s\x1c-\x1f]*["']?[^\s"'`,;]{8}"#,
];

/// What `_ASSIGNMENT` needs right before its `["']?\s*[:=]`: one of its keywords ends with one
/// of these (lowered).
const KEYWORD_ENDS: &[&[u8]] = &[b"password", b"passwd", b"pwd", b"passphrase", b"secret", b"key", b"token", b"bearer"];

/// Whether some `:` or `=` has, before it, a keyword then maybe a quote and whitespace (an
/// assignment), or `key` and up to three characters (the AWS secret key's name): what the two
/// case-insensitive patterns need. The Kelvin sign and the long s, which they fold to `k` and
/// `s`, are not in NFKC text.
fn keyword_before_separator(text: &str) -> bool {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(k) = memchr2(b':', b'=', &b[from..]) {
        let at = from + k;
        from = at + 1;
        let mut last = [0u8; 16]; // the characters before the separator, lowered, last first
        let mut n = 0;
        for c in text[..at].chars().rev().take(last.len()) {
            last[n] = if c.is_ascii() { c.to_ascii_lowercase() as u8 } else { 0 };
            n += 1;
        }
        let ends_with = |from: usize, word: &[u8]| {
            word.len() + from <= n && word.iter().rev().zip(&last[from..]).all(|(a, b)| a == b)
        };
        if (0..=3).any(|skip| ends_with(skip, b"key")) {
            return true;
        }
        let mut head = text[..at].chars().rev().peekable();
        while head.next_if(|&c| is_python_space(c)).is_some() {}
        let _ = head.next_if(|&c| c == '"' || c == '\'');
        let mut word = [0u8; 10];
        let mut len = 0;
        for c in head.take(word.len()) {
            if !c.is_ascii() {
                break;
            }
            word[len] = c.to_ascii_lowercase() as u8;
            len += 1;
        }
        if KEYWORD_ENDS.iter().any(|k| k.len() <= len && k.iter().rev().zip(&word[..len]).all(|(a, b)| a == b)) {
            return true;
        }
    }
    false
}

/// Whether a string holds what every match of some pattern holds: a needle of the gate
/// (secrets.rs) or a keyword before a separator. Where none is, no pattern can match, and
/// the regular expressions (which read every byte) need not run.
fn has_literal(text: &str) -> bool {
    needles_match(text) || keyword_before_separator(text)
}

fn matches_any(text: &str) -> bool {
    has_literal(text) && patterns().is_match(text)
}

fn patterns() -> &'static Regex {
    static ANY: OnceLock<Regex> = OnceLock::new();
    ANY.get_or_init(|| {
        let all: Vec<String> = PATTERNS.iter().map(|p| format!("(?:{p})")).collect();
        Regex::new(&all.join("|")).expect("the patterns compile")
    })
}

/// True only when no pattern of the detector can match the text or its reassembled view (so
/// `might_hold_secret` reduces to its base64 question), nor `raw` if given: the text as
/// written when `text` is what `visible` undid it to (a text with `ℹ️` or a full-width letter).
/// False where unsure, and on a panic. `text` must be NFKC without format characters (the
/// caller checks); `raw` may hold anything.
#[pyfunction]
#[pyo3(signature = (text, raw=None))]
pub fn secret_clear(text: &str, raw: Option<&str>) -> bool {
    std::panic::catch_unwind(|| clear(text) && raw.is_none_or(clear_as_written)).unwrap_or(false)
}

pub(crate) fn clear(text: &str) -> bool {
    if matches_any(text) {
        return false;
    }
    match secret_view(text) {
        Some(view) => view == text || !matches_any(&view),
        None => false,
    }
}

/// No pattern matches a text that need not be NFKC: unsure where it holds a character that
/// Python's case-insensitive matching folds to an ASCII letter (`has_literal` looks for
/// ASCII keywords; the patterns do not fold `İ` and `ı`).
pub(crate) fn clear_as_written(raw: &str) -> bool {
    !raw.contains(['\u{130}', '\u{131}', '\u{17f}', '\u{212a}']) && !matches_any(raw)
}
