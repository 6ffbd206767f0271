//! The non-interactive commands: library calls in, text or JSON out.
//!
//! Each command writes to the `out` it is given (stdout in `main`, a buffer in tests) and
//! returns an error for `main` to report; none of them touches the terminal or exits. The one
//! thing written to stderr here is a note saying what a typed value was read as when it was not
//! exact ([`print_notes`]), so that stdout stays the answer alone.

pub mod check;
pub mod checklist;
pub mod completions;
pub mod doctor;
pub mod facets;
pub mod graph;
pub mod list;
pub mod preflight;
pub mod results;
pub mod sarif;
pub mod search;
pub mod show;
pub mod template;
pub mod themes;
pub mod triage;

use std::io::Write;

use crate::support::error::{Error, Result};

/// Width of plain-text output: `$COLUMNS` when it is set to something sensible, else 80.
pub fn text_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse::<usize>().ok())
        .filter(|&c| c >= 40)
        .unwrap_or(80)
        .min(120)
}

/// Write `value` as pretty JSON followed by a newline.
pub fn write_json<T: serde::Serialize>(out: &mut dyn Write, value: &T) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(|e| match e.io_error_kind() {
        Some(kind) => Error::io("<stdout>", kind.into()),
        None => Error::Failed(format!("cannot write JSON: {e}")),
    })?;
    writeln!(out).map_err(stdout_error)
}

/// An error writing to stdout.
pub fn stdout_error(e: std::io::Error) -> Error {
    Error::io("<stdout>", e)
}

pub use crate::text::columns::truncate;

/// Print each note on stderr as `incidex: note: ...` (what a typed value was read as).
pub fn print_notes(notes: &[String]) {
    let mut stderr = std::io::stderr().lock();
    for note in notes {
        let _ = writeln!(stderr, "incidex: note: {}", crate::support::safe_out::escape(note));
    }
}

/// A case's id in full, then ` · detail` cut to what is left of `width`: an id is copied into
/// `incidex show`, so it is never cut, whatever the width.
pub fn id_then(id: &str, detail: &str, width: usize) -> String {
    let left = width.saturating_sub(unicode_width::UnicodeWidthStr::width(id));
    let detail = format!(" · {detail}");
    if left < 4 {
        return id.to_string();
    }
    format!("{id}{}", truncate(&detail, left))
}

/// The filter flags of a command that works on the library without the search engine
/// (`facets`, `checklist`), resolved; notes on stderr (see [`crate::cli::FilterArgs::to_filters`]).
pub fn resolve_filters(
    args: &crate::cli::FilterArgs,
    library: &crate::corpus::Library,
) -> Result<crate::corpus::filter::Filters> {
    let mut organizations: Vec<String> = library.cases.iter().map(|c| c.organization.clone()).collect();
    organizations.sort_by_key(|o| o.to_lowercase());
    organizations.dedup();
    let mut notes = Vec::new();
    let filters = args.to_filters(&library.taxonomy, &organizations, &mut notes)?;
    print_notes(&notes);
    Ok(filters)
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_id_is_never_cut() {
        let id = "qwen3-32b-b300-epoch-end-checkpoint-deadlock-with-a-very-long-tail";
        assert_eq!(super::id_then(id, "Meta", 20), id);
        assert_eq!(super::id_then("short", "An organization", 14), "short · An or…");
        assert_eq!(super::id_then("short", "Meta", 80), "short · Meta");
    }
}
