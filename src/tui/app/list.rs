//! The case list's side of [`App`]: moving the selection and the highlight, pages and scrolling,
//! and asking the worker for the page beyond the loaded window.

use std::sync::Arc;

use crate::tui::worker::Dimension;

use super::{App, Effect, Focus, ListView, PAGE, Results, RightPane, add};

impl App {
    pub(super) fn page(&self) -> usize {
        let rows = self.layout().map_or(1, |l| match self.focus {
            Focus::Detail => usize::from(l.right_inner().height),
            _ => l.list_items(),
        });
        rows.saturating_sub(1).max(1)
    }

    pub(super) fn vertical(&mut self, step: isize) -> Vec<Effect> {
        match self.focus {
            Focus::Search | Focus::Filters if step > 0 && step.unsigned_abs() == 1 => {
                self.focus = Focus::Results;
                Vec::new()
            }
            Focus::Filters if step < 0 && step.unsigned_abs() == 1 => {
                self.focus = Focus::Search;
                Vec::new()
            }
            Focus::Search | Focus::Filters | Focus::Results => self.move_selection(step),
            Focus::Detail => {
                match self.right {
                    RightPane::Case => {
                        self.case_view.scroll = add(self.case_view.scroll, step);
                        self.case_view.highlight = None;
                    }
                    RightPane::Breakdown => self.breakdown.cursor = add(self.breakdown.cursor, step),
                    // The graph pane takes its own keys (`app/walk.rs`).
                    RightPane::Graph => {}
                }
                self.clamp_detail();
                Vec::new()
            }
        }
    }

    pub(super) fn horizontal(&mut self, step: isize) {
        match self.focus {
            Focus::Filters => {
                let n = self.filter_items().len();
                self.filter_cursor = add(self.filter_cursor, step).min(n.saturating_sub(1));
            }
            Focus::Results if step > 0 => self.focus = Focus::Detail,
            Focus::Search | Focus::Results => {}
            Focus::Detail => match self.right {
                RightPane::Case => self.move_highlight(step),
                RightPane::Breakdown => {
                    let i = self.breakdown.dimension.index() as isize + step;
                    self.breakdown.dimension =
                        Dimension::ALL[i.rem_euclid(Dimension::ALL.len() as isize) as usize];
                    self.breakdown.cursor = 0;
                    self.breakdown.top = 0;
                }
                RightPane::Graph => {}
            },
        }
    }

    /// Move the case pane's highlight over its facet values and then its source addresses.
    pub(super) fn move_highlight(&mut self, step: isize) {
        let height = self.layout().map_or(1, |l| usize::from(l.right_inner().height));
        let view = &mut self.case_view;
        let Some(doc) = view.doc.as_ref() else { return };
        let items = doc.items();
        let Some(last) = items.len().checked_sub(1) else { return };
        let next = match view.highlight.and_then(|h| items.iter().position(|(item, _)| *item == h)) {
            Some(i) => add(i, step).min(last),
            // The first press picks the first item in view (or the first after it).
            None => items.iter().position(|(_, line)| *line >= view.scroll).unwrap_or(last),
        };
        let (item, line) = items[next];
        // A wrapped address is shown whole: its last line comes into view too.
        let end = match item {
            crate::tui::doc::Item::Source(i) => {
                doc.sources.get(i).map_or(line, |s| line + s.lines.max(1) - 1)
            }
            crate::tui::doc::Item::Facet(_) => line,
        };
        view.highlight = Some(item);
        if end >= view.scroll + height {
            view.scroll = end + 1 - height;
        }
        view.scroll = view.scroll.min(line);
    }

    /// Move the list selection by `step` (clamped) and keep it in view.
    pub(super) fn move_selection(&mut self, step: isize) -> Vec<Effect> {
        if self.results.total == 0 {
            return Vec::new();
        }
        self.opened = None;
        self.pending_resume = None;
        self.list.selected = add(self.list.selected, step).min(self.results.total - 1);
        self.scroll_list(0)
    }

    /// Scroll the list by `step` rows, keep the selection in view, ask for the page the rows
    /// shown need, and reset the case pane when the selected case changed.
    pub(super) fn scroll_list(&mut self, step: isize) -> Vec<Effect> {
        let rows = self.layout().map_or(1, |l| l.list_items()).max(1);
        let total = self.results.total;
        self.list.selected = self.list.selected.min(total.saturating_sub(1));
        self.list.top = add(self.list.top, step).min(total.saturating_sub(rows));
        if self.list.selected < self.list.top {
            self.list.top = self.list.selected;
        } else if self.list.selected >= self.list.top + rows {
            self.list.top = self.list.selected + 1 - rows;
        }
        if step != 0 {
            // Wheel scrolling moves the view; the selection follows it into view.
            self.list.selected = self
                .list
                .selected
                .clamp(self.list.top, (self.list.top + rows - 1).min(total.saturating_sub(1)));
        }
        self.sync_case_view();
        self.request_page(rows)
    }

    pub(super) fn request_page(&mut self, rows: usize) -> Vec<Effect> {
        let total = self.results.total;
        if total == 0 || !self.results.loaded {
            return Vec::new();
        }
        let first = self.list.top.min(self.list.selected);
        let last = (self.list.top + rows).max(self.list.selected + 1).min(total);
        let loaded = self.results.offset..self.results.offset + self.results.hits.len();
        let wanted = self.wanted_offset..self.wanted_offset + PAGE;
        if (loaded.contains(&first) && last <= loaded.end) || (wanted.contains(&first) && last <= wanted.end)
        {
            return Vec::new();
        }
        self.wanted_offset = first.saturating_sub(PAGE / 4);
        vec![Effect::Search(self.request())]
    }

    /// What the case list draws: the results and the selection as they were when typing began
    /// while it is held (see [`App::case_held`]), else the newest.
    pub fn list_shown(&self) -> (&Results, &ListView) {
        match &self.held_list {
            Some(held) if self.held && Arc::ptr_eq(&held.library, &self.library) => {
                (&held.results, &held.list)
            }
            _ => (&self.results, &self.list),
        }
    }
}
