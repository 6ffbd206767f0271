//! Facet values a postmortem leaves out, inferred from its text with the taxonomy's matcher
//! ([`Matcher`], the one that suggests search filters), so a team can search and filter its
//! postmortems before it has tagged any of them.
//!
//! Inference reads rather than counts words:
//!
//! - Only what the report says about the incident itself is read (title, summary, impact,
//!   trigger, cause, detection), never its lessons, action items or timeline, which talk about
//!   other things.
//! - Each part weighs by what it is for ([`weight`]): the root-cause section for root causes,
//!   the summary and impact for symptoms, the title and the cause for components.
//! - A value counts only where it is named positively ([`mention`]): a mention after a negation
//!   (`no`, `not`, `never`, `without`, `ruled out`, `didn't`) or a hypothetical (`if`, `could`,
//!   `would`, `might`) in the same clause, or followed by `was fine`, `was not`, `looked healthy`,
//!   `was ruled out`, does not.
//! - Words that lie inside a longer phrase of another value name that value, not their own
//!   (`error` in `Bus error`, `cache` in `KV cache`), and of two values of one kind named by
//!   overlapping words the stronger wins (`all regions at once` over `all at once`).
//! - Only whole names, aliases and signatures count (no typo matching), at least [`MIN_SCORE`]
//!   strong, at most [`MAX_PER_KIND`] values per kind, strongest first.
//!
//! Inferred values are marked as such on the case (`Facets::add_inferred`).

use crate::{
    taxonomy::FacetKind,
    taxonomy::{
        FacetValue, Taxonomy,
        matcher::{Found, Matcher},
    },
    text::words::word_spans,
};

/// At most this many values of one kind are inferred.
pub const MAX_PER_KIND: usize = 3;

/// The weakest evidence that counts. One exact word of a name or alias scores about 1 where it
/// is named, times the part's [`weight`]: enough in the part that speaks for its kind (the
/// root-cause section for a root cause, weight 1.2); elsewhere a single word needs a longer
/// phrase, a log signature or a second part to agree.
pub const MIN_SCORE: f32 = 1.2;

/// How many words before a mention a negation or hypothetical reaches.
const REACH_BEFORE: usize = 5;
/// How many words after a mention are read for `was fine`, `was not`, `ruled out`; more when
/// the mention is an item of a list (`the GPUs, NCCL and the network were ruled out`).
const REACH_AFTER: usize = 4;
const REACH_AFTER_LIST: usize = 9;

/// A byte range of a text.
type Span = (usize, usize);

/// The parts of a report inference reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The title.
    Title,
    /// The summary and what people saw.
    Summary,
    /// What it cost (an Impact section).
    Impact,
    /// What set it off.
    Trigger,
    /// Why it happened (a Root cause section).
    Cause,
    /// How it was noticed.
    Detection,
}

/// How much a mention in `part` counts towards a value of `kind`; 0 means not at all.
pub fn weight(kind: FacetKind, part: Part) -> f32 {
    use Part::*;
    match (kind, part) {
        (FacetKind::RootCause, Cause) => 1.2,
        (FacetKind::RootCause, Trigger) => 0.7,
        (FacetKind::RootCause, Title) => 0.6,
        (FacetKind::RootCause, Summary) => 0.5,
        (FacetKind::RootCause, Impact | Detection) => 0.0,
        (FacetKind::Component, Cause) => 1.2,
        (FacetKind::Component, Title) => 1.0,
        (FacetKind::Component, Trigger) => 0.9,
        (FacetKind::Component, Summary) => 0.8,
        (FacetKind::Component, Impact | Detection) => 0.5,
        (FacetKind::Symptom, Impact) => 1.2,
        (FacetKind::Symptom, Title | Summary) => 1.0,
        (FacetKind::Symptom, Detection) => 0.6,
        (FacetKind::Symptom, Trigger | Cause) => 0.3,
        (FacetKind::ContributingFactor, Cause) => 1.2,
        (FacetKind::ContributingFactor, Trigger) => 1.0,
        (FacetKind::ContributingFactor, Detection) => 0.8,
        (FacetKind::ContributingFactor, Title | Summary) => 0.6,
        (FacetKind::ContributingFactor, Impact) => 0.3,
    }
}

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

/// Of each field, only its first this many bytes are read: the matcher keeps several words of
/// state per word of text, so a 50 MB field (a pasted log) cost nine times its size in memory,
/// while what a report is about is said at its start.
pub const FIELD_BYTES: usize = 64 * 1024;

/// The start of `field`, at most [`FIELD_BYTES`] long, cut at a character boundary.
fn start_of(field: &str) -> &str {
    let mut end = field.len().min(FIELD_BYTES);
    while !field.is_char_boundary(end) {
        end -= 1;
    }
    &field[..end]
}

/// Infers facet values from case text; built once per taxonomy, shared across threads.
#[derive(Debug)]
pub struct Inferrer {
    values: Vec<FacetValue>,
    matcher: Matcher,
}

/// The values inferred for each kind, strongest first (by `FacetKind::index`).
pub type Inferred = [Vec<String>; 4];

impl Inferrer {
    /// An inferrer over `taxonomy`'s values.
    pub fn new(taxonomy: &Taxonomy) -> Inferrer {
        Inferrer { values: taxonomy.values().to_vec(), matcher: Matcher::new(taxonomy) }
    }

    /// The values a report, given as its parts, points at, per kind, strongest first.
    pub fn infer(&self, report: &[(Part, &str)]) -> Inferred {
        // (value, kind) -> the strongest part's score and the sum of the others.
        let mut scores: Vec<(usize, f32, f32)> = Vec::new();
        for &(part, text) in report {
            // A huge field is read from its start (see [`FIELD_BYTES`]).
            let text = start_of(text);
            if text.trim().is_empty() {
                continue;
            }
            let founds = self.positive(text);
            for found in &founds {
                let Some(value) = self.values.get(found.value) else { continue };
                let w = weight(value.kind, part);
                if w == 0.0 || found.spans.iter().all(|&span| self.shadowed(found, span, &founds)) {
                    continue;
                }
                let score = found.score * w;
                match scores.iter_mut().find(|(v, _, _)| *v == found.value) {
                    Some((_, best, rest)) => {
                        *rest += best.min(score);
                        *best = best.max(score);
                    }
                    None => scores.push((found.value, score, 0.0)),
                }
            }
        }
        let mut ranked: Vec<(usize, f32)> =
            scores.into_iter().map(|(v, best, rest)| (v, best + 0.25 * rest.min(2.0))).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut out: Inferred = Default::default();
        for (value, score) in ranked {
            let Some(v) = self.values.get(value) else { continue };
            let list = &mut out[v.kind.index()];
            if score >= MIN_SCORE && list.len() < MAX_PER_KIND {
                list.push(v.name.clone());
            }
        }
        out
    }

    /// The values named positively in `text`: the words of every denied or hypothetical mention
    /// are blanked and the rest read again, so a value's score counts only what is said to be so.
    fn positive(&self, text: &str) -> Vec<Found> {
        // Every word counts as known, so none is read as a typo of a taxonomy word.
        let founds = self.matcher.find(text, &|_| true);
        let (positive, denied): (Vec<Span>, Vec<Span>) = founds
            .iter()
            .flat_map(|f| f.spans.iter().copied())
            .partition(|&span| mention(text, span) == Mention::Positive);
        // `canary` after `no` is denied, but not inside `no canary`, a positive mention itself.
        let denied: Vec<(usize, usize)> = denied
            .into_iter()
            .filter(|&(a, b)| !positive.iter().any(|&(pa, pb)| pa <= a && b <= pb))
            .collect();
        if denied.is_empty() {
            return founds;
        }
        // Spaces byte for byte keep every other offset (and UTF-8) as it was.
        let mut blanked = text.as_bytes().to_vec();
        for (a, b) in denied {
            if let Some(bytes) = blanked.get_mut(a..b) {
                bytes.fill(b' ');
            }
        }
        let blanked = String::from_utf8_lossy(&blanked);
        self.matcher.find(&blanked, &|_| true)
    }

    /// Whether the words at `span`, where `found` was named, name something else better: they
    /// lie inside a longer phrase of another value (`error` in `Bus error`, `cache` in
    /// `KV cache`) that `found` was not named by, or overlap a stronger value of the same kind
    /// (`all at once` in `all regions at once`).
    fn shadowed(&self, found: &Found, span: (usize, usize), founds: &[Found]) -> bool {
        let kind = |f: &Found| self.values.get(f.value).map(|v| v.kind);
        let inside = |outer: (usize, usize), inner: (usize, usize)| outer.0 <= inner.0 && inner.1 <= outer.1;
        founds.iter().filter(|other| other.value != found.value).any(|other| {
            other.spans.iter().any(|&t| {
                let longer = t != span
                    && inside(t, span)
                    && !found.spans.iter().any(|&own| own != span && inside(own, t));
                let rival = kind(other) == kind(found)
                    && t.0 < span.1
                    && span.0 < t.1
                    && (other.score, found.value) > (found.score, other.value);
                longer || rival
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Library;

    #[test]
    fn a_huge_field_is_read_from_its_start_only() {
        let wide = "é".repeat(FIELD_BYTES);
        let cut = start_of(&wide);
        assert!(cut.len() <= FIELD_BYTES && cut.len() > FIELD_BYTES - 4);
        assert_eq!(start_of("short"), "short");
    }

    fn inferrer() -> Inferrer {
        Inferrer::new(&Library::bundled().taxonomy)
    }

    fn values(inferred: &Inferred, kind: FacetKind) -> &[String] {
        &inferred[kind.index()]
    }

    fn reads(text: &str, word: &str) -> Mention {
        let start = text.find(word).unwrap_or_else(|| panic!("{word} in {text}"));
        mention(text, (start, start + word.len()))
    }

    #[test]
    fn strong_matches_in_the_incident_text_are_inferred() {
        let inferrer = inferrer();
        let got = inferrer.infer(&[
            (Part::Title, "Data loader workers killed by bus errors"),
            (
                Part::Summary,
                "Training crashed with \"DataLoader worker (pid 77) is killed by signal: Bus error\".",
            ),
            (Part::Detection, "The job failed at once."),
        ]);
        let components = values(&got, FacetKind::Component);
        assert!(components.contains(&"Training data loader".to_string()), "{components:?}");
        assert!(components.len() <= MAX_PER_KIND);
    }

    #[test]
    fn typos_and_unrelated_text_infer_nothing() {
        let inferrer = inferrer();
        let got = inferrer.infer(&[
            (Part::Title, "The quarterly planning meeting ran long"),
            (Part::Summary, "Nobody minded."),
            (Part::Detection, "Someone looked at the clock."),
        ]);
        assert_eq!(got, Inferred::default());
        let typo = inferrer.infer(&[(Part::Title, "Dataloadr workers")]);
        assert!(!values(&typo, FacetKind::Component).contains(&"Training data loader".to_string()));
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

    #[test]
    fn a_denied_value_is_not_inferred_and_the_section_weighs() {
        let inferrer = inferrer();
        let got = inferrer.infer(&[
            (Part::Title, "Loss went to NaN in the 7B run"),
            (
                Part::Summary,
                "Their GPU memory was fine; the job did not hang. The loss diverged at step 9000.",
            ),
            (Part::Cause, "A learning rate schedule bug: numerical instability in bf16 after warmup."),
        ]);
        let symptoms = values(&got, FacetKind::Symptom);
        assert!(symptoms.contains(&"Loss spike or divergence".to_string()), "{symptoms:?}");
        assert!(!symptoms.contains(&"GPU out of memory".to_string()), "{symptoms:?}");
        assert!(!symptoms.contains(&"Hang".to_string()), "{symptoms:?}");
        let causes = values(&got, FacetKind::RootCause);
        assert!(causes.contains(&"Numerical instability".to_string()), "{causes:?}");
        // A symptom word in the cause alone is not enough for a symptom.
        let weak = inferrer.infer(&[(Part::Cause, "The writer was slow.")]);
        assert!(values(&weak, FacetKind::Symptom).is_empty(), "{weak:?}");
    }
}
