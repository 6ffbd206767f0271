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

use std::path::Path;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

pub use crate::corpus::headings::{SECTIONS, Section, normalize_heading, section_for};
use crate::taxonomy::FacetKind;
use crate::{
    corpus::headings::{Meta, is_lesson_part, is_metadata_heading, meta_for},
    corpus::infer::{Inferrer, Part as Read},
    corpus::team::TeamDefaults,
    corpus::{
        model::{
            ActionItem, ActionType, Case, CaseBody, Facets, Impact, ItemOrigin, PartialDate, Provenance,
        },
        parse::{
            FacetPolicy, Parsed, is_slug, is_unknown_date, parse_date, read_facets, read_impact, read_sources,
        },
    },
    support::diag::{Diagnostic, Severity},
    support::toml_fields::{Ctx, Fields, Text},
    taxonomy::Taxonomy,
    text::words::word_spans,
    text::{one_line, sanitize},
};

/// The keys postmortem front matter may have.
const FRONT_MATTER_KEYS: &str = "id, title, date, organization, scale, root_causes, components, symptom_tags, \
contributing_factors, sources, impact (the rest of the report goes in `##` sections)";

/// A block of the body, its text already sanitized.
#[derive(Debug, Clone, PartialEq)]
enum Block {
    Heading {
        level: usize,
        text: String,
    },
    /// Lines kept (soft breaks are newlines) so labelled lines can be told apart.
    Paragraph(String),
    List(Vec<String>),
    Table {
        head: Vec<String>,
        rows: Vec<Vec<String>>,
    },
    Code(String),
}

/// A block and the byte offset where it starts in the file.
#[derive(Debug, Clone)]
struct Placed {
    block: Block,
    offset: usize,
}

/// Split the body into blocks; offsets count from the start of the file (`base` is where the
/// body starts). Offsets of text that held control characters are pushed onto `unsafe_at`.
fn blocks(body: &str, base: usize, unsafe_at: &mut Vec<usize>) -> Vec<Placed> {
    let options = Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS | Options::ENABLE_STRIKETHROUGH;
    let mut out = Vec::new();
    let mut text = String::new();
    let mut start = 0;
    let mut list_depth = 0usize;
    let mut items: Vec<String> = Vec::new();
    let mut head: Vec<String> = Vec::new();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut row: Vec<String> = Vec::new();
    let mut in_code = false;
    let mut clean = |raw: &str, offset: usize, keep_lines: bool| -> String {
        let s = sanitize(raw);
        if s.replaced {
            unsafe_at.push(offset);
        }
        if keep_lines {
            // Each line without trailing blanks, the whole trimmed: built once, at its size (a
            // 50 MB paragraph made four copies of itself here).
            let mut kept = String::with_capacity(s.text.len());
            for (i, line) in s.text.trim_start().lines().enumerate() {
                if i > 0 {
                    kept.push('\n');
                }
                kept.push_str(line.trim_end());
            }
            kept.truncate(kept.trim_end().len());
            kept
        } else {
            one_line(&s.text)
        }
    };
    for (event, range) in Parser::new_ext(body, options).into_offset_iter() {
        let at = base + range.start;
        match event {
            Event::Start(Tag::Heading { .. }) if list_depth == 0 => {
                text.clear();
                start = at;
            }
            Event::End(TagEnd::Heading(level)) if list_depth == 0 => {
                let block = Block::Heading { level: level as usize, text: clean(&text, start, false) };
                out.push(Placed { block, offset: start });
            }
            Event::Start(Tag::Paragraph) if list_depth == 0 => {
                text.clear();
                start = at;
            }
            Event::End(TagEnd::Paragraph) => {
                if list_depth == 0 {
                    let paragraph = clean(&text, start, true);
                    if !paragraph.is_empty() {
                        out.push(Placed { block: Block::Paragraph(paragraph), offset: start });
                    }
                } else {
                    text.push(' ');
                }
            }
            Event::Start(Tag::List(_)) => {
                if list_depth == 0 {
                    items.clear();
                    start = at;
                }
                list_depth += 1;
            }
            Event::End(TagEnd::List(_)) => {
                list_depth = list_depth.saturating_sub(1);
                if list_depth == 0 && !items.is_empty() {
                    out.push(Placed { block: Block::List(std::mem::take(&mut items)), offset: start });
                }
            }
            Event::Start(Tag::Item) => {
                if list_depth <= 1 {
                    text.clear();
                } else if !text.trim().is_empty() {
                    // A nested item continues its parent's line.
                    let trimmed = text.trim_end().len();
                    text.truncate(trimmed);
                    text.push_str("; ");
                }
            }
            Event::End(TagEnd::Item) if list_depth <= 1 => {
                let item = clean(&text, at, false);
                if !item.is_empty() {
                    items.push(item);
                }
                text.clear();
            }
            Event::Start(Tag::Table(_)) => {
                head.clear();
                rows.clear();
                start = at;
            }
            Event::Start(Tag::TableHead | Tag::TableRow) => row.clear(),
            Event::End(TagEnd::TableHead) => head = std::mem::take(&mut row),
            Event::End(TagEnd::TableRow) => rows.push(std::mem::take(&mut row)),
            Event::Start(Tag::TableCell) => text.clear(),
            Event::End(TagEnd::TableCell) => row.push(clean(&text, at, false)),
            Event::End(TagEnd::Table) => {
                let block = Block::Table { head: std::mem::take(&mut head), rows: std::mem::take(&mut rows) };
                out.push(Placed { block, offset: start });
            }
            Event::Start(Tag::CodeBlock(_)) if list_depth == 0 => {
                text.clear();
                start = at;
                in_code = true;
            }
            Event::End(TagEnd::CodeBlock) if in_code => {
                in_code = false;
                let code = clean(&text, start, true);
                if !code.is_empty() {
                    out.push(Placed { block: Block::Code(code), offset: start });
                }
            }
            Event::Text(t) | Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                text.push_str(&t)
            }
            Event::SoftBreak | Event::HardBreak => text.push('\n'),
            _ => {}
        }
    }
    out
}

/// One section as found in the file: where it starts, the level of its heading (0 for a
/// labelled line) and its blocks (a lessons part's label is its first block, a heading).
#[derive(Debug, Clone)]
struct Part {
    section: Section,
    offset: usize,
    level: usize,
    blocks: Vec<Block>,
}

/// A labelled line: `Date: 2024-03-02` under the title, `- Owner: dana` in a metadata list.
#[derive(Debug, Clone)]
struct Labelled {
    meta: Meta,
    value: String,
    offset: usize,
}

/// The body, sorted into what it says.
#[derive(Debug, Default)]
struct Body {
    title: Option<(String, usize)>,
    parts: Vec<Part>,
    meta: Vec<Labelled>,
    /// Unlabelled text before the first section: the summary when there is no other.
    preamble: Vec<Placed>,
    /// Headings that name no section: (heading, offset).
    unknown: Vec<(String, usize)>,
    /// Labels of metadata lines that name no fact incidex keeps: (label, offset).
    unread_meta: Vec<(String, usize)>,
}

impl Body {
    fn has(&self, section: Section) -> bool {
        self.parts.iter().any(|p| p.section == section)
    }

    fn parts(&self, section: Section) -> impl Iterator<Item = &Part> {
        self.parts.iter().filter(move |p| p.section == section)
    }

    fn labelled(&self, meta: Meta) -> Option<&Labelled> {
        self.meta.iter().find(|l| l.meta == meta && !l.value.trim().is_empty())
    }
}

/// Where the walk over the blocks is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Place {
    Preamble,
    In(Section),
    /// A metadata block (`## Metadata`): labelled lines are facts, the rest is not read.
    Metadata,
    Skipped,
}

/// `Label: value` at the start of `line` with a plausible label (a few words, no sentence).
fn label_of(line: &str) -> Option<(&str, &str)> {
    let colon = line.find(':')?;
    let (label, rest) = (&line[..colon], &line[colon + 1..]);
    let plausible = !label.trim().is_empty()
        && label.chars().count() <= 40
        && label.chars().all(|c| {
            c.is_alphabetic() || matches!(c, ' ' | '(' | ')' | '\'' | '&' | '-' | '/' | ';' | '#' | '.')
        });
    plausible.then_some((label, rest.trim()))
}

/// `Label: value` at the start of `line`, when the label names a section or a known fact.
fn split_label(line: &str) -> Option<(&str, &str)> {
    label_of(line).filter(|(label, _)| section_for(label).is_some() || meta_for(label).is_some())
}

/// The lines of a block that can be labelled: a paragraph's lines, a list's items, a two-column
/// table's rows (as `key: value`, its head included: such tables often have no real head).
fn label_lines(block: &Block) -> Option<Vec<String>> {
    Some(match block {
        Block::Paragraph(p) => p.lines().map(str::to_string).collect(),
        Block::List(items) => items.clone(),
        Block::Table { head, rows } if head.len() == 2 => std::iter::once(head)
            .chain(rows)
            .map(|r| format!("{}: {}", r[0], r.get(1).map_or("", |v| v)))
            .collect(),
        _ => return None,
    })
}

/// Where `label` is in the source, at or after `from`, for an exact line; `from` otherwise.
fn label_offset(text: &str, from: usize, label: &str) -> usize {
    text.get(from..).and_then(|t| t.find(label.trim())).map_or(from, |i| from + i)
}

fn sort_body(blocks: Vec<Placed>, text: &str) -> Body {
    let mut body = Body::default();
    let mut place = Place::Preamble;
    let start_part = |body: &mut Body, section: Section, offset: usize, level: usize| {
        body.parts.push(Part { section, offset, level, blocks: Vec::new() });
    };
    for placed in blocks {
        let offset = placed.offset;
        // A paragraph that is only a section's name stands for its heading.
        let heading = match &placed.block {
            Block::Heading { level, text } => Some((*level, text.clone())),
            Block::Paragraph(p) if !p.contains('\n') && section_for(p).is_some() && p.len() <= 60 => {
                Some((2, p.clone()))
            }
            _ => None,
        };
        if let Some((level, heading)) = heading {
            let norm = normalize_heading(&heading);
            let section = section_for(&heading);
            // A deeper heading inside a section, naming that section or none, labels a part of it
            // (`### Primary Cause` under `## Root Cause Analysis`).
            let current = match place {
                Place::In(s) => {
                    body.parts.last().filter(|p| p.section == s && p.level > 0 && level > p.level)
                }
                _ => None,
            };
            let nested = current.is_some_and(|p| section.is_none_or(|s| s == p.section))
                && !is_metadata_heading(&heading);
            match section {
                _ if nested => {
                    if let Some(part) = body.parts.last_mut() {
                        part.blocks.push(Block::Heading { level, text: heading });
                    }
                }
                Some(Section::Lessons) if is_lesson_part(&norm) => {
                    if place != Place::In(Section::Lessons) {
                        start_part(&mut body, Section::Lessons, offset, level.saturating_sub(1).max(1));
                        place = Place::In(Section::Lessons);
                    }
                    if let Some(part) = body.parts.last_mut() {
                        part.blocks.push(Block::Heading { level, text: heading });
                    }
                }
                Some(section) => {
                    start_part(&mut body, section, offset, level);
                    place = Place::In(section);
                }
                None if is_metadata_heading(&heading) => place = Place::Metadata,
                // The title: the first `#` heading, or a `##` one before anything else.
                None if body.title.is_none()
                    && place == Place::Preamble
                    && (level == 1 || (level == 2 && body.parts.is_empty() && body.meta.is_empty())) =>
                {
                    body.title = Some((heading, offset));
                }
                None if level <= 2 => {
                    body.unknown.push((heading, offset));
                    place = Place::Skipped;
                }
                None => {}
            }
            continue;
        }
        match place {
            Place::In(section) => {
                // A summary often opens with the report's facts (`- Date: ...`, `- Owner: ...`).
                let block = if section == Section::Summary {
                    take_meta(&mut body, placed, text, false)
                } else {
                    Some(placed.block)
                };
                if let (Some(block), Some(part)) = (block, body.parts.last_mut()) {
                    part.blocks.push(block);
                }
            }
            Place::Metadata => {
                take_meta(&mut body, placed, text, true);
            }
            Place::Skipped => {}
            Place::Preamble => sort_preamble(&mut body, placed, text),
        }
    }
    body
}

/// Take the lines of `placed` that state a known fact (`Date: ...`) into `body.meta`; the block
/// without them, if anything is left. In a metadata block (`metadata`), lines with a label of
/// another kind are noted as not read.
fn take_meta(body: &mut Body, placed: Placed, text: &str, metadata: bool) -> Option<Block> {
    let Some(lines) = label_lines(&placed.block) else {
        return Some(placed.block);
    };
    let mut rest: Vec<String> = Vec::new();
    for line in lines {
        match label_of(&line) {
            Some((label, value)) if meta_for(label).is_some() => {
                let offset = label_offset(text, placed.offset, label);
                if let Some(meta) = meta_for(label) {
                    body.meta.push(Labelled { meta, value: value.to_string(), offset });
                }
            }
            Some((label, _)) if metadata => {
                body.unread_meta.push((label.trim().to_string(), label_offset(text, placed.offset, label)));
            }
            _ => rest.push(line),
        }
    }
    if rest.is_empty() {
        return None;
    }
    Some(match placed.block {
        Block::List(_) => Block::List(rest),
        Block::Table { head, rows } => {
            // Only a table that lost no row is kept whole; otherwise its remaining lines.
            if rows.len() + 1 == rest.len() { Block::Table { head, rows } } else { Block::List(rest) }
        }
        _ => Block::Paragraph(rest.join("\n")),
    })
}

/// Labelled lines (in paragraphs, list items or two-column tables) become facts or sections;
/// the rest is kept as the preamble.
fn sort_preamble(body: &mut Body, placed: Placed, text: &str) {
    let Some(lines) = label_lines(&placed.block) else {
        body.preamble.push(placed);
        return;
    };
    let mut rest: Vec<String> = Vec::new();
    // Continuation lines belong to the labelled line above them.
    let mut open: Option<usize> = None;
    for line in lines {
        match split_label(&line) {
            Some((label, value)) => {
                let offset = label_offset(text, placed.offset, label);
                if let Some(section) = section_for(label) {
                    body.parts.push(Part {
                        section,
                        offset,
                        level: 0,
                        blocks: vec![Block::Paragraph(value.to_string())],
                    });
                    open = Some(body.parts.len() - 1);
                } else if let Some(meta) = meta_for(label) {
                    body.meta.push(Labelled { meta, value: value.to_string(), offset });
                    open = None;
                }
            }
            None => match open.and_then(|i| body.parts.get_mut(i)) {
                Some(Part { blocks, .. }) => {
                    if let Some(Block::Paragraph(p)) = blocks.last_mut() {
                        p.push('\n');
                        p.push_str(&line);
                    }
                }
                None => rest.push(line),
            },
        }
    }
    if !rest.is_empty() {
        let block = match placed.block {
            Block::List(_) => Block::List(rest),
            _ => Block::Paragraph(rest.join("\n")),
        };
        body.preamble.push(Placed { block, offset: placed.offset });
    }
}

/// Paragraphs of prose, joined by blank lines; list items and table rows each a paragraph.
fn prose(blocks: &[Block]) -> String {
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

fn as_label(heading: &str) -> String {
    if heading.ends_with(['.', ':', '?', '!']) { heading.to_string() } else { format!("{heading}:") }
}

fn row_text(row: &[String], separator: &str) -> String {
    row.iter().map(|c| c.trim()).filter(|c| !c.is_empty()).collect::<Vec<_>>().join(separator)
}

/// Remediation steps: list items, table rows and paragraphs, one entry each.
fn entries(blocks: &[Block]) -> Vec<String> {
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
fn timeline(blocks: &[Block]) -> String {
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
fn action_type(word: &str) -> Option<ActionType> {
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
fn guess_action_type(text: &str) -> ActionType {
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
struct Columns {
    text: Option<usize>,
    kind: Option<usize>,
    owner: Option<usize>,
    bug: Option<usize>,
    status: Option<usize>,
}

fn columns(head: &[String]) -> Columns {
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
fn action_items(ctx: &mut Ctx, parts: &[&Part]) -> Vec<ActionItem> {
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

fn is_blank_cell(cell: &str) -> bool {
    matches!(cell.to_lowercase().as_str(), "" | "-" | "–" | "—" | "n/a" | "na" | "none")
}

/// `[prevent] text`, `Prevent: text` or `prevent — text`: the type and the rest.
fn split_type_prefix(item: &str) -> (Option<&str>, &str) {
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

const MONTHS: [&str; 12] = [
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

/// Where the front matter is: the TOML's byte range and where the body starts.
#[derive(Debug, PartialEq)]
enum FrontMatter {
    None { body: usize },
    Toml { toml: std::ops::Range<usize>, body: usize },
    Yaml { body: usize },
    Unclosed,
}

fn front_matter(text: &str) -> FrontMatter {
    let start = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    let rest = &text[start..];
    let first = rest.lines().next().unwrap_or_default().trim_end();
    let fence = match first {
        "+++" => "+++",
        "---" => "---",
        _ => return FrontMatter::None { body: start },
    };
    let open_end = start + rest.find('\n').map_or(rest.len(), |i| i + 1);
    let mut at = open_end;
    while at < text.len() {
        let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
        if text[at..line_end].trim_end() == fence {
            return if fence == "+++" {
                FrontMatter::Toml { toml: open_end..at, body: line_end }
            } else {
                FrontMatter::Yaml { body: line_end }
            };
        }
        at = line_end;
    }
    if fence == "+++" { FrontMatter::Unclosed } else { FrontMatter::None { body: start } }
}

/// What the front matter says.
#[derive(Debug, Default)]
struct Declared {
    id: Option<Text>,
    title: Option<Text>,
    date: Option<Text>,
    organization: Option<Text>,
    scale: Option<Text>,
    facets: Facets,
    sources: Vec<crate::corpus::model::Source>,
    impact: Option<Impact>,
    /// Whether each facet kind's key is present (by `FacetKind::index`), even as an empty list.
    given: [bool; 4],
    /// Where the front matter starts, for problems about a key it lacks.
    offset: Option<usize>,
}

fn read_front_matter<'a>(
    ctx: &mut Ctx<'a>,
    text: &'a str,
    toml: std::ops::Range<usize>,
    taxonomy: &Taxonomy,
    policy: FacetPolicy,
) -> Declared {
    ctx.base = toml.start;
    let mut declared = Declared { offset: Some(toml.start), ..Declared::default() };
    if let Some(doc) = ctx.parse_document(&text[toml.clone()]) {
        let mut fields = Fields::new(doc.get_ref(), doc.span(), "front matter");
        declared.id = fields.str(ctx, "id");
        declared.title = fields.str(ctx, "title");
        declared.date = fields.str_or_date(ctx, "date");
        declared.organization = fields.str(ctx, "organization");
        declared.scale = fields.str(ctx, "scale");
        for kind in FacetKind::ALL {
            declared.given[kind.index()] = doc.get_ref().contains_key(kind.case_field());
        }
        declared.facets = read_facets(ctx, &mut fields, taxonomy, policy, false);
        declared.sources = read_sources(ctx, &mut fields, false);
        declared.impact = read_impact(ctx, &mut fields);
        let before = ctx.diagnostics.len();
        fields.finish(ctx);
        if let Some(first) =
            ctx.diagnostics[before..].iter_mut().find(|d| d.message.starts_with("unknown key"))
        {
            first.message.push_str(&format!("; front matter has: {FRONT_MATTER_KEYS}"));
        }
        // Offsets from here on are the file's own, not the front matter's.
        for text in [&mut declared.id, &mut declared.title, &mut declared.date, &mut declared.organization]
            .into_iter()
            .flatten()
        {
            text.offset += toml.start;
        }
    }
    ctx.base = 0;
    declared
}

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
fn infer_facets(ctx: &mut Ctx, case: &mut Case, written: [bool; 4], inferred: [Vec<String>; 4], at: usize) {
    for (kind, inferred) in FacetKind::ALL.into_iter().zip(inferred) {
        let required = kind != FacetKind::ContributingFactor;
        if written[kind.index()] {
            continue;
        }
        let inferred: Vec<String> = inferred.into_iter().filter(|v| !case.facets.contains(kind, v)).collect();
        if !inferred.is_empty() {
            let quoted: Vec<String> = inferred.iter().map(|v| format!("'{v}'")).collect();
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
            for value in inferred {
                case.facets.add_inferred(kind, value);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn taxonomy() -> Taxonomy {
        let (t, d) = Taxonomy::parse(
            "taxonomy.toml",
            "[[component]]\nname = \"NCCL\"\ndescription = \"x\"\n[[symptom]]\nname = \"Hang\"\ndescription = \"x\"\n",
        );
        assert!(d.is_empty(), "{d:?}");
        t
    }

    fn parse(path: &str, text: &str) -> Parsed {
        parse_postmortem(path, text, &taxonomy(), FacetPolicy::Lenient, None, None)
    }

    fn messages(p: &Parsed) -> Vec<String> {
        p.diagnostics.iter().map(ToString::to_string).collect()
    }

    const SRE: &str = "# Search outage postmortem\n\nDate: 2015-10-21\nAuthors: a, b\nOrganization: Example\n\
Summary: Search was down for 66 minutes.\nImpact: 1.2B queries lost.\nRoot Causes: A file descriptor leak\n\
under load.\nTrigger: A traffic spike.\nResolution: Added capacity.\nDetection: Alerts paged on-call.\n\n\
## Action Items\n\n| Action Item | Type | Owner | Bug |\n|---|---|---|---|\n| Plug the leak | prevent | alice | Bug 1 |\n\
| Update the playbook | mitigate | bob | n/a |\n| Freeze releases | other | carol | - |\n\n\
## Lessons Learned\n\n### What went well\n\n- Paging worked.\n\n### Where we got lucky\n\n- Spare capacity.\n\n\
## Timeline\n\n2015-10-21 (all times UTC)\n\n- 14:51 Traffic spikes\n- 14:53 Pages fire\n";

    #[test]
    fn the_sre_book_layout_reads_whole() {
        let p = parse("pm/search-outage.md", SRE);
        let got = messages(&p);
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got.iter().all(|m| m.starts_with("pm/search-outage.md:1:1: warning: no ")), "{got:?}");
        let case = p.case.unwrap();
        assert_eq!(case.id, "search-outage");
        assert_eq!(case.title, "Search outage postmortem");
        assert_eq!(case.date.unwrap().to_string(), "2015-10-21");
        assert_eq!(case.organization, "Example");
        assert_eq!(case.body.symptoms, "Search was down for 66 minutes.\n\nImpact: 1.2B queries lost.");
        assert_eq!(case.body.root_cause.as_deref(), Some("A file descriptor leak under load."));
        assert_eq!(case.body.trigger.as_deref(), Some("A traffic spike."));
        assert_eq!(case.body.remediation, ["Added capacity."]);
        assert_eq!(case.body.detection, "Alerts paged on-call.");
        let items: Vec<(&str, ActionType)> =
            case.body.action_items.iter().map(|i| (i.text.as_str(), i.kind)).collect();
        assert_eq!(
            items,
            [
                ("Plug the leak (owner: alice; tracking: Bug 1)", ActionType::Prevent),
                ("Update the playbook (owner: bob)", ActionType::Mitigate),
                ("Freeze releases (owner: carol)", ActionType::Process),
            ]
        );
        assert_eq!(
            case.body.lessons.as_deref(),
            Some("What went well:\n\n- Paging worked.\n\nWhere we got lucky:\n\n- Spare capacity.")
        );
        assert_eq!(
            case.body.timeline.as_deref(),
            Some("2015-10-21 (all times UTC)\n14:51 Traffic spikes\n14:53 Pages fire")
        );
    }

    #[test]
    fn front_matter_gives_metadata_and_facets_with_file_positions() {
        let text = "+++\nid = \"2024-05-x\"\ntitle = \"Rings hung\"\ndate = 2024-05-02\norganization = \"Us\"\n\
components = [\"nccl\"]\nsymptom_tags = [\"Cosmic\"]\ncolour = 1\n+++\n\n## Summary\n\nHung.\n\n## Detection\n\nPager.\n\n\
## Remediation\n\n- Restarted.\n\n## Action items\n\n- [detect] Alert on stalls.\n";
        let p = parse("pm/whatever.md", text);
        let got = messages(&p);
        assert_eq!(got.len(), 4, "{got:?}");
        assert!(got[3].starts_with("pm/whatever.md:1:1: warning: no root cause value"), "{got:?}");
        assert!(
            got[0].starts_with("pm/whatever.md:6:15: warning: Component 'nccl' is spelled 'NCCL'"),
            "{got:?}"
        );
        assert!(
            got[1].starts_with("pm/whatever.md:7:17: warning: Symptom 'Cosmic' is not in the taxonomy"),
            "{got:?}"
        );
        assert!(
            got[2].starts_with("pm/whatever.md:8:1: error: unknown key `colour` in front matter"),
            "{got:?}"
        );
        let case = p.case.unwrap();
        assert_eq!(case.id, "2024-05-x");
        assert_eq!(case.date.unwrap().to_string(), "2024-05-02");
        assert_eq!(case.facets.values(FacetKind::Component), ["NCCL"]);
        assert_eq!(case.facets.values(FacetKind::Symptom), ["Cosmic"]);
        assert_eq!(case.body.action_items[0].kind, ActionType::Detect);
        assert_eq!(case.body.action_items[0].text, "Alert on stalls.");
    }

    #[test]
    fn every_missing_field_is_named_with_its_line() {
        let p = parse("pm/notes.md", "# Notes\n\nSome text.\n\n## Timeline\n\n- 10:00 it broke\n");
        let got = messages(&p);
        for want in [
            "pm/notes.md:1:1: warning: no date",
            "pm/notes.md:1:1: warning: no organization",
            "pm/notes.md:1:1: warning: no `## Detection` section",
            "pm/notes.md:1:1: warning: no `## Resolution` section",
            "pm/notes.md:1:1: warning: no `## Action items` section",
        ] {
            assert!(got.iter().any(|g| g.starts_with(want)), "want {want:?} in {got:?}");
        }
        // Gaps leave a case that can be shown: none of them is an error.
        assert!(!p.diagnostics.iter().any(Diagnostic::is_error), "{got:?}");
        let case = p.case.expect("a postmortem with gaps still loads");
        assert_eq!(case.date, None);
        assert_eq!(case.body.symptoms, "Some text.");
    }

    #[test]
    fn empty_sections_and_bad_dates_point_at_their_lines() {
        let p = parse(
            "pm/x.md",
            "# X\n\n**Date:** sometime\n\nTeam: Ours\n\n## Summary\n\nA.\n\n## Detection\n\n## Resolution\n\n- B.\n\n## Action items\n\n- C.\n",
        );
        let got = messages(&p);
        assert!(
            got.iter().any(|g| g.starts_with("pm/x.md:3:3: warning: cannot read the date 'sometime'")),
            "{got:?}"
        );
        assert!(
            got.iter().any(|g| g.starts_with("pm/x.md:11:1: warning: the Detection section is empty")),
            "{got:?}"
        );
        assert_eq!(p.case.unwrap().organization, "Ours");
    }

    #[test]
    fn facets_left_out_are_inferred_with_a_hint() {
        let (taxonomy, _) =
            Taxonomy::parse(crate::corpus::bundled::TAXONOMY_PATH, crate::corpus::bundled::TAXONOMY);
        let inferrer = Inferrer::new(&taxonomy);
        let text = "+++\norganization = \"Us\"\ncontributing_factors = []\n+++\n# Every rank hung in NCCL\n\n\
## Summary\n\nThe job hung with NCCL WARN Timeout on every rank.\n\n## Detection\n\nA watchdog.\n\n\
## Resolution\n\n- Restarted.\n\n## Action items\n\n- Alert on stalls.\n";
        let p = parse_postmortem(
            "pm/2024-01-01-x.md",
            text,
            &taxonomy,
            FacetPolicy::Lenient,
            Some(&inferrer),
            None,
        );
        let got = messages(&p);
        assert!(
            got.iter()
                .any(|m| m
                    .starts_with("pm/2024-01-01-x.md:1:1: hint: Component inferred from the text: 'NCCL'")),
            "{got:?}"
        );
        let case = p.case.unwrap();
        assert!(case.facets.is_inferred(FacetKind::Component, "NCCL"));
        assert!(case.facets.is_inferred(FacetKind::Symptom, "Hang"), "{:?}", case.facets);
        // `contributing_factors = []` says there is none: nothing is inferred for it.
        assert!(case.facets.values(FacetKind::ContributingFactor).is_empty());
    }

    #[test]
    fn a_readme_is_not_a_postmortem() {
        let p = parse("pm/README.md", "# Our postmortems\n\nOne file per incident.\n");
        assert!(p.case.is_none());
        assert_eq!(p.diagnostics.len(), 1);
        assert_eq!(p.diagnostics[0].severity, Severity::Hint);
    }

    #[test]
    fn front_matter_must_be_closed_and_yaml_is_named() {
        let p = parse("pm/x.md", "+++\ntitle = \"x\"\n\n## Summary\n\nA.\n");
        assert!(p.case.is_none());
        assert!(messages(&p)[0].starts_with("pm/x.md:1:1: error: front matter opened"));
        let p = parse("pm/2024-01-02-y.md", "---\ntitle: y\n---\n# Y\n\n## Summary\n\nA.\n");
        assert!(messages(&p)[0].contains("YAML front matter"), "{:?}", messages(&p));
        assert_eq!(p.case.unwrap().date.unwrap().to_string(), "2024-01-02");
    }

    #[test]
    fn loose_dates() {
        for (input, want) in [
            ("2015-10-21", Some("2015-10-21")),
            ("2015-10-21 (all times UTC)", Some("2015-10-21")),
            ("2015/10/21", Some("2015-10-21")),
            ("2015-10", Some("2015-10")),
            ("2015", Some("2015")),
            ("October 21, 2015", Some("2015-10-21")),
            ("21st Oct 2015", Some("2015-10-21")),
            ("Mar 2024", Some("2024-03")),
            ("2015-13-01", None),
            ("soon", None),
            ("15-10-21", None),
        ] {
            assert_eq!(parse_loose_date(input).map(|d| d.to_string()).as_deref(), want, "{input}");
        }
    }

    #[test]
    fn ids_and_dates_from_file_names() {
        assert_eq!(id_from_file_name("a/Shakespeare Outage (2015).md"), "shakespeare-outage-2015");
        assert_eq!(id_from_file_name("a/__.md"), "");
        assert_eq!(date_from_file_name("2024-03-02-x").map(|d| d.to_string()).as_deref(), Some("2024-03-02"));
        assert_eq!(date_from_file_name("2024-03-x").map(|d| d.to_string()).as_deref(), Some("2024-03"));
        assert_eq!(date_from_file_name("20240302-x"), None);
        assert_eq!(date_from_file_name("x-2024"), None);
    }

    #[test]
    fn action_item_prefixes_and_guesses() {
        for (item, want_kind, want_text) in [
            ("[prevent] Add load shedding", ActionType::Prevent, "Add load shedding"),
            ("Mitigate: Add a circuit breaker", ActionType::Mitigate, "Add a circuit breaker"),
            ("Add an alert on stalled steps", ActionType::Detect, "Add an alert on stalled steps"),
            ("Update the runbook", ActionType::Process, "Update the runbook"),
            ("Pin the driver version", ActionType::Prevent, "Pin the driver version"),
            ("Note: this one has a colon", ActionType::Prevent, "Note: this one has a colon"),
        ] {
            let (kind, text) = split_type_prefix(item);
            let kind = kind.and_then(action_type).unwrap_or_else(|| guess_action_type(text));
            assert_eq!((kind, text), (want_kind, want_text), "{item}");
        }
    }

    #[test]
    fn hostile_text_is_sanitized_and_reported() {
        let p = parse("pm/2024-x.md", "# T\u{1b}]0;x\u{7}\n\nOrg: A\n\n## Summary\n\nA &#27;[2J b.\n");
        assert!(messages(&p).iter().any(|m| m.contains("control or bidi")));
        let case = p.case.unwrap();
        assert!(!case.title.chars().any(crate::text::is_unsafe_char));
        assert!(!case.body.symptoms.chars().any(crate::text::is_unsafe_char), "{:?}", case.body.symptoms);
    }
}
