//! `incidex triage [TEXT | -]`: a sentence or a pasted log (stdin with `-`, e.g.
//! `dmesg | incidex triage -`) turned into the filters its words and log signatures suggest,
//! each with the cases it would leave, and the best matching cases.
//!
//! The text is taken as it is: no inline filter syntax (a log line like `after:3s` is text).
//! Any bytes are accepted (invalid UTF-8 is replaced); a very long paste keeps its last
//! [`MAX_INPUT_BYTES`], where a failing job's log usually says what went wrong.

use std::io::{IsTerminal, Read, Write};

use crate::{
    cli::TriageArgs,
    commands::{
        search::{
            JsonOutput, check_errors, outcome, resolve_filters, write_hits, write_suggestions, write_summary,
        },
        stdout_error, text_width, truncate, write_json,
    },
    error::{Error, Result},
    search::{Engine, Request},
};

/// The most of a paste that is read; more keeps the end.
pub const MAX_INPUT_BYTES: usize = 4 << 20;

/// Triage the text (or stdin) and print what it suggests.
pub fn run(args: &TriageArgs, engine: &Engine, stdin: &mut dyn Read, out: &mut dyn Write) -> Result<()> {
    let no_text = || {
        Error::Usage(
            "give a sentence or a log line, or - to read a pasted log from stdin \
             (usage: incidex triage [TEXT | -]... [filters])"
                .into(),
        )
    };
    let input = match args.text.as_slice() {
        [dash] if dash == "-" => read_tail(stdin)?,
        // Nothing given and nothing piped (stdin empty or closed) is a usage error, as in clap.
        [] if !std::io::stdin().is_terminal() => {
            Some(read_tail(stdin)?).filter(|t| !t.trim().is_empty()).ok_or_else(no_text)?
        }
        [] => return Err(no_text()),
        words => words.join(" "),
    };
    let filters = resolve_filters(&args.filters, engine)?;
    let request =
        Request { input: &input, filters: &filters, offset: 0, limit: args.limit, inline_syntax: false };
    let response = engine.search(&request);
    check_errors(&response)?;
    if args.json {
        write_json(out, &JsonOutput::new(engine, &input, &request, &response))?;
        if !response.ranked {
            return Err(Error::NotFound("no words to triage in the text".into()));
        }
        return outcome(&response);
    }
    let width = text_width();
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

/// All of `input` as text, lossily decoded, keeping the last [`MAX_INPUT_BYTES`] of a longer one.
fn read_tail(input: &mut dyn Read) -> Result<String> {
    let mut kept: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = match input.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io("<stdin>", e)),
        };
        kept.extend_from_slice(&chunk[..n]);
        if kept.len() > 2 * MAX_INPUT_BYTES {
            kept.drain(..kept.len() - MAX_INPUT_BYTES);
        }
    }
    if kept.len() > MAX_INPUT_BYTES {
        kept.drain(..kept.len() - MAX_INPUT_BYTES);
    }
    Ok(String::from_utf8_lossy(&kept).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_paste_keeps_its_end() {
        let mut text = vec![b'a'; MAX_INPUT_BYTES * 3];
        text.extend_from_slice(b" Xid 79");
        let kept = read_tail(&mut text.as_slice()).unwrap();
        assert_eq!(kept.len(), MAX_INPUT_BYTES);
        assert!(kept.ends_with(" Xid 79"));
        assert_eq!(read_tail(&mut &b"ok \xff\xfe bytes"[..]).unwrap(), "ok \u{fffd}\u{fffd} bytes");
    }
}
