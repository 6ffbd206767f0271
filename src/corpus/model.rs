//! The case model: one incident report and the facet kinds it is tagged with.
//!
//! These types are plain data. They serialise to JSON with the data files' own field names
//! (`symptom_tags`, `action_items[].type`, ...), which is the documented `--json` contract.
//! Parsing lives in `parse`, validation in `check`; nothing here does I/O.

use std::{collections::BTreeSet, fmt, str::FromStr};

use serde::{Serialize, Serializer};

use super::body::Body;

/// The four facet kinds of the seed page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FacetKind {
    /// Why it happened.
    RootCause,
    /// Where it happened.
    Component,
    /// What was seen.
    Symptom,
    /// What made it worse or let it through.
    ContributingFactor,
}

impl FacetKind {
    /// Every kind, in the seed page's order.
    pub const ALL: [FacetKind; 4] =
        [FacetKind::RootCause, FacetKind::Component, FacetKind::Symptom, FacetKind::ContributingFactor];

    /// The machine name: `root_cause`, `component`, `symptom`, `contributing_factor`.
    pub fn key(self) -> &'static str {
        match self {
            FacetKind::RootCause => "root_cause",
            FacetKind::Component => "component",
            FacetKind::Symptom => "symptom",
            FacetKind::ContributingFactor => "contributing_factor",
        }
    }

    /// The seed page's label: `Root cause`, `Component`, `Symptom`, `Contributing factor`.
    pub fn label(self) -> &'static str {
        match self {
            FacetKind::RootCause => "Root cause",
            FacetKind::Component => "Component",
            FacetKind::Symptom => "Symptom",
            FacetKind::ContributingFactor => "Contributing factor",
        }
    }

    /// The key of a case file's list of values of this kind.
    pub fn case_field(self) -> &'static str {
        match self {
            FacetKind::RootCause => "root_causes",
            FacetKind::Component => "components",
            FacetKind::Symptom => "symptom_tags",
            FacetKind::ContributingFactor => "contributing_factors",
        }
    }

    /// Position in [`FacetKind::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for FacetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

impl FromStr for FacetKind {
    type Err = String;

    /// Accepts the machine name, the label, the case-file key and the short forms people type
    /// (`root`, `cause`, `comp`, `symptoms`, `factor`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm: String =
            s.trim().to_lowercase().chars().map(|c| if c == '-' || c == ' ' { '_' } else { c }).collect();
        Ok(match norm.as_str() {
            "root_cause" | "root_causes" | "root" | "cause" | "rootcause" | "rc" => FacetKind::RootCause,
            "component" | "components" | "comp" | "c" => FacetKind::Component,
            "symptom" | "symptoms" | "symptom_tags" | "sym" | "s" => FacetKind::Symptom,
            "contributing_factor" | "contributing_factors" | "factor" | "factors" | "cf" | "f" => {
                FacetKind::ContributingFactor
            }
            _ => {
                return Err(format!(
                    "unknown facet kind '{}' (expected root_cause, component, symptom or contributing_factor)",
                    crate::text::one_line(s)
                ));
            }
        })
    }
}

impl Serialize for FacetKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.key())
    }
}

/// A date with optional month and day, as case files give them (`2024`, `2024-03`, `2024-03-02`).
///
/// Ordering puts less precise dates first within the same period, so `2024` < `2024-01`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PartialDate {
    /// Year, 1900..=2999.
    pub year: u16,
    /// Month, 1..=12.
    pub month: Option<u8>,
    /// Day, valid for the month.
    pub day: Option<u8>,
}

impl PartialDate {
    /// The first day this date can mean (for `after:` comparisons).
    pub fn start(self) -> (u16, u8, u8) {
        (self.year, self.month.unwrap_or(1), self.day.unwrap_or(1))
    }

    /// The last day this date can mean (for `before:` comparisons).
    pub fn end(self) -> (u16, u8, u8) {
        let month = self.month.unwrap_or(12);
        (self.year, month, self.day.unwrap_or_else(|| days_in_month(self.year, month)))
    }
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

impl FromStr for PartialDate {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad =
            || format!("'{}' is not a date (expected YYYY, YYYY-MM or YYYY-MM-DD)", crate::text::one_line(s));
        let parts: Vec<&str> = s.trim().split('-').collect();
        let number = |p: &str, len: usize| -> Result<u16, String> {
            if p.len() == len && p.bytes().all(|b| b.is_ascii_digit()) {
                p.parse().map_err(|_| bad())
            } else {
                Err(bad())
            }
        };
        let (year, month, day) = match parts.as_slice() {
            [y] => (number(y, 4)?, None, None),
            [y, m] => (number(y, 4)?, Some(number(m, 2)? as u8), None),
            [y, m, d] => (number(y, 4)?, Some(number(m, 2)? as u8), Some(number(d, 2)? as u8)),
            _ => return Err(bad()),
        };
        if !(1900..=2999).contains(&year) {
            return Err(format!("year {year} is out of range"));
        }
        if let Some(m) = month {
            if !(1..=12).contains(&m) {
                return Err(format!("month {m:02} is out of range in '{}'", s.trim()));
            }
            if let Some(d) = day
                && !(1..=days_in_month(year, m)).contains(&d)
            {
                return Err(format!("day {d:02} does not exist in {year}-{m:02}"));
            }
        }
        Ok(PartialDate { year, month, day })
    }
}

impl fmt::Display for PartialDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}", self.year)?;
        if let Some(m) = self.month {
            write!(f, "-{m:02}")?;
        }
        if let Some(d) = self.day {
            write!(f, "-{d:02}")?;
        }
        Ok(())
    }
}

impl Serialize for PartialDate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// What an action item does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ActionType {
    /// Notice it sooner.
    Detect,
    /// Limit the damage when it happens.
    Mitigate,
    /// Stop it from happening.
    Prevent,
    /// Change how people work.
    Process,
}

impl ActionType {
    /// Every type, in checklist order.
    pub const ALL: [ActionType; 4] =
        [ActionType::Detect, ActionType::Mitigate, ActionType::Prevent, ActionType::Process];

    /// The data-file spelling.
    pub fn key(self) -> &'static str {
        match self {
            ActionType::Detect => "detect",
            ActionType::Mitigate => "mitigate",
            ActionType::Prevent => "prevent",
            ActionType::Process => "process",
        }
    }
}

impl FromStr for ActionType {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        ActionType::ALL.into_iter().find(|t| t.key() == s.trim().to_lowercase()).ok_or(())
    }
}

/// Where an action item comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemOrigin {
    /// The source report lists it.
    Report,
    /// Written by the library's editors from the report's fix.
    Editorial,
}

impl FromStr for ItemOrigin {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s.trim().to_lowercase().as_str() {
            "report" => Ok(ItemOrigin::Report),
            "editorial" => Ok(ItemOrigin::Editorial),
            _ => Err(()),
        }
    }
}

/// One thing that should be done so the incident cannot recur.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActionItem {
    /// What to do.
    pub text: String,
    /// Detect, mitigate, prevent or process.
    #[serde(rename = "type")]
    pub kind: ActionType,
    /// From the report or editorial.
    pub origin: ItemOrigin,
    /// The components it applies to, when fewer than the case's; empty means all of them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub components: Vec<String>,
}

/// What kind of document a source is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// The operator's own postmortem.
    Postmortem,
    /// A paper.
    Paper,
    /// A GitHub issue or pull request.
    Issue,
    /// A blog post.
    Blog,
    /// A talk.
    Talk,
    /// A news article.
    News,
}

impl SourceKind {
    /// Every kind.
    pub const ALL: [SourceKind; 6] = [
        SourceKind::Postmortem,
        SourceKind::Paper,
        SourceKind::Issue,
        SourceKind::Blog,
        SourceKind::Talk,
        SourceKind::News,
    ];

    /// The data-file spelling.
    pub fn key(self) -> &'static str {
        match self {
            SourceKind::Postmortem => "postmortem",
            SourceKind::Paper => "paper",
            SourceKind::Issue => "issue",
            SourceKind::Blog => "blog",
            SourceKind::Talk => "talk",
            SourceKind::News => "news",
        }
    }
}

impl FromStr for SourceKind {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        SourceKind::ALL.into_iter().find(|k| k.key() == s.trim().to_lowercase()).ok_or(())
    }
}

/// A public document the case is written from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Source {
    /// The document's own title.
    pub title: String,
    /// Its address (http or https); empty only when `note` says why there is none.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub url: String,
    /// What kind of document it is.
    pub kind: SourceKind,
    /// When it was published, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<PartialDate>,
    /// A remark on the source, such as why no public address could be found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What the incident cost, as far as the source says.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Impact {
    /// How long it lasted, as written (`"3h"`, `"about two days"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<String>,
    /// GPU hours lost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_hours_lost: Option<f64>,
    /// Who was affected, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub users_affected: Option<String>,
}

impl Impact {
    /// True when the source gave no figure at all.
    pub fn is_empty(&self) -> bool {
        self.duration.is_none() && self.gpu_hours_lost.is_none() && self.users_affected.is_none()
    }
}

/// The facet values a case is tagged with, one list per kind, in file order.
///
/// Stored as one list, kinds in seed order, with where each kind ends: a library of 100,000
/// cases makes one allocation per case for its lists rather than four.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Facets {
    values: Vec<String>,
    /// Where each kind's values end in `values`.
    ends: [u32; 4],
    /// Values that were inferred from the text rather than written by an author.
    inferred: BTreeSet<(FacetKind, String)>,
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

    /// Add an inferred value (kept apart so it can be shown as inferred).
    pub fn add_inferred(&mut self, kind: FacetKind, value: String) {
        if !self.contains(kind, &value) {
            self.push(kind, value.clone());
            self.inferred.insert((kind, value));
        }
    }

    /// Whether `value` was inferred rather than written.
    pub fn is_inferred(&self, kind: FacetKind, value: &str) -> bool {
        !self.inferred.is_empty() && self.inferred.contains(&(kind, value.to_string()))
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

/// The long text of a case.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CaseBody {
    /// How big the system was.
    pub scale: Option<String>,
    /// What people saw.
    pub symptoms: String,
    /// What set it off.
    pub trigger: Option<String>,
    /// Why it happened, in words: a postmortem's Root cause section (case files say it through
    /// `root_causes` and the other fields).
    pub root_cause: Option<String>,
    /// How it was noticed.
    pub detection: String,
    /// What was done.
    pub remediation: Vec<String>,
    /// What should be done so it cannot recur.
    pub action_items: Vec<ActionItem>,
    /// What others should take from it.
    pub lessons: Option<String>,
    /// The public documents it is written from.
    pub sources: Vec<Source>,
    /// What it cost.
    pub impact: Option<Impact>,
    /// A postmortem's timeline, kept as text.
    pub timeline: Option<String>,
    /// Who owns a postmortem and its follow-up (its `Owner:` line), as written.
    pub owner: Option<String>,
    /// A team's own id for the incident (its `Incident ID:` line: a ticket, `INC-2043`).
    pub incident_id: Option<String>,
}

impl CaseBody {
    /// The body shown in place of one that could not be read back from the cache.
    pub fn unreadable(why: &str) -> CaseBody {
        CaseBody {
            symptoms: format!(
                "The text of this case could not be read from the cache ({}). \
                 Start incidex again: the library will be read from its files.",
                crate::text::one_line(why)
            ),
            ..CaseBody::default()
        }
    }
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
            .map(|(kind, value)| InferredFacet { kind: *kind, value, inferred: true })
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
        f.add_inferred(FacetKind::RootCause, "Deadlock".into());
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
        f.add_inferred(FacetKind::Component, "GPU".into());
        f.add_inferred(FacetKind::Component, "NCCL".into());
        assert_eq!(f.values(FacetKind::Component), ["NCCL", "GPU"]);
        assert!(f.is_inferred(FacetKind::Component, "GPU"));
        assert!(!f.is_inferred(FacetKind::Component, "NCCL"));
    }
}
