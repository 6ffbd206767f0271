//! `incidex facets [KIND]`: facet values with the number of cases tagged with each.

use std::io::Write;

use crate::taxonomy::FacetKind;
use crate::{
    cli::FacetsArgs,
    commands::{stdout_error, write_json},
    corpus::Library,
    corpus::facet_counts::counts,
    support::error::{Error, Result},
};

/// Print the counts for one kind or all four.
pub fn run(args: &FacetsArgs, library: &Library, out: &mut dyn Write) -> Result<()> {
    let filters = crate::commands::resolve_filters(&args.filters, library)?;
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
