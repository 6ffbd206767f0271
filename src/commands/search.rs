//! `incidex search [SENTENCE]`: the cases for a sentence (with inline filters) under the given
//! flags, best first (newest first without a sentence), with the suggested filters, the summary
//! and the breakdowns; or all of it as JSON (the contract is in the README).
//!
//! Plain output fits the width of `commands::text_width` (`$COLUMNS`, else the terminal's
//! width; piped, nothing is cut). Nothing matching is exit 1; an unknown filter value is a usage error naming the
//! nearest valid values. The rendering, shared with `triage`, is `commands::results`.

use std::io::Write;

use crate::{
    cli::SearchArgs,
    commands::{
        results::{
            JsonOutput, check_errors, outcome, resolve_filters, write_hits, write_suggestions, write_summary,
        },
        stdout_error, text_width, truncate, write_json,
    },
    search::{Engine, Request},
    support::error::{Error, Result},
    text,
};

/// Run a search and print it.
pub fn run(args: &SearchArgs, engine: &Engine, out: &mut dyn Write) -> Result<()> {
    let input = args.sentence.join(" ");
    let filters = resolve_filters(&args.filters, engine)?;
    let request = Request {
        input: &input,
        filters: &filters,
        offset: args.offset,
        limit: args.limit,
        inline_syntax: true,
        typos: true,
        all: args.all,
        suggest_from: None,
    };
    let response = engine.search(&request);
    check_errors(&response)?;
    crate::commands::print_notes(&response.notes);
    // An --offset past the last result is exit 1 in text and in JSON alike (the JSON document,
    // with its empty `results`, is still printed): nothing is listed at that offset.
    let past_the_end = response.total > 0 && response.hits.is_empty();
    let past = || {
        Error::NotFound(format!(
            "--offset {} is past the last result: {} cases match",
            response.offset, response.total
        ))
    };
    if args.json {
        write_json(out, &JsonOutput::new(engine, &input, &request, &response))?;
        if past_the_end {
            return Err(past());
        }
    } else if past_the_end {
        return Err(past());
    } else if response.total > 0 {
        let width = text_width();
        let order = if response.ranked { "best match first" } else { "newest first" };
        writeln!(out, "{}", truncate(&format!("{} cases, {order}", response.range()), width))
            .map_err(stdout_error)?;
        if !response.filters.is_empty() {
            let line = format!("Filters: {}", text::one_line(&response.filters.to_query_string()));
            writeln!(out, "{}", truncate(&line, width)).map_err(stdout_error)?;
        }
        writeln!(out).map_err(stdout_error)?;
        write_hits(out, engine, &response, width)?;
        writeln!(out).map_err(stdout_error)?;
        write_summary(out, &response, width)?;
        if !response.suggestions.is_empty() {
            writeln!(out, "\nSuggested filters (each narrows to the count shown):").map_err(stdout_error)?;
            write_suggestions(out, &response.suggestions, width)?;
        }
    }
    outcome(&response)
}
