//! The facet model learned from the library: for every facet value, the words and pairs of
//! words of the cases' text that tell the cases tagged with it apart from the rest, and how
//! sure each makes it. Where the taxonomy's aliases and signatures are silent (a postmortem's
//! root-cause section written in sentences, a log that names the situation in its program's
//! own words), it still points at values, and it says why: "learned from *OOM killer*,
//! *Killed process* (0.82)".
//!
//! # The model
//!
//! Counts, nothing else ([`train`]): how many cases the library has (`N`), how many carry each
//! value (`c`), and for every feature of the cases' text (a stem or a pair of stems, see
//! [`features`]) in how many cases it occurs (`d`) and in how many of those the case carries
//! each value (`a`). Each kind is learned from the parts of a case that speak for it
//! ([`crate::corpus::parts::weight`]): root causes from the title, summary, trigger and root
//! cause; symptoms from the title, summary and detection.
//!
//! A feature's evidence for a value is how far it moves the value's odds: the share of the
//! cases with the feature that carry the value, shrunk towards the value's share of the whole
//! library by [`PRIOR`] cases' worth of prior (so a feature seen twice counts for less than one
//! seen twenty times), as log-odds against that share. Only features that [`MIN_SUPPORT`] or
//! more cases with the value share, moving the odds by at least [`MIN_EVIDENCE`], count. A text's
//! score for a value is its prior log-odds plus its strongest evidence, each further piece
//! counting less than the one before ([`DECAY`]: pieces of evidence in one text are not
//! independent), less a little for every e-fold of features the text has ([`LENGTH_PENALTY`]:
//! among hundreds of features some are strong by chance); the confidence is that score as a
//! probability. On the leave-one-out measure it reads about as a precision: of the values the
//! model gives at 0.7 or more for cases it has not seen, about seven in ten are right.
//!
//! Because the model is counts, hiding one case from it is exact and free: subtract what that
//! case added ([`Exclude`]). The leave-one-out evaluation in `tests/eval` predicts every case's
//! facets from its own text with the case hidden, which no tuning on the evaluation sets can
//! flatter.
//!
//! The build script trains the model on the bundled library and bakes it into the binary
//! ([`codec`]); [`FacetModel::bundled`] opens it.

pub mod codec;
pub mod features;
pub mod train;

use std::sync::OnceLock;

use self::features::{Feature, FeatureReader};
use crate::{
    corpus::{
        mention::{Mention, mention},
        parts::{Part, weight},
    },
    taxonomy::FacetKind,
};

/// Cases' worth of prior pulling a feature's share towards the value's share of the library.
pub const PRIOR: f32 = 8.0;
/// A feature is evidence for a value only when at least this many cases with the value have it.
pub const MIN_SUPPORT: u32 = 2;
/// The least a feature must move a value's log-odds to count.
pub const MIN_EVIDENCE: f32 = 0.5;
/// Each further piece of evidence for a value counts this share of the one before.
pub const DECAY: f32 = 0.6;
/// At most this many pieces of evidence count towards one value.
const MAX_PIECES: usize = 6;
/// Log-odds taken off per e-fold of features in the text: the more features a text has, the
/// more of them are strong for some value by chance (a whole case has hundreds, a sentence a
/// dozen), so the strongest evidence of a long text is worth less.
pub const LENGTH_PENALTY: f32 = 0.4;
/// A part of a case's text is read for a kind when it speaks for the kind at least this much.
pub const READS_FROM: f32 = 0.5;

/// Whether the model learns (and predicts) `kind` from `part`.
pub fn reads(kind: FacetKind, part: Part) -> bool {
    weight(kind, part) >= READS_FROM
}

/// The parts of a case that the model reads, in order.
pub fn case_parts(case: &crate::corpus::Case) -> Vec<(Part, &str)> {
    let body = &case.body;
    let mut parts = vec![(Part::Title, case.title.as_str()), (Part::Summary, body.symptoms.as_str())];
    if let Some(t) = &body.trigger {
        parts.push((Part::Trigger, t.as_str()));
    }
    if let Some(r) = &body.root_cause {
        parts.push((Part::Cause, r.as_str()));
    }
    parts.push((Part::Detection, body.detection.as_str()));
    parts
}

/// A value's counts.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelValue {
    /// Its kind.
    pub kind: FacetKind,
    /// Its name.
    pub name: String,
    /// Cases that carry it.
    pub cases: u32,
}

/// One feature's counts.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Entry {
    /// Cases whose text for each kind (by `FacetKind::index`) has it.
    doc_freq: [u32; 4],
    /// Its (value, cases with the value and the feature) pairs in `FacetModel::pairs`.
    start: u32,
    end: u32,
}

/// The learned model: see the module docs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FacetModel {
    /// Cases trained on.
    cases: u32,
    /// The values, by model id.
    values: Vec<ModelValue>,
    /// Feature keys, sorted; `entries` in the same order.
    keys: Vec<u64>,
    entries: Vec<Entry>,
    /// (value id, cases with both): every feature's pairs, one run per feature.
    pairs: Vec<(u16, u32)>,
}

/// A case hidden from the model: its values (model ids). Its text must be the text predicted
/// from (what leave-one-out does), so every feature read was counted for it.
#[derive(Debug, Clone, Default)]
pub struct Exclude {
    /// The hidden case's values.
    pub values: Vec<u16>,
}

/// A value the model points at.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// The value's model id.
    pub value: u16,
    /// Its kind.
    pub kind: FacetKind,
    /// Its name.
    pub name: String,
    /// How sure the model is, 0 to 1.
    pub confidence: f32,
    /// The words of the text it rests on, as written, strongest first, at most three.
    pub because: Vec<String>,
}

/// How to read a text.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reading<'a> {
    /// Leave out words that the text denies or only supposes (`no`, `not`, `if`, `could`):
    /// for prose, never for log lines (`No space left on device` says there is none).
    pub prose: bool,
    /// A case hidden from the model (leave-one-out).
    pub exclude: Option<&'a Exclude>,
}

fn logit(p: f32) -> f32 {
    (p / (1.0 - p)).ln()
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// How far a feature that `d` cases have, `a` of them with a value that `c` of `n` cases carry,
/// moves the value's log-odds.
pub fn evidence(a: u32, d: u32, c: u32, n: u32) -> f32 {
    if n == 0 || c == 0 || c >= n || d == 0 {
        return 0.0;
    }
    let share = c as f32 / n as f32;
    let shrunk = (a as f32 + PRIOR * share) / (d as f32 + PRIOR);
    logit(shrunk.clamp(1e-4, 1.0 - 1e-4)) - logit(share)
}

impl FacetModel {
    /// The model baked into the binary, trained on the bundled library (empty in the build
    /// script, which bakes it).
    pub fn bundled() -> &'static FacetModel {
        static MODEL: OnceLock<FacetModel> = OnceLock::new();
        MODEL.get_or_init(|| codec::decode(crate::corpus::bundled::FACET_MODEL).unwrap_or_default())
    }

    /// Cases trained on.
    pub fn cases(&self) -> u32 {
        self.cases
    }

    /// The values it knows, by model id.
    pub fn values(&self) -> &[ModelValue] {
        &self.values
    }

    /// Features it holds.
    pub fn features(&self) -> usize {
        self.keys.len()
    }

    /// The model id of a value.
    pub fn value_id(&self, kind: FacetKind, name: &str) -> Option<u16> {
        self.values.iter().position(|v| v.kind == kind && v.name == name).and_then(|i| u16::try_from(i).ok())
    }

    /// The values `parts` of a text point at, per kind (by `FacetKind::index`), strongest
    /// first; every value with some evidence, whatever its confidence.
    pub fn predict(&self, parts: &[(Part, &str)], reading: Reading<'_>) -> [Vec<Prediction>; 4] {
        let mut reader = FeatureReader::new();
        // Every part's features once: (part index, feature).
        let mut read: Vec<(usize, Feature)> = Vec::new();
        for (i, &(_, text)) in parts.iter().enumerate() {
            for f in reader.features(text) {
                if reading.prose && mention(text, f.span) != Mention::Positive {
                    continue;
                }
                read.push((i, f));
            }
        }
        let hidden = reading.exclude;
        let is_hidden = |v: u16| hidden.is_some_and(|h| h.values.contains(&v));
        let n = self.cases.saturating_sub(u32::from(hidden.is_some()));
        let mut out: [Vec<Prediction>; 4] = Default::default();
        for kind in FacetKind::ALL {
            // The kind's features, each key once over the parts that speak for the kind.
            let mut keys = rustc_hash::FxHashSet::default();
            // Per value: (evidence, part, feature).
            let mut found: rustc_hash::FxHashMap<u16, Vec<(f32, usize, Feature)>> = Default::default();
            for &(i, f) in &read {
                if !reads(kind, parts[i].0) || !keys.insert(f.key) {
                    continue;
                }
                let Ok(at) = self.keys.binary_search(&f.key) else { continue };
                let entry = self.entries[at];
                let d = entry.doc_freq[kind.index()].saturating_sub(u32::from(hidden.is_some()));
                for &(v, a) in &self.pairs[entry.start as usize..entry.end as usize] {
                    let value = &self.values[v as usize];
                    if value.kind != kind {
                        continue;
                    }
                    let own = u32::from(is_hidden(v));
                    let a = a.saturating_sub(own);
                    if a < MIN_SUPPORT {
                        continue;
                    }
                    let e = evidence(a, d, value.cases.saturating_sub(own), n);
                    if e >= MIN_EVIDENCE {
                        found.entry(v).or_default().push((e, i, f));
                    }
                }
            }
            let list = &mut out[kind.index()];
            for (v, mut pieces) in found {
                pieces.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.2.span.cmp(&b.2.span)));
                let value = &self.values[v as usize];
                let c = value.cases.saturating_sub(u32::from(is_hidden(v)));
                let mut score = logit((c.max(1) as f32 / n.max(2) as f32).clamp(1e-4, 1.0 - 1e-4))
                    - LENGTH_PENALTY * (keys.len().max(1) as f32).ln();
                let mut share = 1.0;
                for p in pieces.iter().take(MAX_PIECES) {
                    score += share * p.0;
                    share *= DECAY;
                }
                let mut because: Vec<String> = Vec::new();
                for &(_, i, f) in &pieces {
                    let word = parts[i].1.get(f.span.0..f.span.1).unwrap_or_default().to_string();
                    let lower = word.to_lowercase();
                    // A pair stands for its words: `oom killer`, not `oom` and `killer`.
                    if because.iter().any(|b| b.to_lowercase().contains(&lower)) {
                        continue;
                    }
                    because.retain(|b| !lower.contains(&b.to_lowercase()));
                    if because.len() == 3 {
                        break;
                    }
                    because.push(word);
                }
                list.push(Prediction {
                    value: v,
                    kind,
                    name: value.name.clone(),
                    confidence: sigmoid(score),
                    because,
                });
            }
            list.sort_by(|a, b| b.confidence.total_cmp(&a.confidence).then(a.value.cmp(&b.value)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::model::test_case;

    /// A library where `oom killer` goes with one value and `bus error` with another.
    fn model() -> FacetModel {
        let mut cases = Vec::new();
        for i in 0..6 {
            let mut c = test_case(&format!("oom-{i}"), &[(FacetKind::Component, "CPU and host memory")]);
            c.title = format!("The OOM killer stopped job {i}");
            cases.push(c);
        }
        for i in 0..6 {
            let mut c = test_case(&format!("bus-{i}"), &[(FacetKind::Component, "Training data loader")]);
            c.title = format!("Workers died of a bus error, run {i}");
            cases.push(c);
        }
        for i in 0..12 {
            let mut c = test_case(&format!("other-{i}"), &[(FacetKind::Component, "GPU")]);
            c.title = format!("A GPU stopped answering, job {i}");
            cases.push(c);
        }
        train::train(&cases)
    }

    #[test]
    fn the_words_a_value_shares_point_at_it_and_say_so() {
        let m = model();
        let got = m.predict(&[(Part::Summary, "node went down: oom killer again")], Reading::default());
        let components = &got[FacetKind::Component.index()];
        let top = components.first().expect("a prediction");
        assert_eq!(top.name, "CPU and host memory");
        assert!(top.confidence > 0.5, "{top:?}");
        assert!(top.because.iter().any(|w| w == "oom killer"), "{top:?}");
        assert!(!components.iter().any(|p| p.name == "Training data loader"), "{components:?}");
    }

    #[test]
    fn words_no_case_shares_point_at_nothing() {
        let m = model();
        let got = m.predict(&[(Part::Summary, "zxqv blorpt")], Reading::default());
        assert!(got.iter().all(Vec::is_empty), "{got:?}");
    }

    #[test]
    fn evidence_grows_with_support_and_shrinks_to_nothing_without_it() {
        // A feature all of whose cases carry the value: more cases, more evidence.
        assert!(evidence(10, 10, 50, 500) > evidence(3, 3, 50, 500));
        assert!(evidence(3, 3, 50, 500) > evidence(2, 2, 50, 500));
        // A feature as common among the value's cases as elsewhere: none.
        assert!(evidence(5, 50, 50, 500).abs() < 0.3, "{}", evidence(5, 50, 50, 500));
        assert_eq!(evidence(1, 1, 0, 500), 0.0);
    }

    #[test]
    fn hiding_a_case_is_training_without_it() {
        let mut cases = Vec::new();
        for i in 0..5 {
            let mut c = test_case(&format!("oom-{i}"), &[(FacetKind::Component, "CPU and host memory")]);
            c.title = format!("The OOM killer stopped job {i}");
            cases.push(c);
        }
        for i in 0..5 {
            let mut c = test_case(&format!("gpu-{i}"), &[(FacetKind::Component, "GPU")]);
            c.title = format!("A GPU fell off the bus, job {i}");
            cases.push(c);
        }
        let all = train::train(&cases);
        let without = train::train(&cases[1..]);
        let hidden = &cases[0];
        let exclude =
            Exclude { values: hidden.facets.iter().filter_map(|(k, v)| all.value_id(k, v)).collect() };
        let parts = case_parts(hidden);
        let a = all.predict(&parts, Reading { exclude: Some(&exclude), ..Reading::default() });
        let b = without.predict(&parts, Reading::default());
        let names = |p: &[Vec<Prediction>; 4]| -> Vec<(String, u32)> {
            p.iter().flatten().map(|x| (x.name.clone(), (x.confidence * 1e4) as u32)).collect()
        };
        assert_eq!(names(&a), names(&b));
        assert!(!names(&a).is_empty());
    }

    #[test]
    fn prose_denied_words_do_not_count_but_log_lines_keep_them() {
        let m = model();
        let prose = m
            .predict(&[(Part::Summary, "it was not the oom killer")], Reading { prose: true, exclude: None });
        assert!(prose[FacetKind::Component.index()].is_empty(), "{prose:?}");
        let log = m.predict(&[(Part::Summary, "it was not the oom killer")], Reading::default());
        assert!(!log[FacetKind::Component.index()].is_empty());
    }
}
