//! The breakdown pane: bar charts of the results by root cause (the default), component,
//! symptom, contributing factor or year, with the highlighted bar selected.

use ratatui::{buffer::Buffer, layout::Rect, widgets::Widget};
use unicode_width::UnicodeWidthStr;

use super::{pane, put};
use crate::{
    settings::theme::Role,
    text::columns::truncate,
    tui::{
        app::{App, BREAKDOWN_HEADER_ROWS, Focus},
        style::Styles,
        worker::Dimension,
    },
};

/// The breakdown pane widget.
pub struct BreakdownPane<'a> {
    /// The state drawn.
    pub app: &'a App,
    /// The theme.
    pub styles: &'a Styles,
}

/// The bar for `count` of `max` in `width` columns, in eighths of a cell.
pub fn bar(count: usize, max: usize, width: usize) -> String {
    const EIGHTHS: [char; 8] = ['▏', '▎', '▍', '▌', '▋', '▊', '▉', '█'];
    if max == 0 || width == 0 || count == 0 {
        return String::new();
    }
    let eighths = (count * width * 8).div_ceil(max).max(1);
    let mut s = "█".repeat(eighths / 8);
    if eighths % 8 != 0 {
        s.push(EIGHTHS[eighths % 8 - 1]);
    }
    s
}

impl Widget for BreakdownPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let area = area.intersection(buf.area);
        let app = self.app;
        let s = self.styles;
        let focused = app.focus == Focus::Detail && app.overlay.is_none();
        let view = app.breakdown;
        let hint = if focused { "← → · Enter" } else { "v: next pane" };
        let block = pane(
            &format!("Breakdown by {}", view.dimension.label().to_lowercase()),
            hint,
            focused,
            s,
            area.width,
        );
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.is_empty() {
            return;
        }
        // The dimensions, the current one highlighted; short names when the long ones do not fit.
        let long: Vec<&str> = Dimension::ALL.iter().map(|d| d.label()).collect();
        let short = ["Cause", "Component", "Symptom", "Factor", "Year"];
        let fits = long.iter().map(|l| l.width() + 2).sum::<usize>() <= usize::from(inner.width);
        let names: Vec<&str> = if fits { long } else { short.to_vec() };
        let mut tabs: Vec<(String, ratatui::style::Style)> = Vec::new();
        for (i, (d, name)) in Dimension::ALL.iter().zip(names).enumerate() {
            if i > 0 {
                tabs.push(("  ".into(), s.get(Role::Muted)));
            }
            let style = if *d == view.dimension {
                s.get(Role::Accent).add_modifier(ratatui::style::Modifier::UNDERLINED)
            } else {
                s.get(Role::Muted)
            };
            tabs.push((name.to_string(), style));
        }
        put(buf, inner.x, inner.y, inner.width, &tabs);
        let counts = app.results.breakdown.of(view.dimension);
        let rows = usize::from(inner.height).saturating_sub(BREAKDOWN_HEADER_ROWS);
        let top = inner.y + BREAKDOWN_HEADER_ROWS as u16;
        if counts.is_empty() {
            if inner.height > 2 {
                let text = if app.results.loaded { "No cases to count." } else { "Searching…" };
                put(buf, inner.x, top, inner.width, &[(text.into(), s.get(Role::Muted))]);
            }
            return;
        }
        let width = usize::from(inner.width);
        let max = counts.iter().map(|(_, n)| *n).max().unwrap_or(0);
        let count_w = max.to_string().len();
        // Labels as wide as they need, leaving bars at least a quarter of the pane.
        let label_w = counts
            .iter()
            .map(|(v, _)| v.width())
            .max()
            .unwrap_or(0)
            .min(width.saturating_sub(count_w + 3 + width / 4))
            .max(4);
        let bar_w = width.saturating_sub(label_w + count_w + 3);
        let kind_role = view.dimension.kind().map_or(Role::Case, Role::of_kind);
        for (row, (i, (value, count))) in counts.iter().enumerate().skip(view.top).take(rows).enumerate() {
            let y = top + row as u16;
            let selected = i == view.cursor;
            let over =
                selected.then(|| s.get(if focused { Role::Selection } else { Role::SelectionInactive }));
            let style = |role: Role| over.map_or(s.get(role), |o| s.get(role).patch(o));
            let label = truncate(value, label_w);
            let pad = " ".repeat(label_w.saturating_sub(label.width()));
            let spans = vec![
                (format!("{label}{pad} "), style(kind_role)),
                (format!("{count:>count_w$} "), style(Role::Muted)),
                (bar(*count, max, bar_w), s.get(Role::Bar)),
            ];
            put(buf, inner.x, y, inner.width, &spans);
        }
    }
}

#[cfg(test)]
mod tests {
    use unicode_width::UnicodeWidthStr;

    #[test]
    fn bars_scale_to_the_largest_and_never_vanish() {
        assert_eq!(super::bar(10, 10, 5), "█████");
        assert_eq!(super::bar(5, 10, 5).width(), 3);
        assert_eq!(super::bar(1, 1000, 10), "▏");
        assert_eq!(super::bar(0, 10, 10), "");
        for count in 0..=37 {
            assert!(super::bar(count, 37, 20).chars().count() <= 20);
        }
    }
}
