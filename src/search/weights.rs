//! How much each word of a sentence counts: a word that names a taxonomy value (a name, an alias,
//! a log signature) outweighs a plain word, and a plain word outweighs a generic one — the words
//! that say something went wrong without saying what (`timeout`, `error`, `failed`), numbers and
//! units. So in "NCCL timeout after 30 minutes" the cases about NCCL come first, not the ones
//! that mention a timeout of 30 minutes.
//!
//! A word inside a phrase of several words that names a value (`GPU has fallen off the bus`,
//! `Xid 79`) counts as naming, generic or not; a generic word that alone names a value (`timeout`
//! is an alias) stays generic. A rare word, one only a few cases contain, outweighs them all
//! ([`RARE`]). Pure: words and the places values were named in, weights out.

use crate::search::index::QueryWord;

/// The weight of a word that names a taxonomy value.
pub const NAMING: f32 = 2.0;
/// The weight of a generic word.
pub const GENERIC: f32 = 0.35;
/// The weight of a number or a unit.
pub const NUMBER: f32 = 0.25;
/// The weight of a rare word: one that at most one case in [`RARE_IN`] contains (a model or part
/// name such as `b200` or `mi300x`, a library, a flag, an error code). It outweighs a word that
/// names a taxonomy value, which many cases share: what the sentence and a few cases have in
/// common says more than what it shares with a whole facet.
pub const RARE: f32 = 2.5;
/// See [`RARE`]: in the bundled library's 601 cases, a word in 3 cases or fewer.
pub const RARE_IN: u64 = 200;
/// A word naming a value in many more cases than the sentence's rarest plain word (this many
/// times as many) counts as a plain word: in "b200 shows too many rdma devices", *rdma*, in
/// more than twice as many cases of the bundled library, does not outweigh *b200*.
pub const OUTNUMBERED: u64 = 2;

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
    "go",
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
pub fn weigh(words: &mut [QueryWord], named: &[(usize, usize, usize)], cases: u64) {
    // The rarest plain word the sentence shares with some case: a word naming a value that
    // many more cases contain does not outweigh it.
    let named_at =
        |word: &QueryWord| word.spans.iter().any(|&(a, b)| named.iter().any(|&(s, e, _)| a >= s && b <= e));
    let is_number =
        |w: &QueryWord| w.term.chars().all(|c| c.is_ascii_digit()) || UNIT_STEMS.contains(&w.term.as_str());
    let rarest_plain = words
        .iter()
        .filter(|w| {
            w.doc_freq > 0 && !named_at(w) && !is_number(w) && !GENERIC_STEMS.contains(&w.term.as_str())
        })
        .map(|w| w.doc_freq)
        .min();
    for word in words.iter_mut() {
        let in_phrase = |min_words: usize| {
            word.spans.iter().any(|&(a, b)| named.iter().any(|&(s, e, n)| n >= min_words && a >= s && b <= e))
        };
        let number =
            word.term.chars().all(|c| c.is_ascii_digit()) || UNIT_STEMS.contains(&word.term.as_str());
        let generic = GENERIC_STEMS.contains(&word.term.as_str());
        let rare = word.doc_freq > 0 && word.doc_freq * RARE_IN <= cases && !number && !generic;
        // A single word naming a value counts double, unless the sentence has a plain word at
        // least [`OUTNUMBERED`] times rarer.
        let outnumbered = rarest_plain.is_some_and(|r| word.doc_freq >= OUTNUMBERED * r);
        word.weight = if rare {
            RARE
        } else if in_phrase(2) {
            NAMING
        } else if number {
            NUMBER
        } else if generic {
            GENERIC
        } else if in_phrase(1) && !outnumbered {
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
            doc_freq: 10,
            spans: vec![(at, at + term.len())],
            weight: 1.0,
        }
    }

    #[test]
    fn naming_words_outweigh_plain_ones_and_generic_ones_weigh_least() {
        // "nccl timeout after 30 minutes": NCCL named alone, timeout an alias alone.
        let mut words =
            vec![word("nccl", 0), word("timeout", 5), word("30", 19), word("minut", 22), word("ring", 40)];
        weigh(&mut words, &[(0, 4, 1), (5, 12, 1)], 600);
        let weights: Vec<f32> = words.iter().map(|w| w.weight).collect();
        assert_eq!(weights, [NAMING, GENERIC, NUMBER, NUMBER, 1.0]);
    }

    #[test]
    fn a_phrase_of_several_words_names_even_its_generic_words_and_numbers() {
        // "Xid 79" and "watchdog timeout" as whole phrases.
        let mut words = vec![word("xid", 0), word("79", 4), word("watchdog", 10), word("timeout", 19)];
        weigh(&mut words, &[(0, 6, 2), (10, 26, 2)], 600);
        assert!(words.iter().all(|w| w.weight == NAMING), "{words:?}");
    }

    #[test]
    fn a_rare_word_outweighs_a_value_word_that_many_more_cases_share() {
        // "b200 shows too many rdma devices": rdma names a value, in 45 cases; b200 in 20.
        let mut words = vec![word("b200", 0), word("rdma", 19), word("devic", 24)];
        words[0].doc_freq = 20;
        words[1].doc_freq = 45;
        words[2].doc_freq = 90;
        weigh(&mut words, &[(19, 23, 1)], 600);
        assert_eq!(words[1].weight, 1.0, "outnumbered: {words:?}");
        // With no rarer plain word, the value word counts double.
        words[0].doc_freq = 200;
        weigh(&mut words, &[(19, 23, 1)], 600);
        assert_eq!(words[1].weight, NAMING);
        // A word only a few cases contain outweighs everything.
        words[0].doc_freq = 2;
        weigh(&mut words, &[(19, 23, 1)], 600);
        assert_eq!(words[0].weight, RARE);
        // In a small library every word is in few cases: none is rare.
        weigh(&mut words, &[(19, 23, 1)], 6);
        assert_eq!(words[0].weight, 1.0);
    }
}
