//! The facet picker's state: the values of one kind with counts, narrowed by what is typed —
//! fuzzily (nucleo) over names and aliases, and through the one resolver (`crate::text::resolve`), so
//! a near spelling (`nccll`) finds its value as it does on the command line, with a note saying
//! what it was read as. A leading `-` excludes: the counts are then the cases that would remain.
//!
//! The counts are what applying each value would leave under the whole query — the sentence
//! typed (ranked: the real matches of the narrowed search), its inline filters and the applied
//! ones — exactly the total the search reports once it is applied. The search worker counts
//! them ([`ValueCounts`], asked for when the picker opens, off the keystroke path); until they
//! come for the query shown, the picker says so and shows no number.

use std::sync::Arc;

use nucleo::{
    Config, Matcher, Utf32Str,
    pattern::{AtomKind, CaseMatching, Normalization, Pattern},
};

use crate::text::resolve::Candidate;

use crate::corpus::Library;
use crate::search::leaves::Leaves;
use crate::taxonomy::FacetKind;
use crate::tui::{
    input::Input,
    keymap::Action,
    layout::{self},
    worker::ValueCounts,
};

use super::{App, Effect, Overlay, PICKER_HEADER_ROWS};

/// A value shown in the picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickerRow {
    /// The value's name.
    pub value: String,
    /// Cases the search would give with it applied (or, when the picker excludes, with it
    /// excluded); `None` while the counts for the query are on their way.
    pub count: Option<usize>,
    /// Characters of the name that matched the filter text.
    pub matched: Vec<usize>,
}

/// One value of the kind: its name, what applying it would leave (once counted), its aliases.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Value {
    name: String,
    leaves: Option<Leaves>,
    aliases: Vec<String>,
}

impl Value {
    /// Cases left with the value applied: the order of the rows (most first).
    fn with(&self) -> Option<usize> {
        self.leaves.map(|l| l.with)
    }
}

/// The facet picker: the values of one kind with counts, narrowed by fuzzy text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picker {
    /// The kind shown.
    pub kind: FacetKind,
    /// The filter text; a leading `-` applies the value as "must not have".
    pub filter: Input,
    /// Every value of the kind with its count, most first (by name until counted).
    values: Vec<Value>,
    /// What applying each value would leave under the query, once the worker has counted it.
    counts: Option<Arc<ValueCounts>>,
    /// The values the filter keeps, best first.
    pub rows: Vec<PickerRow>,
    /// What the filter text was read as (`read as 'NCCL' (the nearest spelling)`), when only the
    /// resolver found a value for it.
    pub note: Option<String>,
    /// The highlighted row.
    pub cursor: usize,
    /// The row shown first.
    pub top: usize,
}

impl Picker {
    /// The picker for `kind` over the values of `library`, with `counts` for the query when
    /// they are in (see [`Picker::set_counts`]).
    pub fn new(library: &Library, kind: FacetKind, counts: Option<Arc<ValueCounts>>) -> Picker {
        let values = library
            .taxonomy
            .values_of(kind)
            .map(|v| Value { name: v.name.clone(), leaves: None, aliases: v.aliases.clone() })
            .collect();
        let mut picker = Picker {
            kind,
            filter: Input::default(),
            values,
            counts: None,
            rows: Vec::new(),
            note: None,
            cursor: 0,
            top: 0,
        };
        picker.set_counts(counts);
        picker
    }

    /// What the picker counts by, for the next kind it shows.
    pub fn counts(&self) -> Option<Arc<ValueCounts>> {
        self.counts.clone()
    }

    /// Whether the counts shown are those of the query (not still on their way).
    pub fn counted(&self) -> bool {
        self.counts.is_some()
    }

    /// Take the counts for the query (`None`: not counted yet): the values are ordered by them
    /// again, and the highlighted value stays highlighted.
    pub fn set_counts(&mut self, counts: Option<Arc<ValueCounts>>) {
        let highlighted = self.rows.get(self.cursor).map(|r| r.value.clone());
        for value in &mut self.values {
            value.leaves = counts.as_ref().and_then(|c| c.get(self.kind, &value.name));
        }
        self.values.sort_by(|a, b| b.with().cmp(&a.with()).then_with(|| a.name.cmp(&b.name)));
        self.counts = counts;
        self.refilter();
        if let Some(i) = highlighted.and_then(|h| self.rows.iter().position(|r| r.value == h)) {
            self.cursor = i;
        }
    }

    /// Whether Enter applies the value as "must not have".
    pub fn negated(&self) -> bool {
        self.filter.text().starts_with('-')
    }

    /// The row for `value` with the count of cases that applying it would leave.
    fn row(&self, value: &Value, matched: Vec<usize>) -> PickerRow {
        let count = value.leaves.map(|l| if self.negated() { l.without } else { l.with });
        PickerRow { value: value.name.clone(), count, matched }
    }

    /// Narrow the rows to the filter text; call after it changes.
    pub fn refilter(&mut self) {
        let text = self.filter.text().trim_start_matches('-').trim().to_string();
        self.cursor = 0;
        self.top = 0;
        self.note = None;
        if text.is_empty() {
            self.rows = self.values.iter().map(|v| self.row(v, Vec::new())).collect();
            return;
        }
        let pattern = Pattern::new(&text, CaseMatching::Ignore, Normalization::Smart, AtomKind::Fuzzy);
        let mut matcher = Matcher::new(Config::DEFAULT);
        let mut buf = Vec::new();
        // (score, cases that have the value, row): ties go to the value more cases have, also
        // when the rows count what excluding it would leave.
        let mut scored: Vec<(u32, Option<usize>, PickerRow)> = Vec::new();
        for value in &self.values {
            let mut indices = Vec::new();
            let by_name = pattern.indices(Utf32Str::new(&value.name, &mut buf), &mut matcher, &mut indices);
            let by_alias = value
                .aliases
                .iter()
                .filter_map(|a| pattern.score(Utf32Str::new(a, &mut buf), &mut matcher))
                .max();
            let Some(score) = by_name.max(by_alias) else { continue };
            if by_name.is_none() {
                indices.clear();
            }
            indices.sort_unstable();
            indices.dedup();
            let matched = indices.into_iter().filter_map(|i| usize::try_from(i).ok()).collect();
            scored.push((score, value.with(), self.row(value, matched)));
        }
        scored.sort_by(|a, b| {
            b.0.cmp(&a.0).then_with(|| b.1.cmp(&a.1)).then_with(|| a.2.value.cmp(&b.2.value))
        });
        self.rows = scored.into_iter().map(|(_, _, r)| r).collect();
        self.add_resolved(&text);
    }

    /// The value the one resolver reads `text` as goes first when the fuzzy match missed it
    /// (`nccll` is no subsequence of `NCCL`), with a note saying so.
    fn add_resolved(&mut self, text: &str) {
        let candidates: Vec<Candidate<'_>> =
            self.values.iter().map(|v| Candidate { name: &v.name, aliases: &v.aliases }).collect();
        let Ok(found) = crate::text::resolve::resolve(text, &candidates) else { return };
        let value = &self.values[found.index];
        if self.rows.iter().any(|r| r.value == value.name) {
            return;
        }
        // The kind and the words typed are in view above: the note says only what they became.
        self.note =
            (!found.how.is_exact()).then(|| format!("read as '{}' ({})", value.name, found.how.reason()));
        let row = self.row(value, Vec::new());
        self.rows.insert(0, row);
    }
}

impl App {
    pub(super) fn picker_action(&mut self, action: Action) -> Vec<Effect> {
        let rows = self.picker_rows();
        let Some(Overlay::Picker(picker)) = &mut self.overlay else { return Vec::new() };
        self.dirty = true;
        let before = picker.filter.text().to_string();
        match action {
            Action::Back => {
                self.overlay = None;
                return Vec::new();
            }
            Action::Open => {
                let negated = picker.negated();
                let kind = picker.kind;
                let Some(row) = picker.rows.get(picker.cursor).cloned() else { return Vec::new() };
                self.overlay = None;
                return self.apply(kind, &row.value, negated);
            }
            Action::NextKind | Action::PrevKind => {
                let step = if action == Action::NextKind { 1 } else { -1 };
                let i =
                    (picker.kind.index() as isize + step).rem_euclid(FacetKind::ALL.len() as isize) as usize;
                let filter = picker.filter.clone();
                *picker = Picker::new(&self.library, FacetKind::ALL[i], picker.counts());
                picker.filter = filter;
                picker.refilter();
                self.picker_kind = picker.kind;
            }
            Action::Up => picker.cursor = picker.cursor.saturating_sub(1),
            Action::Down => picker.cursor += 1,
            Action::PageUp => picker.cursor = picker.cursor.saturating_sub(rows.max(1)),
            Action::PageDown => picker.cursor += rows.max(1),
            Action::Insert(c) => picker.filter.insert(c),
            Action::Backspace => {
                picker.filter.backspace();
            }
            Action::Delete => {
                picker.filter.delete();
            }
            Action::DeleteWord => {
                picker.filter.delete_word();
            }
            Action::DeleteToStart => {
                picker.filter.delete_to_start();
            }
            Action::DeleteToEnd => {
                picker.filter.delete_to_end();
            }
            Action::CursorLeft => picker.filter.left(),
            Action::CursorRight => picker.filter.right(),
            Action::CursorHome => picker.filter.home(),
            Action::CursorEnd => picker.filter.end(),
            _ => {}
        }
        if picker.filter.text() != before {
            picker.refilter();
        }
        self.keep_picker_cursor()
    }

    /// Rows of values the picker shows at the current size.
    pub fn picker_rows(&self) -> usize {
        let area = layout::picker_area(ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1));
        usize::from(layout::inner(area).height).saturating_sub(PICKER_HEADER_ROWS)
    }

    pub(super) fn keep_picker_cursor(&mut self) -> Vec<Effect> {
        let rows = self.picker_rows().max(1);
        if let Some(Overlay::Picker(picker)) = &mut self.overlay {
            picker.cursor = picker.cursor.min(picker.rows.len().saturating_sub(1));
            if picker.cursor < picker.top {
                picker.top = picker.cursor;
            } else if picker.cursor >= picker.top + rows {
                picker.top = picker.cursor + 1 - rows;
            }
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excluding_keeps_the_order_of_including_and_counts_what_is_left() {
        let library = Arc::new(Library::bundled());
        let engine = crate::search::Engine::new(library.clone()).unwrap();
        let filters = crate::corpus::filter::Filters::default();
        let counts = ValueCounts::new(engine.facet_leaves(&crate::search::Request::new("", &filters)));
        let mut picker = Picker::new(&library, FacetKind::Component, Some(Arc::new(counts)));
        picker.filter = Input::new("gpu");
        picker.refilter();
        let including: Vec<(String, Option<usize>)> =
            picker.rows.iter().map(|r| (r.value.clone(), r.count)).collect();
        assert_eq!(including.first().map(|(v, _)| v.as_str()), Some("GPU"), "{including:?}");
        picker.filter = Input::new("-gpu");
        picker.refilter();
        let excluding: Vec<(String, Option<usize>)> =
            picker.rows.iter().map(|r| (r.value.clone(), r.count)).collect();
        let total = library.cases.len();
        let expected: Vec<(String, Option<usize>)> =
            including.iter().map(|(v, n)| (v.clone(), n.map(|n| total - n))).collect();
        assert_eq!(excluding, expected, "the same rows, each with the cases that lack it");
    }

    #[test]
    fn until_counted_no_row_has_a_number_and_counts_keep_the_highlight() {
        let library = Arc::new(Library::bundled());
        let mut picker = Picker::new(&library, FacetKind::Component, None);
        assert!(!picker.counted());
        assert!(!picker.rows.is_empty() && picker.rows.iter().all(|r| r.count.is_none()));
        picker.cursor = 3;
        let highlighted = picker.rows[3].value.clone();
        let engine = crate::search::Engine::new(library.clone()).unwrap();
        let filters = crate::corpus::filter::Filters::default();
        let counts = ValueCounts::new(engine.facet_leaves(&crate::search::Request::new("", &filters)));
        picker.set_counts(Some(Arc::new(counts)));
        assert!(picker.counted() && picker.rows.iter().all(|r| r.count.is_some()));
        assert_eq!(picker.rows[picker.cursor].value, highlighted, "the same value stays highlighted");
        let counts: Vec<usize> = picker.rows.iter().filter_map(|r| r.count).collect();
        assert!(counts.windows(2).all(|w| w[0] >= w[1]), "most first once counted: {counts:?}");
    }
}
