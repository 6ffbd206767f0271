//! The parts of an incident report that are read for what it is about (title, summary, impact,
//! trigger, cause, detection), and how much a part speaks for each facet kind: the root-cause
//! section for root causes, the summary and impact for symptoms. Inference of a postmortem's
//! facets (`corpus::infer`) weighs mentions by it, and the learned facet model
//! (`corpus::learned`) learns each kind from the parts that speak for it. Pure data.

use crate::taxonomy::FacetKind;

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
