//! `incidex checklist --component V [filters] [-o FILE] [--force] [--format md|json]`: a
//! component's action items as a markdown checklist, to stdout or atomically to a file.

use std::{io::Write, path::Path};

use crate::taxonomy::FacetKind;
use crate::{
    checklist::{self, Request},
    cli::{ChecklistArgs, ChecklistFormat},
    commands::stdout_error,
    corpus::Library,
    support::error::{Error, Result},
    support::export::{self, ExportError},
};

/// Build the checklist for the first `--component` under the other filters and write it.
pub fn run(args: &ChecklistArgs, library: &Library, out: &mut dyn Write) -> Result<()> {
    let filters = crate::commands::resolve_filters(&args.filters, library)?;
    let component = filters
        .facets
        .iter()
        .find(|f| f.kind == FacetKind::Component && !f.negated)
        .map(|f| f.value.clone())
        .ok_or_else(|| {
            Error::Usage("checklist needs --component V: the component to list action items for".into())
        })?;
    // The program's version and the library's (`incidex::corpus::load::library_version`).
    let version = format!("incidex {}", *crate::VERSION_LINE);
    let date = crate::text::clock::today();
    let list = checklist::build(
        &library.cases,
        &Request { component: &component, filters: &filters, version: &version, date: &date },
    );
    if list.cases.is_empty() {
        let under = if list.filters.is_empty() { String::new() } else { format!(" under {}", list.filters) };
        return Err(Error::NotFound(format!("no case involves component '{component}'{under}")));
    }
    let text = match args.format() {
        ChecklistFormat::Md => checklist::to_markdown(&list),
        ChecklistFormat::Json => {
            let json = serde_json::to_string_pretty(&list)
                .map_err(|e| Error::Failed(format!("cannot write JSON: {e}")))?;
            json + "\n"
        }
    };
    match args.output.as_deref() {
        None => out.write_all(text.as_bytes()).map_err(stdout_error),
        Some(path) if path == Path::new("-") => out.write_all(text.as_bytes()).map_err(stdout_error),
        Some(path) => {
            export::write_file(path, text.as_bytes(), args.force).map_err(|e| match e {
                ExportError::Exists(p) => {
                    Error::Failed(format!("{}: file exists; use --force to overwrite it", p.display()))
                }
                ExportError::Io { path, source } => Error::io(path, source),
            })?;
            writeln!(
                out,
                "wrote {} from {} to {}",
                plural(list.item_count, "item"),
                plural(list.cases.len(), "case"),
                path.display()
            )
            .map_err(stdout_error)
        }
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}
