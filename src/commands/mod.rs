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

/// Width of plain-text output: `$COLUMNS` when it is set to a number of at least 40; else the
/// width of the terminal when stdout is one (shells do not export `$COLUMNS`); else, for a pipe
/// or a file, no width at all ([`UNCUT`]): nothing is cut, and prose wraps at 80 columns.
pub fn text_width() -> usize {
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok());
    match columns.filter(|&c| c >= 40) {
        Some(c) => c,
        None => crate::support::tty::stdout_columns().map_or(UNCUT, |c| c.max(40)),
    }
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

pub use crate::text::columns::{UNCUT, id_then, truncate, wrap_at};

/// Print each note on stderr as `incidex: note: ...` (what a typed value was read as).
pub fn print_notes(notes: &[String]) {
    let mut stderr = std::io::stderr().lock();
    for note in notes {
        let _ = writeln!(stderr, "incidex: note: {}", crate::support::safe_out::escape(note));
    }
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
