//! How a place where a facet value is named reads in its clause: said to be so, denied (`no`,
//! `not`, `without`, `ruled out`, `was fine`) or only possible (`if`, `could`, `would`, `might`).
//! Inference of a postmortem's facets and the learned facet model both count only what a text
//! says is so. Pure: a text and a byte range in, a [`Mention`] out.

use crate::text::words::word_spans;

/// How many words before a mention a negation or hypothetical reaches.
const REACH_BEFORE: usize = 5;
/// How many words after a mention are read for `was fine`, `was not`, `ruled out`; more when
/// the mention is an item of a list (`the GPUs, NCCL and the network were ruled out`).
const REACH_AFTER: usize = 4;
const REACH_AFTER_LIST: usize = 9;

/// Words that deny what follows them in a clause.
const NEGATIONS: &[&str] = &[
    "no", "not", "never", "without", "nor", "neither", "none", "nothing", "cannot", "ruled", "rule", "rules",
    "excluded", "exclude", "rather", "unlike", "absence", "didn", "doesn", "don", "wasn", "weren", "isn",
    "aren", "hasn", "haven", "hadn", "won", "couldn", "wouldn", "shouldn",
];

/// Words that make what follows them in a clause a possibility, not a fact.
const HYPOTHETICALS: &[&str] = &[
    "if",
    "unless",
    "whether",
    "could",
    "would",
    "might",
    "should",
    "otherwise",
    "prevent",
    "prevents",
    "avoid",
    "avoids",
    "risk",
    "hypothetically",
    "suspected",
    "suspect",
];

/// Words after a mention that say it was not at fault: `GPU memory was fine`.
const CLEARED: &[&str] =
    &["fine", "healthy", "normal", "unaffected", "innocent", "ok", "okay", "clean", "nominal", "excluded"];

/// Verbs that, followed by `not` or `never`, deny the mention before them: `NCCL was not ...`.
const COPULAS: &[&str] =
    &["was", "were", "is", "are", "been", "be", "looked", "seemed", "stayed", "remained"];

/// Words that start a new clause: a negation before them does not reach past them.
const CLAUSE_WORDS: &[&str] = &[
    "but", "and", "although", "though", "however", "whereas", "while", "yet", "so", "because", "since",
    "when", "after", "before", "until", "which", "where", "that", "then", "instead",
];

/// How a place where a value is named reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mention {
    /// Said to be so.
    Positive,
    /// Denied: `no`, `not`, `without`, `ruled out`, `was fine`.
    Negated,
    /// Only possible: `if`, `could`, `would have`, `might`.
    Hypothetical,
}

/// How the mention at `span` (a byte range of `text`) reads in its clause.
pub fn mention(text: &str, span: (usize, usize)) -> Mention {
    let (start, end) = span;
    // The clause around the mention: from the last sentence or clause mark before it to the
    // next one after it.
    let is_mark = |c: char| matches!(c, '.' | '!' | '?' | ';' | ':' | '\n' | '(' | ')' | '"');
    let before_text = text.get(..start).unwrap_or_default();
    let clause_start = before_text
        .char_indices()
        .rev()
        .find(|&(i, c)| is_mark(c) && !is_inner_dot(text, i, c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let after_text = text.get(end..).unwrap_or_default();
    let clause_end = after_text
        .char_indices()
        .find(|&(i, c)| is_mark(c) && !is_inner_dot(text, end + i, c))
        .map_or(text.len(), |(i, _)| end + i);
    let words = |from: usize, to: usize| -> Vec<String> {
        let slice = text.get(from..to).unwrap_or_default();
        word_spans(slice).map(|(a, b)| slice[a..b].to_lowercase()).collect()
    };
    let before = words(clause_start, start);
    let after = words(end, clause_end.max(end));

    // Before: the nearest words back to a clause word.
    let mut denied = Mention::Positive;
    for word in before.iter().rev().take(REACH_BEFORE) {
        if CLAUSE_WORDS.contains(&word.as_str()) {
            break;
        }
        if NEGATIONS.contains(&word.as_str()) {
            denied = Mention::Negated;
            break;
        }
        if HYPOTHETICALS.contains(&word.as_str()) {
            denied = Mention::Hypothetical;
            break;
        }
    }
    if denied != Mention::Positive {
        return denied;
    }
    // After: `was fine`, `was not`, `wasn't`, `was ruled out`, `looked healthy`. A mention
    // followed by a comma, `and` or `or` is an item of a list: what is said of the list is said
    // of it.
    let rest = text.get(end..clause_end.max(end)).unwrap_or_default().trim_start();
    let in_list = rest.starts_with(',') || matches!(after.first().map(String::as_str), Some("and" | "or"));
    let reach = if in_list { REACH_AFTER_LIST } else { REACH_AFTER };
    let after: Vec<&str> = after.iter().take(reach).map(String::as_str).collect();
    for (i, word) in after.iter().enumerate() {
        if CLAUSE_WORDS.contains(word) && !(in_list && matches!(*word, "and" | "or")) {
            break;
        }
        let next = after.get(i + 1).copied();
        let cleared = CLEARED.contains(word)
            || (*word == "ruled" && next == Some("out"))
            || (COPULAS.contains(word) && matches!(next, Some("not" | "never")))
            || matches!(*word, "wasn" | "weren" | "isn" | "aren");
        if cleared {
            return Mention::Negated;
        }
    }
    Mention::Positive
}

/// Whether `c` at byte `i` is a dot inside a word (`torch.distributed`, `10.0.0.1`), not the end
/// of a sentence.
fn is_inner_dot(text: &str, i: usize, c: char) -> bool {
    c == '.' && text.get(i + 1..).and_then(|t| t.chars().next()).is_some_and(char::is_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads(text: &str, word: &str) -> Mention {
        let start = text.find(word).unwrap_or_else(|| panic!("{word} in {text}"));
        mention(text, (start, start + word.len()))
    }

    #[test]
    fn each_negation_pattern_denies_the_mention() {
        for (text, word) in [
            ("Their GPU memory was fine throughout.", "GPU memory"),
            ("There was no OOM anywhere.", "OOM"),
            ("The loader did not crash.", "crash"),
            ("The loader didn't crash.", "crash"),
            ("It failed without any NCCL error.", "NCCL"),
            ("We ruled out the network early.", "network"),
            ("The network was ruled out early.", "network"),
            ("NCCL was not involved.", "NCCL"),
            ("NCCL wasn't involved.", "NCCL"),
            ("The job never hung.", "hung"),
            ("Neither the GPUs nor the switches showed errors.", "switches"),
            ("No GPU, NCCL or network errors were logged.", "NCCL"),
            ("The storage servers looked healthy.", "storage"),
            ("The GPUs, NCCL and the network fabric were ruled out early.", "GPUs"),
            ("The GPUs, NCCL and the network fabric were ruled out early.", "NCCL"),
        ] {
            assert_eq!(reads(text, word), Mention::Negated, "{word} in {text:?}");
        }
    }

    #[test]
    fn each_hypothetical_pattern_makes_the_mention_a_possibility() {
        for (text, word) in [
            ("If the checkpoint had been larger, it would have filled the disk.", "checkpoint"),
            ("A longer run could have hung at the barrier.", "hung"),
            ("It would have run out of memory the next day.", "out of memory"),
            ("The job might deadlock under load.", "deadlock"),
            ("We first suspected NCCL.", "NCCL"),
            ("Timeouts prevent a hang from wasting the reservation.", "hang"),
        ] {
            assert_eq!(reads(text, word), Mention::Hypothetical, "{word} in {text:?}");
        }
    }

    #[test]
    fn a_negation_reaches_no_further_than_its_clause() {
        for (text, word) in [
            ("No alert fired when the checkpoint stalled.", "checkpoint"),
            ("The GPUs were fine, but the data loader crashed.", "data loader"),
            ("There was no OOM; the job hung in NCCL.", "NCCL"),
            ("The loss went to NaN at step 4000.", "NaN"),
            ("Nothing was wrong with the disks. The job hung.", "hung"),
            ("The rollout reached every region with no canary.", "no canary"),
            ("The GPU ran hot and the fans were fine.", "GPU"),
        ] {
            assert_eq!(reads(text, word), Mention::Positive, "{word} in {text:?}");
        }
    }
}
