//! Leave one case out: the measure no tuning on the evaluation sets can flatter. Every case of
//! the library is hidden in turn, its facets predicted from its own text by the learned model
//! without it (`corpus::learned::Exclude`, exact: the model is counts) and by the taxonomy's
//! aliases alone (`corpus::infer::Inferrer`, the baseline), and the top three values per kind
//! scored against the case's own tags; and each case's symptom text is searched with the case
//! left out of the results, and its nearest cases scored on whether they share its facets.

// Shared by the eval test and the eval example; each uses a part.
#![allow(dead_code)]

use incidex::{
    corpus::{
        Case, Library,
        filter::Filters,
        infer::Inferrer,
        learned::{Exclude, FacetModel, Reading, case_parts},
    },
    search::{Engine, Request},
    taxonomy::FacetKind,
};

/// How many values of a kind are predicted (and how many nearest cases are read).
pub const TOP: usize = 3;

/// Precision and recall of predicted values, per kind (by `FacetKind::index`).
#[derive(Debug, Clone, Copy, Default)]
pub struct KindScore {
    /// Predicted values that the case carries.
    pub right: usize,
    /// Values predicted.
    pub predicted: usize,
    /// Values the cases carry.
    pub tagged: usize,
    /// Cases with at least one value of the kind.
    pub cases: usize,
}

impl KindScore {
    /// Share of the predicted values that are right.
    pub fn precision(&self) -> f64 {
        self.right as f64 / self.predicted.max(1) as f64
    }
    /// Share of the cases' values that were predicted (among the top [`TOP`]).
    pub fn recall(&self) -> f64 {
        self.right as f64 / self.tagged.max(1) as f64
    }
    /// The harmonic mean of the two.
    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 { 0.0 } else { 2.0 * p * r / (p + r) }
    }
}

/// Scores of one way of predicting, per kind.
pub type Scores = [KindScore; 4];

fn score(scores: &mut Scores, case: &Case, predicted: &[Vec<String>; 4]) {
    for kind in FacetKind::ALL {
        let tagged = case.facets.values(kind);
        let s = &mut scores[kind.index()];
        s.tagged += tagged.len();
        s.cases += usize::from(!tagged.is_empty());
        for value in predicted[kind.index()].iter().take(TOP) {
            s.predicted += 1;
            s.right += usize::from(tagged.contains(value));
        }
    }
}

/// The learned model's values for `case` with it hidden: the top [`TOP`] per kind at or above
/// `min_confidence`.
pub fn learned_values(model: &FacetModel, case: &Case, min_confidence: f32) -> [Vec<String>; 4] {
    let exclude = Exclude { values: case.facets.iter().filter_map(|(k, v)| model.value_id(k, v)).collect() };
    let predicted = model.predict(&case_parts(case), Reading { prose: true, exclude: Some(&exclude) });
    predicted.map(|list| {
        list.into_iter().filter(|p| p.confidence >= min_confidence).take(TOP).map(|p| p.name).collect()
    })
}

/// Leave-one-out scores of the learned model over `library`, at `min_confidence`.
pub fn learned(library: &Library, model: &FacetModel, min_confidence: f32) -> Scores {
    let mut scores = Scores::default();
    for case in library.cases.iter() {
        score(&mut scores, case, &learned_values(model, case, min_confidence));
    }
    scores
}

/// Leave-one-out scores of inference as postmortems get it: aliases and signatures first, then
/// the learned model (`corpus::infer`: it doubts, confirms and adds) with the case hidden.
pub fn inferred(library: &Library, model: &FacetModel) -> Scores {
    let inferrer = Inferrer::new(&library.taxonomy);
    let mut scores = Scores::default();
    for case in library.cases.iter() {
        let exclude =
            Exclude { values: case.facets.iter().filter_map(|(k, v)| model.value_id(k, v)).collect() };
        let inferred = inferrer.infer_hiding(&case_parts(case), Some(&exclude));
        score(&mut scores, case, &inferred.map(|list| list.into_iter().map(|i| i.value).collect()));
    }
    scores
}

/// The same cases' values from the taxonomy's aliases and signatures alone (what inference
/// gave before the model; it learns nothing, so hiding the case changes nothing).
pub fn aliases_only(library: &Library) -> Scores {
    let inferrer = Inferrer::aliases_only(&library.taxonomy);
    let mut scores = Scores::default();
    for case in library.cases.iter() {
        let inferred = inferrer.infer(&case_parts(case));
        score(&mut scores, case, &inferred.map(|list| list.into_iter().map(|i| i.value).collect()));
    }
    scores
}

/// A line per kind: precision and recall.
pub fn render(name: &str, scores: &Scores) -> String {
    let mut out = format!("{name}:");
    for kind in FacetKind::ALL {
        let s = &scores[kind.index()];
        out.push_str(&format!(
            "\n  {:<20} precision@{TOP} {:.3}  recall@{TOP} {:.3}  ({} predicted, {} right, {} tagged)",
            kind.label(),
            s.precision(),
            s.recall(),
            s.predicted,
            s.right,
            s.tagged
        ));
    }
    out
}

/// Ranking with one case left out: for each kind, the share of the first [`TOP`] results for a
/// case's symptom text (the case itself left out) that share a value of that kind with it.
pub fn neighbours(engine: &Engine) -> [f64; 4] {
    let library = engine.library();
    let none = Filters::default();
    let (mut shared, mut read) = ([0usize; 4], 0usize);
    for case in library.cases.iter() {
        let request = Request { limit: TOP + 1, ..Request::new(&case.body.symptoms, &none) };
        let request = Request { inline_syntax: false, ..request };
        let response = engine.search(&request);
        for hit in response.hits.iter().filter(|h| h.id != case.id).take(TOP) {
            let other = &library.cases[hit.index];
            read += 1;
            for kind in FacetKind::ALL {
                let theirs = other.facets.values(kind);
                shared[kind.index()] +=
                    usize::from(case.facets.values(kind).iter().any(|v| theirs.contains(v)));
            }
        }
    }
    shared.map(|n| n as f64 / read.max(1) as f64)
}
