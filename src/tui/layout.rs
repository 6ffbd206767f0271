//! Where each part of the screen goes: a pure function of the terminal size, used by the
//! renderer, by `App::update` (page sizes, wrapping widths) and for mouse hit-testing.
//!
//! Every rectangle lies inside the screen; arithmetic saturates, so no size — 1×1 included —
//! can make it panic. Below [`MIN_WIDTH`]×[`MIN_HEIGHT`] there is no layout, only a notice.

use ratatui::layout::Rect;

/// Narrower than this, the screen only says it is too small.
pub const MIN_WIDTH: u16 = 40;
/// Shorter than this, the screen only says it is too small.
pub const MIN_HEIGHT: u16 = 10;
/// From this width on, the case list and the right pane sit side by side; below it one of
/// them fills the screen, depending on the focus.
pub const SPLIT_WIDTH: u16 = 70;
/// Case lists narrower than this (inside the border) give each case two rows.
pub const TWO_LINE_BELOW: u16 = 60;
/// From this height on, the search box has a border.
pub const BORDERED_SEARCH_HEIGHT: u16 = 20;

/// Which of the two filters rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterRow {
    /// Applied filters and "Clear all".
    Applied,
    /// Suggested filters.
    Suggested,
}

/// The screen's parts. In a narrow layout `list` and `right` are the same rectangle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// The whole screen.
    pub screen: Rect,
    /// The search box (with its border when `search_bordered`).
    pub search: Rect,
    /// Whether the search box has a border.
    pub search_bordered: bool,
    /// The applied filters (chips) and "Clear all".
    pub chips: Rect,
    /// The suggested filters, or the query's error.
    pub suggestions: Rect,
    /// The case list, with its border.
    pub list: Rect,
    /// The right pane (case, breakdown, ...), with its border.
    pub right: Rect,
    /// The status line.
    pub status: Rect,
    /// Whether only one of `list` and `right` is shown.
    pub narrow: bool,
}

impl Layout {
    /// The layout of a `width`×`height` screen, or `None` when it is too small to use.
    pub fn new(width: u16, height: u16) -> Option<Layout> {
        if width < MIN_WIDTH || height < MIN_HEIGHT {
            return None;
        }
        let screen = Rect::new(0, 0, width, height);
        let search_bordered = height >= BORDERED_SEARCH_HEIGHT;
        let search_height = if search_bordered { 3 } else { 1 };
        let row = |y: u16, h: u16| Rect::new(0, y, width, h);
        let search = row(0, search_height);
        let chips = row(search_height, 1);
        let suggestions = row(search_height + 1, 1);
        let main_top = search_height + 2;
        let status = row(height.saturating_sub(1), 1);
        let main = row(main_top, height.saturating_sub(main_top + 1));
        let narrow = width < SPLIT_WIDTH;
        let (list, right) = if narrow {
            (main, main)
        } else {
            let list_width = (width.saturating_mul(45) / 100).clamp(30, 80);
            (
                Rect::new(0, main.y, list_width, main.height),
                Rect::new(list_width, main.y, width.saturating_sub(list_width), main.height),
            )
        };
        Some(Layout { screen, search, search_bordered, chips, suggestions, list, right, status, narrow })
    }

    /// Rows inside the case list's border.
    pub fn list_rows(&self) -> usize {
        usize::from(self.list.height.saturating_sub(2))
    }

    /// Rows per case in the list: two (title; date and organization) when the list is too
    /// narrow for a title beside them, else one.
    pub fn list_item_height(&self) -> usize {
        item_height(self.list.width)
    }

    /// How many cases the list shows at once.
    pub fn list_items(&self) -> usize {
        (self.list_rows() / self.list_item_height()).max(1)
    }

    /// The inside of the right pane.
    pub fn right_inner(&self) -> Rect {
        inner(self.right)
    }
}

/// Rows per case in a case list `width` columns wide (with its border).
pub fn item_height(width: u16) -> usize {
    if width.saturating_sub(2) < TWO_LINE_BELOW { 2 } else { 1 }
}

/// The inside of a bordered rectangle.
pub fn inner(r: Rect) -> Rect {
    Rect::new(
        r.x.saturating_add(1),
        r.y.saturating_add(1),
        r.width.saturating_sub(2),
        r.height.saturating_sub(2),
    )
}

/// A rectangle of `width`×`height` centred in `area`, shrunk to fit.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(area.x + (area.width - w) / 2, area.y + (area.height - h) / 2, w, h)
}

/// Where the picker goes on a screen of `area`.
pub fn picker_area(screen: Rect) -> Rect {
    let width = screen.width.saturating_sub(4).clamp(20, 72);
    let height = screen.height.saturating_sub(2).clamp(6, 24);
    centered(screen, width, height)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_small_screens_have_no_layout() {
        for (w, h) in [(1, 1), (39, 24), (80, 9), (0, 0)] {
            assert!(Layout::new(w, h).is_none(), "{w}x{h}");
        }
        assert!(Layout::new(40, 10).is_some());
    }

    #[test]
    fn parts_tile_the_screen_without_overlap() {
        for w in (40..=260).step_by(7) {
            for h in (10..=80).step_by(3) {
                let l = Layout::new(w, h).unwrap();
                let screen = Rect::new(0, 0, w, h);
                let parts = [l.search, l.chips, l.suggestions, l.list, l.right, l.status];
                for p in parts {
                    assert_eq!(p.intersection(screen), p, "{w}x{h}: {p:?} leaves the screen");
                }
                let rows =
                    l.search.height + l.chips.height + l.suggestions.height + l.list.height + l.status.height;
                assert_eq!(rows, h, "{w}x{h}: rows add up");
                if l.narrow {
                    assert_eq!(l.list, l.right);
                } else {
                    assert!(!l.list.intersects(l.right), "{w}x{h}");
                    assert_eq!(l.list.width + l.right.width, w);
                }
            }
        }
    }

    #[test]
    fn comfortable_at_80x24_and_usable_at_60x16() {
        let l = Layout::new(80, 24).unwrap();
        assert!(!l.narrow && l.search_bordered);
        assert!(l.list_rows() >= 14, "{}", l.list_rows());
        assert_eq!(l.list_item_height(), 2);
        assert_eq!(l.list_items(), l.list_rows() / 2);
        assert_eq!(Layout::new(160, 40).unwrap().list_item_height(), 1);
        assert!(l.right_inner().width >= 40);
        let l = Layout::new(60, 16).unwrap();
        assert!(l.narrow && !l.search_bordered);
        assert!(l.list_rows() >= 9);
    }

    #[test]
    fn centred_boxes_fit() {
        let area = Rect::new(0, 0, 10, 5);
        assert_eq!(centered(area, 4, 2), Rect::new(3, 1, 4, 2));
        assert_eq!(centered(area, 40, 20), area);
    }
}
