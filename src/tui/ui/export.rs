//! The export dialog overlay (`x`): what is being exported (component, filters, how many items
//! from how many cases), then the menu (save, copy, print), the path field, or the question
//! before overwriting a file.

use ratatui::{
    buffer::Buffer,
    layout::{Position, Rect},
    widgets::Widget,
};
use unicode_width::UnicodeWidthStr;

use super::{clear, pane, put};
use crate::{
    settings::theme::Role,
    tui::{
        export::{Choice, ExportDialog, Step},
        layout,
        style::Styles,
    },
};

/// The export dialog widget.
pub struct ExportOverlay<'a> {
    /// The dialog's state.
    pub dialog: &'a ExportDialog,
    /// The theme.
    pub styles: &'a Styles,
}

/// Where the dialog goes on a screen of `area`.
pub fn area(screen: Rect) -> Rect {
    layout::centered(screen, screen.width.saturating_sub(4).clamp(24, 70), 12)
}

const PATH_PROMPT: &str = "Save to › ";
/// The row (inside the border) of the menu's first line, the path field and the question.
const BODY_ROW: u16 = 4;

impl ExportOverlay<'_> {
    /// Where the terminal cursor goes: in the path field, while it is edited.
    pub fn cursor(&self, screen: Rect) -> Option<Position> {
        let inner = layout::inner(area(screen));
        let prompt = PATH_PROMPT.width() as u16;
        if self.dialog.step != Step::Path || inner.height <= BODY_ROW || inner.width <= prompt + 2 {
            return None;
        }
        let width = inner.width - prompt - 1;
        let (_, x) = self.dialog.path.window(usize::from(width));
        Some(Position::new(inner.x + 1 + prompt + (x as u16).min(width - 1), inner.y + BODY_ROW))
    }
}

impl Widget for &ExportOverlay<'_> {
    fn render(self, screen: Rect, buf: &mut Buffer) {
        let s = self.styles;
        let d = self.dialog;
        let area = area(screen).intersection(buf.area);
        clear(area, buf);
        let block = pane("Export checklist", "Esc: back", true, s, area.width);
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.is_empty() {
            return;
        }
        let (x, width) = (inner.x + 1, inner.width.saturating_sub(2));
        let mut row = |y: u16, spans: Vec<(String, ratatui::style::Style)>| {
            if y < inner.height {
                put(buf, x, inner.y + y, width, &spans);
            }
        };
        let list = &d.checklist;
        row(
            0,
            vec![
                ("Component: ".into(), s.get(Role::Muted)),
                (list.component.clone(), s.get(Role::Component)),
            ],
        );
        let filters = if list.filters.is_empty() { "none".to_string() } else { list.filters.clone() };
        row(1, vec![("Filters: ".into(), s.get(Role::Muted)), (filters, s.get(Role::Text))]);
        let cases = match list.cases.len() {
            1 => "1 case".to_string(),
            n => format!("{n} cases"),
        };
        row(2, vec![(format!("{} from {cases}, as a Markdown task list", d.items()), s.get(Role::Text))]);
        match d.step {
            Step::Menu => {
                for (i, choice) in Choice::ALL.iter().enumerate() {
                    let (key, what) = choice.label();
                    let selected = i == d.cursor;
                    let style = s.get(if selected { Role::Selection } else { Role::Text });
                    row(
                        BODY_ROW + i as u16,
                        vec![
                            (if selected { "› ".into() } else { "  ".into() }, style),
                            (format!("{key}  "), s.get(Role::Key)),
                            (what.to_string(), style),
                        ],
                    );
                }
            }
            Step::Path => {
                let room = usize::from(width.saturating_sub(PATH_PROMPT.width() as u16));
                let (shown, _) = d.path.window(room);
                row(BODY_ROW, vec![(PATH_PROMPT.into(), s.get(Role::Key)), (shown, s.get(Role::Input))]);
                row(BODY_ROW + 2, vec![("Enter save · Esc back".into(), s.get(Role::Muted))]);
            }
            Step::Confirm => {
                row(
                    BODY_ROW,
                    vec![
                        (d.path.text().to_string(), s.get(Role::Text)),
                        (" exists.".into(), s.get(Role::Warning)),
                    ],
                );
                row(
                    BODY_ROW + 1,
                    vec![
                        ("Overwrite it?  ".into(), s.get(Role::Text)),
                        ("y".into(), s.get(Role::Key)),
                        (" yes  ".into(), s.get(Role::Text)),
                        ("n".into(), s.get(Role::Key)),
                        (" no".into(), s.get(Role::Text)),
                    ],
                );
            }
        }
        if let Some(error) = &d.error {
            row(inner.height.saturating_sub(1), vec![(error.clone(), s.get(Role::Error))]);
        }
    }
}
