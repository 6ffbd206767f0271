//! The filters' side of [`App`]: the applied chips and the suggestions, and applying, negating
//! and removing them.

use crate::corpus::filter::{FacetFilter, Filters};
use crate::taxonomy::FacetKind;

use super::{App, Chip, Effect, FilterItem, Focus, Note};

impl App {
    pub(super) fn negate(&mut self) -> Vec<Effect> {
        match (self.focus, self.filter_items().get(self.filter_cursor)) {
            (Focus::Filters, Some(FilterItem::Chip(Chip::Facet(i)))) => {
                let Some(f) = self.filters.facets.get_mut(*i) else { return Vec::new() };
                f.negated = !f.negated;
                self.query_changed()
            }
            (Focus::Filters, Some(FilterItem::Suggestion(i))) => self.apply_suggestion_at(*i, true),
            (Focus::Detail, _) => self.apply_detail(true),
            _ => self.apply_suggestion(true),
        }
    }

    pub(super) fn remove(&mut self) -> Vec<Effect> {
        if self.focus != Focus::Filters {
            return Vec::new();
        }
        match self.filter_items().get(self.filter_cursor) {
            Some(FilterItem::Chip(chip)) => {
                match *chip {
                    Chip::Facet(i) if i < self.filters.facets.len() => {
                        self.filters.facets.remove(i);
                    }
                    Chip::Org(i) if i < self.filters.organizations.len() => {
                        self.filters.organizations.remove(i);
                    }
                    Chip::Year(_) => {
                        self.filters.after = None;
                        self.filters.before = None;
                    }
                    Chip::After => self.filters.after = None,
                    Chip::Before => self.filters.before = None,
                    _ => {}
                }
                self.note = Some(Note { text: "filter removed".into(), error: false });
            }
            Some(FilterItem::ClearAll) => {
                self.filters = Filters::default();
                self.note = Some(Note { text: "all filters cleared".into(), error: false });
            }
            _ => return Vec::new(),
        }
        // Focus stays in the filters rows even when they are empty now: moving it to the
        // search box would turn the next `/` or `q` into text.
        let n = self.filter_items().len();
        self.filter_cursor = self.filter_cursor.min(n.saturating_sub(1));
        self.query_changed()
    }

    pub(super) fn apply_suggestion(&mut self, negated: bool) -> Vec<Effect> {
        match self.highlighted_suggestion() {
            Some(i) => self.apply_suggestion_at(i, negated),
            None => {
                self.note = Some(Note {
                    text: "no suggested filter to apply; type what you see".into(),
                    error: false,
                });
                Vec::new()
            }
        }
    }

    pub(super) fn apply_suggestion_at(&mut self, i: usize, negated: bool) -> Vec<Effect> {
        let Some(s) = self.results.suggestions.get(i).cloned() else { return Vec::new() };
        self.results.suggestions.remove(i);
        let effects = self.apply(s.kind, &s.value, negated);
        // Say what the suggestion rested on, so it can be judged (and taken back with x).
        if let Some(note) = &mut self.note {
            note.text.push_str(&format!(" (suggested by {})", s.basis));
        }
        effects
    }

    pub(super) fn apply(&mut self, kind: FacetKind, value: &str, negated: bool) -> Vec<Effect> {
        self.filters.set_facet(FacetFilter { kind, value: value.to_string(), negated });
        let verb = if negated { "excluding" } else { "applied" };
        self.note = Some(Note { text: format!("{verb} {}: {value}", kind.label()), error: false });
        self.dirty = true;
        self.query_changed()
    }

    /// The applied filters as chips.
    pub fn chips(&self) -> Vec<Chip> {
        let mut chips: Vec<Chip> = (0..self.filters.facets.len()).map(Chip::Facet).collect();
        chips.extend((0..self.filters.organizations.len()).map(Chip::Org));
        match (self.filters.after, self.filters.before) {
            (Some(a), Some(b)) if a == b && a.month.is_none() => chips.push(Chip::Year(a.year)),
            (after, before) => {
                chips.extend(after.map(|_| Chip::After));
                chips.extend(before.map(|_| Chip::Before));
            }
        }
        chips
    }

    /// A chip's label and whether it excludes.
    pub fn chip_label(&self, chip: Chip) -> (String, bool) {
        match chip {
            Chip::Facet(i) => self
                .filters
                .facets
                .get(i)
                .map(|f| (format!("{}: {}", f.kind.label(), f.value), f.negated))
                .unwrap_or_default(),
            Chip::Org(i) => (
                format!("Organization: {}", self.filters.organizations.get(i).cloned().unwrap_or_default()),
                false,
            ),
            Chip::Year(y) => (format!("Year: {y}"), false),
            Chip::After => {
                (format!("After: {}", self.filters.after.map(|d| d.to_string()).unwrap_or_default()), false)
            }
            Chip::Before => {
                (format!("Before: {}", self.filters.before.map(|d| d.to_string()).unwrap_or_default()), false)
            }
        }
    }

    /// The items of the filters rows, in cursor order: chips, "Clear all", suggestions.
    pub fn filter_items(&self) -> Vec<FilterItem> {
        let chips = self.chips();
        let mut items: Vec<FilterItem> = chips.iter().map(|c| FilterItem::Chip(*c)).collect();
        if !chips.is_empty() {
            items.push(FilterItem::ClearAll);
        }
        items.extend((0..self.results.suggestions.len()).map(FilterItem::Suggestion));
        items
    }

    /// The suggestion that `+` and Alt-Enter apply.
    pub fn highlighted_suggestion(&self) -> Option<usize> {
        match self.filter_items().get(self.filter_cursor) {
            Some(FilterItem::Suggestion(i)) => Some(*i),
            _ => (!self.results.suggestions.is_empty()).then_some(0),
        }
    }
}
