//! The help overlay: every key, grouped by where it works (from `keymap::HELP`), descriptions
//! wrapped to the box.

use ratatui::{buffer::Buffer, layout::Rect, widgets::Widget};
use unicode_width::UnicodeWidthStr;

use super::{clear, pane, put};
use crate::{
    theme::Role,
    tui::{keymap::HELP, layout, style::Styles},
};

/// The help overlay widget.
pub struct HelpOverlay<'a> {
    /// The first line shown.
    pub scroll: usize,
    /// The theme.
    pub styles: &'a Styles,
}

enum HelpLine {
    Group(&'static str),
    Key(String, String),
    Blank,
}

/// Width of the key column.
const KEY_WIDTH: usize = 24;

fn box_area(screen: Rect) -> Rect {
    let widest = HELP.iter().flat_map(|(_, k)| k.iter()).map(|(_, w)| w.width()).max().unwrap_or(0);
    let lines = lines(usize::from(screen.width.saturating_sub(2))).len();
    layout::centered(screen, (KEY_WIDTH + widest + 4) as u16, lines as u16 + 2)
}

fn lines(width: usize) -> Vec<HelpLine> {
    let key_w = KEY_WIDTH.min(width / 2);
    let text_w = width.saturating_sub(key_w + 2).max(8);
    let mut out = Vec::new();
    for (i, (group, keys)) in HELP.iter().enumerate() {
        if i > 0 {
            out.push(HelpLine::Blank);
        }
        out.push(HelpLine::Group(group));
        for (k, what) in keys.iter() {
            let key = crate::columns::truncate(k, key_w.saturating_sub(1));
            for (j, part) in textwrap::wrap(what, text_w).into_iter().enumerate() {
                out.push(HelpLine::Key(if j == 0 { key.clone() } else { String::new() }, part.into_owned()));
            }
        }
    }
    out
}

/// How many lines the help has on a `screen`, and how many of them fit at once.
pub fn extent(screen: Rect) -> (usize, usize) {
    let area = box_area(screen);
    (lines(usize::from(area.width.saturating_sub(2))).len(), usize::from(area.height.saturating_sub(2)))
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
