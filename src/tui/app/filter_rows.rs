//! The two filters rows laid out: applied filters as chips with "Clear all", and the suggested
//! filters with their counts (or the query's error).
//!
//! [`App::place_filters_row`] lays a row out — scrolled sideways so the highlighted item is
//! visible, with an ellipsis where items went by on the left and "+N more" where items are cut
//! off on the right (`Tab` then `→` reach them; a click on the count goes to the first). The
//! same placing draws the row (`ui::filters`) and hit-tests a click ([`App::filter_item_at`]).

use unicode_width::UnicodeWidthStr;

use super::{App, FilterItem, Focus};
use crate::{settings::theme::Role, tui::layout::FilterRow as Row};

/// One piece of a row, placed.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    /// Column where it starts, from the row's left edge.
    pub x: u16,
    /// The item it shows, if it is one (not a label or an ellipsis).
    pub item: Option<FilterItem>,
    /// Its text, in pieces with their roles.
    pub spans: Vec<(String, Role)>,
    /// Whether it is drawn highlighted.
    pub highlighted: bool,
}

impl Placed {
    fn width(&self) -> u16 {
        self.spans.iter().map(|(t, _)| t.width()).sum::<usize>() as u16
    }
}

const APPLIED: &str = "Applied: ";
const SUGGESTED: &str = "Suggested: ";
const GAP: u16 = 1;

fn items(app: &App, row: Row) -> Vec<(FilterItem, Vec<(String, Role)>)> {
    app.filter_items()
        .into_iter()
        .filter_map(|item| {
            let spans = match (row, item) {
                (Row::Applied, FilterItem::Chip(chip)) => {
                    let (label, negated) = app.chip_label(chip);
                    let (text, role) = if negated {
                        (format!("[not {label}]"), Role::ChipNegated)
                    } else {
                        (format!("[{label}]"), Role::Chip)
                    };
                    vec![(text, role)]
                }
                (Row::Applied, FilterItem::ClearAll) => vec![("Clear all".to_string(), Role::Key)],
                (Row::Suggested, FilterItem::Suggestion(i)) => {
                    let s = app.results.suggestions.get(i)?;
                    vec![
                        (format!("{}: ", s.kind.label()), Role::Muted),
                        (s.value.clone(), Role::of_kind(s.kind)),
                        (format!(" {}", s.count), Role::Muted),
                    ]
                }
                _ => return None,
            };
            Some((item, spans))
        })
        .collect()
}

/// What fills a row that has no items.
fn empty_text(app: &App, row: Row) -> (String, Role) {
    match row {
        Row::Applied => ("none · f or 1-4 pick values, + applies a suggestion".into(), Role::Muted),
        Row::Suggested => match &app.results.error {
            Some(error) => (format!("⚠ {error}"), Role::Error),
            None if app.input.is_empty() => {
                ("the values found in your words appear here".into(), Role::Muted)
            }
            None => ("none found in your words".into(), Role::Muted),
        },
    }
}

impl App {
    /// Lay out `row` in `width` columns.
    pub fn place_filters_row(&self, row: Row, width: u16) -> Vec<Placed> {
        place(self, row, width)
    }

    /// The item at column `x` of `row`, if any.
    pub fn filter_item_at(&self, row: Row, width: u16, x: u16) -> Option<FilterItem> {
        place(self, row, width)
            .into_iter()
            .find(|p| p.item.is_some() && x >= p.x && x < p.x + p.width())
            .and_then(|p| p.item)
    }
}

/// Lay out `row` in `width` columns.
fn place(app: &App, row: Row, width: u16) -> Vec<Placed> {
    let label = match row {
        Row::Applied => APPLIED,
        Row::Suggested => SUGGESTED,
    };
    let mut placed =
        vec![Placed { x: 0, item: None, spans: vec![(label.to_string(), Role::Muted)], highlighted: false }];
    let start_x = label.width() as u16;
    let items = items(app, row);
    let error = row == Row::Suggested && app.results.error.is_some();
    if items.is_empty() || error {
        let (text, role) = empty_text(app, row);
        placed.push(Placed { x: start_x, item: None, spans: vec![(text, role)], highlighted: false });
        return placed;
    }
    let cursor_item = app.filter_items().get(app.filter_cursor).copied();
    let highlighted = match row {
        Row::Applied if app.focus == Focus::Filters => cursor_item,
        Row::Suggested => app.highlighted_suggestion().map(FilterItem::Suggestion),
        _ => None,
    };
    let widths: Vec<u16> =
        items.iter().map(|(_, s)| s.iter().map(|(t, _)| t.width()).sum::<usize>() as u16).collect();
    let room = width.saturating_sub(start_x);
    // Scroll so the highlighted item fits, leaving room for the ellipses.
    let target = items.iter().position(|(i, _)| Some(*i) == highlighted).unwrap_or(0);
    let mut first = 0;
    while first < target {
        let lead = if first > 0 { 2 } else { 0 };
        let span: u16 = widths[first..=target].iter().map(|w| w + GAP).sum::<u16>() + lead + 2;
        if span <= room {
            break;
        }
        first += 1;
    }
    let mut x = start_x;
    if first > 0 {
        placed.push(Placed { x, item: None, spans: vec![("…".into(), Role::Muted)], highlighted: false });
        x += 2;
    }
    let count = items.len();
    let mut hidden: Option<(usize, FilterItem)> = None;
    for (i, (item, spans)) in items.into_iter().enumerate().skip(first) {
        let w = widths[i];
        let last = i + 1 == count;
        let needed = if last { w } else { w + 2 };
        if x + needed > width && !(i == first && x + w <= width) {
            hidden = Some((i, item));
            break;
        }
        placed.push(Placed { x, item: Some(item), spans, highlighted: highlighted == Some(item) });
        x += w + GAP;
        if row == Row::Suggested && !last {
            x += 1;
        }
    }
    // What is cut off is counted, and a click on the count goes to the first of it.
    if let Some((mut i, mut item)) = hidden {
        let keys = if app.focus == Focus::Filters { "" } else { " (Tab →)" };
        loop {
            let label = format!("+{} more{keys}", count - i);
            let fits = x + label.width() as u16 <= width;
            let droppable = placed.last().is_some_and(|p| p.item.is_some() && !p.highlighted);
            if fits || !droppable {
                if x < width {
                    placed.push(Placed {
                        x,
                        item: Some(item),
                        spans: vec![(label, Role::Muted)],
                        highlighted: false,
                    });
                }
                break;
            }
            let Some(dropped) = placed.pop() else { break };
            x = dropped.x;
            i -= 1;
            item = dropped.item.unwrap_or(item);
        }
    }
    placed
}
