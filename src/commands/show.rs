//! `incidex show ID`: one case as wrapped text, JSON or Markdown.

use std::io::Write;

use crate::taxonomy::FacetKind;
use crate::{
    cli::{ShowArgs, ShowFormat},
    commands::{stdout_error, text_width, write_json},
    corpus::{Case, Library},
    support::error::{Error, Result},
    text::markdown::{escape_cell, escape_inline, link},
};

/// Print the case `args.id`, or fail naming the nearest ids.
pub fn run(args: &ShowArgs, library: &Library, out: &mut dyn Write) -> Result<()> {
    let case = find(library, &args.id)?;
    match args.format() {
        ShowFormat::Json => write_json(out, case),
        ShowFormat::Markdown => out.write_all(to_markdown(case).as_bytes()).map_err(stdout_error),
        ShowFormat::Text => out.write_all(to_text(case, text_width()).as_bytes()).map_err(stdout_error),
    }
}

/// The case with `id`, or an error naming the closest ids.
pub fn find<'a>(library: &'a Library, id: &str) -> Result<&'a Case> {
    library.case(id).ok_or_else(|| {
        let mut near: Vec<(f64, &str)> =
            library.cases.iter().map(|c| (strsim::jaro_winkler(&c.id, id), c.id.as_str())).collect();
        near.sort_by(|a, b| b.0.total_cmp(&a.0));
        let near: Vec<&str> = near.into_iter().take(3).filter(|(s, _)| *s > 0.6).map(|(_, id)| id).collect();
        let mut msg = format!("no case with id '{}'", crate::text::one_line(id));
        if !near.is_empty() {
            msg.push_str(&format!("; nearest: {}", near.join(", ")));
        }
        Error::Failed(msg)
    })
}

/// The case as plain text wrapped to `width` columns.
pub fn to_text(case: &Case, width: usize) -> String {
    let mut s = String::new();
    let wrap = |s: &mut String, text: &str, indent: &str| {
        for paragraph in text.split("\n\n") {
            // A list item ("- ...", as postmortems write them) wraps under its own text.
            let hanging =
                if paragraph.starts_with("- ") { format!("{indent}  ") } else { indent.to_string() };
            let options = textwrap::Options::new(crate::commands::wrap_at(width))
                .initial_indent(indent)
                .subsequent_indent(&hanging);
            for line in textwrap::wrap(&paragraph.replace('\n', " "), options) {
                s.push_str(&line);
                s.push('\n');
            }
        }
    };
    let bullets = |s: &mut String, items: &mut dyn Iterator<Item = String>| {
        for item in items {
            let options = textwrap::Options::new(crate::commands::wrap_at(width))
                .initial_indent("  • ")
                .subsequent_indent("    ");
            for line in textwrap::wrap(&item, options) {
                s.push_str(&line);
                s.push('\n');
            }
        }
    };
    wrap(&mut s, &case.title, "");
    let mut meta = vec![case.id.clone()];
    meta.push(case.date.map(|d| d.to_string()).unwrap_or_else(|| "undated".into()));
    meta.push(case.organization.clone());
    if let Some(scale) = &case.body.scale {
        meta.push(scale.clone());
    }
    wrap(&mut s, &meta.join(" · "), "");
    let owned = owned_by(case);
    if !owned.is_empty() {
        wrap(&mut s, &owned.join(" · "), "");
    }
    let section = |s: &mut String, title: &str| {
        s.push('\n');
        s.push_str(title);
        s.push('\n');
    };
    section(&mut s, "Symptoms");
    wrap(&mut s, &case.body.symptoms, "  ");
    if let Some(trigger) = &case.body.trigger {
        section(&mut s, "Trigger");
        wrap(&mut s, trigger, "  ");
    }
    if let Some(root_cause) = &case.body.root_cause {
        section(&mut s, "Cause");
        wrap(&mut s, root_cause, "  ");
    }
    s.push('\n');
    for kind in FacetKind::ALL {
        let values: Vec<String> = case
            .facets
            .values(kind)
            .iter()
            .map(|v| match case.facets.inferred_reason(kind, v) {
                Some(reason) => format!("{v} (inferred: {reason})"),
                None => v.clone(),
            })
            .collect();
        let values = if values.is_empty() { "–".to_string() } else { values.join(", ") };
        let options = textwrap::Options::new(crate::commands::wrap_at(width))
            .subsequent_indent("                       ");
        for line in textwrap::wrap(&format!("{:<21}  {values}", kind.label()), options) {
            s.push_str(&line);
            s.push('\n');
        }
    }
    section(&mut s, "Detection");
    wrap(&mut s, &case.body.detection, "  ");
    section(&mut s, "Remediation");
    bullets(&mut s, &mut case.body.remediation.iter().cloned());
    section(&mut s, "Action items");
    bullets(
        &mut s,
        &mut case.body.action_items.iter().map(|item| {
            let mut line = format!("[{}] {}", item.kind.key(), item.text);
            if item.origin == crate::corpus::model::ItemOrigin::Editorial {
                line.push_str(" (editorial)");
            }
            if !item.components.is_empty() {
                line.push_str(&format!(" — for {}", item.components.join(", ")));
            }
            line
        }),
    );
    if let Some(lessons) = &case.body.lessons {
        section(&mut s, "Lessons");
        wrap(&mut s, lessons, "  ");
    }
    if let Some(impact) = &case.body.impact {
        section(&mut s, "Impact");
        bullets(&mut s, &mut impact_lines(impact).into_iter());
    }
    if let Some(timeline) = &case.body.timeline {
        section(&mut s, "Timeline");
        for line in timeline.lines() {
            wrap(&mut s, line, "  ");
        }
    }
    if !case.body.sources.is_empty() {
        section(&mut s, "Sources");
    }
    for source in &case.body.sources {
        let mut head = format!("{} ({}", source.title, source.kind.key());
        if let Some(p) = source.published {
            head.push_str(&format!(", {p}"));
        }
        head.push(')');
        bullets(&mut s, &mut std::iter::once(head));
        // URLs are never wrapped: a terminal must be able to open them whole.
        s.push_str(&format!("    {}\n", source.url));
    }
    if !case.provenance.bundled {
        section(&mut s, "File");
        s.push_str(&format!("  {}\n", crate::text::one_line(&case.provenance.path)));
    }
    s
}

/// A postmortem's incident id and owner, as `Incident ID: ...` and `Owner: ...`.
fn owned_by(case: &Case) -> Vec<String> {
    let mut lines = Vec::new();
    lines.extend(case.body.incident_id.as_ref().map(|i| format!("Incident ID: {i}")));
    lines.extend(case.body.owner.as_ref().map(|o| format!("Owner: {o}")));
    lines
}

fn impact_lines(impact: &crate::corpus::model::Impact) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(d) = &impact.duration {
        lines.push(format!("Duration: {d}"));
    }
    if let Some(h) = impact.gpu_hours_lost {
        lines.push(format!("GPU hours lost: {h}"));
    }
    if let Some(u) = &impact.users_affected {
        lines.push(format!("Users affected: {u}"));
    }
    lines
}

/// The case as Markdown, every piece of case text escaped.
pub fn to_markdown(case: &Case) -> String {
    let mut s = format!("# {}\n\n", escape_inline(&case.title));
    let mut meta = vec![format!("`{}`", case.id)];
    meta.push(case.date.map(|d| d.to_string()).unwrap_or_else(|| "undated".into()));
    meta.push(escape_inline(&case.organization));
    if let Some(scale) = &case.body.scale {
        meta.push(escape_inline(scale));
    }
    s.push_str(&meta.join(" · "));
    s.push_str("\n\n");
    let owned: Vec<String> = owned_by(case).iter().map(|l| escape_inline(l)).collect();
    if !owned.is_empty() {
        s.push_str(&owned.join(" · "));
        s.push_str("\n\n");
    }
    let paragraphs = |text: &str| -> String {
        text.split("\n\n").map(escape_inline).collect::<Vec<_>>().join("\n\n") + "\n\n"
    };
    s.push_str("## Symptoms\n\n");
    s.push_str(&paragraphs(&case.body.symptoms));
    if let Some(trigger) = &case.body.trigger {
        s.push_str("## Trigger\n\n");
        s.push_str(&paragraphs(trigger));
    }
    if let Some(root_cause) = &case.body.root_cause {
        s.push_str("## Cause\n\n");
        s.push_str(&paragraphs(root_cause));
    }
    s.push_str("## Facets\n\n| Kind | Values |\n|---|---|\n");
    for kind in FacetKind::ALL {
        let values: Vec<String> = case
            .facets
            .values(kind)
            .iter()
            .map(|v| {
                let inferred = match case.facets.inferred_reason(kind, v) {
                    Some(reason) => format!(" *(inferred: {})*", escape_cell(reason)),
                    None => String::new(),
                };
                format!("{}{inferred}", escape_cell(v))
            })
            .collect();
        s.push_str(&format!(
            "| {} | {} |\n",
            kind.label(),
            if values.is_empty() { "–".into() } else { values.join(", ") }
        ));
    }
    s.push_str("\n## Detection\n\n");
    s.push_str(&paragraphs(&case.body.detection));
    s.push_str("## Remediation\n\n");
    for r in &case.body.remediation {
        s.push_str(&format!("- {}\n", escape_inline(r)));
    }
    s.push_str("\n## Action items\n\n");
    for item in &case.body.action_items {
        let origin =
            if item.origin == crate::corpus::model::ItemOrigin::Editorial { " *(editorial)*" } else { "" };
        s.push_str(&format!("- **{}** {}{origin}\n", item.kind.key(), escape_inline(&item.text)));
    }
    if let Some(lessons) = &case.body.lessons {
        s.push_str("\n## Lessons\n\n");
        s.push_str(paragraphs(lessons).trim_end());
        s.push('\n');
    }
    if let Some(impact) = &case.body.impact {
        s.push_str("\n## Impact\n\n");
        for line in impact_lines(impact) {
            s.push_str(&format!("- {}\n", escape_inline(&line)));
        }
    }
    if let Some(timeline) = &case.body.timeline {
        s.push_str("\n## Timeline\n\n");
        for line in timeline.lines().filter(|l| !l.trim().is_empty()) {
            s.push_str(&format!("- {}\n", escape_inline(line)));
        }
    }
    if !case.body.sources.is_empty() {
        s.push_str("\n## Sources\n\n");
    }
    for source in &case.body.sources {
        let published = source.published.map(|p| format!(", {p}")).unwrap_or_default();
        s.push_str(&format!("- {} ({}{published})\n", link(&source.title, &source.url), source.kind.key()));
    }
    s
}
