//! A postmortem's body cut into its sections: the Markdown parsed into blocks, each placed at
//! its byte offset, and sorted under the section its heading (or a labelled line such as
//! `Root Causes: ...`, or a line that is only a section's name) opens.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use crate::corpus::headings::{Section, normalize_heading, section_for};
use crate::{
    corpus::headings::{Meta, is_lesson_part, is_metadata_heading, meta_for},
    text::{one_line, sanitize},
};

/// A block of the body, its text already sanitized.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Block {
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
pub(super) struct Placed {
    pub(super) block: Block,
    pub(super) offset: usize,
}

/// Split the body into blocks; offsets count from the start of the file (`base` is where the
/// body starts). Offsets of text that held control characters are pushed onto `unsafe_at`.
pub(super) fn blocks(body: &str, base: usize, unsafe_at: &mut Vec<usize>) -> Vec<Placed> {
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
pub(super) struct Part {
    pub(super) section: Section,
    pub(super) offset: usize,
    pub(super) level: usize,
    pub(super) blocks: Vec<Block>,
}

/// A labelled line: `Date: 2024-03-02` under the title, `- Owner: dana` in a metadata list.
#[derive(Debug, Clone)]
pub(super) struct Labelled {
    pub(super) meta: Meta,
    pub(super) value: String,
    pub(super) offset: usize,
}

/// The body, sorted into what it says.
#[derive(Debug, Default)]
pub(super) struct Body {
    pub(super) title: Option<(String, usize)>,
    pub(super) parts: Vec<Part>,
    pub(super) meta: Vec<Labelled>,
    /// Unlabelled text before the first section: the summary when there is no other.
    pub(super) preamble: Vec<Placed>,
    /// Headings that name no section: (heading, offset).
    pub(super) unknown: Vec<(String, usize)>,
    /// Labels of metadata lines that name no fact incidex keeps: (label, offset).
    pub(super) unread_meta: Vec<(String, usize)>,
}

impl Body {
    pub(super) fn has(&self, section: Section) -> bool {
        self.parts.iter().any(|p| p.section == section)
    }

    pub(super) fn parts(&self, section: Section) -> impl Iterator<Item = &Part> {
        self.parts.iter().filter(move |p| p.section == section)
    }

    pub(super) fn labelled(&self, meta: Meta) -> Option<&Labelled> {
        self.meta.iter().find(|l| l.meta == meta && !l.value.trim().is_empty())
    }
}

/// Where the walk over the blocks is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Place {
    Preamble,
    In(Section),
    /// A metadata block (`## Metadata`): labelled lines are facts, the rest is not read.
    Metadata,
    Skipped,
}

/// `Label: value` at the start of `line` with a plausible label (a few words, no sentence).
pub(super) fn label_of(line: &str) -> Option<(&str, &str)> {
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
pub(super) fn split_label(line: &str) -> Option<(&str, &str)> {
    label_of(line).filter(|(label, _)| section_for(label).is_some() || meta_for(label).is_some())
}

/// The lines of a block that can be labelled: a paragraph's lines, a list's items, a two-column
/// table's rows (as `key: value`, its head included: such tables often have no real head).
pub(super) fn label_lines(block: &Block) -> Option<Vec<String>> {
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
pub(super) fn label_offset(text: &str, from: usize, label: &str) -> usize {
    text.get(from..).and_then(|t| t.find(label.trim())).map_or(from, |i| from + i)
}

pub(super) fn sort_body(blocks: Vec<Placed>, text: &str) -> Body {
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
pub(super) fn take_meta(body: &mut Body, placed: Placed, text: &str, metadata: bool) -> Option<Block> {
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
pub(super) fn sort_preamble(body: &mut Body, placed: Placed, text: &str) {
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
