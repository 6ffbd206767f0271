//! The search box: what was typed, scrolled so the cursor stays visible, with a hint when empty.

use ratatui::{
    buffer::Buffer,
    layout::{Position, Rect},
    widgets::Widget,
};

use super::{pane, put};
use crate::{
    settings::theme::Role,
    tui::{
        app::{App, Focus},
        style::Styles,
    },
};

/// The search box widget.
pub struct SearchBox<'a> {
    /// The state drawn.
    pub app: &'a App,
    /// The theme.
    pub styles: &'a Styles,
    /// Whether the box has a border (tall enough terminals).
    pub bordered: bool,
}

const PROMPT: &str = "› ";
const HINT: &str = "type what you see (\"job hung at the end of the epoch\") or paste a log line";

impl SearchBox<'_> {
    /// Where the text goes inside `area`.
    fn text_area(&self, area: Rect) -> Rect {
        let inner = if self.bordered { crate::tui::layout::inner(area) } else { area };
        let prompt = PROMPT.chars().count() as u16;
        Rect::new(
            inner.x.saturating_add(prompt),
            inner.y,
            inner.width.saturating_sub(prompt),
            inner.height.min(1),
        )
    }

    /// Where the terminal cursor goes when the box has the focus.
    pub fn cursor(&self, area: Rect) -> Option<Position> {
        let text = self.text_area(area);
        if text.width == 0 || text.height == 0 {
            return None;
        }
        let (_, x) = self.app.input.window(usize::from(text.width));
        Some(Position::new(text.x + (x as u16).min(text.width - 1), text.y))
    }
}

impl Widget for &SearchBox<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let area = area.intersection(buf.area);
        let focused = self.app.focus == Focus::Search && self.app.overlay.is_none();
        let s = self.styles;
        let inner = if self.bordered {
            let block = pane("Search", "/ to search · F1 help", focused, s, area.width);
            let inner = block.inner(area);
            block.render(area, buf);
            inner
        } else {
            area
        };
        if inner.is_empty() {
            return;
        }
        let prompt_role = if focused { Role::Key } else { Role::Muted };
        put(buf, inner.x, inner.y, inner.width, &[(PROMPT.to_string(), s.get(prompt_role))]);
        let text = self.text_area(area);
        if self.app.input.is_empty() {
            put(buf, text.x, text.y, text.width, &[(HINT.to_string(), s.get(Role::Muted))]);
        } else {
            let (shown, _) = self.app.input.window(usize::from(text.width));
            put(buf, text.x, text.y, text.width, &[(shown, s.get(Role::Input))]);
        }
    }
}
