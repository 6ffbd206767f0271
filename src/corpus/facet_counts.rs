//! How many cases carry each facet value under a set of filters: what `incidex facets` prints
//! and the terminal UI's filter picker shows.

use serde::Serialize;

use crate::taxonomy::FacetKind;
use crate::{corpus::Library, corpus::filter::Filters};

/// One value and its count.
#[derive(Debug, Serialize)]
pub struct FacetCount<'a> {
    /// The value's name.
    pub value: &'a str,
    /// Cases tagged with it.
    pub count: usize,
    /// Its one-line description.
    pub description: &'a str,
}

/// Counts per value of `kind` over the cases under `filters`, most cases first, ties by name;
/// values no case uses only with `all`.
pub fn counts<'a>(
    library: &'a Library,
    filters: &Filters,
    kind: FacetKind,
    all: bool,
) -> Vec<FacetCount<'a>> {
    let cases: Vec<&crate::corpus::Case> = library.cases.iter().filter(|c| filters.matches(c)).collect();
    let mut counts: Vec<FacetCount> = library
        .taxonomy
        .values_of(kind)
        .map(|v| FacetCount {
            value: &v.name,
            count: cases.iter().filter(|c| c.facets.contains(kind, &v.name)).count(),
            description: &v.description,
        })
        .filter(|c| all || c.count > 0)
        .collect();
    counts.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.value.cmp(b.value)));
    counts
}
