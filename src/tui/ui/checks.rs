//! The checks overlay (`D`): what the node audit found on this machine for the cases the list
//! shows, each check with its result and the listed cases it cites.

use ratatui::{buffer::Buffer, layout::Rect, widgets::Widget};

use super::{clear, pane, put};
use crate::{
    settings::theme::Role,
    tui::{layout, style::Styles},
};

/// The checks overlay widget.
pub struct ChecksOverlay<'a> {
    /// The lines (from `App::checks_lines`).
    pub lines: &'a [String],
    /// The first line shown.
    pub scroll: usize,
    /// The theme.
    pub styles: &'a Styles,
}

impl Widget for ChecksOverlay<'_> {
    fn render(self, screen: Rect, buf: &mut Buffer) {
        let screen = screen.intersection(buf.area);
        let s = self.styles;
        let height = (self.lines.len() as u16).saturating_add(2).min(screen.height.saturating_sub(2)).max(3);
        let area = layout::centered(screen, screen.width.saturating_sub(4).min(100), height);
        clear(area, buf);
        let more = self.lines.len() > usize::from(area.height.saturating_sub(2));
        let hint = if more { "j k scroll · Esc close" } else { "Esc close" };
        let block = pane("On this node", hint, true, s, area.width);
        let inner = block.inner(area);
        block.render(area, buf);
        for (row, line) in self.lines.iter().skip(self.scroll).take(usize::from(inner.height)).enumerate() {
            let role = if line.starts_with("CRIT") || line.starts_with("WARN") {
                Role::Error
            } else if line.starts_with(' ') || line.is_empty() {
                Role::Muted
            } else {
                Role::Text
            };
            let text = crate::text::columns::truncate(line, usize::from(inner.width));
            put(buf, inner.x, inner.y + row as u16, inner.width, &[(text, s.get(role))]);
        }
    }
}
