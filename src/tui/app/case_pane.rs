//! The case pane's side of [`App`]: opening a case, keeping the pane in step with the selection
//! (held while someone types), the highlighted facet value or source, and applying it.

use crate::corpus::model::PartialDate;
use crate::tui::doc::{self, CaseDoc};

use super::{App, BREAKDOWN_HEADER_ROWS, CaseView, Effect, FilterItem, Focus, Note, RightPane};

impl App {
    pub(super) fn open(&mut self) -> Vec<Effect> {
        match self.focus {
            Focus::Search => self.focus = Focus::Results,
            Focus::Results => {
                self.right = RightPane::Case;
                self.focus = Focus::Detail;
            }
            Focus::Filters => match self.filter_items().get(self.filter_cursor) {
                Some(FilterItem::Suggestion(i)) => return self.apply_suggestion_at(*i, false),
                Some(FilterItem::Chip(_) | FilterItem::ClearAll) => return self.remove(),
                None => {}
            },
            Focus::Detail => return self.apply_detail(false),
        }
        Vec::new()
    }

    /// Follow the selection (a new case starts at its top) and the pane's width.
    pub(super) fn sync_case_view(&mut self) {
        let case = self.shown_index();
        if self.held && self.case_view.case.is_some() && case != self.case_view.case {
            // Typing: the pane keeps its case until the pause (see `App::case_held`).
            return;
        }
        let width = self.layout().map_or(0, |l| l.right_inner().width);
        if case != self.case_view.case {
            let related = case.map(|i| self.related_cases(i)).unwrap_or_default();
            self.case_view = CaseView { case, width: 0, related, ..CaseView::default() };
        }
        if self.case_view.width != width || (self.case_view.doc.is_none() && case.is_some()) {
            self.case_view.doc = self.shown_case().map(|c| {
                doc::build_with_checks(c, &self.case_view.related, &self.checks_for_case(&c.id), width)
            });
            self.case_view.width = width;
            let highlight = self.case_view.highlight;
            if highlight.is_some_and(|h| {
                self.case_view.doc.as_ref().is_none_or(|d| !d.items().iter().any(|(item, _)| *item == h))
            }) {
                self.case_view.highlight = None;
            }
        }
        self.sync_graph_view();
    }

    /// Keep the right pane's scroll and cursor inside what it shows.
    pub(super) fn clamp_detail(&mut self) {
        let height = self.layout().map_or(1, |l| usize::from(l.right_inner().height));
        self.sync_case_view();
        let lines = self.case_doc().map_or(0, |d| d.lines.len());
        self.case_view.scroll = self.case_view.scroll.min(lines.saturating_sub(height));
        let bars = self.results.breakdown.of(self.breakdown.dimension).len();
        let rows = height.saturating_sub(BREAKDOWN_HEADER_ROWS).max(1);
        let b = &mut self.breakdown;
        b.cursor = b.cursor.min(bars.saturating_sub(1));
        if b.cursor < b.top {
            b.top = b.cursor;
        } else if b.cursor >= b.top + rows {
            b.top = b.cursor + 1 - rows;
        }
    }

    pub(super) fn apply_detail(&mut self, negated: bool) -> Vec<Effect> {
        match self.right {
            RightPane::Graph => self.apply_node(negated),
            RightPane::Case => {
                let chosen = self.case_view.facet().and_then(|i| self.case_doc()?.facets.get(i)).cloned();
                match chosen {
                    Some(f) => self.apply(f.kind, &f.value, negated),
                    None => {
                        self.note = Some(Note {
                            text: "← → highlight a facet value; Enter applies it".into(),
                            error: false,
                        });
                        Vec::new()
                    }
                }
            }
            RightPane::Breakdown => {
                let dimension = self.breakdown.dimension;
                let Some((value, _)) =
                    self.results.breakdown.of(dimension).get(self.breakdown.cursor).cloned()
                else {
                    return Vec::new();
                };
                match dimension.kind() {
                    Some(kind) => self.apply(kind, &value, negated),
                    None if negated => {
                        self.note = Some(Note { text: "a year cannot be excluded".into(), error: true });
                        Vec::new()
                    }
                    None => match value.parse::<PartialDate>() {
                        Ok(year) => {
                            self.filters.after = Some(year);
                            self.filters.before = Some(year);
                            self.note = Some(Note { text: format!("applied Year: {value}"), error: false });
                            self.query_changed()
                        }
                        Err(_) => {
                            self.note =
                                Some(Note { text: format!("cannot filter by '{value}'"), error: true });
                            Vec::new()
                        }
                    },
                }
            }
        }
    }

    /// Whether the case list and the right pane are holding on to what they showed while keys
    /// are typed into the search box: both wait for [`App::typing_paused`]. The list and the
    /// case pane are most of the screen and change wholesale when the ranking does; someone
    /// typing fast does not read the rankings of half-typed words, and the pause
    /// ([`crate::tui::TYPING_PAUSE`]) comes as soon as they stop to look. The search box, the
    /// suggested filters and the status line follow every key.
    pub fn case_held(&self) -> bool {
        self.held
    }

    /// The case pane's document for the selected case at the pane's width.
    pub fn case_doc(&self) -> Option<&CaseDoc> {
        self.case_view.doc.as_ref()
    }
}
