//! `incidex triage [FILE | - | TEXT]...`: what a failing job left behind — its whole log, a
//! `dmesg`, one pasted line, a sentence — turned into the lines that carry the failure, the
//! filters they suggest, and the past cases that match.
//!
//! Logs (files, plain or gzip, and stdin with `-`) are read whole as a stream in bounded memory
//! by [`crate::logs::LogReader`]; what is searched is the lines that stood out, shown as the
//! evidence with their line numbers. A sentence or a single line given as arguments is searched
//! as it is; a multi-line argument is read like a log. The text is never read for inline filter
//! syntax (a log line like `after:3s` is text).

use std::{
    io::{IsTerminal, Read, Write},
    path::Path,
};

use crate::{
    cli::TriageArgs,
    commands::{
        results::{
            JsonOutput, LogJson, check_errors, outcome, resolve_filters, write_hits, write_suggestions,
            write_summary,
        },
        stdout_error, text_width, truncate, write_json,
    },
    logs::{Digest, LogReader},
    search::{Engine, Request},
    support::error::{Error, Result},
    text::numbers::{bytes, thousands},
};

/// What `triage` was given.
enum Input {
    /// Logs read into a digest: the evidence is what gets searched.
    Log(Digest),
    /// One line of text (a sentence, a log line): searched as it is.
    Line(String),
}

/// Triage the arguments (or stdin) and print what they suggest.
pub fn run(args: &TriageArgs, engine: &Engine, stdin: &mut dyn Read, out: &mut dyn Write) -> Result<()> {
    let input = read_input(args, engine, stdin)?;
    let text = match &input {
        Input::Log(digest) => digest.query_text(),
        Input::Line(text) => text.clone(),
    };
    let filters = resolve_filters(&args.filters, engine)?;
    let request = Request {
        input: &text,
        filters: &filters,
        offset: 0,
        limit: args.limit,
        inline_syntax: false,
        // Typed words may be misspelt; a program's log lines are not.
        typos: matches!(input, Input::Line(_)),
        all: args.all,
    };
    let response = engine.search(&request);
    check_errors(&response)?;
    let digest = match &input {
        Input::Log(digest) => Some(digest),
        Input::Line(_) => None,
    };
    if args.json {
        let mut json = JsonOutput::new(engine, &text, &request, &response);
        if let Some(digest) = digest {
            json = json.with_log(LogJson::new(digest, engine));
        }
        write_json(out, &json)?;
        if !response.ranked {
            return Err(Error::NotFound("no words to triage in the text".into()));
        }
        return outcome(&response);
    }
    let width = text_width();
    if let Some(digest) = digest {
        write_evidence(out, digest, width)?;
    }
    if !response.ranked {
        writeln!(out, "No taxonomy value found in the text.").map_err(stdout_error)?;
        return Err(Error::NotFound("no words to triage in the text".into()));
    }
    if response.suggestions.is_empty() {
        writeln!(out, "No taxonomy value found in the text.").map_err(stdout_error)?;
    } else {
        writeln!(out, "Suggested filters (each narrows to the count shown):").map_err(stdout_error)?;
        write_suggestions(out, &response.suggestions, width)?;
    }
    if response.total > 0 {
        let head = format!("\nBest cases ({}):", response.range());
        writeln!(out, "{}", truncate(&head, width)).map_err(stdout_error)?;
        write_hits(out, engine, &response, width)?;
        writeln!(out).map_err(stdout_error)?;
        write_summary(out, &response, width)?;
    }
    outcome(&response)
}

/// Decide what the arguments are and read it.
fn read_input(args: &TriageArgs, engine: &Engine, stdin: &mut dyn Read) -> Result<Input> {
    let signatures = || engine.library().taxonomy.signatures();
    let no_text = || {
        Error::Usage(
            "give a log file, - to read a log from stdin, or a sentence or log line \
             (usage: incidex triage [FILE | - | TEXT]... [filters])"
                .into(),
        )
    };
    let files = !args.text.is_empty() && args.text.iter().all(|a| a == "-" || Path::new(a).is_file());
    let implicit_stdin = args.text.is_empty() && !std::io::stdin().is_terminal();
    if files || implicit_stdin {
        let mut reader = LogReader::new(signatures());
        let names: Vec<&str> =
            if args.text.is_empty() { vec!["-"] } else { args.text.iter().map(String::as_str).collect() };
        for name in names {
            if name == "-" {
                reader.read("<stdin>", &mut *stdin).map_err(|e| Error::io("<stdin>", e))?;
            } else {
                let file = std::fs::File::open(name).map_err(|e| Error::io(name, e))?;
                reader.read(name, file).map_err(|e| Error::io(name, e))?;
            }
        }
        let digest = reader.finish();
        // Nothing given and nothing piped (stdin empty or closed) is a usage error, as in clap.
        if implicit_stdin && digest.bytes == 0 {
            return Err(no_text());
        }
        return Ok(Input::Log(digest));
    }
    if args.text.is_empty() {
        return Err(no_text());
    }
    let text = args.text.join(" ");
    if text.trim_end().contains('\n') {
        let mut reader = LogReader::new(signatures());
        reader.read_text("<text>", &text).map_err(|e| Error::io("<text>", e))?;
        return Ok(Input::Log(reader.finish()));
    }
    Ok(Input::Line(text))
}

/// "Read 20,412 lines (2.1 MB); these 4 lines stood out:", then each line with its number, how
/// many lines shared its template (`×63`) and the ranks that printed it (`[ranks 0-63]`).
fn write_evidence(out: &mut dyn Write, digest: &Digest, width: usize) -> Result<()> {
    let size = bytes(digest.bytes);
    let lines = match digest.lines {
        1 => "1 line".to_string(),
        n => format!("{} lines", thousands(n as usize)),
    };
    let n = digest.evidence.len();
    let head = if digest.evidence.is_empty() {
        format!("Read {lines} ({size}): nothing in them to triage.")
    } else if digest.stood_out() {
        let these =
            if n == 1 { "this line stood out".to_string() } else { format!("these {n} lines stood out") };
        format!("Read {lines} ({size}); {these}:")
    } else {
        format!("Read {lines} ({size}); no line stood out as a failure, so the last ones are used:")
    };
    for line in textwrap::wrap(&head, crate::commands::wrap_at(width)) {
        writeln!(out, "{line}").map_err(stdout_error)?;
    }
    let several = digest.evidence.iter().any(|e| e.source != digest.evidence[0].source);
    // The count and the ranks come before the text, so that no width cuts them off.
    let times = |e: &crate::logs::Evidence| {
        if e.count > 1 { format!("×{}", thousands(e.count as usize)) } else { String::new() }
    };
    let times_width = digest.evidence.iter().map(|e| times(e).chars().count()).max().unwrap_or(0);
    for e in &digest.evidence {
        let at = if several { format!("{}:{}", e.source, e.line) } else { format!("L{}", e.line) };
        let count = if times_width == 0 { String::new() } else { format!("{:>times_width$}  ", times(e)) };
        let ranks = if e.ranks.is_empty() { String::new() } else { format!("[{}] ", e.ranks.label()) };
        let line = format!("  {at:<7} {count}{ranks}{}", e.text);
        writeln!(out, "{}", truncate(&line, width)).map_err(stdout_error)?;
    }
    writeln!(out).map_err(stdout_error)?;
    Ok(())
}
