//! What `search` and `triage` print alike: the flags read as filters, the exit code of a result
//! set, the suggested filters, the hits and the summary in plain text, and the `--json` document
//! (the contract is in the README), with what a log's reading adds to it.
//!
//! Plain output fits the width it is given (`commands::text_width`).

use std::io::Write;

use serde::Serialize;

use crate::taxonomy::FacetKind;
use crate::{
    cli::FilterArgs,
    commands::{id_then, stdout_error, truncate},
    corpus::basis::Basis,
    corpus::filter::Filters,
    corpus::model::PartialDate,
    logs::Digest,
    search::{Breakdown, Engine, Request, Response, Suggestion},
    support::error::{Error, Result},
    text,
};

/// The flags as filters: facet values through the taxonomy, organizations through the library's
/// own names (`--org meta` is `Meta`); anything unknown is a usage error naming the nearest, and
/// what an inexact value was read as is a note on stderr.
pub fn resolve_filters(args: &FilterArgs, engine: &Engine) -> Result<Filters> {
    let mut notes = Vec::new();
    let filters =
        args.to_filters(&engine.library().taxonomy, engine.catalog().organizations(), &mut notes)?;
    crate::commands::print_notes(&notes);
    Ok(filters)
}

/// An inline clause that could not be used is a usage error on the command line.
pub fn check_errors(response: &Response) -> Result<()> {
    match response.errors.as_slice() {
        [] => Ok(()),
        [one] => Err(Error::Usage(one.message.clone())),
        [first, rest @ ..] => Err(Error::Usage(format!("{} (and {} more)", first.message, rest.len()))),
    }
}

/// Exit 1 when nothing matched.
pub fn outcome(response: &Response) -> Result<()> {
    if response.total == 0 {
        return Err(Error::NotFound("no case matches".into()));
    }
    Ok(())
}

/// The flag that applies a value of `kind`.
pub fn flag(kind: FacetKind) -> &'static str {
    match kind {
        FacetKind::RootCause => "--root-cause",
        FacetKind::Component => "--component",
        FacetKind::Symptom => "--symptom",
        FacetKind::ContributingFactor => "--factor",
    }
}

/// `--symptom Hang`, `--component "Training data loader"`: ready to paste.
fn flag_and_value(kind: FacetKind, value: &str) -> String {
    if value.chars().all(|c| c.is_alphanumeric() || "-_./".contains(c)) {
        format!("{} {value}", flag(kind))
    } else {
        format!("{} \"{}\"", flag(kind), value.replace('"', "\\\""))
    }
}

/// One suggestion a line: the flag that applies it, the count it leaves, what it rests on (the
/// words that matched, a signature, or the learned model's words and confidence).
pub fn write_suggestions(out: &mut dyn Write, suggestions: &[Suggestion], width: usize) -> Result<()> {
    let column = suggestions
        .iter()
        .map(|s| unicode_width::UnicodeWidthStr::width(flag_and_value(s.kind, &s.value).as_str()))
        .max()
        .unwrap_or(0)
        .min(width / 2);
    for s in suggestions {
        let applied = truncate(&flag_and_value(s.kind, &s.value), column);
        let pad = column.saturating_sub(unicode_width::UnicodeWidthStr::width(applied.as_str()));
        // The words that named it, or, where the learned model added it, what it read and how
        // sure it is; a signature says so.
        let why = match &s.basis {
            Basis::Alias { words } => words.iter().map(|m| format!("\"{m}\"")).collect::<Vec<_>>().join(", "),
            other => other.describe(),
        };
        let guess = if s.certain { "" } else { " (a guess: a near spelling)" };
        let line = format!("  {applied}{}  {:>4}  {why}{guess}", " ".repeat(pad), s.count);
        writeln!(out, "{}", truncate(&line, width)).map_err(stdout_error)?;
    }
    Ok(())
}

/// Two lines a case: rank, date and title; id and organization.
pub fn write_hits(out: &mut dyn Write, engine: &Engine, response: &Response, width: usize) -> Result<()> {
    for (n, hit) in response.hits.iter().enumerate() {
        let case = &engine.library().cases[hit.index];
        let date = case.date.map(|d| d.to_string()).unwrap_or_else(|| "undated".into());
        let rank = response.offset + n + 1;
        let head = format!("{rank:>3}  {date:<10}  ");
        writeln!(out, "{head}{}", truncate(&case.title, width.saturating_sub(head.len())))
            .map_err(stdout_error)?;
        let meta = id_then(&case.id, &case.organization, width.saturating_sub(17));
        writeln!(out, "{:17}{meta}", "").map_err(stdout_error)?;
    }
    Ok(())
}

/// The summary sentence, then one line of the most frequent values per breakdown.
pub fn write_summary(out: &mut dyn Write, response: &Response, width: usize) -> Result<()> {
    for line in textwrap::wrap(&response.summary, crate::commands::wrap_at(width)) {
        writeln!(out, "{line}").map_err(stdout_error)?;
    }
    let b = &response.breakdown;
    for (label, counts) in [
        ("Root cause", &b.root_cause),
        ("Component", &b.component),
        ("Symptom", &b.symptom),
        ("Factor", &b.contributing_factor),
        ("Year", &b.year),
    ] {
        if counts.is_empty() {
            continue;
        }
        let values: Vec<String> = counts.iter().take(6).map(|c| format!("{} {}", c.value, c.count)).collect();
        let line = format!("  {label:<11} {}", values.join(" · "));
        writeln!(out, "{}", truncate(&line, width)).map_err(stdout_error)?;
    }
    Ok(())
}

/// The `--json` document of `search` and `triage`.
#[derive(Debug, Serialize)]
pub struct JsonOutput<'a> {
    query: JsonQuery,
    total: usize,
    offset: usize,
    results: Vec<JsonResult<'a>>,
    suggestions: &'a [Suggestion],
    summary: &'a str,
    breakdown: &'a Breakdown,
    /// Cases that match more weakly, not counted in `total` (0 with `--all`).
    weaker: usize,
    /// For a log: what was read and the lines that stood out.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    log: Option<LogJson>,
}

#[derive(Debug, Serialize)]
struct JsonQuery {
    input: String,
    text: String,
    filters: Filters,
    limit: usize,
    offset: usize,
}

#[derive(Debug, Serialize)]
struct JsonResult<'a> {
    id: &'a str,
    title: &'a str,
    date: Option<PartialDate>,
    organization: &'a str,
    score: Option<f32>,
    components: &'a [String],
    symptom_tags: &'a [String],
    root_causes: &'a [String],
    contributing_factors: &'a [String],
    sources: Vec<JsonSource<'a>>,
}

#[derive(Debug, Serialize)]
struct JsonSource<'a> {
    title: &'a str,
    url: &'a str,
}

impl<'a> JsonOutput<'a> {
    /// The document for `response` to `request`.
    pub fn new(
        engine: &'a Engine,
        input: &str,
        request: &Request<'_>,
        response: &'a Response,
    ) -> JsonOutput<'a> {
        let results = response
            .hits
            .iter()
            .map(|hit| {
                let case = &engine.library().cases[hit.index];
                JsonResult {
                    id: &case.id,
                    title: &case.title,
                    date: case.date,
                    organization: &case.organization,
                    score: hit.score.map(|s| (s * 1000.0).round() / 1000.0),
                    components: case.facets.values(FacetKind::Component),
                    symptom_tags: case.facets.values(FacetKind::Symptom),
                    root_causes: case.facets.values(FacetKind::RootCause),
                    contributing_factors: case.facets.values(FacetKind::ContributingFactor),
                    sources: case
                        .body
                        .sources
                        .iter()
                        .map(|s| JsonSource { title: &s.title, url: &s.url })
                        .collect(),
                }
            })
            .collect();
        JsonOutput {
            query: JsonQuery {
                input: text::clean(input),
                text: text::clean(&response.text),
                filters: response.filters.clone(),
                limit: request.limit,
                offset: request.offset,
            },
            total: response.total,
            offset: response.offset,
            results,
            suggestions: &response.suggestions,
            summary: &response.summary,
            breakdown: &response.breakdown,
            weaker: response.weaker,
            log: None,
        }
    }

    /// The document with what a log's reading found (`read`, `evidence`).
    pub fn with_log(self, log: LogJson) -> JsonOutput<'a> {
        JsonOutput { log: Some(log), ..self }
    }
}

/// What the JSON adds for a log: `read` and `evidence`.
#[derive(Debug, Serialize)]
pub struct LogJson {
    read: ReadJson,
    evidence: Vec<EvidenceJson>,
    /// The line just before the first line that carries the failure, searched with the
    /// evidence (`logs::Digest::context`); absent when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<crate::logs::Context>,
}

#[derive(Debug, Serialize)]
struct ReadJson {
    lines: u64,
    bytes: u64,
    stood_out: bool,
    /// Inputs that ended early (damaged): what was read before is triaged.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    damaged: Vec<crate::logs::Damage>,
}

#[derive(Debug, Serialize)]
struct EvidenceJson {
    source: String,
    line: u64,
    text: String,
    count: u64,
    /// The ranks whose launcher prefix it was seen under (`[rank3]:`), lowest first.
    ranks: Vec<u32>,
    /// The taxonomy values this line names, as `kind: value`.
    matched: Vec<String>,
}

impl LogJson {
    /// The JSON of `digest`, each line with the values it names.
    pub fn new(digest: &Digest, engine: &Engine) -> LogJson {
        LogJson {
            read: ReadJson {
                lines: digest.lines,
                bytes: digest.bytes,
                stood_out: digest.stood_out(),
                damaged: digest.damaged.clone(),
            },
            evidence: digest
                .evidence
                .iter()
                .map(|e| EvidenceJson {
                    source: e.source.clone(),
                    line: e.line,
                    text: e.text.clone(),
                    count: e.count,
                    ranks: e.ranks.as_slice().to_vec(),
                    matched: engine
                        .values_named(&e.text, false)
                        .into_iter()
                        .map(|(kind, value)| format!("{}: {value}", kind.label()))
                        .collect(),
                })
                .collect(),
            context: digest.context.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_ready_to_paste() {
        assert_eq!(flag_and_value(FacetKind::Symptom, "Hang"), "--symptom Hang");
        assert_eq!(
            flag_and_value(FacetKind::Component, "Training data loader"),
            "--component \"Training data loader\""
        );
        assert_eq!(
            flag_and_value(FacetKind::ContributingFactor, "Say \"hi\""),
            "--factor \"Say \\\"hi\\\"\""
        );
    }
}
