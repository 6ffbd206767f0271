//! The inline query syntax: filters typed in the same box as the sentence.
//!
//! `component:nccl -root:overheating org:meta year:2024 after:2024-06 before:2025
//! symptom:"training job failure" job hung at the end of the epoch` becomes the sentence
//! `job hung at the end of the epoch` plus [`Filters`]. Only a known key followed by a colon and
//! a value is syntax; everything else is text, so `10.0.0.1:8080`, `error: connection refused`,
//! `don't`, `foo"` and `AND` are searched as they are. Values resolve through taxonomy names and
//! aliases (near spellings too); a value that does not resolve is a [`QueryError`] naming the
//! nearest valid values, and the rest of the query still works. Parsing never fails as a whole.

use std::ops::Range;

use crate::taxonomy::FacetKind;
use crate::{
    corpus::filter::{FacetFilter, Filters},
    corpus::model::PartialDate,
    taxonomy::{Taxonomy, inexact_note},
    text::resolve::{Candidate, Miss},
};

/// A problem with one clause of the inline syntax. The clause is left out; the query runs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct QueryError {
    /// Byte range of the clause in the input.
    #[serde(skip)]
    pub span: Range<usize>,
    /// One line: what is wrong, with the nearest valid values.
    pub message: String,
    /// The nearest valid values, best first (may be empty).
    pub nearest: Vec<String>,
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// An input split into its sentence and its filters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedQuery {
    /// The input without its syntax clauses: what is searched and where suggestions come from.
    pub text: String,
    /// The filters the clauses ask for.
    pub filters: Filters,
    /// Clauses that could not be used, in input order.
    pub errors: Vec<QueryError>,
    /// What clause values were read as when they were not exact (`read component 'nccll' as
    /// 'NCCL' (the nearest spelling)`), in input order.
    pub notes: Vec<String>,
}

/// What a key asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Facet(FacetKind),
    Org,
    Year,
    After,
    Before,
}

fn key(word: &str) -> Option<Key> {
    match word.to_ascii_lowercase().as_str() {
        "org" | "organization" | "organisation" => Some(Key::Org),
        "year" => Some(Key::Year),
        "after" | "since" => Some(Key::After),
        "before" | "until" => Some(Key::Before),
        // Single letters (`c:`, `s:`) are too common in logs to be keys here.
        k if k.len() >= 2 => k.parse::<FacetKind>().ok().map(Key::Facet),
        _ => None,
    }
}

/// One `[-]key:value` clause found in the input.
struct Clause<'a> {
    span: Range<usize>,
    negated: bool,
    key: Key,
    key_text: &'a str,
    value: &'a str,
}

/// If a clause starts at `start`, read it.
fn clause_at(input: &str, start: usize) -> Option<Clause<'_>> {
    let rest = &input[start..];
    let (negated, body) = match rest.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, rest),
    };
    // Only the word at `start` can hold the key: never scan the rest of a long paste.
    let word = &body[..body.find(char::is_whitespace).unwrap_or(body.len())];
    let colon = word.find(':')?;
    let key_text = &body[..colon];
    if key_text.is_empty() || !key_text.chars().all(|c| c.is_ascii_alphabetic() || c == '_' || c == '-') {
        return None;
    }
    let key = key(key_text)?;
    let value_start = start + usize::from(negated) + colon + 1;
    let after = &input[value_start..];
    let first = after.chars().next()?;
    if first.is_whitespace() {
        return None;
    }
    if let Some(quoted) = after.strip_prefix('"') {
        // An unbalanced quote takes the rest of the input rather than failing.
        let (value, end) = match quoted.find('"') {
            Some(close) => (&quoted[..close], value_start + 1 + close + 1),
            None => (quoted, input.len()),
        };
        return Some(Clause { span: start..end, negated, key, key_text, value: value.trim() });
    }
    let len = after.find(char::is_whitespace).unwrap_or(after.len());
    Some(Clause { span: start..value_start + len, negated, key, key_text, value: &after[..len] })
}

/// Split `input` into its sentence and filters. `organizations` are the library's, for `org:`.
pub fn parse(input: &str, taxonomy: &Taxonomy, organizations: &[String]) -> ParsedQuery {
    let mut parsed = ParsedQuery::default();
    let mut text = String::with_capacity(input.len());
    let mut copied = 0;
    let mut i = 0;
    let mut previous_was_space = true;
    while i < input.len() {
        let c = input[i..].chars().next().unwrap_or(' ');
        let at_word_start = previous_was_space;
        previous_was_space = c.is_whitespace();
        if !c.is_whitespace()
            && at_word_start
            && let Some(clause) = clause_at(input, i)
        {
            text.push_str(&input[copied..i]);
            text.push(' ');
            apply(&clause, taxonomy, organizations, &mut parsed);
            i = clause.span.end;
            copied = i;
            previous_was_space = false;
            continue;
        }
        i += c.len_utf8();
    }
    text.push_str(&input[copied..]);
    parsed.text = text.trim().to_string();
    parsed
}

fn error(clause: &Clause<'_>, message: String, nearest: Vec<String>) -> QueryError {
    QueryError { span: clause.span.clone(), message, nearest }
}

fn apply(clause: &Clause<'_>, taxonomy: &Taxonomy, organizations: &[String], parsed: &mut ParsedQuery) {
    let shown = crate::text::one_line(clause.key_text);
    if clause.value.is_empty() {
        parsed.errors.push(error(clause, format!("'{shown}:' needs a value"), Vec::new()));
        return;
    }
    if clause.negated && !matches!(clause.key, Key::Facet(_)) {
        let message = format!(
            "'-{shown}:' cannot be negated; only component, symptom, root cause and factor filters can"
        );
        parsed.errors.push(error(clause, message, Vec::new()));
        return;
    }
    let filters = &mut parsed.filters;
    match clause.key {
        Key::Facet(kind) => match taxonomy.resolve(kind, clause.value) {
            Ok(resolved) => {
                filters.set_facet(FacetFilter {
                    kind,
                    value: resolved.value.name.clone(),
                    negated: clause.negated,
                });
                parsed.notes.extend(resolved.note(clause.value));
            }
            Err(e) => parsed.errors.push(error(clause, e.to_string(), e.nearest)),
        },
        Key::Org => match resolve_org(clause.value, organizations) {
            Ok(ResolvedOrg { name, note }) => {
                if !filters.organizations.contains(&name) {
                    filters.organizations.push(name);
                }
                parsed.notes.extend(note);
            }
            Err((message, nearest)) => parsed.errors.push(error(clause, message, nearest)),
        },
        Key::Year => match clause.value.parse::<PartialDate>() {
            Ok(d) if d.month.is_none() => {
                narrow_after(filters, d);
                narrow_before(filters, d);
            }
            _ => parsed.errors.push(error(
                clause,
                format!("'{}' is not a year (expected YYYY)", crate::text::one_line(clause.value)),
                Vec::new(),
            )),
        },
        Key::After | Key::Before => match clause.value.parse::<PartialDate>() {
            Ok(d) if clause.key == Key::After => narrow_after(filters, d),
            Ok(d) => narrow_before(filters, d),
            Err(e) => parsed.errors.push(error(clause, format!("{shown}: {e}"), Vec::new())),
        },
    }
}

/// Two lower bounds both hold: keep the later one.
pub fn narrow_after(filters: &mut Filters, date: PartialDate) {
    if filters.after.is_none_or(|a| date.start() > a.start()) {
        filters.after = Some(date);
    }
}

/// Two upper bounds both hold: keep the earlier one.
pub fn narrow_before(filters: &mut Filters, date: PartialDate) {
    if filters.before.is_none_or(|b| date.end() < b.end()) {
        filters.before = Some(date);
    }
}

/// An organization resolved from what someone typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedOrg {
    /// The library's own spelling of it.
    pub name: String,
    /// What the input was read as, when it was not the name (ignoring case).
    pub note: Option<String>,
}

/// Resolve a typed organization through the one resolver ([`crate::text::resolve`]): its name
/// (ignoring case), else the only one with a word starting so, else a near spelling that stands
/// out; otherwise an error message naming the nearest (or the ones it could be), and those.
pub fn resolve_org(typed: &str, organizations: &[String]) -> Result<ResolvedOrg, (String, Vec<String>)> {
    let candidates: Vec<Candidate<'_>> = organizations.iter().map(|o| Candidate::named(o)).collect();
    let shown = crate::text::one_line(typed);
    match crate::text::resolve::resolve(typed, &candidates) {
        Ok(found) => {
            let name = organizations[found.index].clone();
            let note = inexact_note("organization", typed, &name, found.how);
            Ok(ResolvedOrg { name, note })
        }
        Err(miss) => {
            let named: Vec<String> = miss.candidates().iter().map(|&i| organizations[i].clone()).collect();
            let what = match miss {
                Miss::Ambiguous(_) => format!("organization '{shown}' is ambiguous"),
                Miss::Unknown(_) => format!("unknown organization '{shown}'"),
            };
            Err((format!("{what}{}", crate::taxonomy::nearest_suffix(&named)), named))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TAXONOMY: &str = r#"
[[component]]
name = "NCCL"
description = "Collectives."
aliases = ["all-reduce", "collective"]

[[component]]
name = "Training data loader"
description = "Input pipeline."
aliases = ["dataloader"]

[[symptom]]
name = "Training job failure"
description = "Crashes."
aliases = ["crash"]

[[symptom]]
name = "Hang"
description = "No progress."
aliases = ["stuck"]

[[root_cause]]
name = "Thermal or power"
description = "Heat."
aliases = ["overheating"]
"#;

    fn setup() -> (Taxonomy, Vec<String>) {
        let (t, diags) = Taxonomy::parse("t.toml", TAXONOMY);
        assert!(diags.is_empty(), "{diags:?}");
        (t, vec!["Meta".into(), "OpenAI".into(), "Shanghai AI Laboratory".into(), "Meta Platforms".into()])
    }

    fn filter(kind: FacetKind, value: &str, negated: bool) -> FacetFilter {
        FacetFilter { kind, value: value.into(), negated }
    }

    #[test]
    fn clauses_become_filters_and_the_rest_is_text() {
        let (t, orgs) = setup();
        let p = parse(
            r#"component:nccl -root:overheating org:meta year:2024 symptom:"training job failure" job hung"#,
            &t,
            &orgs,
        );
        assert_eq!(p.text, "job hung");
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(
            p.filters.facets,
            vec![
                filter(FacetKind::Component, "NCCL", false),
                filter(FacetKind::RootCause, "Thermal or power", true),
                filter(FacetKind::Symptom, "Training job failure", false),
            ]
        );
        assert_eq!(p.filters.organizations, ["Meta"]);
        assert_eq!(p.filters.after.map(|d| d.to_string()).as_deref(), Some("2024"));
        assert_eq!(p.filters.before.map(|d| d.to_string()).as_deref(), Some("2024"));
    }

    #[test]
    fn text_that_only_looks_like_syntax_is_searched() {
        let (t, orgs) = setup();
        for input in [
            "10.0.0.1:8080",
            "error: connection refused",
            "don't",
            "foo\"",
            "AND OR NOT",
            "c:drive s:3",
            "http://example.org/a:b",
            "cause: overheating",
            "x-component:nccl",
            "::::",
            "\"",
            "-",
            "-:",
        ] {
            let p = parse(input, &t, &orgs);
            assert_eq!(p.text, input.trim(), "{input}");
            assert!(p.filters.is_empty() && p.errors.is_empty(), "{input}: {p:?}");
        }
    }

    #[test]
    fn dates_narrow() {
        let (t, orgs) = setup();
        let p = parse("after:2024-06 before:2025 after:2023 before:2026-01-01", &t, &orgs);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(p.filters.after.map(|d| d.to_string()).as_deref(), Some("2024-06"));
        assert_eq!(p.filters.before.map(|d| d.to_string()).as_deref(), Some("2025"));
        assert_eq!(p.text, "");
    }

    #[test]
    fn bad_clauses_are_errors_that_name_the_nearest_values() {
        let (t, orgs) = setup();
        for (input, start) in [
            ("component:flux hang", "unknown component 'flux'; nearest: "),
            ("org:gooogle", "unknown organization 'gooogle'; nearest: "),
            ("org:zz", "unknown organization 'zz'"),
            ("year:24", "'24' is not a year"),
            ("year:2024-06", "'2024-06' is not a year"),
            ("after:2024-13", "after: month 13 is out of range"),
            ("-org:meta", "'-org:' cannot be negated"),
            ("symptom:\"\"", "'symptom:' needs a value"),
            ("org:meta", ""),
        ] {
            let p = parse(input, &t, &orgs);
            if start.is_empty() {
                assert!(p.errors.is_empty(), "{input}");
                continue;
            }
            assert_eq!(p.errors.len(), 1, "{input}: {p:?}");
            assert!(p.errors[0].message.starts_with(start), "{input}: {}", p.errors[0].message);
        }
        let p = parse("org:metta component:ncl hang", &t, &orgs);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(
            p.notes,
            [
                "read organization 'metta' as 'Meta' (the nearest spelling)",
                "read component 'ncl' as 'NCCL' (the nearest spelling)"
            ],
            "near spellings resolve and say so"
        );
        let p = parse("hang component:flux", &t, &orgs);
        assert_eq!(p.text, "hang", "the text still runs");
        assert_eq!(p.errors[0].span, 5..19);
        assert!(!p.errors[0].nearest.is_empty());
    }

    #[test]
    fn organizations_resolve_by_word_prefix_and_report_ambiguity() {
        let (_, orgs) = setup();
        let name = |typed: &str| resolve_org(typed, &orgs).map(|o| o.name);
        assert_eq!(name("shanghai"), Ok("Shanghai AI Laboratory".into()));
        assert_eq!(name("laboratory"), Ok("Shanghai AI Laboratory".into()));
        assert_eq!(name("OPENAI"), Ok("OpenAI".into()));
        assert_eq!(name("meta"), Ok("Meta".into()), "an exact name wins");
        assert_eq!(name("metaa"), Ok("Meta".into()), "a near spelling that stands out");
        assert_eq!(resolve_org("OpenAI", &orgs).unwrap().note, None, "exact: no note");
        assert_eq!(
            resolve_org("metaa", &orgs).unwrap().note.as_deref(),
            Some("read organization 'metaa' as 'Meta' (the nearest spelling)")
        );
        let (message, nearest) =
            resolve_org("platf", &orgs.iter().cloned().chain(["Platform Co".into()]).collect::<Vec<_>>())
                .unwrap_err();
        assert!(message.starts_with("organization 'platf' is ambiguous"), "{message}");
        assert_eq!(nearest, ["Meta Platforms", "Platform Co"]);
    }

    #[test]
    fn quotes_and_negation() {
        let (t, orgs) = setup();
        let p = parse("-symptom:\"stuck\" -component:dataloader symptom:\"training job", &t, &orgs);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(
            p.filters.facets,
            vec![
                filter(FacetKind::Symptom, "Hang", true),
                filter(FacetKind::Component, "Training data loader", true),
                filter(FacetKind::Symptom, "Training job failure", false),
            ],
            "an unbalanced quote takes the rest of the input"
        );
        assert_eq!(p.text, "");
    }
}
