//! The status line: the keys that work where the focus is, or a note (what was just applied,
//! an error) until the next key; while the library loads, the gauge before them. With a source
//! highlighted in the case pane, its whole address comes first.

use ratatui::{buffer::Buffer, layout::Rect, widgets::Widget};
use unicode_width::UnicodeWidthStr;

use super::{gauge, put};
use crate::{
    settings::theme::Role,
    tui::{
        app::{App, Focus, Overlay, RightPane},
        export::Step,
        style::Styles,
    },
};

/// The status line widget.
pub struct StatusLine<'a> {
    /// The state drawn.
    pub app: &'a App,
    /// The theme.
    pub styles: &'a Styles,
}

/// The (key, what it does) hints for where the focus is, most useful first.
pub fn hints(app: &App) -> Vec<(&'static str, &'static str)> {
    match (&app.overlay, app.focus) {
        (Some(Overlay::Help(_) | Overlay::Checks(_)), _) => {
            vec![("Esc", "close"), ("j k", "scroll"), ("Ctrl-C", "quit")]
        }
        (Some(Overlay::Preflight(_)), _) => {
            vec![("Enter", "its cases"), ("j k", "move"), ("Esc", "close"), ("Ctrl-C", "quit")]
        }
        (Some(Overlay::Picker(_)), _) => {
            vec![("Enter", "apply"), ("type", "narrow"), ("-…", "exclude"), ("Tab", "kind"), ("Esc", "close")]
        }
        (Some(Overlay::Export(dialog)), _) => match dialog.step {
            Step::Menu => vec![("s", "save"), ("c", "copy"), ("p", "print"), ("Esc", "close")],
            Step::Path => vec![("Enter", "save"), ("type", "edit the path"), ("Esc", "back")],
            Step::Confirm => vec![("y", "overwrite"), ("n", "keep the file")],
        },
        (None, Focus::Search) => vec![
            ("Enter", "cases"),
            ("Ctrl-T/Alt-Enter", "apply suggestion"),
            ("F1", "help"),
            ("Ctrl-C", "quit"),
            ("Tab", "next pane"),
            ("Esc", "clear"),
        ],
        (None, Focus::Filters) => vec![
            ("← →", "move"),
            ("Enter", "apply/remove"),
            ("-", "exclude"),
            ("d", "remove"),
            ("/", "search"),
            ("?", "help"),
            ("q", "quit"),
        ],
        (None, Focus::Results) => vec![
            ("j k", "move"),
            ("Enter", "open"),
            ("+", "apply suggestion"),
            ("f", "filters"),
            ("v", "pane"),
            ("?", "help"),
            ("q", "quit"),
            ("y", "copy id"),
            ("/", "search"),
        ],
        (None, Focus::Detail) => match app.right {
            RightPane::Case => vec![
                ("j k", "scroll"),
                ("← →", "select"),
                ("Enter", "apply facet"),
                ("v", "pane"),
                ("Esc", "back"),
                ("?", "help"),
                ("q", "quit"),
                ("y", "copy"),
            ],
            RightPane::Graph => vec![
                ("← → ↑ ↓ Tab", "move"),
                ("Enter", "walk"),
                ("Bksp", "back"),
                ("a", "filter"),
                ("o", "open"),
                ("x", "export"),
                ("v", "pane"),
                ("Esc", "list"),
            ],
            RightPane::Breakdown => vec![
                ("← →", "by"),
                ("j k", "bar"),
                ("Enter", "apply"),
                ("v", "pane"),
                ("Esc", "back"),
                ("?", "help"),
                ("q", "quit"),
            ],
        },
    }
}

/// The address of the source highlighted in the focused case pane, if one is.
fn highlighted_address(app: &App) -> Option<&str> {
    if app.overlay.is_some() || app.focus != Focus::Detail || app.right != RightPane::Case {
        return None;
    }
    let i = app.case_view.source()?;
    app.case_doc()?.sources.get(i).map(|s| s.url.as_str())
}

impl Widget for StatusLine<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let area = area.intersection(buf.area);
        if area.is_empty() {
            return;
        }
        let s = self.styles;
        let mut spans = vec![(" ".to_string(), s.get(Role::Status))];
        let note = self.app.note.as_ref();
        if let Some(loading) = &self.app.loading {
            // A note keeps its room: the gauge then leaves out its hint.
            let width = usize::from(area.width).saturating_sub(1);
            spans.extend(gauge::spans(loading, s, width, note.is_none()));
        }
        if let Some(note) = note {
            let role = if note.error { Role::Error } else { Role::Status };
            spans.push((note.text.clone(), s.get(role)));
            put(buf, area.x, area.y, area.width, &spans);
            return;
        }
        // The highlighted source's address in full, on a line of its own (no pane border beside
        // it), so the terminal can select it whole even when the pane cut it short.
        let mut hints = hints(self.app);
        if let Some(url) = highlighted_address(self.app) {
            spans.push((format!("{url}  "), s.get(Role::Text)));
            hints.insert(0, ("y", "copy"));
        }
        // Whole hints only: drop the ones that do not fit rather than cutting one in half.
        let mut used = spans.iter().map(|(t, _)| t.width()).sum::<usize>();
        for (key, what) in hints {
            let w = key.width() + what.width() + 3;
            if used + w > usize::from(area.width) {
                break;
            }
            spans.push((key.to_string(), s.get(Role::Key)));
            spans.push((format!(" {what}  "), s.get(Role::Status)));
            used += w;
        }
        put(buf, area.x, area.y, area.width, &spans);
    }
}
