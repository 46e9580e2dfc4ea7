//! The names of a mention table as a trie of word numbers, for the one-scan count
//! (crate::seeded_count): it follows a first word's names word by word as the count's own
//! scan meets the words after it, so a name is found without reading the text again, and
//! without a string made and hashed a try (crate::mentions `name_runs` does that, and the
//! sparse scan did it from every first word followed by a name's second word: a sixth of
//! first words in the benchmark's notes).
//!
//! Every word of every name has a number, and a word's number is also its node as a first
//! word: a node's children are keyed by (node, the next word's number). A node holds the
//! number of the name its words spell (the first name given so, as `MentionWords::named`
//! keeps the first) and whether any longer name goes on from it.

use rustc_hash::FxHashMap;

use crate::mentions::packed;

/// No word, node or name.
pub(crate) const NONE: u32 = u32::MAX;

#[derive(Default)]
pub(crate) struct NameTrie {
    short: FxHashMap<u128, u32>, // a word of up to 16 bytes, packed (crate::mentions `packed`)
    long: FxHashMap<String, u32>,
    child: FxHashMap<u64, u32>, // (node << 32 | word) -> node
    name: Vec<u32>,             // by node: the name its words spell, or NONE
    more: Vec<bool>,            // by node: whether a longer name goes on from it
}

impl NameTrie {
    /// `names`: each name's words, lower-cased; a name's number is its place.
    pub(crate) fn new(names: &[Vec<String>]) -> Self {
        let mut trie = NameTrie::default();
        for words in names {
            for word in words {
                trie.number(word);
            }
        }
        let words = trie.name.len();
        trie.more.resize(words, false);
        for (k, words) in names.iter().enumerate() {
            let Some(first) = words.first() else { continue };
            let mut node = trie.word(first.as_bytes());
            for word in &words[1..] {
                trie.more[node as usize] = true;
                let key = (u64::from(node) << 32) | u64::from(trie.word(word.as_bytes()));
                let next = trie.name.len() as u32;
                node = *trie.child.entry(key).or_insert(next);
                if node == next {
                    trie.name.push(NONE);
                    trie.more.push(false);
                }
            }
            if trie.name[node as usize] == NONE {
                trie.name[node as usize] = k as u32;
            }
        }
        trie
    }

    fn number(&mut self, word: &str) {
        if self.word(word.as_bytes()) != NONE {
            return;
        }
        let next = self.name.len() as u32;
        match packed(word.as_bytes()) {
            Some(key) => self.short.insert(key, next),
            None => self.long.insert(word.to_owned(), next),
        };
        self.name.push(NONE);
    }

    /// The number of a lower-cased word, NONE for a word of no name.
    pub(crate) fn word(&self, word: &[u8]) -> u32 {
        let found = match packed(word) {
            Some(key) => self.short.get(&key),
            None => std::str::from_utf8(word).ok().and_then(|w| self.long.get(w)),
        };
        found.copied().unwrap_or(NONE)
    }

    /// The number of a lower-cased word given packed (`packed`): one of up to 16 bytes.
    pub(crate) fn short_word(&self, key: u128) -> u32 {
        self.short.get(&key).copied().unwrap_or(NONE)
    }

    /// The node after `node` on the word numbered `word` (not NONE), or NONE.
    #[inline]
    pub(crate) fn next(&self, node: u32, word: u32) -> u32 {
        if !self.more[node as usize] {
            return NONE;
        }
        self.child.get(&((u64::from(node) << 32) | u64::from(word))).copied().unwrap_or(NONE)
    }

    /// The name a node's words spell, or NONE.
    #[inline]
    pub(crate) fn name(&self, node: u32) -> u32 {
        self.name[node as usize]
    }

    /// Whether a longer name goes on from a node.
    #[inline]
    pub(crate) fn more(&self, node: u32) -> bool {
        self.more[node as usize]
    }
}
