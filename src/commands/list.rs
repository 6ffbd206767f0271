//! `incidex list`: every case, newest first.

use std::io::Write;

use crate::{
    cli::ListArgs,
    commands::{id_then, stdout_error, text_width, truncate, write_json},
    corpus::Library,
    support::error::Result,
};

/// Print the library's cases: two lines each (date and title; id and organization), or JSON.
pub fn run(args: &ListArgs, library: &Library, out: &mut dyn Write) -> Result<()> {
    if args.json {
        return write_json(out, &serde_json::json!({ "total": library.cases.len(), "cases": library.cases }));
    }
    let width = text_width();
    for case in &library.cases {
        let date = case.date.map(|d| d.to_string()).unwrap_or_else(|| "undated".into());
        writeln!(out, "{date:<10}  {}", truncate(&case.title, width.saturating_sub(12)))
            .map_err(stdout_error)?;
        let meta = id_then(&case.id, &case.organization, width.saturating_sub(12));
        writeln!(out, "{:<10}  {meta}", "").map_err(stdout_error)?;
    }
    Ok(())
}
