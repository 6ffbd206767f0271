//! The facet picker overlay: the values of one kind with the number of cases each would leave
//! applied (or excluded) under the whole query — the total the search would then report —
//! narrowed by fuzzy text, matched letters highlighted, and what a near spelling was read as.
//! Until the counts for the query are in, the column shows `…` and the title says so: never a
//! number that is not the query's.

use ratatui::{
    buffer::Buffer,
    layout::{Position, Rect},
    widgets::Widget,
};
use unicode_width::UnicodeWidthStr;

use super::{clear, pane, put};
use crate::{
    corpus::filter::Filters,
    settings::theme::Role,
    taxonomy::FacetKind,
    tui::{
        app::{PICKER_HEADER_ROWS, Picker},
        layout,
        style::Styles,
    },
};

/// The picker overlay widget.
pub struct PickerOverlay<'a> {
    /// The picker's state.
    pub picker: &'a Picker,
    /// The theme.
    pub styles: &'a Styles,
    /// The applied filters (applied values are marked).
    pub filters: &'a Filters,
}

const PROMPT: &str = "filter › ";

/// The count shown while the counts for the query are on their way.
const PENDING: &str = "…";

impl PickerOverlay<'_> {
    /// Where the terminal cursor goes: in the filter field.
    pub fn cursor(&self, screen: Rect) -> Option<Position> {
        let inner = layout::inner(layout::picker_area(screen));
        if inner.height < 2 || inner.width <= PROMPT.width() as u16 {
            return None;
        }
        let width = inner.width - PROMPT.width() as u16;
        let (_, x) = self.picker.filter.window(usize::from(width));
        Some(Position::new(inner.x + PROMPT.width() as u16 + (x as u16).min(width - 1), inner.y + 1))
    }
}

impl Widget for &PickerOverlay<'_> {
    fn render(self, screen: Rect, buf: &mut Buffer) {
        let s = self.styles;
        let area = layout::picker_area(screen).intersection(buf.area);
        clear(area, buf);
        let p = self.picker;
        let title = format!("Filter by {}", p.kind.label().to_lowercase());
        let what = if p.counted() { "cases each would leave" } else { "counting…" };
        let block = pane(&title, what, true, s, area.width);
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.height < 2 {
            return;
        }
        let mut tabs = Vec::new();
        for (i, kind) in FacetKind::ALL.iter().enumerate() {
            if i > 0 {
                tabs.push(("  ".to_string(), s.get(Role::Muted)));
            }
            let mut style = s.get(if *kind == p.kind { Role::of_kind(*kind) } else { Role::Muted });
            if *kind == p.kind {
                style =
                    style.add_modifier(ratatui::style::Modifier::UNDERLINED | ratatui::style::Modifier::BOLD);
            }
            tabs.push((format!("{} {}", i + 1, kind.label()), style));
        }
        put(buf, inner.x, inner.y, inner.width, &tabs);
        let field_w = inner.width.saturating_sub(PROMPT.width() as u16);
        let (shown, _) = p.filter.window(usize::from(field_w));
        let mut field = vec![(PROMPT.to_string(), s.get(Role::Key)), (shown, s.get(Role::Input))];
        if p.negated() {
            field.push(("  (excludes)".into(), s.get(Role::ChipNegated)));
        }
        if let Some(note) = &p.note {
            field.push((format!("  {note}"), s.get(Role::Muted)));
        }
        put(buf, inner.x, inner.y + 1, inner.width, &field);
        let rows = usize::from(inner.height).saturating_sub(PICKER_HEADER_ROWS);
        if p.rows.is_empty() && rows > 0 {
            put(
                buf,
                inner.x,
                inner.y + PICKER_HEADER_ROWS as u16,
                inner.width,
                &[("no value matches".into(), s.get(Role::Muted))],
            );
            return;
        }
        let count_text = |count: Option<usize>| count.map_or_else(|| PENDING.to_string(), |n| n.to_string());
        let count_w = p.rows.iter().map(|r| count_text(r.count).width()).max().unwrap_or(1);
        let width = usize::from(inner.width);
        for (row, (i, value)) in p.rows.iter().enumerate().skip(p.top).take(rows).enumerate() {
            let y = inner.y + (PICKER_HEADER_ROWS + row) as u16;
            let selected = i == p.cursor;
            let over = selected.then(|| s.get(Role::Selection));
            let style = |role: Role| over.map_or(s.get(role), |o| s.get(role).patch(o));
            let applied = self.filters.facets.iter().find(|f| f.kind == p.kind && f.value == value.value);
            let mark = match applied {
                Some(f) if f.negated => "✗ ",
                Some(_) => "✓ ",
                None => "  ",
            };
            let mut spans = vec![
                (mark.to_string(), style(Role::Chip)),
                (format!("{:>count_w$}  ", count_text(value.count)), style(Role::Muted)),
            ];
            let room = width.saturating_sub(count_w + 4);
            let name = crate::text::columns::truncate(&value.value, room);
            let role = if value.count.is_none_or(|n| n == 0) { Role::Muted } else { Role::of_kind(p.kind) };
            for (ci, c) in name.chars().enumerate() {
                let matched = value.matched.contains(&ci);
                let st = if matched { style(role).patch(s.get(Role::Match)) } else { style(role) };
                spans.push((c.to_string(), st));
            }
            let used: usize = spans.iter().map(|(t, _)| t.width()).sum();
            if selected && used < width {
                spans.push((" ".repeat(width - used), style(Role::Text)));
            }
            put(buf, inner.x, y, inner.width, &spans);
        }
    }
}
