//! A chunk's keyword counts and its notes' mention seed candidates from one scan of each
//! body: brain/index/seeded_counting.py `count_and_seed`, whose reference is the two scans
//! apart (`count_block` and `mention_seed_candidates`; tests/unit/test_native_seeded_count.py
//! holds them equal on a table of bodies and the benchmark's notes).
//!
//! A first sync asked to seed mentions cut every body into words twice, in the same helper:
//! once to count its keywords (crate::keywords), once to look its words up among the sync's
//! names (crate::mention_prose), each lower-casing the body on its own. Here an ASCII body
//! (nearly every note) is lower-cased once and walked once: its pieces of letters and digits
//! are counted, and the runs of them and `_` are the mention scan's words. A body with a
//! non-ASCII character keeps the two scans (its seed is None here: the caller asks
//! `mention_seed_candidates`), where Unicode's rules are Python's.

use pyo3::prelude::*;

use crate::keywords::{counted_seeded, Block, Seeding};
use crate::mention_prose::Candidate;
use crate::mentions::MentionWords;

/// `count_block(texts, split_slow)`'s block, and for each note (three texts a note) given a
/// `(table, blank_links)` in `seeding`, `mention_seed_candidates(body, None, "", table,
/// blank_links)`'s answer where its body is ASCII; None for any other note.
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
