//! The case model: one incident report, with the facet values it is tagged with.
//!
//! These types are plain data. They serialise to JSON with the data files' own field names
//! (`symptom_tags`, `action_items[].type`, ...), which is the documented `--json` contract.
//! Parsing lives in `parse`, validation in `check`; nothing here does I/O. A case's long text is
//! in `content` and its dates in `date`; both are re-exported here, with the case they make up.

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

use super::body::Body;
pub use super::content::{ActionItem, ActionType, CaseBody, Impact, ItemOrigin, Source, SourceKind};
pub use super::date::PartialDate;
use crate::taxonomy::FacetKind;

/// The facet values a case is tagged with, one list per kind, in file order.
///
/// Stored as one list, kinds in seed order, with where each kind ends: a library of 100,000
/// cases makes one allocation per case for its lists rather than four.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Facets {
    values: Vec<String>,
    /// Where each kind's values end in `values`.
    ends: [u32; 4],
    /// Values that were inferred from the text rather than written by an author, each with
    /// what it was inferred from (`corpus::basis::Basis::describe`).
    inferred: BTreeMap<(FacetKind, String), String>,
}

impl Facets {
    /// Room for `n` values over all kinds.
    pub fn with_capacity(n: usize) -> Facets {
        Facets { values: Vec::with_capacity(n), ..Facets::default() }
    }

    fn range(&self, kind: FacetKind) -> std::ops::Range<usize> {
        let i = kind.index();
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        start..self.ends[i] as usize
    }

    /// The values of one kind.
    pub fn values(&self, kind: FacetKind) -> &[String] {
        &self.values[self.range(kind)]
    }

    /// Replace the values of one kind.
    pub fn set(&mut self, kind: FacetKind, values: Vec<String>) {
        let range = self.range(kind);
        let (old, new) = (range.len(), values.len());
        self.values.splice(range, values);
        for end in &mut self.ends[kind.index()..] {
            *end = (*end as usize + new - old) as u32;
        }
    }

    /// Add a value at the end of its kind's list.
    pub fn push(&mut self, kind: FacetKind, value: String) {
        let at = self.range(kind).end;
        self.values.insert(at, value);
        for end in &mut self.ends[kind.index()..] {
            *end += 1;
        }
    }

    /// Add a value inferred from the text, with what it was inferred from (kept apart so it
    /// can be shown as inferred, and why).
    pub fn add_inferred(&mut self, kind: FacetKind, value: String, reason: String) {
        if !self.contains(kind, &value) {
            self.push(kind, value.clone());
            self.inferred.insert((kind, value), reason);
        }
    }

    /// Whether `value` was inferred rather than written.
    pub fn is_inferred(&self, kind: FacetKind, value: &str) -> bool {
        self.inferred_reason(kind, value).is_some()
    }

    /// What an inferred `value` was inferred from; `None` for a written one.
    pub fn inferred_reason(&self, kind: FacetKind, value: &str) -> Option<&str> {
        if self.inferred.is_empty() {
            return None;
        }
        self.inferred.get(&(kind, value.to_string())).map(String::as_str)
    }

    /// Whether the case has `value` of `kind` (exact name).
    pub fn contains(&self, kind: FacetKind, value: &str) -> bool {
        self.values(kind).iter().any(|v| v == value)
    }

    /// Every (kind, value) pair, kinds in seed order.
    pub fn iter(&self) -> impl Iterator<Item = (FacetKind, &str)> {
        FacetKind::ALL.into_iter().flat_map(move |k| self.values(k).iter().map(move |v| (k, v.as_str())))
    }

    /// Number of values over all kinds.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True when no kind has a value.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// Where a case was loaded from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Provenance {
    /// The file, as the user named it; bundled files as `data/cases/<id>.toml`.
    pub path: String,
    /// Whether it is part of the bundled library.
    pub bundled: bool,
}

/// One incident report: its head (what lists, filters and the graph use) and its [`Body`]
/// (the long text, which a library opened from the cache reads on first use).
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Unique slug, also the file name.
    pub id: String,
    /// One line: what happened to what.
    pub title: String,
    /// When it happened; `None` only for user postmortems without a date (they sort last).
    pub date: Option<PartialDate>,
    /// Who ran the system.
    pub organization: String,
    /// Facet values.
    pub facets: Facets,
    /// Where it was loaded from.
    pub provenance: Provenance,
    /// Everything else: `case.body.symptoms`, `case.body.action_items`, ...
    pub body: Body,
}

impl Case {
    /// The year, when the date is known.
    pub fn year(&self) -> Option<u16> {
        self.date.map(|d| d.year)
    }

    /// Newest first, undated last, ties by id: the order of "no sentence" results.
    pub fn newest_first(a: &Case, b: &Case) -> std::cmp::Ordering {
        match (a.date, b.date) {
            (Some(x), Some(y)) => y.cmp(&x),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        }
        .then_with(|| a.id.cmp(&b.id))
    }

    /// The action items that apply to `component`: untagged items and items tagged with it.
    pub fn action_items_for<'a>(&'a self, component: &'a str) -> impl Iterator<Item = &'a ActionItem> + 'a {
        self.body
            .action_items
            .iter()
            .filter(move |item| item.components.is_empty() || item.components.iter().any(|c| c == component))
    }
}

/// A case with `id` tagged with `values` (kind, name), everything else minimal: the one
/// builder the crate's unit tests share.
#[cfg(test)]
pub(crate) fn test_case(id: &str, values: &[(FacetKind, &str)]) -> Case {
    let mut facets = Facets::default();
    for kind in FacetKind::ALL {
        facets.set(kind, values.iter().filter(|(k, _)| *k == kind).map(|(_, v)| v.to_string()).collect());
    }
    Case {
        id: id.to_string(),
        title: format!("Title of {id}"),
        date: None,
        organization: "Org".into(),
        facets,
        provenance: Provenance { path: format!("{id}.toml"), bundled: false },
        body: Default::default(),
    }
}

/// The JSON shape of a case: the data file's fields, plus where it came from.
impl Serialize for Case {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("id", &self.id)?;
        m.serialize_entry("title", &self.title)?;
        m.serialize_entry("date", &self.date)?;
        m.serialize_entry("organization", &self.organization)?;
        if let Some(owner) = &self.body.owner {
            m.serialize_entry("owner", owner)?;
        }
        if let Some(incident_id) = &self.body.incident_id {
            m.serialize_entry("incident_id", incident_id)?;
        }
        if let Some(scale) = &self.body.scale {
            m.serialize_entry("scale", scale)?;
        }
        m.serialize_entry("symptoms", &self.body.symptoms)?;
        if let Some(trigger) = &self.body.trigger {
            m.serialize_entry("trigger", trigger)?;
        }
        if let Some(root_cause) = &self.body.root_cause {
            m.serialize_entry("root_cause", root_cause)?;
        }
        m.serialize_entry("detection", &self.body.detection)?;
        m.serialize_entry("remediation", &self.body.remediation)?;
        m.serialize_entry("action_items", &self.body.action_items)?;
        if let Some(lessons) = &self.body.lessons {
            m.serialize_entry("lessons", lessons)?;
        }
        for kind in FacetKind::ALL {
            m.serialize_entry(kind.case_field(), self.facets.values(kind))?;
        }
        let inferred: Vec<InferredFacet> = self
            .facets
            .inferred
            .iter()
            .map(|((kind, value), reason)| InferredFacet { kind: *kind, value, inferred: true, reason })
            .collect();
        if !inferred.is_empty() {
            m.serialize_entry("inferred_facets", &inferred)?;
        }
        m.serialize_entry("sources", &self.body.sources)?;
        if let Some(impact) = &self.body.impact {
            m.serialize_entry("impact", impact)?;
        }
        if let Some(timeline) = &self.body.timeline {
            m.serialize_entry("timeline", timeline)?;
        }
        m.serialize_entry("path", &self.provenance.path)?;
        m.serialize_entry("bundled", &self.provenance.bundled)?;
        m.end()
    }
}

#[derive(Serialize)]
struct InferredFacet<'a> {
    kind: FacetKind,
    value: &'a str,
    inferred: bool,
    reason: &'a str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_parse_in_three_precisions() {
        assert_eq!("2024".parse::<PartialDate>().unwrap().to_string(), "2024");
        assert_eq!("2024-03".parse::<PartialDate>().unwrap().to_string(), "2024-03");
        assert_eq!("2024-02-29".parse::<PartialDate>().unwrap().to_string(), "2024-02-29");
    }

    #[test]
    fn bad_dates_are_rejected_with_a_reason() {
        for bad in ["24", "2024-3", "2024-13", "2023-02-29", "2024/03/01", "", "2024-01-01-01", "１２３４"]
        {
            assert!(bad.parse::<PartialDate>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn date_ranges_cover_the_period() {
        let d: PartialDate = "2024-02".parse().unwrap();
        assert_eq!(d.start(), (2024, 2, 1));
        assert_eq!(d.end(), (2024, 2, 29));
        let y: PartialDate = "2025".parse().unwrap();
        assert_eq!(y.end(), (2025, 12, 31));
    }

    #[test]
    fn facet_kinds_parse_from_what_people_type() {
        for (s, k) in [
            ("component", FacetKind::Component),
            ("Root cause", FacetKind::RootCause),
            ("root", FacetKind::RootCause),
            ("symptom_tags", FacetKind::Symptom),
            ("contributing-factor", FacetKind::ContributingFactor),
            ("factor", FacetKind::ContributingFactor),
        ] {
            assert_eq!(s.parse::<FacetKind>().unwrap(), k, "{s}");
        }
        assert!("colour".parse::<FacetKind>().is_err());
    }

    #[test]
    fn each_kind_keeps_its_own_values_whatever_the_order_they_are_set_in() {
        let mut f = Facets::default();
        f.set(FacetKind::Symptom, vec!["Hang".into(), "Crash".into()]);
        f.set(FacetKind::RootCause, vec!["Bug".into()]);
        f.set(FacetKind::ContributingFactor, vec!["Scale".into()]);
        f.set(FacetKind::Component, vec!["NCCL".into(), "GPU".into(), "Storage".into()]);
        f.set(FacetKind::Symptom, vec!["Slow".into()]);
        f.add_inferred(FacetKind::RootCause, "Deadlock".into(), "alias \"deadlock\"".into());
        assert_eq!(f.values(FacetKind::RootCause), ["Bug", "Deadlock"]);
        assert_eq!(f.values(FacetKind::Component), ["NCCL", "GPU", "Storage"]);
        assert_eq!(f.values(FacetKind::Symptom), ["Slow"]);
        assert_eq!(f.values(FacetKind::ContributingFactor), ["Scale"]);
        assert_eq!(f.len(), 7);
        let kinds: Vec<FacetKind> = f.iter().map(|(k, _)| k).collect();
        assert!(kinds.is_sorted(), "kinds in seed order: {kinds:?}");
        f.set(FacetKind::Component, Vec::new());
        assert!(f.values(FacetKind::Component).is_empty());
        assert_eq!(f.values(FacetKind::Symptom), ["Slow"]);
    }

    #[test]
    fn inferred_values_are_marked() {
        let mut f = Facets::default();
        f.set(FacetKind::Component, vec!["NCCL".into()]);
        f.add_inferred(FacetKind::Component, "GPU".into(), "alias \"GPU\"".into());
        f.add_inferred(FacetKind::Component, "NCCL".into(), "alias \"NCCL\"".into());
        assert_eq!(f.values(FacetKind::Component), ["NCCL", "GPU"]);
        assert!(f.is_inferred(FacetKind::Component, "GPU"));
        assert!(!f.is_inferred(FacetKind::Component, "NCCL"));
        assert_eq!(f.inferred_reason(FacetKind::Component, "GPU"), Some("alias \"GPU\""));
        assert_eq!(f.inferred_reason(FacetKind::Component, "NCCL"), None);
    }
}
