//! The four kinds of facet a case is tagged with (root cause, component, symptom, contributing
//! factor): their machine names, labels and case-file keys, and the short forms people type.
//!
//! The vocabulary owns this, not the cases: the taxonomy's values each belong to a kind, and the
//! case model is built on both.

use std::{fmt, str::FromStr};

use serde::{Serialize, Serializer};

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
