//! The case's fields read out of a postmortem's sections: prose, entries of lists and tables,
//! the timeline, action items with their types and owners, and dates and ids from loose text or
//! the file name.

use std::path::Path;

use super::sections::{Block, Part};
use crate::corpus::headings::normalize_heading;
use crate::{
    corpus::model::{ActionItem, ActionType, ItemOrigin, PartialDate},
    support::diag::Severity,
    support::toml_fields::Ctx,
    text::one_line,
};

/// Paragraphs of prose, joined by blank lines; list items and table rows each a paragraph.
pub(super) fn prose(blocks: &[Block]) -> String {
    let mut paragraphs: Vec<String> = Vec::new();
    for block in blocks {
        match block {
            Block::Heading { text, .. } => paragraphs.push(as_label(text)),
            Block::Paragraph(p) => paragraphs.push(p.split('\n').collect::<Vec<_>>().join(" ")),
            Block::List(items) => paragraphs.extend(items.iter().map(|i| format!("- {i}"))),
            Block::Table { rows, .. } => paragraphs.extend(rows.iter().map(|r| row_text(r, " · "))),
            Block::Code(code) => paragraphs.push(code.clone()),
        }
    }
    // A label and what follows it read as one paragraph: "What went well: ...".
    let mut joined: Vec<String> = Vec::new();
    for p in paragraphs {
        match joined.last_mut() {
            Some(last) if last.ends_with(':') && !p.starts_with("- ") => {
                last.push(' ');
                last.push_str(&p);
            }
            _ => joined.push(p),
        }
    }
    joined.join("\n\n")
}

pub(super) fn as_label(heading: &str) -> String {
    if heading.ends_with(['.', ':', '?', '!']) { heading.to_string() } else { format!("{heading}:") }
}

pub(super) fn row_text(row: &[String], separator: &str) -> String {
    row.iter().map(|c| c.trim()).filter(|c| !c.is_empty()).collect::<Vec<_>>().join(separator)
}

/// Remediation steps: list items, table rows and paragraphs, one entry each.
pub(super) fn entries(blocks: &[Block]) -> Vec<String> {
    let mut out = Vec::new();
    for block in blocks {
        match block {
            Block::List(items) => out.extend(items.iter().cloned()),
            Block::Table { rows, .. } => out.extend(rows.iter().map(|r| row_text(r, " · "))),
            Block::Paragraph(p) => out.push(p.split('\n').collect::<Vec<_>>().join(" ")),
            Block::Code(c) => out.push(c.clone()),
            Block::Heading { .. } => {}
        }
    }
    out.retain(|e| !e.trim().is_empty());
    out
}

/// A timeline, kept as text: one line per line, item or row; headings as lines of their own.
pub(super) fn timeline(blocks: &[Block]) -> String {
    let mut lines: Vec<String> = Vec::new();
    for block in blocks {
        match block {
            Block::Heading { text, .. } => lines.push(text.clone()),
            Block::Paragraph(p) | Block::Code(p) => lines.extend(p.lines().map(str::to_string)),
            Block::List(items) => lines.extend(items.iter().cloned()),
            Block::Table { rows, .. } => lines.extend(rows.iter().map(|r| row_text(r, " — "))),
        }
    }
    lines.retain(|l| !l.trim().is_empty());
    lines.join("\n")
}

/// The type an action item's type cell or prefix names, SRE-book words included
/// (`repair` is mitigate, `other` is process).
pub(super) fn action_type(word: &str) -> Option<ActionType> {
    let w = word.trim().to_lowercase();
    let w = w.trim_matches(|c: char| !c.is_alphanumeric());
    Some(match w {
        _ if w.starts_with("detect") || w.starts_with("monitor") || w.starts_with("alert") => {
            ActionType::Detect
        }
        _ if w.starts_with("mitigat") || w.starts_with("repair") || w.starts_with("remediat") => {
            ActionType::Mitigate
        }
        _ if w.starts_with("prevent") => ActionType::Prevent,
        _ if w.starts_with("process") || w == "other" || w.starts_with("document") => ActionType::Process,
        _ => return None,
    })
}

/// The type of an action item given without one, from what it says.
pub(super) fn guess_action_type(text: &str) -> ActionType {
    let t = text.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| t.contains(w));
    if has(&["alert", "monitor", "dashboard", "detect", "page on", "paging"]) {
        ActionType::Detect
    } else if has(&["runbook", "playbook", "document", "training", "review", "drill", "process"]) {
        ActionType::Process
    } else {
        ActionType::Prevent
    }
}

/// Column roles in an action-item table.
#[derive(Debug, Default)]
pub(super) struct Columns {
    pub(super) text: Option<usize>,
    pub(super) kind: Option<usize>,
    pub(super) owner: Option<usize>,
    pub(super) bug: Option<usize>,
    pub(super) status: Option<usize>,
}

pub(super) fn columns(head: &[String]) -> Columns {
    let mut c = Columns::default();
    for (i, h) in head.iter().enumerate() {
        let h = normalize_heading(h);
        let slot = match h.as_str() {
            "action item" | "action items" | "action" | "item" | "task" | "description" | "what" | "todo" => {
                &mut c.text
            }
            "type" | "kind" | "category" | "action type" => &mut c.kind,
            "owner" | "owners" | "assignee" | "who" | "responsible" => &mut c.owner,
            "bug" | "ticket" | "issue" | "tracking" | "link" | "jira" | "tracker" => &mut c.bug,
            "status" | "state" | "done" => &mut c.status,
            _ => continue,
        };
        slot.get_or_insert(i);
    }
    c
}

/// The action items of the Action items section: table rows or list items (paragraphs when
/// there is neither). Unknown types are reported at `offset` and guessed from the text.
pub(super) fn action_items(ctx: &mut Ctx, parts: &[&Part]) -> Vec<ActionItem> {
    let mut items = Vec::new();
    let mut push = |ctx: &mut Ctx, text: String, kind: Option<&str>, offset: usize| {
        let text = text.trim().to_string();
        if text.is_empty() {
            return;
        }
        let kind = match kind.map(str::trim).filter(|k| !k.is_empty()) {
            Some(k) => action_type(k).unwrap_or_else(|| {
                ctx.report(
                    offset,
                    Severity::Warning,
                    format!(
                        "action item type '{}' is not detect, mitigate, prevent or process; read from the text",
                        one_line(k)
                    ),
                );
                guess_action_type(&text)
            }),
            None => guess_action_type(&text),
        };
        items.push(ActionItem { text, kind, origin: ItemOrigin::Report, components: Vec::new() });
    };
    for part in parts {
        let structured = part.blocks.iter().any(|b| matches!(b, Block::List(_) | Block::Table { .. }));
        for block in &part.blocks {
            match block {
                Block::Table { head, rows } => {
                    let cols = columns(head);
                    let text_col = cols.text.unwrap_or(0);
                    for row in rows {
                        let cell = |i: Option<usize>| {
                            i.and_then(|i| row.get(i)).map(|s| s.trim()).filter(|s| !is_blank_cell(s))
                        };
                        let mut text = cell(Some(text_col)).unwrap_or_default().to_string();
                        let extras: Vec<String> =
                            [("owner", cols.owner), ("tracking", cols.bug), ("status", cols.status)]
                                .into_iter()
                                .filter_map(|(name, i)| cell(i).map(|v| format!("{name}: {v}")))
                                .collect();
                        if !text.is_empty() && !extras.is_empty() {
                            text = format!("{text} ({})", extras.join("; "));
                        }
                        push(ctx, text, cell(cols.kind), part.offset);
                    }
                }
                Block::List(list) => {
                    for item in list {
                        let (kind, text) = split_type_prefix(item);
                        push(ctx, text.to_string(), kind, part.offset);
                    }
                }
                Block::Paragraph(p) if !structured => {
                    let line = p.replace('\n', " ");
                    let (kind, text) = split_type_prefix(&line);
                    push(ctx, text.to_string(), kind, part.offset);
                }
                _ => {}
            }
        }
    }
    items
}

pub(super) fn is_blank_cell(cell: &str) -> bool {
    matches!(cell.to_lowercase().as_str(), "" | "-" | "–" | "—" | "n/a" | "na" | "none")
}

/// `[prevent] text`, `Prevent: text` or `prevent — text`: the type and the rest.
pub(super) fn split_type_prefix(item: &str) -> (Option<&str>, &str) {
    let item = item.trim();
    if let Some(rest) = item.strip_prefix('[')
        && let Some(close) = rest.find(']')
        && action_type(&rest[..close]).is_some()
    {
        return (Some(&rest[..close]), rest[close + 1..].trim_start_matches([' ', ':', '-', '—']));
    }
    for sep in [":", " — ", " - "] {
        if let Some(i) = item.find(sep)
            && i <= 12
            && action_type(&item[..i]).is_some()
            && !item[..i].contains(' ')
        {
            return (Some(&item[..i]), item[i + sep.len()..].trim());
        }
    }
    (None, item)
}

pub(super) const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// A date at the start of `s`: `2024-03-02`, `2024/03/02`, `2024-03`, `2024`, `March 2, 2024`,
/// `2 March 2024`, `Mar 2024`; anything after it (`(all times UTC)`) is ignored.
pub fn parse_loose_date(s: &str) -> Option<PartialDate> {
    let s = s.trim();
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        let head: String =
            s.chars().take_while(|c| c.is_ascii_digit() || matches!(c, '-' | '/' | '.')).collect();
        let head = head.replace(['/', '.'], "-");
        let head = head.trim_end_matches('-');
        let parts: Vec<&str> = head.split('-').take(3).collect();
        if parts.first().is_some_and(|y| y.len() == 4) {
            return parts.join("-").parse().ok();
        }
    }
    let words: Vec<String> = s
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .take(4)
        .map(|w| w.to_lowercase().trim_end_matches('.').to_string())
        .collect();
    let month =
        words.iter().position(|w| w.len() >= 3 && MONTHS.iter().any(|m| m.starts_with(w.as_str())))?;
    let month_number = MONTHS.iter().position(|m| m.starts_with(words[month].as_str()))? + 1;
    let year = words.iter().find(|w| w.len() == 4 && w.bytes().all(|b| b.is_ascii_digit()))?;
    let day = words
        .iter()
        .map(|w| w.trim_end_matches(|c: char| c.is_alphabetic()))
        .find(|w| (1..=2).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_digit()));
    let text = match day {
        Some(d) => format!("{year}-{month_number:02}-{:02}", d.parse::<u8>().ok()?),
        None => format!("{year}-{month_number:02}"),
    };
    text.parse().ok()
}

/// A date at the start of a file name: `2024-03-02-...`, `2024-03-...`, `2024-...`.
pub fn date_from_file_name(stem: &str) -> Option<PartialDate> {
    let bytes = stem.as_bytes();
    [10, 7, 4].into_iter().find_map(|len| {
        let ends_clean = bytes.get(len).is_none_or(|b| !b.is_ascii_digit());
        if ends_clean { stem.get(..len)?.parse().ok() } else { None }
    })
}

/// The id a file name gives: its stem as a slug (`Shakespeare Outage.md` ->
/// `shakespeare-outage`).
pub fn id_from_file_name(path: &str) -> String {
    let stem = Path::new(path).file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let mut slug = String::new();
    for c in stem.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    let mut slug = slug.trim_end_matches('-').to_string();
    if slug.len() > 100 {
        slug.truncate(100);
        slug = slug.trim_end_matches('-').to_string();
    }
    slug
}
