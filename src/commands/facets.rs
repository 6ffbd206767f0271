//! `incidex facets [KIND]`: facet values with the number of cases tagged with each.

use std::io::Write;

use serde::Serialize;

use crate::{
    cli::FacetsArgs,
    commands::{stdout_error, write_json},
    corpus::{FacetKind, Library},
    error::{Error, Result},
    filter::Filters,
};

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

/// Print the counts for one kind or all four.
pub fn run(args: &FacetsArgs, library: &Library, out: &mut dyn Write) -> Result<()> {
    let filters = args.filters.to_filters(&library.taxonomy)?;
    let kinds: Vec<FacetKind> = match &args.kind {
        Some(k) => vec![k.parse::<FacetKind>().map_err(Error::Usage)?],
        None => FacetKind::ALL.to_vec(),
    };
    if args.json {
        let map: serde_json::Map<String, serde_json::Value> = kinds
            .iter()
            .map(|k| {
                (
                    k.key().to_string(),
                    serde_json::to_value(counts(library, &filters, *k, args.all)).unwrap_or_default(),
                )
            })
            .collect();
        return write_json(out, &map);
    }
    for (i, kind) in kinds.iter().enumerate() {
        if i > 0 {
            writeln!(out).map_err(stdout_error)?;
        }
        writeln!(out, "{}", kind.label()).map_err(stdout_error)?;
        for c in counts(library, &filters, *kind, args.all) {
            writeln!(out, "{:>5}  {}", c.count, c.value).map_err(stdout_error)?;
        }
    }
    Ok(())
}
