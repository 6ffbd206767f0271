//! The help's content and box: every key, grouped by where it works (from `keymap::HELP`),
//! descriptions wrapped to the box. A pure function of the screen size, used to draw the help
//! (`ui::help`) and to scroll it (`App::update`).

use ratatui::layout::Rect;
use unicode_width::UnicodeWidthStr;

use super::{keymap::HELP, layout};

/// One line of the help.
pub enum HelpLine {
    /// A group's heading.
    Group(&'static str),
    /// A key and (a line of) what it does.
    Key(String, String),
    /// Between groups.
    Blank,
}

/// Width of the key column.
pub const KEY_WIDTH: usize = 24;

/// The help's box on a `screen`.
pub fn box_area(screen: Rect) -> Rect {
    let widest = HELP.iter().flat_map(|(_, k)| k.iter()).map(|(_, w)| w.width()).max().unwrap_or(0);
    let lines = lines(usize::from(screen.width.saturating_sub(2))).len();
    layout::centered(screen, (KEY_WIDTH + widest + 4) as u16, lines as u16 + 2)
}

/// The help's lines at `width` columns.
pub fn lines(width: usize) -> Vec<HelpLine> {
    let key_w = KEY_WIDTH.min(width / 2);
    let text_w = width.saturating_sub(key_w + 2).max(8);
    let mut out = Vec::new();
    for (i, (group, keys)) in HELP.iter().enumerate() {
        if i > 0 {
            out.push(HelpLine::Blank);
        }
        out.push(HelpLine::Group(group));
        for (k, what) in keys.iter() {
            let key = crate::text::columns::truncate(k, key_w.saturating_sub(1));
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
