//! The help overlay: every key, grouped by where it works (from `keymap::HELP`).

use ratatui::{
    buffer::Buffer,
    layout::Rect,
    widgets::{Clear, Widget},
};
use unicode_width::UnicodeWidthStr;

use super::{pane, put};
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
    Key(&'static str, &'static str),
    Blank,
}

fn lines() -> Vec<HelpLine> {
    let mut out = Vec::new();
    for (i, (group, keys)) in HELP.iter().enumerate() {
        if i > 0 {
            out.push(HelpLine::Blank);
        }
        out.push(HelpLine::Group(group));
        out.extend(keys.iter().map(|(k, what)| HelpLine::Key(k, what)));
    }
    out
}

/// How many lines the help has.
pub fn line_count() -> usize {
    lines().len()
}

const KEY_WIDTH: usize = 24;

impl Widget for HelpOverlay<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let area = area.intersection(buf.area);
        let s = self.styles;
        let lines = lines();
        let widest = HELP.iter().flat_map(|(_, k)| k.iter()).map(|(_, w)| w.width()).max().unwrap_or(0);
        let box_area = layout::centered(area, (KEY_WIDTH + widest + 4) as u16, lines.len() as u16 + 2);
        Clear.render(box_area, buf);
        let more = lines.len() > usize::from(box_area.height.saturating_sub(2));
        let hint = if more { "j k scroll · Esc close" } else { "Esc close" };
        let block = pane("Keys", hint, true, s, box_area.width);
        let inner = block.inner(box_area);
        block.render(box_area, buf);
        let key_w = KEY_WIDTH.min(usize::from(inner.width) / 2);
        for (row, line) in lines.iter().skip(self.scroll).take(usize::from(inner.height)).enumerate() {
            let y = inner.y + row as u16;
            let spans = match line {
                HelpLine::Group(g) => vec![(g.to_string(), s.get(Role::Accent))],
                HelpLine::Key(k, what) => {
                    let key = crate::commands::truncate(k, key_w.saturating_sub(1));
                    let pad = " ".repeat(key_w.saturating_sub(key.width()));
                    vec![(format!("  {key}{pad}"), s.get(Role::Key)), (what.to_string(), s.get(Role::Text))]
                }
                HelpLine::Blank => continue,
            };
            put(buf, inner.x, y, inner.width, &spans);
        }
    }
}
