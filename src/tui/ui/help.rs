//! The help overlay: every key, grouped by where it works (from `keymap::HELP`), descriptions
//! wrapped to the box.

use ratatui::{buffer::Buffer, layout::Rect, widgets::Widget};
use unicode_width::UnicodeWidthStr;

use super::{clear, pane, put};
use crate::{
    settings::theme::Role,
    tui::{
        help::{HelpLine, KEY_WIDTH, box_area, lines},
        style::Styles,
    },
};

/// The help overlay widget.
pub struct HelpOverlay<'a> {
    /// The first line shown.
    pub scroll: usize,
    /// The theme.
    pub styles: &'a Styles,
}

impl Widget for HelpOverlay<'_> {
    fn render(self, screen: Rect, buf: &mut Buffer) {
        let screen = screen.intersection(buf.area);
        let s = self.styles;
        let area = box_area(screen);
        clear(area, buf);
        let inner_width = usize::from(area.width.saturating_sub(2));
        let lines = lines(inner_width);
        let more = lines.len() > usize::from(area.height.saturating_sub(2));
        let hint = if more { "j k scroll · Esc close" } else { "Esc close" };
        let block = pane("Keys", hint, true, s, area.width);
        let inner = block.inner(area);
        block.render(area, buf);
        let key_w = KEY_WIDTH.min(inner_width / 2);
        for (row, line) in lines.iter().skip(self.scroll).take(usize::from(inner.height)).enumerate() {
            let y = inner.y + row as u16;
            let spans = match line {
                HelpLine::Group(g) => vec![(g.to_string(), s.get(Role::Accent))],
                HelpLine::Key(k, what) => {
                    let pad = " ".repeat(key_w.saturating_sub(k.width()));
                    vec![(format!("  {k}{pad}"), s.get(Role::Key)), (what.clone(), s.get(Role::Text))]
                }
                HelpLine::Blank => continue,
            };
            put(buf, inner.x, y, inner.width, &spans);
        }
    }
}
