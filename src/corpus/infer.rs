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
//! - The facet model learned from the library (`corpus::learned`) reads the same parts, leaving
//!   out the same denied and supposed words, and weighs in three ways:
//!   - it **doubts**: a value named by an alias the model, reading the whole report, gives less
//!     than [`DOUBT`] is dropped (the word is there, the situation is not);
//!   - it **confirms**: a value named too weakly to count alone (at least [`WEAK_SCORE`], below
//!     [`MIN_SCORE`]: one word outside the part that speaks for its kind) counts when the model
//!     gives it at least [`AGREES`]; a contributing factor only when the model gives it that
//!     reading the report without the factor's own words ([`confirms_apart`]);
//!   - it **adds**, where the words are silent, the components and symptoms it is at least
//!     [`learned_confidence`] sure of, and a root cause from a root-cause section that names
//!     none ([`SECTION_CONFIDENCE`]): root causes are described in sentences ("every rank
//!     created its own small file in one shared directory"), not keywords.
//!
//!   On the leave-one-out measure (`tests/eval.rs`) the three make inference more precise than
//!   the words alone for every kind, and give more right values for every kind; the model's own
//!   root causes and factors would not (see [`learned_confidence`]). Contributing factors are
//!   the narrowest margin: the aliases name one in 21 of 601 cases, 19 right (0.905); with the
//!   model 24, 22 right (0.917). Both values the aliases get wrong there (`bf16` in a run that
//!   used it, where it did not cause the failure) the model reads as the aliases do: words
//!   alone cannot tell that a precision was used from that it was to blame.
//!
//! Inferred values are marked as such on the case (`Facets::add_inferred`), each with what it
//! rests on ([`Basis`]): an alias, a signature, or the learned words and the confidence.

pub use crate::corpus::{
    mention::{Mention, mention},
    parts::{Part, weight},
};
use crate::{
    corpus::{
        basis::Basis,
        learned::{Exclude, FacetModel, Reading},
    },
    taxonomy::FacetKind,
    taxonomy::{
        FacetValue, Taxonomy,
        matcher::{Found, Matcher},
    },
};

/// At most this many values of one kind are inferred.
pub const MAX_PER_KIND: usize = 3;

/// The weakest evidence that counts. One exact word of a name or alias scores about 1 where it
/// is named, times the part's [`weight`]: enough in the part that speaks for its kind (the
/// root-cause section for a root cause, weight 1.2); elsewhere a single word needs a longer
/// phrase, a log signature or a second part to agree.
pub const MIN_SCORE: f32 = 1.2;

/// A byte range of a text.
type Span = (usize, usize);

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

/// `text` with the bytes of `spans` made spaces: byte for byte, so every other offset (and
/// UTF-8) stays as it was.
fn blanked(text: &str, spans: impl IntoIterator<Item = Span>) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for (a, b) in spans {
        if let Some(run) = bytes.get_mut(a..b) {
            run.fill(b' ');
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `report` with every whole-word occurrence of `words` (ASCII case aside) blanked, so what is
/// left says whether the rest of the report agrees.
fn without_words(report: &[(Part, &str)], words: &[String]) -> Vec<(Part, String)> {
    let alnum = |b: Option<&u8>| b.is_some_and(u8::is_ascii_alphanumeric);
    let words: Vec<String> = words.iter().filter(|w| !w.is_empty()).map(|w| w.to_ascii_lowercase()).collect();
    report
        .iter()
        .map(|&(part, text)| {
            // ASCII lowercasing keeps every byte offset.
            let lower = text.to_ascii_lowercase();
            let places = words.iter().flat_map(|w| {
                lower
                    .match_indices(w.as_str())
                    .map(|(at, _)| (at, at + w.len()))
                    .filter(|&(a, _)| !alnum(a.checked_sub(1).and_then(|i| lower.as_bytes().get(i))))
                    .filter(|&(_, b)| !alnum(lower.as_bytes().get(b)))
                    .collect::<Vec<Span>>()
            });
            (part, blanked(text, places))
        })
        .collect()
}

/// Infers facet values from case text; built once per taxonomy, shared across threads.
#[derive(Debug)]
pub struct Inferrer {
    values: Vec<FacetValue>,
    matcher: Matcher,
    /// The learned facet model, where it is used.
    model: Option<&'static FacetModel>,
}

/// One value inferred, with what it rests on.
#[derive(Debug, Clone, PartialEq)]
pub struct InferredValue {
    /// The value's name.
    pub value: String,
    /// What it was inferred from.
    pub basis: Basis,
}

/// The values inferred for each kind, strongest first (by `FacetKind::index`).
pub type Inferred = [Vec<InferredValue>; 4];

/// Values named by the words, each with whether the part that speaks for its kind names it
/// ([`STATED`]), per kind, strongest first.
type Scored = [Vec<(InferredValue, bool)>; 4];

/// A part speaks for a kind when it weighs at least this for it ([`weight`]): the root-cause
/// section for root causes, components and factors, the impact section for symptoms. What the
/// author states there is never doubted.
pub const STATED: f32 = 1.2;

/// The least confidence of the learned model (`corpus::learned`) at which it adds a component
/// or a symptom where the words are silent. On the leave-one-out measure (`tests/eval.rs`) the
/// values so added are right less often than the words' own (about 0.58 and 0.62 against 0.79),
/// but they lift recall (components 0.67 to 0.69, symptoms 0.34 to 0.38) while inference as a
/// whole stays more precise than the aliases alone.
pub const LEARNED_CONFIDENCE: f32 = 0.7;

/// The least confidence at which the learned model adds a value of `kind` where the words are
/// silent, if it ever does. Never a root cause or a contributing factor from the whole report:
/// on the leave-one-out measure the model's own are right about 0.67 and 0.55 of the time at
/// 0.7 (0.68 and 0.33 at 0.8), below the 0.78 and 0.90 of the aliases, so for those it only
/// doubts and confirms (and reads a root-cause section that names no root cause).
pub fn learned_confidence(kind: FacetKind) -> Option<f32> {
    match kind {
        FacetKind::Component | FacetKind::Symptom => Some(LEARNED_CONFIDENCE),
        FacetKind::RootCause | FacetKind::ContributingFactor => None,
    }
}

/// A value named by an alias that the learned model, reading the same report, gives less than
/// this is dropped: `GPU` in a report whose every other word is about the network. On the
/// leave-one-out measure this takes component precision from 0.72 to 0.80 and symptom precision
/// from 0.73 to 0.77, for about 0.01 of recall each. A value named by a signature (a log line's
/// own words) is never doubted, nor one the model has no evidence on at all: it knows nothing of
/// it either way.
pub const DOUBT: f32 = 0.3;

/// A value named at least this strongly (half a word outside the part that speaks for its
/// kind), though below [`MIN_SCORE`], counts when the learned model agrees ([`AGREES`]).
pub const WEAK_SCORE: f32 = 0.5;

/// The least confidence of the learned model that confirms a weakly named value
/// ([`WEAK_SCORE`]). Two weak signals that agree: on the leave-one-out measure, root causes so
/// confirmed are right about eight times in ten.
pub const AGREES: f32 = 0.6;

/// Whether a weakly named value of `kind` is confirmed only by what the rest of the report says:
/// the learned model reads the report with the value's own words blanked, so the two signals
/// that must agree are two, not one word counted twice. For contributing factors: a factor is a
/// judgement about why an incident was possible or worse, and the word that names its setting
/// (`fp16`, `bf16`) says only that the setting was there, which the model, having learned that
/// word, would confirm by itself (`fp16` weights in a checkpoint-loading bug). On the
/// leave-one-out measure this takes factor precision from 0.857 to 0.917 (28 values given, 24
/// right; then 24, 22). Root causes and components keep the whole report: their words are the
/// situation itself (`NCCL`, `NFS`), and blanking them cost root causes a third of their recall
/// (0.086 to 0.058) at the same precision, components 0.015 of recall for 0.019 of precision.
///
/// It has a price: the shared-memory postmortem of `tests/fixtures/postmortem` names its factor
/// in one word ("whose default shared-memory size is 64 MB"), the rest of it gives *Unsafe
/// default* 0.40, and it is no longer inferred there. Asking only that the rest not doubt the
/// value (at least [`DOUBT`]) keeps it, but gives factors 27, 24 right (0.889), below the
/// aliases' 0.905: the values the rest of a report gives lie between 0.30 and 0.75 right and
/// wrong alike, so no threshold between the two separates them.
pub fn confirms_apart(kind: FacetKind) -> bool {
    kind == FacetKind::ContributingFactor
}

/// The least confidence at which the root-cause section, read alone, gives a root cause when
/// nothing else did: the strongest value the learned model reads in it. The bundled cases keep
/// their cause in `trigger`, not in a root-cause section, so the leave-one-out measure does not
/// reach this rule; their triggers read alone this way give a right root cause about six times
/// in ten. It is shown as inferred, with its words and confidence, for the author to confirm.
pub const SECTION_CONFIDENCE: f32 = 0.55;

impl Inferrer {
    /// An inferrer over `taxonomy`'s values: their names, aliases and signatures, and the facet
    /// model learned from the bundled library.
    pub fn new(taxonomy: &Taxonomy) -> Inferrer {
        Inferrer { model: Some(FacetModel::bundled()), ..Inferrer::aliases_only(taxonomy) }
    }

    /// An inferrer on the taxonomy's names, aliases and signatures alone (what inference was
    /// before the learned model; the baseline it is measured against).
    pub fn aliases_only(taxonomy: &Taxonomy) -> Inferrer {
        Inferrer { values: taxonomy.values().to_vec(), matcher: Matcher::new(taxonomy), model: None }
    }

    /// The values a report, given as its parts, points at, per kind, strongest first.
    pub fn infer(&self, report: &[(Part, &str)]) -> Inferred {
        self.infer_hiding(report, None)
    }

    /// [`Inferrer::infer`] as if the case `hidden` (its values in the learned model) were not
    /// in the library the model learned from: how leave-one-out evaluation reads a bundled case.
    pub fn infer_hiding(&self, report: &[(Part, &str)], hidden: Option<&Exclude>) -> Inferred {
        // A huge field is read from its start (see [`FIELD_BYTES`]).
        let report: Vec<(Part, &str)> = report.iter().map(|&(part, text)| (part, start_of(text))).collect();
        let (named, weak, denied) = self.by_aliases(&report);
        let Some(model) = self.model else {
            return named.map(|list| list.into_iter().map(|(i, _)| i).collect());
        };
        // A learned value is added when the taxonomy knows it and the report does not deny it
        // by name (`It was not a GPU OOM`: the words around it do not bring it back).
        let admits = |kind: FacetKind, name: &str| {
            let is = |v: &FacetValue| v.kind == kind && v.name == name;
            self.values.iter().any(is) && !denied.iter().any(|&v| is(&self.values[v]))
        };
        let learned = model.predict(&report, Reading { prose: true, exclude: hidden });
        let confidence = |kind: FacetKind, name: &str| {
            learned[kind.index()].iter().find(|p| p.name == name).map(|p| p.confidence)
        };
        let mut out: Inferred = Default::default();
        for (kind, named) in FacetKind::ALL.into_iter().zip(named) {
            // A signature is the program's own words for the situation, and what the part that
            // speaks for the kind states is the author's: neither is doubted.
            let believed = |(i, stated): &(InferredValue, bool)| {
                *stated
                    || matches!(i.basis, Basis::Signature { .. })
                    || confidence(kind, &i.value).is_none_or(|c| c >= DOUBT)
            };
            out[kind.index()] = named.into_iter().filter(believed).map(|(i, _)| i).collect();
        }
        for (kind, weak) in FacetKind::ALL.into_iter().zip(weak) {
            let list = &mut out[kind.index()];
            for i in weak {
                // The model agrees: reading the report, or for a kind confirmed apart, reading
                // the report without the value's own words.
                let agrees = match confirms_apart(kind) {
                    false => confidence(kind, &i.value),
                    true => {
                        let rest = without_words(&report, i.basis.words());
                        let rest: Vec<(Part, &str)> = rest.iter().map(|(p, t)| (*p, t.as_str())).collect();
                        let read = model.predict(&rest, Reading { prose: true, exclude: hidden });
                        read[kind.index()].iter().find(|p| p.name == i.value).map(|p| p.confidence)
                    }
                }
                .is_some_and(|c| c >= AGREES);
                if agrees && list.len() < MAX_PER_KIND && !list.iter().any(|have| have.value == i.value) {
                    list.push(i);
                }
            }
        }
        for (kind, predictions) in FacetKind::ALL.into_iter().zip(learned) {
            let Some(least) = learned_confidence(kind) else { continue };
            let list = &mut out[kind.index()];
            for p in predictions {
                if list.len() >= MAX_PER_KIND || p.confidence < least {
                    break;
                }
                if admits(kind, &p.name) && !list.iter().any(|i| i.value == p.name) {
                    list.push(InferredValue {
                        basis: Basis::learned(p.because, p.confidence),
                        value: p.name,
                    });
                }
            }
        }
        // A root-cause section that names no value is read alone: what it says is the cause,
        // in sentences, and the rest of the report would only dilute it.
        let causes: Vec<(Part, &str)> =
            report.iter().copied().filter(|(p, t)| *p == Part::Cause && !t.trim().is_empty()).collect();
        let kind = FacetKind::RootCause;
        if out[kind.index()].is_empty() && !causes.is_empty() {
            let [read, ..] = model.predict(&causes, Reading { prose: true, exclude: hidden });
            let best = read.into_iter().next().filter(|p| p.confidence >= SECTION_CONFIDENCE);
            if let Some(p) = best.filter(|p| admits(kind, &p.name)) {
                out[kind.index()]
                    .push(InferredValue { basis: Basis::learned(p.because, p.confidence), value: p.name });
            }
        }
        out
    }

    /// The values the report's names, aliases and signatures point at; those they name too
    /// weakly to count alone (at least [`WEAK_SCORE`]), for the learned model to confirm; and
    /// the values (positions in the taxonomy) it names only where it denies or merely supposes
    /// them.
    fn by_aliases(&self, report: &[(Part, &str)]) -> (Scored, Inferred, Vec<usize>) {
        // (value, kind) -> the strongest part's score and the sum of the others, and the
        // strongest part's words.
        let mut scores: Vec<(usize, f32, f32, Basis)> = Vec::new();
        let (mut named, mut said, mut stated) = (Vec::new(), Vec::new(), Vec::new());
        for &(part, text) in report {
            if text.trim().is_empty() {
                continue;
            }
            let (founds, mentions) = self.positive(text);
            for (value, positive) in mentions {
                named.push(value);
                if positive {
                    said.push(value);
                }
            }
            for found in &founds {
                let Some(value) = self.values.get(found.value) else { continue };
                let w = weight(value.kind, part);
                if w == 0.0 || found.spans.iter().all(|&span| self.shadowed(found, span, &founds)) {
                    continue;
                }
                let score = found.score * w;
                if w >= STATED {
                    stated.push(found.value);
                }
                let basis = || Basis::of_match(found);
                match scores.iter_mut().find(|(v, ..)| *v == found.value) {
                    Some((_, best, rest, why)) => {
                        *rest += best.min(score);
                        if score > *best {
                            *why = basis();
                        }
                        *best = best.max(score);
                    }
                    None => scores.push((found.value, score, 0.0, basis())),
                }
            }
        }
        let mut ranked: Vec<(usize, f32, Basis)> =
            scores.into_iter().map(|(v, best, rest, why)| (v, best + 0.25 * rest.min(2.0), why)).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let (mut out, mut weak): (Scored, Inferred) = Default::default();
        for (value, score, basis) in ranked {
            let Some(v) = self.values.get(value) else { continue };
            let inferred = InferredValue { value: v.name.clone(), basis };
            let list = &mut out[v.kind.index()];
            if score >= MIN_SCORE && list.len() < MAX_PER_KIND {
                list.push((inferred, stated.contains(&value)));
            } else if (WEAK_SCORE..MIN_SCORE).contains(&score) {
                weak[v.kind.index()].push(inferred);
            }
        }
        named.retain(|v| !said.contains(v));
        named.sort_unstable();
        named.dedup();
        (out, weak, named)
    }

    /// The values named positively in `text`: the words of every denied or hypothetical mention
    /// are blanked and the rest read again, so a value's score counts only what is said to be so.
    /// Beside them, every value named at all, with whether some mention of it is positive.
    fn positive(&self, text: &str) -> (Vec<Found>, Vec<(usize, bool)>) {
        // Every word counts as known, so none is read as a typo of a taxonomy word.
        let founds = self.matcher.find(text, &|_| true);
        let mentions = founds
            .iter()
            .map(|f| (f.value, f.spans.iter().any(|&span| mention(text, span) == Mention::Positive)))
            .collect();
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
            return (founds, mentions);
        }
        (self.matcher.find(&blanked(text, denied), &|_| true), mentions)
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

    fn values(inferred: &Inferred, kind: FacetKind) -> Vec<String> {
        inferred[kind.index()].iter().map(|i| i.value.clone()).collect()
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
    fn a_weakly_named_value_counts_when_the_model_agrees() {
        let report = [
            (Part::Title, "Loss went to NaN in the FP8 run after the recipe change"),
            (
                Part::Summary,
                "The 70B pretraining run trained in FP8 on H100s. After the scaling recipe changed, \
                 the loss diverged to NaN within a few hundred steps and the gradient norm spiked.",
            ),
        ];
        let factor = FacetKind::ContributingFactor;
        let alone = Inferrer::aliases_only(&Library::bundled().taxonomy).infer(&report);
        assert!(values(&alone, factor).is_empty(), "FP8 outside the cause is too weak alone: {alone:?}");
        let got = inferrer().infer(&report);
        assert_eq!(values(&got, factor), ["Low-precision arithmetic"], "{got:?}");
        assert!(matches!(got[factor.index()][0].basis, Basis::Alias { .. }), "it rests on the word");
    }

    #[test]
    fn a_weak_factor_needs_the_rest_of_the_report_to_agree() {
        // `FP16` says which precision the layer ran in, not that precision was to blame: the rest
        // of the report is about which cuBLASLt library was loaded. The model, reading the word
        // too, gives the factor about 0.7, enough to confirm it; without the word, it does not.
        let report = [
            (
                Part::Title,
                "Plain FP16 linear layers failed with CUBLAS_STATUS_INVALID_VALUE after a cuBLAS upgrade",
            ),
            (
                Part::Summary,
                "A half-precision linear layer failed with a cuBLAS error; a mismatched cuBLASLt \
                 library had been loaded from the system path.",
            ),
        ];
        let model = FacetModel::bundled().predict(&report, Reading { prose: true, exclude: None });
        let read = |name: &str| {
            model[FacetKind::ContributingFactor.index()].iter().find(|p| p.name == name).map(|p| p.confidence)
        };
        assert!(read("Low-precision arithmetic").is_some_and(|c| c >= AGREES), "{model:?}");
        let factor = FacetKind::ContributingFactor;
        let got = inferrer().infer(&report);
        assert!(!values(&got, factor).contains(&"Low-precision arithmetic".to_string()), "{got:?}");
        assert!(confirms_apart(factor) && !confirms_apart(FacetKind::RootCause));
        let words = [("fp16".to_string())];
        let rest = without_words(&[(Part::Summary, "FP16 weights, fp16x and a fp16.")], &words);
        assert_eq!(
            rest[0].1, "     weights, fp16x and a     .",
            "whole words, ASCII case aside, byte for byte"
        );
    }

    #[test]
    fn a_value_named_where_the_model_reads_another_situation_is_doubted() {
        let report = [
            (Part::Title, "GPU training hung for two hours after an InfiniBand link flapped"),
            (
                Part::Summary,
                "An InfiniBand port on one leaf switch flapped; the NCCL all-reduce of a 512-rank job \
                 hung until the watchdog fired two hours later. The GPUs were idle the whole time.",
            ),
        ];
        let component = FacetKind::Component;
        let alone = Inferrer::aliases_only(&Library::bundled().taxonomy).infer(&report);
        let got = inferrer().infer(&report);
        assert!(values(&alone, component).contains(&"GPU".to_string()), "{alone:?}");
        assert!(!values(&got, component).contains(&"GPU".to_string()), "{got:?}");
        assert!(values(&got, component).contains(&"NCCL".to_string()), "{got:?}");
    }

    #[test]
    fn what_the_section_for_a_kind_states_is_not_doubted() {
        // The root-cause section names Control-plane overload ("thundering herd"), so it
        // stays...
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/postmortem-team/dns-timeouts-during-job-start.md"
        ))
        .expect("the fixture");
        let section = |heading: &str| {
            let start = text.find(heading).expect("the section") + heading.len();
            let end = text[start..].find("\n## ").map_or(text.len(), |e| start + e);
            text[start..end].to_string()
        };
        let (summary, cause) = (section("## What happened"), section("## Root cause"));
        let stated = [(Part::Summary, summary.as_str()), (Part::Cause, cause.as_str())];
        let causes = values(&inferrer().infer(&stated), FacetKind::RootCause);
        assert!(causes.contains(&"Control-plane overload".to_string()), "{causes:?}");
        // ...though the model, reading the same parts, would doubt it.
        let read = FacetModel::bundled().predict(&stated, Reading { prose: true, exclude: None });
        let confidence = read[FacetKind::RootCause.index()]
            .iter()
            .find(|p| p.name == "Control-plane overload")
            .map(|p| p.confidence);
        assert!(confidence.is_some_and(|c| c < DOUBT), "{confidence:?}");
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
