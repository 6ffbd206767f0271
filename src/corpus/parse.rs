//! Reading one case file (`data/cases/<id>.toml`) into a [`Case`], with every problem found.
//!
//! A file that cannot be read as a case (syntax error, a missing required field, a wrong type, a
//! bad date) yields no case; every other problem (an unknown key, an empty list, a facet value not
//! in the taxonomy, an id that differs from the file name, a non-http source, control characters)
//! is reported and the case still loads — sanitized — so one typo never hides a whole report.

use std::{
    collections::{HashMap, HashSet},
    path::Path,
};

use crate::taxonomy::FacetKind;
use crate::{
    corpus::model::{
        ActionItem, ActionType, Case, CaseBody, Facets, Impact, ItemOrigin, PartialDate, Provenance, Source,
        SourceKind,
    },
    support::diag::{Diagnostic, Severity},
    support::toml_fields::{Ctx, Fields, Text},
    taxonomy::Taxonomy,
};

/// What reading one file gave.
#[derive(Debug)]
pub struct Parsed {
    /// The case, unless the file could not be read as one.
    pub case: Option<Case>,
    /// Every problem found, in file order.
    pub diagnostics: Vec<Diagnostic>,
}

/// How strictly facet values are held to the taxonomy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FacetPolicy {
    /// A value not in the taxonomy is an error (the bundled library, `check --strict`).
    Strict,
    /// A value not in the taxonomy stays on the case, with a warning (user libraries).
    Lenient,
}

/// The keys a case file may have.
const CASE_KEYS: &str = "id, title, date, organization, scale, symptoms, trigger, detection, remediation, \
action_items, lessons, root_causes, components, symptom_tags, contributing_factors, sources, impact";

/// Whether `date` holds a value that `parse_case` reads as "not known".
pub fn is_unknown_date(date: &str) -> bool {
    date.trim().eq_ignore_ascii_case("unknown")
}

/// Read the case in `text`, which came from `path`.
pub fn parse_case(path: &str, text: &str, taxonomy: &Taxonomy, policy: FacetPolicy, bundled: bool) -> Parsed {
    let mut ctx = Ctx::new(path, text);
    let case = ctx.parse_document(text).and_then(|doc| {
        let mut fields = Fields::new(doc.get_ref(), doc.span(), "case");
        let case = read_case(&mut ctx, &mut fields, taxonomy, policy, path, bundled);
        fields.finish(&mut ctx);
        case
    });
    let case = if ctx.fatal { None } else { case };
    let mut diagnostics = ctx.diagnostics;
    if diagnostics.iter().any(|d| d.message.starts_with("unknown key")) {
        // One hint, not one per key, listing what is allowed.
        if let Some(first) = diagnostics.iter().position(|d| d.message.starts_with("unknown key")) {
            diagnostics[first].message.push_str(&format!("; a case has: {CASE_KEYS}"));
        }
    }
    Parsed { case, diagnostics }
}

fn read_case(
    ctx: &mut Ctx,
    fields: &mut Fields,
    taxonomy: &Taxonomy,
    policy: FacetPolicy,
    path: &str,
    bundled: bool,
) -> Option<Case> {
    let id = fields.required_str(ctx, "id");
    if let Some(id) = &id {
        check_id(ctx, id, path);
    }
    let title = fields.required_str(ctx, "title");
    // `date = "unknown"` is allowed, and honest: the case sorts last and `check` warns.
    let when = fields.required_str(ctx, "date").map(|d| {
        if is_unknown_date(&d.value) {
            ctx.report(d.offset, Severity::Warning, "date is unknown; the case sorts last");
            None
        } else {
            parse_date(ctx, &d)
        }
    });
    let organization = fields.required_str(ctx, "organization");
    let scale = fields.str(ctx, "scale");
    let symptoms = fields.required_str(ctx, "symptoms");
    let trigger = fields.str(ctx, "trigger");
    let detection = fields.required_str(ctx, "detection");
    let remediation = fields.str_list(ctx, "remediation", true, true);
    let lessons = fields.str(ctx, "lessons");

    let facets = read_facets(ctx, fields, taxonomy, policy, true);

    let mut action_items = Vec::new();
    for (table, span) in fields.tables(ctx, "action_items", true) {
        let mut item = Fields::new(table, span, "action item");
        let text = item.required_str(ctx, "text");
        let kind = item.required_str(ctx, "type").and_then(|t| {
            enum_value(
                ctx,
                &t,
                "type",
                "detect, mitigate, prevent or process",
                t.value.parse::<ActionType>().ok(),
            )
        });
        let origin = item.required_str(ctx, "origin").and_then(|o| {
            enum_value(ctx, &o, "origin", "report or editorial", o.value.parse::<ItemOrigin>().ok())
        });
        let mut unknown = Unknown::default();
        let components: Vec<String> = item
            .str_list(ctx, "components", false, false)
            .unwrap_or_default()
            .into_iter()
            .map(|c| {
                let name = facet_value(ctx, taxonomy, policy, FacetKind::Component, &c, &mut unknown);
                if !facets.contains(FacetKind::Component, &name) {
                    ctx.error(
                        c.offset,
                        format!("action item component '{name}' is not one of the case's components"),
                    );
                }
                name
            })
            .collect();
        unknown.finish(ctx, policy);
        item.finish(ctx);
        if let (Some(text), Some(kind), Some(origin)) = (text, kind, origin) {
            action_items.push(ActionItem { text: text.value, kind, origin, components });
        }
    }

    let sources = read_sources(ctx, fields, true);
    let impact = read_impact(ctx, fields);

    Some(Case {
        id: id?.value.trim().to_string(),
        title: crate::text::one_line(&title?.value),
        date: when?,
        organization: crate::text::one_line(&organization?.value),
        facets,
        provenance: Provenance { path: path.to_string(), bundled },
        body: CaseBody {
            scale: scale.map(|s| s.value),
            symptoms: symptoms?.value,
            trigger: trigger.map(|t| t.value),
            detection: detection?.value,
            remediation: remediation?.into_iter().map(|r| r.value).collect(),
            action_items,
            lessons: lessons.map(|l| l.value),
            sources,
            impact,
            root_cause: None,
            timeline: None,
            owner: None,
            incident_id: None,
        }
        .into(),
    })
}

/// The four facet lists of a case file or a postmortem's front matter. `required` makes a
/// missing list an error (an empty one too, but for contributing factors).
pub(crate) fn read_facets(
    ctx: &mut Ctx,
    fields: &mut Fields,
    taxonomy: &Taxonomy,
    policy: FacetPolicy,
    required: bool,
) -> Facets {
    let mut facets = Facets::default();
    let mut unknown = Unknown::default();
    for kind in FacetKind::ALL {
        let non_empty = required && kind != FacetKind::ContributingFactor;
        let values = fields.str_list(ctx, kind.case_field(), required, non_empty).unwrap_or_default();
        let mut names: Vec<String> = Vec::new();
        // A set beside the list: a list of 200,000 values is checked for repeats in one pass.
        let mut seen: HashSet<String> = HashSet::new();
        // (value, where it is first repeated, how many times it is listed), in order, and each
        // repeated value's place in that list.
        let mut repeats: Vec<(String, usize, usize)> = Vec::new();
        let mut repeated: HashMap<String, usize> = HashMap::new();
        for value in values {
            // An empty value is a slip ("Not a component, , NCCL" on every case), not a value.
            if value.value.trim().is_empty() {
                ctx.error(
                    value.offset,
                    format!("an empty {} value: name one or remove the \"\"", kind.label().to_lowercase()),
                );
                continue;
            }
            let name = facet_value(ctx, taxonomy, policy, kind, &value, &mut unknown);
            if seen.insert(name.clone()) {
                names.push(name);
            } else {
                match repeated.get(&name) {
                    Some(&at) => repeats[at].2 += 1,
                    None => {
                        repeated.insert(name.clone(), repeats.len());
                        repeats.push((name, value.offset, 2));
                    }
                }
            }
        }
        // Each value listed more than once is one warning, at its first repeat, with the count.
        for (name, offset, times) in repeats.drain(..) {
            let times = if times == 2 { "twice".to_string() } else { format!("{times} times") };
            ctx.report(offset, Severity::Warning, format!("{} '{name}' is listed {times}", kind.label()));
        }
        facets.set(kind, names);
    }
    unknown.finish(ctx, policy);
    facets
}

/// Values of a file listed as not in the taxonomy, each with the nearest values, at most.
pub(crate) const MAX_UNKNOWN_LISTED: usize = 20;

/// The values of one file that are not in the taxonomy: the first [`MAX_UNKNOWN_LISTED`] are
/// reported one by one with the nearest values; the rest are counted, reported once, and not
/// compared with the taxonomy (a front matter of 50,000 unknown values loads in linear time).
#[derive(Debug, Default)]
pub(crate) struct Unknown {
    listed: usize,
    more: usize,
    first_more: Option<usize>,
}

impl Unknown {
    /// Report the values counted and not listed, in one diagnostic.
    pub(crate) fn finish(self, ctx: &mut Ctx, policy: FacetPolicy) {
        if let Some(offset) = self.first_more {
            let severity = match policy {
                FacetPolicy::Strict => Severity::Error,
                FacetPolicy::Lenient => Severity::Warning,
            };
            let values = if self.more == 1 { "value" } else { "values" };
            ctx.report(
                offset,
                severity,
                format!(
                    "... and {} more {values} not in the taxonomy (the first {} are listed)",
                    self.more, self.listed
                ),
            );
        }
    }
}

/// The `[[sources]]` of a case file or a postmortem's front matter; `required` makes a missing or
/// empty list an error.
pub(crate) fn read_sources(ctx: &mut Ctx, fields: &mut Fields, required: bool) -> Vec<Source> {
    let mut sources = Vec::new();
    for (table, span) in fields.tables(ctx, "sources", required) {
        let span_start = span.start;
        let mut src = Fields::new(table, span, "source");
        let title = src.required_str(ctx, "title");
        let url = src.str(ctx, "url");
        let note = src.str(ctx, "note");
        match (&url, &note) {
            (Some(url), _) => check_url(ctx, url),
            (None, Some(_)) => {}
            (None, None) => {
                ctx.fatal(span_start, "source needs a `url`, or a `note` saying why there is none")
            }
        }
        let kind = src.required_str(ctx, "kind").and_then(|k| {
            enum_value(
                ctx,
                &k,
                "kind",
                "postmortem, paper, issue, blog, talk or news",
                k.value.parse::<SourceKind>().ok(),
            )
        });
        let published = src.str(ctx, "published").and_then(|p| parse_date(ctx, &p));
        src.finish(ctx);
        if let (Some(title), Some(kind)) = (title, kind) {
            let url = url.map(|u| u.value.trim().to_string()).unwrap_or_default();
            sources.push(Source { title: title.value, url, kind, published, note: note.map(|n| n.value) });
        }
    }
    sources
}

/// The optional `[impact]` table; `None` when it is absent or gives no figure.
pub(crate) fn read_impact(ctx: &mut Ctx, fields: &mut Fields) -> Option<Impact> {
    let impact = fields.table(ctx, "impact").map(|(table, span)| {
        let mut imp = Fields::new(table, span, "impact");
        let impact = Impact {
            duration: imp.str(ctx, "duration").map(|t| t.value),
            gpu_hours_lost: imp.number(ctx, "gpu_hours_lost"),
            users_affected: imp.str(ctx, "users_affected").map(|t| t.value),
        };
        imp.finish(ctx);
        impact
    });
    impact.filter(|i| !i.is_empty())
}

/// An id is a lowercase slug and the file's stem.
fn check_id(ctx: &mut Ctx, id: &Text, path: &str) {
    let value = id.value.trim();
    if !is_slug(value) {
        ctx.error(id.offset, format!("id '{value}' must be lowercase letters, digits and single hyphens"));
    }
    let stem = Path::new(path).file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    if stem != value {
        ctx.error(id.offset, format!("id '{value}' differs from the file name '{stem}'"));
    }
}

/// Whether `s` is a valid case id: `[a-z0-9]+(-[a-z0-9]+)*`, at most 100 bytes.
pub fn is_slug(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 100
        && s.split('-').all(|part| {
            !part.is_empty() && part.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// Report a source url that is not a plain http(s) address.
pub(crate) fn check_url(ctx: &mut Ctx, url: &Text) {
    let value = url.value.trim();
    let rest = value.strip_prefix("https://").or_else(|| value.strip_prefix("http://"));
    match rest {
        Some(rest)
            if !rest.is_empty() && !rest.starts_with('/') && !value.chars().any(char::is_whitespace) => {}
        _ => ctx.error(url.offset, format!("source url '{value}' is not an http(s) address")),
    }
}

/// Read a date; a bad one makes the file unreadable.
pub(crate) fn parse_date(ctx: &mut Ctx, text: &Text) -> Option<PartialDate> {
    match text.value.parse::<PartialDate>() {
        Ok(d) => Some(d),
        Err(why) => {
            ctx.fatal(text.offset, format!("bad date: {why}"));
            None
        }
    }
}

fn enum_value<T>(ctx: &mut Ctx, text: &Text, key: &str, expected: &str, parsed: Option<T>) -> Option<T> {
    if parsed.is_none() {
        ctx.fatal(text.offset, format!("`{key}` is '{}'; expected {expected}", text.value));
    }
    parsed
}

/// The canonical name for a facet value as written; reports values the taxonomy lacks.
pub(crate) fn facet_value(
    ctx: &mut Ctx,
    taxonomy: &Taxonomy,
    policy: FacetPolicy,
    kind: FacetKind,
    text: &Text,
    unknown: &mut Unknown,
) -> String {
    let written = crate::text::one_line(&text.value);
    if let Some(v) = taxonomy.get(kind, &written) {
        if v.name != written {
            ctx.report(
                text.offset,
                Severity::Warning,
                format!("{} '{written}' is spelled '{}' in the taxonomy", kind.label(), v.name),
            );
        }
        return v.name.clone();
    }
    if unknown.listed >= MAX_UNKNOWN_LISTED {
        unknown.more += 1;
        unknown.first_more.get_or_insert(text.offset);
        return written;
    }
    unknown.listed += 1;
    let nearest: Vec<String> =
        taxonomy.nearest(kind, &written, 3).into_iter().map(|v| v.name.clone()).collect();
    let severity = match policy {
        FacetPolicy::Strict => Severity::Error,
        FacetPolicy::Lenient => Severity::Warning,
    };
    let message = format!(
        "{} '{written}' is not in the taxonomy{}",
        kind.label(),
        crate::taxonomy::nearest_suffix(&nearest)
    );
    ctx.report(text.offset, severity, message);
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taxonomy() -> Taxonomy {
        let (t, d) = Taxonomy::parse(
            "taxonomy.toml",
            r#"
[[component]]
name = "NCCL"
description = "x"
[[component]]
name = "GPU"
description = "x"
[[symptom]]
name = "Hang"
description = "x"
[[root_cause]]
name = "Deadlock"
description = "x"
[[contributing_factor]]
name = "Unsafe default"
description = "x"
"#,
        );
        assert!(d.is_empty());
        t
    }

    const GOOD: &str = r#"id = "2024-03-x"
title = "A hang"
date = "2024-03"
organization = "Example"
symptoms = "Stuck."
detection = "Watchdog."
remediation = ["Restarted."]
root_causes = ["Deadlock"]
components = ["NCCL", "GPU"]
symptom_tags = ["Hang"]
contributing_factors = []

[[action_items]]
text = "Add a watchdog."
type = "detect"
origin = "editorial"
components = ["NCCL"]

[[sources]]
title = "Issue"
url = "https://example.org/1"
kind = "issue"
published = "2024-03-02"
"#;

    fn parse(text: &str) -> Parsed {
        parse_case("cases/2024-03-x.toml", text, &taxonomy(), FacetPolicy::Strict, false)
    }

    fn messages(p: &Parsed) -> Vec<String> {
        p.diagnostics.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_good_case_reads_whole_and_clean() {
        let p = parse(GOOD);
        assert!(p.diagnostics.is_empty(), "{:?}", messages(&p));
        let case = p.case.unwrap();
        assert_eq!(case.id, "2024-03-x");
        assert_eq!(case.date.unwrap().to_string(), "2024-03");
        assert_eq!(case.facets.values(FacetKind::Component), ["NCCL", "GPU"]);
        assert_eq!(case.body.action_items[0].components, ["NCCL"]);
        assert_eq!(case.body.sources[0].published.unwrap().to_string(), "2024-03-02");
    }

    #[test]
    fn each_defect_is_named_with_its_position() {
        let table: &[(&str, &str, &str, bool)] = &[
            // (edit applied to GOOD, expected position and message fragment, loads?)
            (
                "detection = \"Watchdog.\"\n",
                "1:1: error: case is missing required field `detection`",
                "",
                false,
            ),
            (
                "contributing_factors = []\n",
                "contributing_factors = []\ncolour = \"red\"\n",
                "12:1: error: unknown key `colour`",
                true,
            ),
            (
                "[\"Deadlock\"]",
                "[\"Dedlock\"]",
                "8:16: error: Root cause 'Dedlock' is not in the taxonomy; nearest: 'Deadlock'",
                true,
            ),
            ("date = \"2024-03\"", "date = \"2024-13\"", "3:8: error: bad date: month 13", false),
            (
                "id = \"2024-03-x\"",
                "id = \"2024-03-y\"",
                "1:6: error: id '2024-03-y' differs from the file name '2024-03-x'",
                true,
            ),
            (
                "https://example.org/1",
                "ftp://example.org/1",
                "21:7: error: source url 'ftp://example.org/1' is not an http(s) address",
                true,
            ),
            ("[\"Restarted.\"]", "[]", "7:15: error: `remediation` is an empty list", true),
            (
                "\"Stuck.\"",
                "\"Stuck\\u001b[2J.\"",
                "5:12: error: `symptoms` contains control or bidi characters",
                true,
            ),
            ("title = \"A hang\"", "title = \"A hang", "2:", false),
        ];
        for (from, to, want, loads) in table {
            let (text, want) =
                if want.is_empty() { (GOOD.replace(from, ""), *to) } else { (GOOD.replace(from, to), *want) };
            let p = parse(&text);
            let got = messages(&p);
            assert!(
                got.iter().any(|m| m.starts_with(&format!("cases/2024-03-x.toml:{want}"))),
                "want {want:?}, got {got:?}"
            );
            assert_eq!(p.case.is_some(), *loads, "{want}");
        }
    }

    #[test]
    fn hostile_text_is_sanitized_on_load() {
        let p = parse(&GOOD.replace("\"Stuck.\"", "\"a\\u001b]52;c;aGk=\\u0007b\u{9b}c\u{202e}d\""));
        let case = p.case.unwrap();
        assert!(!case.body.symptoms.chars().any(crate::text::is_unsafe_char), "{:?}", case.body.symptoms);
    }

    #[test]
    fn lenient_policy_keeps_unknown_values_with_a_warning() {
        let text = GOOD.replace("[\"Deadlock\"]", "[\"Cosmic rays\"]");
        let p = parse_case("cases/2024-03-x.toml", &text, &taxonomy(), FacetPolicy::Lenient, false);
        assert_eq!(p.diagnostics[0].severity, Severity::Warning);
        assert_eq!(p.case.unwrap().facets.values(FacetKind::RootCause), ["Cosmic rays"]);
    }

    #[test]
    fn slugs() {
        assert!(is_slug("2024-03-nccl-hang"));
        for bad in ["", "A", "a--b", "-a", "a-", "a_b", "a b"] {
            assert!(!is_slug(bad), "{bad}");
        }
    }
}
