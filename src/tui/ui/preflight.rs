//! The preflight view (`incidex FILE...`, `P`): the findings of the job specs the UI was opened
//! on, one per line, the selected one highlighted.

use ratatui::{buffer::Buffer, layout::Rect, widgets::Widget};

use super::{clear, pane, put};
use crate::{
    settings::theme::Role,
    tui::{layout, style::Styles},
};

/// The preflight view.
pub struct PreflightOverlay<'a> {
    /// The lines (from `App::preflight_lines`): a header, then one per item.
    pub lines: &'a [String],
    /// The selected item (line `selected + 1`).
    pub selected: usize,
    /// The theme.
    pub styles: &'a Styles,
}

impl Widget for PreflightOverlay<'_> {
    fn render(self, screen: Rect, buf: &mut Buffer) {
        let screen = screen.intersection(buf.area);
        let s = self.styles;
        let height = (self.lines.len() as u16).saturating_add(2).min(screen.height.saturating_sub(2)).max(3);
        let area = layout::centered(screen, screen.width.saturating_sub(4).min(120), height);
        clear(area, buf);
        let block = pane("Job specs: preflight", "j k move · Enter cases · Esc close", true, s, area.width);
        let inner = block.inner(area);
        block.render(area, buf);
        let Some((header, items)) = self.lines.split_first() else { return };
        put(
            buf,
            inner.x,
            inner.y,
            inner.width,
            &[(crate::text::columns::truncate(header, usize::from(inner.width)), s.get(Role::Muted))],
        );
        let rows = usize::from(inner.height.saturating_sub(1));
        // Keep the selected line in view.
        let first = self.selected.saturating_sub(rows.saturating_sub(1));
        for (row, (i, line)) in items.iter().enumerate().skip(first).take(rows).enumerate() {
            let role = if i == self.selected {
                Role::Selection
            } else if line.starts_with("CRIT") || line.starts_with("WARN") || line.starts_with("FILE") {
                Role::Error
            } else {
                Role::Text
            };
            // A marker as well as the colour, so the selection shows under NO_COLOR too.
            let marker = if i == self.selected { "> " } else { "  " };
            let text = crate::text::columns::truncate(&format!("{marker}{line}"), usize::from(inner.width));
            put(buf, inner.x, inner.y + 1 + row as u16, inner.width, &[(text, s.get(role))]);
        }
    }
}
