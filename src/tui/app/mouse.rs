//! Mouse events, with `--mouse`: clicks on the list, the filters rows and the graph, and the
//! wheel.

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

use crate::tui::{
    keymap::Action,
    layout::{self},
};

use super::{App, Effect, Focus, Overlay, RightPane, add};

impl App {
    pub(super) fn mouse_event(&mut self, event: MouseEvent) -> Vec<Effect> {
        let Some(l) = self.layout() else { return Vec::new() };
        let at = ratatui::layout::Position::new(event.column, event.row);
        let wheel = match event.kind {
            MouseEventKind::ScrollUp => -3,
            MouseEventKind::ScrollDown => 3,
            MouseEventKind::Down(MouseButton::Left) => 0,
            _ => return Vec::new(),
        };
        self.dirty = true;
        if let Some(overlay) = &self.overlay {
            return match (overlay, wheel) {
                (Overlay::Help(_) | Overlay::Checks(_), 0) => Vec::new(),
                (Overlay::Help(_) | Overlay::Checks(_), w) => {
                    self.help_action(if w < 0 { Action::Up } else { Action::Down })
                }
                (Overlay::Preflight(_), 0) => Vec::new(),
                (Overlay::Preflight(_), w) => {
                    self.preflight_action(if w < 0 { Action::Up } else { Action::Down })
                }
                (Overlay::Picker(_), 0) => Vec::new(),
                (Overlay::Picker(_), w) => self.picker_action(if w < 0 { Action::Up } else { Action::Down }),
                (Overlay::Export(_), _) => Vec::new(),
            };
        }
        let narrow_detail = (l.narrow && self.focus == Focus::Detail) || self.graph_alone();
        if l.list.contains(at) && !narrow_detail {
            if wheel != 0 {
                return self.scroll_list(wheel);
            }
            self.focus = Focus::Results;
            let row = usize::from(at.y.saturating_sub(l.list.y + 1)) / l.list_item_height();
            if at.y > l.list.y && row < l.list_items() {
                self.pending_resume = None;
                self.list.selected = (self.list.top + row).min(self.results.total.saturating_sub(1));
            }
            return self.scroll_list(0);
        }
        if l.right.contains(at) || (self.graph_alone() && l.list.contains(at)) {
            if wheel == 0 {
                self.focus = Focus::Detail;
                if self.right == RightPane::Graph {
                    self.click_node(at.x, at.y);
                }
                return Vec::new();
            }
            match self.right {
                RightPane::Case => self.case_view.scroll = add(self.case_view.scroll, wheel),
                RightPane::Breakdown => self.breakdown.cursor = add(self.breakdown.cursor, wheel),
                RightPane::Graph => {}
            }
            self.clamp_detail();
            return Vec::new();
        }
        if l.search.contains(at) && wheel == 0 {
            self.focus = Focus::Search;
        } else if (l.chips.contains(at) || l.suggestions.contains(at)) && wheel == 0 {
            let row =
                if l.chips.contains(at) { layout::FilterRow::Applied } else { layout::FilterRow::Suggested };
            if let Some(item) = self.filter_item_at(row, l.chips.width, at.x) {
                self.focus = Focus::Filters;
                self.filter_cursor = self.filter_items().iter().position(|i| *i == item).unwrap_or(0);
            }
        }
        Vec::new()
    }
}
