//! Filters over cases: facet values (each must hold, also within a kind; any can be negated),
//! organization, and date bounds. Shared by search, facets, checklists and the TUI.
//!
//! Resolving what someone typed (`nccl`, `dataloader`) to a taxonomy value happens when a filter
//! is built ([`Filters::add_facet`]); matching a case is then exact and cheap.

use std::fmt;

use crate::taxonomy::FacetKind;
use crate::{
    corpus::model::{Case, PartialDate},
    support::error::{Error, Result},
    taxonomy::Taxonomy,
};

/// One facet condition.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
pub struct FacetFilter {
    /// The kind.
    pub kind: FacetKind,
    /// The canonical value name.
    pub value: String,
    /// True for "must not have".
    pub negated: bool,
}

impl fmt::Display for FacetFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.negated { "-" } else { "" };
        let value = if self.value.contains(' ') { format!("\"{}\"", self.value) } else { self.value.clone() };
        write!(f, "{sign}{}:{value}", self.kind.key())
    }
}

/// Every condition a case must meet.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Filters {
    /// Facet conditions, in the order they were applied.
    pub facets: Vec<FacetFilter>,
    /// Organizations (case-insensitive, a case matches any of them); empty means any.
    pub organizations: Vec<String>,
    /// Only cases on or after the start of this date.
    pub after: Option<PartialDate>,
    /// Only cases on or before the end of this date.
    pub before: Option<PartialDate>,
}

impl Filters {
    /// True when nothing is filtered.
    pub fn is_empty(&self) -> bool {
        self.facets.is_empty()
            && self.organizations.is_empty()
            && self.after.is_none()
            && self.before.is_none()
    }

    /// Add a facet condition from what someone typed, resolved through names, aliases and near
    /// spellings ([`Taxonomy::resolve`]). A repeat of an existing condition is ignored; the
    /// opposite of one replaces it. Returns a note saying what `typed` was read as when it was
    /// not a name or alias.
    pub fn add_facet(
        &mut self,
        taxonomy: &Taxonomy,
        kind: FacetKind,
        typed: &str,
        negated: bool,
    ) -> Result<Option<String>> {
        let resolved = taxonomy.resolve(kind, typed).map_err(|e| Error::Usage(e.to_string()))?;
        self.set_facet(FacetFilter { kind, value: resolved.value.name.clone(), negated });
        Ok(resolved.note(typed))
    }

    /// Add an already-resolved facet condition (see [`Filters::add_facet`] for the rules).
    pub fn set_facet(&mut self, filter: FacetFilter) {
        self.facets.retain(|f| !(f.kind == filter.kind && f.value == filter.value));
        self.facets.push(filter);
    }

    /// Remove the condition on (kind, value), if any.
    pub fn remove_facet(&mut self, kind: FacetKind, value: &str) {
        self.facets.retain(|f| !(f.kind == kind && f.value == value));
    }

    /// Whether `case` meets every condition.
    pub fn matches(&self, case: &Case) -> bool {
        self.facets.iter().all(|f| case.facets.contains(f.kind, &f.value) != f.negated)
            && (self.organizations.is_empty()
                || self.organizations.iter().any(|o| o.eq_ignore_ascii_case(&case.organization)))
            && self.after.is_none_or(|a| case.date.is_some_and(|d| d.end() >= a.start()))
            && self.before.is_none_or(|b| case.date.is_some_and(|d| d.start() <= b.end()))
    }

    /// The filters in the inline syntax (`component:NCCL -root_cause:"Hardware fault" after:2024`).
    pub fn to_query_string(&self) -> String {
        let mut parts: Vec<String> = self.facets.iter().map(ToString::to_string).collect();
        for o in &self.organizations {
            parts.push(if o.contains(' ') { format!("org:\"{o}\"") } else { format!("org:{o}") });
        }
        if let Some(a) = self.after {
            parts.push(format!("after:{a}"));
        }
        if let Some(b) = self.before {
            parts.push(format!("before:{b}"));
        }
        parts.join(" ")
    }
}

/// `year:2024` as bounds: after the start and before the end of that year.
pub fn year_bounds(year: u16) -> (PartialDate, PartialDate) {
    let d = PartialDate { year, month: None, day: None };
    (d, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Library;

    fn library() -> Library {
        Library::bundled()
    }

    #[test]
    fn facet_filters_and_negation() {
        let lib = library();
        let mut f = Filters::default();
        f.add_facet(&lib.taxonomy, FacetKind::Component, "nccl", false).unwrap();
        assert!(
            lib.cases
                .iter()
                .filter(|c| f.matches(c))
                .all(|c| c.facets.contains(FacetKind::Component, "NCCL"))
        );
        f.add_facet(&lib.taxonomy, FacetKind::Component, "NCCL", true).unwrap();
        assert_eq!(f.facets.len(), 1, "the opposite replaces the condition");
        assert!(
            lib.cases
                .iter()
                .filter(|c| f.matches(c))
                .all(|c| !c.facets.contains(FacetKind::Component, "NCCL"))
        );
        assert!(f.add_facet(&lib.taxonomy, FacetKind::Component, "flux capacitor", false).is_err());
    }

    #[test]
    fn dates_bound_inclusively_by_period() {
        let lib = library();
        let acme = lib.case("2023-03-acme-llm-pretraining-failures-seren-kalos").unwrap();
        let mut f = Filters { after: Some("2023".parse().unwrap()), ..Default::default() };
        assert!(f.matches(acme));
        f.before = Some("2023-02".parse().unwrap());
        assert!(!f.matches(acme));
        f.before = Some("2023-03-01".parse().unwrap());
        assert!(f.matches(acme), "a month-precision date overlaps its first day");
    }

    #[test]
    fn query_string_round_trips_the_conditions() {
        let mut f = Filters::default();
        f.set_facet(FacetFilter {
            kind: FacetKind::Symptom,
            value: "Training job failure".into(),
            negated: false,
        });
        f.set_facet(FacetFilter { kind: FacetKind::RootCause, value: "Deadlock".into(), negated: true });
        f.organizations.push("Meta".into());
        f.after = Some("2024-06".parse().unwrap());
        assert_eq!(
            f.to_query_string(),
            "symptom:\"Training job failure\" -root_cause:Deadlock org:Meta after:2024-06"
        );
    }
}
