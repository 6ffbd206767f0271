//! Reading one Markdown postmortem into a [`Case`], with every problem found as
//! `path:line:column`.
//!
//! A postmortem is a Markdown file written to the widely used SRE-book template: optional `+++`
//! TOML front matter (id, title, date, organization, scale, the four facet lists, sources,
//! impact), read with the same positioned reader as case files; then a body whose sections are
//! found by their headings, case-insensitively and with the usual synonyms ([`SECTIONS`]). The
//! SRE book's labelled lines under the title (`Date: ...`, `Summary: ...`, `Root Causes: ...`)
//! count as sections too, and so does a line that is only a section's name (`**Action Items**`).
//!
//! Unlike a case file, a postmortem loads whenever it has an id (from the front matter or the
//! file name): a missing field is an error for `check`, saying where to add it, but the rest of
//! the report stays searchable. A Markdown file with neither front matter nor any postmortem
//! section (a README) is not a postmortem: it is skipped with a hint. Facet kinds the front
//! matter leaves out are inferred from the text (`corpus::infer`), shown as inferred, and named
//! in a hint. Nothing here does I/O.
//!
//! The front matter is `front_matter`'s, the body's sections `sections`', the fields read
//! out of them `fields`'; building the case from all three is here.

mod fields;
mod front_matter;
mod sections;
#[cfg(test)]
mod tests;

use std::path::Path;

use self::fields::{action_items, entries, prose, timeline};
pub use self::fields::{date_from_file_name, id_from_file_name, parse_loose_date};
use self::front_matter::{Declared, FrontMatter, front_matter, read_front_matter};
use self::sections::{Block, Body, Part, blocks, sort_body};
pub use crate::corpus::headings::{SECTIONS, Section, normalize_heading, section_for};
use crate::taxonomy::FacetKind;
use crate::{
    corpus::headings::Meta,
    corpus::infer::{Inferred, InferredValue, Inferrer, Part as Read},
    corpus::team::TeamDefaults,
    corpus::{
        model::{Case, CaseBody, Impact, PartialDate, Provenance},
        parse::{FacetPolicy, Parsed, is_slug, is_unknown_date, parse_date},
    },
    support::diag::{Diagnostic, Severity},
    support::toml_fields::Ctx,
    taxonomy::Taxonomy,
    text::one_line,
    text::words::word_spans,
};

/// Read the postmortem in `text`, which came from `path`. Facet kinds the front matter does not
/// give are inferred from the text with `inferrer` (left empty, with a warning, without one);
/// `team` is what the `incidex.toml` above the file says for every postmortem of its team.
pub fn parse_postmortem(
    path: &str,
    text: &str,
    taxonomy: &Taxonomy,
    policy: FacetPolicy,
    inferrer: Option<&Inferrer>,
    team: Option<&TeamDefaults>,
) -> Parsed {
    let mut ctx = Ctx::new(path, text);
    let (declared, body_start) = match front_matter(text) {
        FrontMatter::None { body } => (None, body),
        FrontMatter::Yaml { body } => {
            ctx.report(
                0,
                Severity::Warning,
                "YAML front matter (---) is not read; write it as TOML between `+++` lines",
            );
            (None, body)
        }
        FrontMatter::Toml { toml, body } => {
            (Some(read_front_matter(&mut ctx, text, toml, taxonomy, policy)), body)
        }
        FrontMatter::Unclosed => {
            ctx.fatal(0, "front matter opened with `+++` on line 1 is never closed by a `+++` line");
            return Parsed { case: None, diagnostics: ctx.diagnostics };
        }
    };
    let mut unsafe_at = Vec::new();
    let body = sort_body(blocks(&text[body_start..], body_start, &mut unsafe_at), text);
    if let Some(&offset) = unsafe_at.first() {
        ctx.error(offset, "the text contains control or bidi characters (shown replaced)");
    }
    if declared.is_none() && body.parts.is_empty() {
        let hint = "not read as a postmortem: no `+++` front matter and no postmortem section \
                    (## Summary, ## Detection, ## Action items, ...)";
        let diagnostics = vec![Diagnostic::new(path, (0, 0), Severity::Hint, hint)];
        return Parsed { case: None, diagnostics };
    }
    let case = build_case(&mut ctx, path, declared.unwrap_or_default(), &body, inferrer, team);
    let case = if ctx.fatal { None } else { case };
    Parsed { case, diagnostics: ctx.diagnostics }
}

fn build_case(
    ctx: &mut Ctx,
    path: &str,
    declared: Declared,
    body: &Body,
    inferrer: Option<&Inferrer>,
    team: Option<&TeamDefaults>,
) -> Option<Case> {
    // Problems about something missing point at the front matter, else at the title, else at 1:1.
    let title_at = body.title.as_ref().map_or(0, |(_, o)| *o);
    let fm_at = declared.offset.map_or(title_at, |o| o.saturating_sub(4));
    let id = match &declared.id {
        Some(id) if is_slug(id.value.trim()) => id.value.trim().to_string(),
        Some(id) => {
            ctx.error(
                id.offset,
                format!("id '{}' must be lowercase letters, digits and single hyphens", id.value.trim()),
            );
            id_from_file_name(path)
        }
        None => id_from_file_name(path),
    };
    if id.is_empty() {
        ctx.fatal(fm_at, "the file name gives no id; add `id = \"...\"` to the front matter");
        return None;
    }

    let title = match (&declared.title, &body.title) {
        (Some(t), _) if !t.value.trim().is_empty() => one_line(&t.value),
        (_, Some((t, _))) if !t.is_empty() => t.clone(),
        _ => {
            ctx.error(
                fm_at,
                "no title: start the file with a `# Title` heading, or add `title` to the front matter",
            );
            id.clone()
        }
    };

    let date = case_date(ctx, path, &declared, body, fm_at);

    let labelled = |meta: Meta| body.labelled(meta);
    let team_organization = team.and_then(|t| t.organization.as_deref());
    let organization = match (&declared.organization, labelled(Meta::Organization), team_organization) {
        (Some(o), _, _) if !o.value.trim().is_empty() => one_line(&o.value),
        (_, Some(l), _) => one_line(&l.value),
        (_, _, Some(o)) => o.to_string(),
        _ => {
            ctx.report(
                fm_at,
                Severity::Warning,
                "no organization: add `organization = \"...\"` to the front matter, an `Organization:` \
                 line under the title, or an `incidex.toml` with `organization = \"...\"` beside your postmortems",
            );
            String::new()
        }
    };
    for (label, offset) in &body.unread_meta {
        ctx.report(*offset, Severity::Hint, format!("metadata '{label}' is not one incidex reads"));
    }

    let blocks_of =
        |section: Section| -> Vec<Block> { body.parts(section).flat_map(|p| p.blocks.clone()).collect() };
    let empty_sections: Vec<&Part> = body.parts.iter().filter(|p| p.blocks.is_empty()).collect();
    for part in empty_sections {
        ctx.report(part.offset, Severity::Warning, format!("the {} section is empty", part.section.label()));
    }

    // Summary, Symptoms and Impact together say what people saw; the later ones are labelled.
    let mut symptoms: Vec<String> = Vec::new();
    let mut seen: Vec<(Section, String)> = Vec::new();
    for section in [Section::Summary, Section::Symptoms, Section::Impact] {
        let mut blocks = blocks_of(section);
        if section == Section::Summary && !body.has(Section::Summary) {
            blocks = body.preamble.iter().map(|p| p.block.clone()).collect();
        }
        let text = prose(&blocks);
        if text.is_empty() {
            continue;
        }
        if symptoms.is_empty() {
            symptoms.push(text.clone());
        } else {
            symptoms.push(format!("{}: {text}", section.label()));
        }
        seen.push((section, text));
    }
    let symptoms = symptoms.join("\n\n");
    // A gap is a warning: the case still shows; `check` says what to add.
    let missing = |ctx: &mut Ctx, what: &str| {
        ctx.report(title_at, Severity::Warning, format!("no {what}"));
    };
    if symptoms.is_empty() {
        missing(ctx, "`## Summary` section: say what happened and what people saw");
    }
    let optional = |section: Section| Some(prose(&blocks_of(section))).filter(|t| !t.is_empty());
    let timeline = Some(timeline(&blocks_of(Section::Timeline))).filter(|t| !t.is_empty());
    let mut detection = optional(Section::Detection).unwrap_or_default();
    if detection.is_empty() && !body.has(Section::Detection) {
        match timeline.as_deref().and_then(detection_in_timeline) {
            // Many postmortems say how it was noticed only in their timeline.
            Some(line) => {
                detection = format!("From the timeline: {line}");
                ctx.report(
                    title_at,
                    Severity::Hint,
                    "no `## Detection` section: detection is read from the timeline",
                );
            }
            None => missing(ctx, "`## Detection` section: say how it was noticed, and how long that took"),
        }
    }
    let remediation = entries(&blocks_of(Section::Resolution));
    if remediation.is_empty() && !body.has(Section::Resolution) {
        missing(ctx, "`## Resolution` section: list what was done");
    }
    let item_parts: Vec<&Part> = body.parts(Section::ActionItems).collect();
    let action_items = action_items(ctx, &item_parts);
    if action_items.is_empty() && item_parts.is_empty() {
        missing(
            ctx,
            "`## Action items` section: a list or a table of what should be done so it cannot recur",
        );
    }
    for (heading, offset) in &body.unknown {
        ctx.report(
            *offset,
            Severity::Hint,
            format!("section '{heading}' is not one incidex reads; its text is left out of the case"),
        );
    }

    let mut impact = declared.impact;
    if let Some(duration) = labelled(Meta::Duration) {
        impact.get_or_insert_with(Impact::default).duration.get_or_insert_with(|| one_line(&duration.value));
    }
    let trigger = optional(Section::Trigger);
    let root_cause = optional(Section::RootCause);
    let report: Vec<(Read, &str)> = std::iter::once((Read::Title, title.as_str()))
        .chain(seen.iter().map(|(section, text)| {
            (if *section == Section::Impact { Read::Impact } else { Read::Summary }, text.as_str())
        }))
        .chain(trigger.as_deref().map(|t| (Read::Trigger, t)))
        .chain(root_cause.as_deref().map(|t| (Read::Cause, t)))
        .chain(std::iter::once((Read::Detection, detection.as_str())))
        .collect();
    let inferred = inferrer.map(|i| i.infer(&report)).unwrap_or_default();
    // A kind the front matter gives (an empty list of contributing factors says "none") is not
    // inferred.
    let written = FacetKind::ALL.map(|kind| {
        declared.given[kind.index()]
            && (kind == FacetKind::ContributingFactor || !declared.facets.values(kind).is_empty())
    });
    let mut facets = declared.facets;
    if let Some(team) = team {
        team.tag(&mut facets);
    }
    let case = Case {
        id,
        title,
        date,
        organization,
        facets,
        provenance: Provenance { path: path.to_string(), bundled: false },
        body: CaseBody {
            scale: declared.scale.map(|s| one_line(&s.value)),
            symptoms,
            trigger,
            root_cause,
            detection,
            remediation,
            action_items,
            lessons: optional(Section::Lessons),
            sources: declared.sources,
            impact,
            timeline,
            owner: labelled(Meta::Owner).map(|l| one_line(&l.value)),
            incident_id: labelled(Meta::IncidentId).map(|l| one_line(&l.value)),
        }
        .into(),
    };
    let mut case = case;
    infer_facets(ctx, &mut case, written, inferred, fm_at);
    Some(case)
}

/// The first line of a timeline that says how the incident was noticed: one that says it was
/// detected, alerted on, noticed or paged.
fn detection_in_timeline(timeline: &str) -> Option<&str> {
    timeline.lines().find(|line| {
        word_spans(line).any(|(a, b)| {
            let word = line[a..b].to_lowercase();
            ["detect", "alert", "notic"].iter().any(|stem| word.starts_with(stem))
                || matches!(word.as_str(), "paged" | "paging" | "page" | "pages")
        })
    })
}

/// Fill the facet kinds the front matter leaves out (not `written`) with the values `inferred`
/// from the text (each kind with a hint saying so); a required kind that stays empty is a
/// warning. Team tags do not keep a kind from being inferred: they say what every postmortem of
/// the team shares, not what this one is about.
fn infer_facets(ctx: &mut Ctx, case: &mut Case, written: [bool; 4], inferred: Inferred, at: usize) {
    for (kind, inferred) in FacetKind::ALL.into_iter().zip(inferred) {
        let required = kind != FacetKind::ContributingFactor;
        if written[kind.index()] {
            continue;
        }
        let inferred: Vec<InferredValue> =
            inferred.into_iter().filter(|i| !case.facets.contains(kind, &i.value)).collect();
        if !inferred.is_empty() {
            let quoted: Vec<String> =
                inferred.iter().map(|i| format!("'{}' ({})", i.value, i.basis.describe())).collect();
            ctx.report(
                at,
                Severity::Hint,
                format!(
                    "{} inferred from the text: {}; confirm with `{} = [...]` in the front matter",
                    kind.label(),
                    quoted.join(", "),
                    kind.case_field()
                ),
            );
            for i in inferred {
                case.facets.add_inferred(kind, i.value, i.basis.describe());
            }
        } else if required && case.facets.values(kind).is_empty() {
            ctx.report(
                at,
                Severity::Warning,
                format!(
                    "no {} value: add `{} = [...]` to the front matter (`incidex facets --all` lists the values)",
                    kind.label().to_lowercase(),
                    kind.case_field()
                ),
            );
        }
    }
}

/// The date: the front matter's, a `Date:` line's (under the title, in a metadata or summary
/// list), or the file name's; else a warning (the case sorts last).
fn case_date(
    ctx: &mut Ctx,
    path: &str,
    declared: &Declared,
    body: &Body,
    fm_at: usize,
) -> Option<PartialDate> {
    if let Some(d) = &declared.date {
        if is_unknown_date(&d.value) {
            ctx.report(d.offset, Severity::Warning, "date is unknown; the case sorts last");
            return None;
        }
        return parse_date(ctx, d);
    }
    if let Some(line) = body.meta.iter().find(|l| l.meta == Meta::Date) {
        match parse_loose_date(&line.value) {
            Some(d) => return Some(d),
            None => ctx.report(
                line.offset,
                Severity::Warning,
                format!(
                    "cannot read the date '{}' (write YYYY-MM-DD, YYYY-MM or YYYY); the case sorts last",
                    one_line(&line.value)
                ),
            ),
        }
    }
    let stem = Path::new(path).file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    if let Some(d) = date_from_file_name(stem) {
        return Some(d);
    }
    if !body.meta.iter().any(|l| l.meta == Meta::Date) {
        ctx.report(
            fm_at,
            Severity::Warning,
            "no date: add `date = \"YYYY-MM-DD\"` to the front matter, a `Date:` line under the title, \
             or start the file name with the date; the case sorts last",
        );
    }
    None
}
