//! Drawing: [`render`] puts the whole screen for an [`App`] into a frame, one widget per part
//! (search box, filters rows, case list, right pane, status line, overlays).
//!
//! Rendering reads the state and never changes it. Every widget writes only inside the
//! rectangle it is given (clamped to the buffer), cuts text that does not fit with an ellipsis,
//! and lays out by the same pure functions `App::update` uses, so what is drawn and what keys do
//! agree.

pub mod breakdown;
pub mod case;
pub mod checks;
pub mod export;
pub mod filters;
pub mod gauge;
pub mod graph;
pub mod help;
pub mod picker;
pub mod preflight;
pub mod results;
pub mod search;
pub mod status;

use ratatui::{
    Frame,
    buffer::Buffer,
    layout::Rect,
    style::Style,
    text::{Line, Span},
    widgets::{Block, Widget},
};

use super::{
    app::{App, Focus, Overlay, RightPane},
    layout::{self, Layout},
    style::Styles,
};
use crate::settings::theme::Role;

/// Draw the whole screen for `app`.
pub fn render(frame: &mut Frame, app: &App, styles: &Styles) {
    let area = frame.area();
    let Some(l) = Layout::new(area.width, area.height) else {
        frame.render_widget(TooSmall { styles }, area);
        return;
    };
    let search = search::SearchBox { app, styles, bordered: l.search_bordered };
    frame.render_widget(&search, l.search);
    frame.render_widget(
        filters::FiltersRow { app, styles, row: crate::tui::layout::FilterRow::Applied },
        l.chips,
    );
    frame.render_widget(
        filters::FiltersRow { app, styles, row: crate::tui::layout::FilterRow::Suggested },
        l.suggestions,
    );
    let show_right = shows_right(app, &l);
    // The focused graph pane takes the list's room too below `GRAPH_ALONE_BELOW` columns.
    let graph_alone = app.graph_alone();
    let show_list = (!l.narrow || app.focus != Focus::Detail) && !graph_alone;
    if show_list {
        frame.render_widget(results::ResultList { app, styles }, l.list);
    }
    if show_right {
        match app.right {
            RightPane::Case => frame.render_widget(case::CasePane { app, styles }, l.right),
            RightPane::Graph => {
                let area = app.graph_area().unwrap_or(l.right);
                frame.render_widget(graph::GraphPane { app, styles }, area)
            }
            RightPane::Breakdown => frame.render_widget(breakdown::BreakdownPane { app, styles }, l.right),
        }
    }
    frame.render_widget(status::StatusLine { app, styles }, l.status);
    match &app.overlay {
        Some(Overlay::Help(scroll)) => {
            frame.render_widget(help::HelpOverlay { scroll: *scroll, styles }, area)
        }
        Some(Overlay::Checks(scroll)) => {
            let lines = app.checks_lines();
            frame.render_widget(checks::ChecksOverlay { lines: &lines, scroll: *scroll, styles }, area)
        }
        Some(Overlay::Preflight(selected)) => {
            let lines = app.preflight_lines();
            let overlay = preflight::PreflightOverlay { lines: &lines, selected: *selected, styles };
            frame.render_widget(overlay, area)
        }
        Some(Overlay::Picker(p)) => {
            let overlay = picker::PickerOverlay { picker: p, styles, filters: &app.filters };
            frame.render_widget(&overlay, area);
            if let Some(pos) = overlay.cursor(area) {
                frame.set_cursor_position(pos);
            }
        }
        Some(Overlay::Export(dialog)) => {
            let overlay = export::ExportOverlay { dialog, styles };
            frame.render_widget(&overlay, area);
            if let Some(pos) = overlay.cursor(area) {
                frame.set_cursor_position(pos);
            }
        }
        None if app.focus == Focus::Search => {
            if let Some(pos) = search.cursor(l.search) {
                frame.set_cursor_position(pos);
            }
        }
        None => {}
    }
}

/// Whether the right pane is drawn: always beside the list, in a narrow layout when it has the
/// focus.
fn shows_right(app: &App, l: &Layout) -> bool {
    !l.narrow || app.focus == Focus::Detail
}

/// Where the frame [`render`] draws on a screen of `area` shows source addresses, for the main
/// loop to make them OSC 8 hyperlinks (`tui::hyperlink`): the case pane's, when it is shown.
pub fn links(app: &App, area: Rect) -> Vec<crate::tui::hyperlink::Link> {
    match Layout::new(area.width, area.height) {
        Some(l) if shows_right(app, &l) && app.right == RightPane::Case => case::links(app, l.right),
        _ => Vec::new(),
    }
}

/// The notice shown below the smallest usable size.
struct TooSmall<'a> {
    styles: &'a Styles,
}

impl Widget for TooSmall<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let area = area.intersection(buf.area);
        let lines = [
            "Terminal too small".to_string(),
            format!("{}×{} needed", layout::MIN_WIDTH, layout::MIN_HEIGHT),
            "Ctrl-C quits".to_string(),
        ];
        let top = area.y + area.height.saturating_sub(lines.len() as u16) / 2;
        for (i, text) in lines.iter().enumerate() {
            let y = top + i as u16;
            if y >= area.bottom() {
                break;
            }
            let text = crate::text::columns::truncate(text, usize::from(area.width));
            let width = unicode_width::UnicodeWidthStr::width(text.as_str()) as u16;
            let x = area.x + area.width.saturating_sub(width) / 2;
            let role = if i == 0 { Role::Title } else { Role::Muted };
            buf.set_stringn(x, y, &text, usize::from(area.width), self.styles.get(role));
        }
    }
}

/// A bordered pane with a title (cut to fit) and the focus shown on its border.
pub(crate) fn pane<'a>(
    title: &str,
    right_title: &str,
    focused: bool,
    styles: &Styles,
    width: u16,
) -> Block<'a> {
    let border = styles.get(if focused { Role::BorderFocused } else { Role::Border });
    let room = usize::from(width.saturating_sub(4));
    let title = crate::text::columns::truncate(title, room);
    let used = unicode_width::UnicodeWidthStr::width(title.as_str()) + 2;
    let mut block = Block::bordered()
        .border_style(border)
        .title(Line::from(Span::styled(format!(" {title} "), styles.get(Role::Title))));
    let right_room = room.saturating_sub(used + 2);
    if !right_title.is_empty() && right_room >= 6 {
        let right = crate::text::columns::truncate(right_title, right_room);
        block = block.title_top(
            Line::from(Span::styled(format!(" {right} "), styles.get(Role::Muted))).right_aligned(),
        );
    }
    block
}

/// Clear `area` for an overlay. A wide character just left of it would spill into its first
/// column (and ratatui would then skip drawing that column), so it is blanked too.
pub(crate) fn clear(area: Rect, buf: &mut Buffer) {
    let area = area.intersection(buf.area);
    ratatui::widgets::Clear.render(area, buf);
    if area.x == 0 {
        return;
    }
    for y in area.top()..area.bottom() {
        let left = &mut buf[(area.x - 1, y)];
        if unicode_width::UnicodeWidthStr::width(left.symbol()) > 1 {
            left.set_symbol(" ");
        }
    }
}

/// What the case pane and the graph pane say when they have no case to show.
pub(crate) fn no_case(buf: &mut Buffer, inner: Rect, app: &App, s: &Styles) {
    let text = if app.results.loaded { "No case selected." } else { "Searching…" };
    put(buf, inner.x + 1, inner.y, inner.width.saturating_sub(1), &[(text.into(), s.get(Role::Muted))]);
}

/// Write `spans` at (`x`, `y`) within `width` columns; the last span that does not fit is cut
/// with an ellipsis. Returns the columns used.
pub(crate) fn put(buf: &mut Buffer, x: u16, y: u16, width: u16, spans: &[(String, Style)]) -> u16 {
    let area = Rect::new(x, y, width, 1).intersection(buf.area);
    if area.is_empty() {
        return 0;
    }
    let mut used: usize = 0;
    let room = usize::from(area.width);
    for (text, style) in spans {
        let w = unicode_width::UnicodeWidthStr::width(text.as_str());
        let shown =
            if used + w > room { crate::text::columns::truncate(text, room - used) } else { text.clone() };
        let (nx, _) = buf.set_stringn(area.x + used as u16, y, &shown, room - used, *style);
        used = usize::from(nx - area.x);
        if used >= room {
            break;
        }
    }
    used as u16
}
