//! Typed, positioned reading of TOML tables, collecting every problem instead of stopping at
//! the first.
//!
//! Case files and taxonomies are parsed into toml's span-carrying `DeTable`; [`Fields`] then reads
//! one table's keys by type, records a [`Diagnostic`] with line and column for each missing key,
//! wrong type, control character or unknown key, and sanitizes every string it hands out
//! (see [`crate::text`]). Callers decide what a problem means for the file.

use std::ops::Range;

use toml::{
    Spanned,
    de::{DeTable, DeValue},
};

use crate::support::diag::{Diagnostic, LineIndex, Severity};

/// One file being read: its name, its line index and the problems found so far.
pub struct Ctx<'a> {
    /// The file, as it is shown in diagnostics.
    pub path: &'a str,
    lines: LineIndex<'a>,
    /// Everything found so far.
    pub diagnostics: Vec<Diagnostic>,
    /// Set by a problem that leaves the file unreadable as a whole (syntax, missing field,
    /// wrong type): such a file is skipped when loading, never half-loaded.
    pub fatal: bool,
    /// Added to every offset reported: where the TOML being read starts in the file (non-zero
    /// for a Markdown postmortem's front matter, whose spans count from its own first byte).
    pub base: usize,
}

impl<'a> Ctx<'a> {
    /// Start reading `text` from `path`.
    pub fn new(path: &'a str, text: &'a str) -> Self {
        Ctx { path, lines: LineIndex::new(text), diagnostics: Vec::new(), fatal: false, base: 0 }
    }

    /// Record a problem at byte `offset`.
    pub fn report(&mut self, offset: usize, severity: Severity, message: impl Into<String>) {
        let position = self.lines.position(self.base + offset);
        self.diagnostics.push(Diagnostic::new(self.path, position, severity, message));
    }

    /// Record an error at byte `offset`.
    pub fn error(&mut self, offset: usize, message: impl Into<String>) {
        self.report(offset, Severity::Error, message);
    }

    /// Record an error that makes the file unreadable as a whole.
    pub fn fatal(&mut self, offset: usize, message: impl Into<String>) {
        self.fatal = true;
        self.error(offset, message);
    }

    /// Parse a whole document, recording syntax errors; `None` when it cannot be read at all.
    pub fn parse_document(&mut self, text: &'a str) -> Option<Spanned<DeTable<'a>>> {
        match DeTable::parse(text) {
            Ok(doc) => Some(doc),
            Err(err) => {
                let offset = err.span().map_or(0, |s| s.start);
                let message = err.message().trim().replace('\n', " ");
                self.fatal(offset, format!("TOML syntax: {message}"));
                None
            }
        }
    }
}

/// A string read from a file, sanitized, with the byte offset of its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    /// The sanitized value.
    pub value: String,
    /// Where the value starts in the file.
    pub offset: usize,
}

/// The keys of one table, read by type.
pub struct Fields<'t, 'i> {
    table: &'t DeTable<'i>,
    offset: usize,
    what: &'static str,
    read: Vec<&'static str>,
}

impl<'t, 'i> Fields<'t, 'i> {
    /// Read `table`, which starts at `span`; `what` names it in messages ("case", "source").
    pub fn new(table: &'t DeTable<'i>, span: Range<usize>, what: &'static str) -> Self {
        Fields { table, offset: span.start, what, read: Vec::new() }
    }

    fn get(&mut self, key: &'static str) -> Option<&'t Spanned<DeValue<'i>>> {
        self.read.push(key);
        self.table.get(key)
    }

    fn missing(&self, ctx: &mut Ctx, key: &str) {
        ctx.fatal(self.offset, format!("{} is missing required field `{key}`", self.what));
    }

    /// An optional string.
    pub fn str(&mut self, ctx: &mut Ctx, key: &'static str) -> Option<Text> {
        let value = self.get(key)?;
        string_value(ctx, key, value)
    }

    /// An optional string, or a TOML date (`date = 2024-03-02`, as front matter often writes
    /// it) in its text form.
    pub fn str_or_date(&mut self, ctx: &mut Ctx, key: &'static str) -> Option<Text> {
        let value = self.get(key)?;
        match value.get_ref() {
            DeValue::Datetime(d) => Some(Text { value: d.to_string(), offset: value.span().start }),
            _ => string_value(ctx, key, value),
        }
    }

    /// A required string; missing or empty is an error.
    pub fn required_str(&mut self, ctx: &mut Ctx, key: &'static str) -> Option<Text> {
        if !self.table.contains_key(key) {
            self.read.push(key);
            self.missing(ctx, key);
            return None;
        }
        let text = self.str(ctx, key)?;
        if text.value.trim().is_empty() {
            ctx.fatal(text.offset, format!("`{key}` is empty"));
            return None;
        }
        Some(text)
    }

    /// A list of strings. `required` makes a missing key an error; `non_empty` an empty list.
    pub fn str_list(
        &mut self,
        ctx: &mut Ctx,
        key: &'static str,
        required: bool,
        non_empty: bool,
    ) -> Option<Vec<Text>> {
        let Some(value) = self.get(key) else {
            if required {
                self.missing(ctx, key);
            }
            return None;
        };
        let DeValue::Array(items) = value.get_ref() else {
            ctx.fatal(value.span().start, format!("`{key}` must be a list of strings"));
            return None;
        };
        let texts: Vec<Text> = items.iter().filter_map(|item| string_value(ctx, key, item)).collect();
        if non_empty && items.is_empty() {
            ctx.error(value.span().start, format!("`{key}` is an empty list; it needs at least one entry"));
        }
        Some(texts)
    }

    /// A number (integer or float).
    pub fn number(&mut self, ctx: &mut Ctx, key: &'static str) -> Option<f64> {
        let value = self.get(key)?;
        let parsed = match value.get_ref() {
            DeValue::Integer(i) => i.as_str().replace('_', "").parse::<f64>().ok(),
            DeValue::Float(f) => f.as_str().replace('_', "").parse::<f64>().ok(),
            _ => None,
        };
        match parsed {
            Some(n) if n.is_finite() && n >= 0.0 => Some(n),
            _ => {
                ctx.fatal(value.span().start, format!("`{key}` must be a non-negative number"));
                None
            }
        }
    }

    /// A sub-table (`[impact]`).
    pub fn table(&mut self, ctx: &mut Ctx, key: &'static str) -> Option<(&'t DeTable<'i>, Range<usize>)> {
        let value = self.get(key)?;
        match value.get_ref() {
            DeValue::Table(t) => Some((t, value.span())),
            _ => {
                ctx.fatal(value.span().start, format!("`{key}` must be a table"));
                None
            }
        }
    }

    /// An array of tables (`[[sources]]`); `required` makes a missing or empty one an error.
    pub fn tables(
        &mut self,
        ctx: &mut Ctx,
        key: &'static str,
        required: bool,
    ) -> Vec<(&'t DeTable<'i>, Range<usize>)> {
        let Some(value) = self.get(key) else {
            if required {
                self.missing(ctx, key);
            }
            return Vec::new();
        };
        let DeValue::Array(items) = value.get_ref() else {
            ctx.fatal(value.span().start, format!("`{key}` must be an array of tables ([[{key}]])"));
            return Vec::new();
        };
        if required && items.is_empty() {
            ctx.error(value.span().start, format!("`{key}` is an empty list; it needs at least one entry"));
        }
        items
            .iter()
            .filter_map(|item| match item.get_ref() {
                DeValue::Table(t) => Some((t, item.span())),
                _ => {
                    ctx.fatal(item.span().start, format!("each entry of `{key}` must be a table"));
                    None
                }
            })
            .collect()
    }

    /// Report every key that was not read as unknown, suggesting the nearest known key.
    pub fn finish(self, ctx: &mut Ctx) {
        for (key, _) in self.table.iter() {
            let name: &str = key.get_ref();
            if self.read.contains(&name) {
                continue;
            }
            let nearest = self
                .read
                .iter()
                .map(|k| (strsim::jaro_winkler(k, name), *k))
                .filter(|(score, _)| *score > 0.8)
                .max_by(|a, b| a.0.total_cmp(&b.0));
            let hint = nearest.map(|(_, k)| format!(" (did you mean `{k}`?)")).unwrap_or_default();
            ctx.error(
                key.span().start,
                format!("unknown key `{}` in {}{hint}", crate::text::one_line(name), self.what),
            );
        }
    }
}

fn string_value(ctx: &mut Ctx, key: &str, value: &Spanned<DeValue>) -> Option<Text> {
    let offset = value.span().start;
    match value.get_ref() {
        DeValue::String(s) => {
            let clean = crate::text::sanitize(s);
            if clean.replaced {
                ctx.error(offset, format!("`{key}` contains control or bidi characters (shown replaced)"));
            }
            Some(Text { value: clean.text, offset })
        }
        _ => {
            ctx.fatal(offset, format!("`{key}` must be a string"));
            None
        }
    }
}
