//! The two filters rows drawn: applied filters as chips with "Clear all", and the suggested
//! filters with their counts (or the query's error), as [`App::place_filters_row`] places them.

use ratatui::{buffer::Buffer, layout::Rect, style::Style, widgets::Widget};

use super::put;
use crate::{
    settings::theme::Role,
    tui::{
        app::{App, Focus},
        layout::FilterRow as Row,
        style::Styles,
    },
};

/// A filters row widget.
pub struct FiltersRow<'a> {
    /// The state drawn.
    pub app: &'a App,
    /// The theme.
    pub styles: &'a Styles,
    /// Which row.
    pub row: Row,
}

impl Widget for FiltersRow<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let area = area.intersection(buf.area);
        if area.is_empty() {
            return;
        }
        let focused = self.app.focus == Focus::Filters && self.app.overlay.is_none();
        for p in self.app.place_filters_row(self.row, area.width) {
            let over: Option<Style> = p.highlighted.then(|| {
                self.styles.get(if focused || self.row == Row::Applied {
                    Role::Selection
                } else {
                    Role::SelectionInactive
                })
            });
            let spans: Vec<(String, Style)> = p
                .spans
                .iter()
                .map(|(t, r)| {
                    let base = self.styles.get(*r);
                    (t.clone(), over.map_or(base, |o| base.patch(o)))
                })
                .collect();
            let x = area.x.saturating_add(p.x);
            put(buf, x, area.y, area.right().saturating_sub(x), &spans);
        }
    }
}
