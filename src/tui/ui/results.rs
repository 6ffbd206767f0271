//! The case list: date, title and organization per row, the count and range in the title, the
//! summary in the bottom border.

use ratatui::{buffer::Buffer, layout::Rect, widgets::Widget};
use unicode_width::UnicodeWidthStr;

use super::{pane, put};
use crate::{
    corpus::Case,
    settings::theme::Role,
    text::columns::truncate,
    text::numbers::thousands,
    tui::{
        app::{App, Focus},
        style::Styles,
    },
};

/// The case list widget.
pub struct ResultList<'a> {
    /// The state drawn.
    pub app: &'a App,
    /// The theme.
    pub styles: &'a Styles,
}

/// Columns for the date, the title and the organization in `width`.
fn columns(width: usize, org_width: usize) -> (usize, usize, usize) {
    let date = if width >= 70 { 10 } else { 7 };
    let org = org_width.min(width / 4).min(24);
    let title = width.saturating_sub(date + org + 2);
    (date, title, org)
}

fn date_text(case: &Case, width: usize) -> String {
    match case.date {
        None => "undated".to_string(),
        // Narrow columns show the month; the day is in the case pane.
        Some(d) if width < 10 => {
            d.month.map_or_else(|| d.year.to_string(), |m| format!("{:04}-{m:02}", d.year))
        }
        Some(d) => d.to_string(),
    }
}

impl Widget for ResultList<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let area = area.intersection(buf.area);
        let app = self.app;
        let s = self.styles;
        // While someone types, the list as it was when they began (see `App::case_held`).
        let (r, list) = app.list_shown();
        let held = !std::ptr::eq(r, &app.results);
        let item_height = crate::tui::layout::item_height(area.width);
        let items = usize::from(area.height.saturating_sub(2)) / item_height;
        let title = if !r.loaded {
            "Cases · searching…".to_string()
        } else if r.total == 0 {
            "Cases · none".to_string()
        } else {
            let first = list.top + 1;
            let last = (list.top + items).min(r.total);
            let weaker =
                if r.weaker > 0 { format!(" · {} weaker: w", thousands(r.weaker)) } else { String::new() };
            format!("Cases {} to {} of {}{weaker}", thousands(first), thousands(last), thousands(r.total))
        };
        let focused = app.focus == Focus::Results && app.overlay.is_none();
        let searching = app.awaiting_results() && !held;
        let mut block = pane(&title, if searching { "…" } else { "" }, focused, s, area.width);
        if !r.summary.is_empty() && area.width > 12 {
            // "Check your cluster for this": the node audit's line follows the summary.
            // A gap found here comes first, so a narrow pane still shows it; "nothing found"
            // follows the summary.
            let line = match app.node_line() {
                Some(node) if !node.contains("nothing of these") && !node.contains("could not look") => {
                    format!("{node} · {}", r.summary)
                }
                Some(node) => format!("{} · {node}", r.summary),
                None => r.summary.clone(),
            };
            let summary = truncate(&line, usize::from(area.width.saturating_sub(4)));
            block =
                block.title_bottom(ratatui::text::Line::styled(format!(" {summary} "), s.get(Role::Muted)));
        }
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.is_empty() {
            return;
        }
        let width = usize::from(inner.width);
        if r.loaded && r.total == 0 {
            let lines = match app.loading {
                None => ["No case matches.", "Esc clears the search.", "Tab to a chip, d removes it."],
                Some(_) => {
                    ["No case matches yet.", "Your library is loading; its", "cases show when it is in."]
                }
            };
            for (i, line) in lines.iter().enumerate().take(usize::from(inner.height)) {
                let (x, w) = (inner.x + 1, inner.width.saturating_sub(1));
                put(buf, x, inner.y + i as u16, w, &[(line.to_string(), s.get(Role::Muted))]);
            }
            return;
        }
        let org_width = r
            .hits
            .iter()
            .filter_map(|&i| app.library.cases.get(i))
            .map(|c| c.organization.width())
            .max()
            .unwrap_or(0);
        let (date_w, title_w, org_w) = columns(width, org_width);
        let pad = |t: String, w: usize| {
            let fill = w.saturating_sub(t.width());
            t + &" ".repeat(fill)
        };
        for item in 0..items {
            let n = list.top + item;
            if n >= r.total {
                // After the last real match: say how many weaker ones there are, and how to see them.
                if n == r.total && r.weaker > 0 {
                    let y = inner.y + (item * item_height) as u16;
                    let line = match r.weaker {
                        1 => "and 1 weaker match: w lists it".to_string(),
                        n => format!("and {} weaker matches: w lists them", thousands(n)),
                    };
                    put(
                        buf,
                        inner.x + 1,
                        y,
                        inner.width.saturating_sub(1),
                        &[(truncate(&line, width.saturating_sub(1)), s.get(Role::Muted))],
                    );
                }
                break;
            }
            let y = inner.y + (item * item_height) as u16;
            let selected = n == list.selected;
            let over =
                selected.then(|| s.get(if focused { Role::Selection } else { Role::SelectionInactive }));
            let style = |role: Role| over.map_or(s.get(role), |o| s.get(role).patch(o));
            let Some(case) = r.hit(n).and_then(|i| app.library.cases.get(i)) else {
                put(buf, inner.x, y, inner.width, &[(pad("…".into(), width), style(Role::Muted))]);
                continue;
            };
            if item_height == 2 {
                let title = pad(truncate(&case.title, width), width);
                put(buf, inner.x, y, inner.width, &[(title, style(Role::Text))]);
                let meta = format!("  {} · {}", date_text(case, 10), case.organization);
                let meta = pad(truncate(&meta, width), width);
                put(buf, inner.x, y + 1, inner.width, &[(meta, style(Role::Muted))]);
            } else {
                let spans = vec![
                    (pad(date_text(case, date_w), date_w) + " ", style(Role::Muted)),
                    (pad(truncate(&case.title, title_w), title_w) + " ", style(Role::Text)),
                    (
                        pad(truncate(&case.organization, org_w), width.saturating_sub(date_w + title_w + 2)),
                        style(Role::Muted),
                    ),
                ];
                put(buf, inner.x, y, inner.width, &spans);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn columns_fit_the_width() {
        for width in [10usize, 34, 40, 69, 70, 120] {
            for org in [0usize, 5, 40] {
                let (d, t, o) = super::columns(width, org);
                assert!(d + t + o + 2 <= width.max(d + o + 2), "{width} {org}: {d} {t} {o}");
                assert!(o <= org);
            }
        }
    }
}
