//! brain's text scanners in Rust (brain/native.py loads them). Each function has a Python
//! twin that is its reference: the tests run both on the same tables and random texts, and
//! brain falls back to the Python one wherever this module is missing.

use pyo3::prelude::*;

mod keywords;
mod body;
mod chunks;
mod math;
mod mention_prose;
mod mentions;
mod name_trie;
mod secrets;
mod seeded_count;
mod text;

/// Bumped whenever a function's signature or meaning changes: brain/native.py refuses a
/// module built from other sources (a stale install) rather than misreading its answers.
const ABI: u32 = 6;

#[pymodule]
fn brain_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ABI", ABI)?;
    m.add_function(wrap_pyfunction!(keywords::count_block, m)?)?;
    m.add_function(wrap_pyfunction!(secrets::secret_gate, m)?)?;
    m.add_function(wrap_pyfunction!(secrets::clear::secret_clear, m)?)?;
    m.add_function(wrap_pyfunction!(secrets::view::secret_view, m)?)?;
    m.add_function(wrap_pyfunction!(body::scan_body, m)?)?;
    // New in this ABI's lifetime: brain/parse/mentions.py looks for it, a module without it is
    // still used for the rest.
    m.add_function(wrap_pyfunction!(mentions::mention_candidates, m)?)?;
    m.add_class::<mentions::MentionWords>()?;
    m.add_function(wrap_pyfunction!(mention_prose::mention_seed_candidates, m)?)?;
    // New in this ABI's lifetime too: brain/layouts/secrets.py asks the two calls above where
    // a module lacks it.
    m.add_function(wrap_pyfunction!(secrets::prefilter::secret_prefilter, m)?)?;
    // New in this ABI's lifetime too: brain/index/seeded_counting.py scans twice where a
    // module lacks it.
    m.add_function(wrap_pyfunction!(seeded_count::count_block_seeded, m)?)?;
    Ok(())
}
