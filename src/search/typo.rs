//! Typo tolerance: the words of the index and, for a word no case contains, the words of the
//! index one edit away (a letter added, left out, changed, or two letters swapped).
//!
//! Built once from the index's own term dictionaries, as a map from every word with one letter
//! deleted to the words it came from; looking a word up is a handful of hash lookups, whatever
//! the size of the library, and a correction is then searched like any word (scored by BM25,
//! weighed below exact words). Words with digits are left out: `node-1234` is not a typo of
//! `node-1243`.

use std::collections::HashMap;

/// The shortest word (in letters) a correction is offered for.
pub const MIN_LETTERS: usize = 5;

/// Words of the index and the words one edit away from any other word.
#[derive(Debug, Clone, Default)]
pub struct Typos {
    words: Vec<String>,
    /// Word with one letter deleted (or the word itself) -> ids of the words it comes from.
    deletions: HashMap<String, Vec<u32>>,
}

fn deletions(word: &str) -> impl Iterator<Item = String> + '_ {
    word.char_indices().map(move |(i, c)| {
        let mut d = String::with_capacity(word.len());
        d.push_str(&word[..i]);
        d.push_str(&word[i + c.len_utf8()..]);
        d
    })
}

/// Whether `word` is a word corrections are kept for: letters only, three or more.
fn correctable(word: &str) -> bool {
    word.chars().count() >= 3 && word.chars().all(char::is_alphabetic)
}

impl Typos {
    /// Index `words` (analysed terms of the index; repeats and non-words are skipped).
    pub fn new(words: impl IntoIterator<Item = String>) -> Typos {
        let mut typos = Typos::default();
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
        for word in words {
            if !correctable(&word) || !seen.insert(word.clone()) {
                continue;
            }
            let id = typos.words.len() as u32;
            typos.deletions.entry(word.clone()).or_default().push(id);
            for d in deletions(&word) {
                typos.deletions.entry(d).or_default().push(id);
            }
            typos.words.push(word);
        }
        typos
    }

    /// The number of words known.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether no word is known.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Known words one edit from `word` (never `word` itself), sorted.
    pub fn corrections(&self, word: &str) -> Vec<&str> {
        if !correctable(word) {
            return Vec::new();
        }
        let mut ids: Vec<u32> = Vec::new();
        // `word` with a letter left out or changed, or one letter short, shares a key with it.
        for key in std::iter::once(word.to_string()).chain(deletions(word)) {
            if let Some(found) = self.deletions.get(&key) {
                ids.extend(found);
            }
        }
        ids.sort_unstable();
        ids.dedup();
        let mut out: Vec<&str> = ids
            .into_iter()
            .map(|id| self.words[id as usize].as_str())
            .filter(|w| *w != word && strsim::damerau_levenshtein(w, word) == 1)
            .collect();
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_edit_in_every_direction() {
        let t = Typos::new(
            ["checkpoint", "check", "point", "lustre", "luster", "hang", "node42", "checkpoint"]
                .map(String::from),
        );
        assert_eq!(t.len(), 6, "repeats and words with digits are skipped");
        for (typed, want) in [
            ("chekpoint", vec!["checkpoint"]),   // a letter left out
            ("checkpoints", vec!["checkpoint"]), // a letter added
            ("checkpoimt", vec!["checkpoint"]),  // a letter changed
            ("checkpiont", vec!["checkpoint"]),  // two letters swapped
            ("lustr", vec!["luster", "lustre"]),
            ("checkpoint", vec![]),
            ("chxxkpoint", vec![]),
            ("node43", vec![]),
        ] {
            assert_eq!(t.corrections(typed), want, "{typed}");
        }
    }
}
