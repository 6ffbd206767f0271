//! How much each word of a sentence counts: a word that names a taxonomy value (a name, an alias,
//! a log signature) outweighs a plain word, and a plain word outweighs a generic one — the words
//! that say something went wrong without saying what (`timeout`, `error`, `failed`), numbers and
//! units. So in "NCCL timeout after 30 minutes" the cases about NCCL come first, not the ones
//! that mention a timeout of 30 minutes.
//!
//! A word inside a phrase of several words that names a value (`GPU has fallen off the bus`,
//! `Xid 79`) counts as naming, generic or not; a generic word that alone names a value (`timeout`
//! is an alias) stays generic. Pure: words and the places values were named in, weights out.

use crate::search::index::QueryWord;

/// The weight of a word that names a taxonomy value.
pub const NAMING: f32 = 2.0;
/// The weight of a generic word.
pub const GENERIC: f32 = 0.35;
/// The weight of a number or a unit.
pub const NUMBER: f32 = 0.25;

/// Stems (as the index's analyser makes them) of words that say something went wrong, or when,
/// without saying what.
const GENERIC_STEMS: &[&str] = &[
    "error",
    "fail",
    "failur",
    "timeout",
    "time",
    "crash",
    "issu",
    "problem",
    "broken",
    "broke",
    "bug",
    "wrong",
    "job",
    "run",
    "after",
    "befor",
    "dure",
    "got",
    "get",
    "see",
    "seem",
    "still",
    "keep",
    "kept",
    "happen",
    "work",
    "use",
    "tri",
    "help",
    "need",
    "sudden",
    "random",
    "sometim",
    "alway",
    "never",
    "again",
    "everi",
    "today",
    "yesterday",
    "last",
    "night",
    "week",
    "now",
    "start",
    "around",
    "approx",
    "about",
    "sinc",
];

/// Units people type after a number.
const UNIT_STEMS: &[&str] = &[
    "ms", "s", "sec", "second", "min", "minut", "h", "hr", "hour", "day", "kb", "mb", "gb", "tb", "kib",
    "mib", "gib", "tib", "x", "k", "m", "percent", "pct",
];

/// Set each word's weight from where taxonomy values were named in the sentence (`named`: byte
/// ranges, each with the number of words of the phrase that matched there).
pub fn weigh(words: &mut [QueryWord], named: &[(usize, usize, usize)]) {
    for word in words {
        let in_phrase = |min_words: usize| {
            word.spans.iter().any(|&(a, b)| named.iter().any(|&(s, e, n)| n >= min_words && a >= s && b <= e))
        };
        let number =
            word.term.chars().all(|c| c.is_ascii_digit()) || UNIT_STEMS.contains(&word.term.as_str());
        let generic = GENERIC_STEMS.contains(&word.term.as_str());
        word.weight = if in_phrase(2) {
            NAMING
        } else if number {
            NUMBER
        } else if generic {
            GENERIC
        } else if in_phrase(1) {
            NAMING
        } else {
            1.0
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(term: &str, at: usize) -> QueryWord {
        QueryWord {
            term: term.into(),
            typed_chars: term.len(),
            doc_freq: 1,
            spans: vec![(at, at + term.len())],
            weight: 1.0,
        }
    }

    #[test]
    fn naming_words_outweigh_plain_ones_and_generic_ones_weigh_least() {
        // "nccl timeout after 30 minutes": NCCL named alone, timeout an alias alone.
        let mut words =
            vec![word("nccl", 0), word("timeout", 5), word("30", 19), word("minut", 22), word("ring", 40)];
        weigh(&mut words, &[(0, 4, 1), (5, 12, 1)]);
        let weights: Vec<f32> = words.iter().map(|w| w.weight).collect();
        assert_eq!(weights, [NAMING, GENERIC, NUMBER, NUMBER, 1.0]);
    }

    #[test]
    fn a_phrase_of_several_words_names_even_its_generic_words_and_numbers() {
        // "Xid 79" and "watchdog timeout" as whole phrases.
        let mut words = vec![word("xid", 0), word("79", 4), word("watchdog", 10), word("timeout", 19)];
        weigh(&mut words, &[(0, 6, 2), (10, 26, 2)]);
        assert!(words.iter().all(|w| w.weight == NAMING), "{words:?}");
    }
}
