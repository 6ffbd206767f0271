//! The features the learned facet model reads in a text: its words' stems and the pairs of
//! neighbouring words (`oom kill`, `bus error`, `fall bus`), each a 64-bit key with the place in
//! the text it was read from, so a prediction can say which words it rests on.
//!
//! A word is what [`word_spans`] cuts, lowercased and stemmed as the search index and the
//! taxonomy's matcher stem it. Words that say nothing of an incident are left out: English
//! function words, long numbers (timestamps, pids, sizes) and long mixed strings of letters and
//! digits (hashes, ids). Short numbers stay, since exit codes, Xids and HTTP statuses name things
//! (`137`, `79`, `503`); so do short model and part names (`b200`, `h100`, `mi300x`). A pair
//! never spans a clause mark (`.`, `;`, `:`, `|`, a bracket, a line break), so two log fields
//! or two sentences do not make a pair; one left-out word between two kept ones does not break
//! it (`killed by signal` gives `kill signal`).
//!
//! Keys are FNV-1a hashes of the stems (`kill` or `kill signal`): stable across builds and
//! platforms, since the build script writes the model with them and the program reads it.
//! Pure: a text in, features out.

use crate::text::words::{WordStemmer, word_spans};

/// One feature of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Feature {
    /// The key of the stem or of the pair of stems.
    pub key: u64,
    /// The byte range of the text it was read from (both words, for a pair).
    pub span: (usize, usize),
    /// Whether it is a pair of words.
    pub pair: bool,
}

/// Words that say nothing of an incident by themselves.
const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "of", "to", "in", "on", "at", "for", "by", "with", "from", "into", "onto", "as", "is",
    "was", "are", "were", "be", "been", "being", "am", "and", "or", "but", "if", "then", "so", "than",
    "that", "this", "these", "those", "it", "its", "it's", "they", "them", "their", "we", "our", "us", "you",
    "your", "i", "me", "my", "he", "she", "his", "her", "there", "here", "which", "who", "whom", "what",
    "when", "where", "while", "how", "why", "do", "does", "did", "done", "has", "have", "had", "having",
    "can", "will", "just", "also", "very", "some", "any", "all", "each", "both", "more", "most", "such",
    "only", "own", "same", "other", "about", "over", "under", "up", "down", "out", "off", "again", "once",
    "s", "t", "d", "ll", "re", "ve", "m", "one", "two", "via", "per", "not", "no",
];

/// A number longer than this is a timestamp, a pid or a size, not a name.
const MAX_NUMBER_DIGITS: usize = 4;
/// A word of letters and digits longer than this is a hash or an id.
const MAX_MIXED_CHARS: usize = 10;
/// Words longer than this are not words.
const MAX_WORD_CHARS: usize = 40;

/// Characters between two words that end a clause: no pair spans them.
fn breaks_clause(gap: &str) -> bool {
    gap.chars().any(|c| {
        matches!(c, '.' | ';' | ':' | '!' | '?' | '|' | '(' | ')' | '[' | ']' | '{' | '}' | '\n' | '=' | ',')
    }) && !gap.chars().all(|c| c == '.' || c == '-' || c == '_')
}

/// Whether the lowercase `word` is kept as a feature.
fn kept(word: &str) -> bool {
    let chars = word.chars().count();
    if chars > MAX_WORD_CHARS || STOP_WORDS.contains(&word) {
        return false;
    }
    let digits = word.chars().filter(char::is_ascii_digit).count();
    if digits == chars {
        return chars <= MAX_NUMBER_DIGITS;
    }
    if digits > 0 && chars > MAX_MIXED_CHARS {
        return false;
    }
    chars >= 2
}

/// The FNV-1a hash of `text`.
pub fn key_of(text: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.as_bytes() {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// Reads features out of texts; one per thread (the stemmer is not shared).
#[derive(Clone, Default)]
pub struct FeatureReader {
    stemmer: WordStemmer,
}

impl std::fmt::Debug for FeatureReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FeatureReader")
    }
}

impl FeatureReader {
    /// A reader.
    pub fn new() -> FeatureReader {
        FeatureReader::default()
    }

    /// Every feature of `text`, in text order, each key once (at its first place).
    pub fn features(&mut self, text: &str) -> Vec<Feature> {
        let mut out = Vec::new();
        let mut seen = rustc_hash::FxHashSet::default();
        // The last kept word: its stem, span, and whether a clause ended since.
        let mut last: Option<(String, (usize, usize))> = None;
        let mut skipped = 0usize;
        let mut prev_end = 0usize;
        for (a, b) in word_spans(text) {
            let gap = &text[prev_end..a];
            prev_end = b;
            if breaks_clause(gap) {
                last = None;
            }
            let word = text[a..b].to_lowercase();
            if !kept(&word) {
                skipped += 1;
                if skipped > 1 {
                    last = None;
                }
                continue;
            }
            let stem = self.stemmer.stem(&word);
            if seen.insert(key_of(&stem)) {
                out.push(Feature { key: key_of(&stem), span: (a, b), pair: false });
            }
            if let Some((prev, (pa, _))) = &last {
                let pair = format!("{prev} {stem}");
                if seen.insert(key_of(&pair)) {
                    out.push(Feature { key: key_of(&pair), span: (*pa, b), pair: true });
                }
            }
            last = Some((stem, (a, b)));
            skipped = 0;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: &str) -> Vec<&str> {
        FeatureReader::new().features(text).iter().map(|f| &text[f.span.0..f.span.1]).collect()
    }

    #[test]
    fn words_and_neighbouring_pairs_are_read_once_each() {
        let text = "Out of memory: Killed process 4242 (python); the OOM killer killed it";
        assert_eq!(
            shown(text),
            [
                "memory",
                "Killed",
                "process",
                "Killed process",
                "4242",
                "process 4242",
                "python",
                "OOM",
                "killer",
                "OOM killer",
                "killer killed"
            ]
        );
    }

    #[test]
    fn long_numbers_hashes_and_function_words_are_left_out_but_names_stay() {
        let text = "b200 h100 xid 79 exit 137 1733011200 3f9a2b7c4d5e6f70 the";
        let words = shown(text);
        for kept in ["b200", "h100", "xid", "79", "137"] {
            assert!(words.contains(&kept), "{kept} in {words:?}");
        }
        for gone in ["1733011200", "3f9a2b7c4d5e6f70", "the"] {
            assert!(!words.contains(&gone), "{gone} in {words:?}");
        }
    }

    #[test]
    fn a_pair_spans_one_left_out_word_but_no_clause_mark() {
        assert!(shown("killed by signal").contains(&"killed by signal"));
        assert!(!shown("killed. signal").iter().any(|w| w.contains(' ')));
        assert!(!shown("loss | nan").iter().any(|w| w.contains(' ')));
        assert!(!shown("killed by the signal").iter().any(|w| w.contains(' ')));
        // A dotted name is one thing: `torch.distributed` pairs its parts.
        assert!(shown("torch.distributed").contains(&"torch.distributed"));
    }

    #[test]
    fn stems_join_forms_of_one_word_and_keys_are_stable() {
        let mut r = FeatureReader::new();
        let a: Vec<u64> = r.features("hangs").iter().map(|f| f.key).collect();
        let b: Vec<u64> = r.features("hang").iter().map(|f| f.key).collect();
        assert_eq!(a, b);
        // FNV-1a's published values: the model baked by the build script is read with these.
        assert_eq!(key_of(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(key_of("a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(key_of("kill signal"), key_of("signal kill"));
    }
}
