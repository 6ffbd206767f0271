//! Where the drawn graph puts its nodes and labels, in terminal cells. Pure geometry: labels
//! and a canvas size in, positions and shortened labels out; it knows nothing of colours,
//! widgets or terminals.
//!
//! The picture: the centre node in the middle (its label is its marker), an inner ring
//! (for a case, its facet values) and an outer ring (related nodes, best first), both ellipses
//! drawn clockwise from the top, wider than tall because a cell is about twice as tall as wide.
//! Both rings are evenly spaced, so a large canvas is used all round; each outer node keeps
//! the clockwise order of the value it is joined to, turned as near to it as the spacing allows.
//! Each ring node has a marker cell and a one-row label beside it, pointing away from the
//! centre: to the right of nodes on the right half, to the left of nodes on the left half.
//!
//! Labels never overlap, by construction rather than by search: the centre's row holds only the
//! centre; on each half of the canvas every other row holds at most one ring node; labels on
//! the right half start right of the centre column and labels on the left half end left of it.
//! A label too long for the room it has is shortened with an ellipsis, never below
//! [`MIN_LABEL`] columns; outer nodes that cannot be placed legibly are left out (worst ranked
//! first), and when even the inner ring cannot be, [`layout`] returns `None` and the caller
//! shows a list instead. All arithmetic is on `i32` and clamped to the canvas.

use unicode_width::UnicodeWidthStr;

/// The smallest canvas worth drawing on, in columns.
pub const MIN_WIDTH: u16 = 30;
/// The smallest canvas worth drawing on, in rows.
pub const MIN_HEIGHT: u16 = 7;
/// The fewest columns a shortened label keeps (its ellipsis included).
pub const MIN_LABEL: usize = 5;

/// A label placed on the canvas: one row, `width` columns from `x`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// Leftmost column.
    pub x: u16,
    /// Row.
    pub y: u16,
    /// Columns taken (the display width of `text`).
    pub width: u16,
    /// The text, shortened with an ellipsis when it had to be.
    pub text: String,
}

impl Label {
    /// Whether this label and `other` share a cell.
    pub fn overlaps(&self, other: &Label) -> bool {
        self.y == other.y
            && self.width > 0
            && other.width > 0
            && self.x < other.x.saturating_add(other.width)
            && other.x < self.x.saturating_add(self.width)
    }

    /// Whether the cell (`x`, `y`) is under this label.
    pub fn covers(&self, x: u16, y: u16) -> bool {
        self.y == y && x >= self.x && x < self.x.saturating_add(self.width)
    }
}

/// A node placed on the canvas: its marker cell and its label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// Column of the marker.
    pub x: u16,
    /// Row of the marker.
    pub y: u16,
    /// The label.
    pub label: Label,
}

/// Which node of a [`Layout`]: the centre, or an index into the inner or outer ring as asked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Slot {
    /// The centre.
    #[default]
    Centre,
    /// The inner ring's node at this index of the request.
    Inner(usize),
    /// The outer ring's node at this index of the request.
    Outer(usize),
}

/// A direction to move the highlight in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Towards row 0.
    Up,
    /// Away from row 0.
    Down,
    /// Towards column 0.
    Left,
    /// Away from column 0.
    Right,
}

/// Everything placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Canvas columns.
    pub width: u16,
    /// Canvas rows.
    pub height: u16,
    /// The centre node.
    pub centre: Placed,
    /// The inner ring, in the order asked (all of it).
    pub inner: Vec<Placed>,
    /// The outer ring, in the order asked: the first `outer.len()` of what was asked, the rest
    /// did not fit.
    pub outer: Vec<Placed>,
}

impl Layout {
    /// The node in `slot`, if it was placed.
    pub fn get(&self, slot: Slot) -> Option<&Placed> {
        match slot {
            Slot::Centre => Some(&self.centre),
            Slot::Inner(i) => self.inner.get(i),
            Slot::Outer(i) => self.outer.get(i),
        }
    }

    /// Every slot in Tab order: the centre, the inner ring clockwise, the outer ring best first.
    pub fn slots(&self) -> Vec<Slot> {
        std::iter::once(Slot::Centre)
            .chain((0..self.inner.len()).map(Slot::Inner))
            .chain((0..self.outer.len()).map(Slot::Outer))
            .collect()
    }

    /// Every placed node with its slot.
    pub fn placed(&self) -> impl Iterator<Item = (Slot, &Placed)> {
        self.slots().into_iter().filter_map(move |s| self.get(s).map(|p| (s, p)))
    }

    /// The node to move to from `from` in `direction`: among the nodes that lie that way, the
    /// nearest, with sideways distance counting double and rows counting double columns
    /// (a cell is about twice as tall as wide). `None` when nothing lies that way.
    pub fn step(&self, from: Slot, direction: Direction) -> Option<Slot> {
        let here = self.get(from)?;
        let (x0, y0) = (i32::from(here.x), i32::from(here.y));
        self.placed()
            .filter(|(s, _)| *s != from)
            .filter_map(|(s, p)| {
                let (dx, dy) = (i32::from(p.x) - x0, 2 * (i32::from(p.y) - y0));
                let (ahead, aside) = match direction {
                    Direction::Up => (-dy, dx),
                    Direction::Down => (dy, dx),
                    Direction::Left => (-dx, dy),
                    Direction::Right => (dx, dy),
                };
                (ahead > 0).then_some((ahead + 2 * aside.abs(), s))
            })
            .min()
            .map(|(_, s)| s)
    }
}

/// The display width of `text`.
fn columns(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// `text` fitted into `room` columns: whole when it fits, else shortened with an ellipsis;
/// `None` when that would leave fewer than [`MIN_LABEL`] columns.
fn fit(text: &str, room: i32) -> Option<String> {
    let room = usize::try_from(room).unwrap_or(0);
    let need = columns(text);
    if need <= room {
        return Some(text.to_string());
    }
    if room < MIN_LABEL {
        return None;
    }
    Some(crate::text::columns::truncate(text, room))
}

/// Rows for nodes wanted at `targets` (fractional rows, ascending) among the rows
/// `cy - r ..= cy + r`, skipping the centre row and `taken`: each as near its target as the
/// others allow, all distinct, in increasing order. `None` when there are too few rows.
fn spread(targets: &[f64], r: i32, cy: i32, taken: &[i32]) -> Option<Vec<i32>> {
    let m = targets.len();
    if m == 0 {
        return Some(Vec::new());
    }
    let free: Vec<i32> = (cy - r..=cy + r).filter(|y| *y != cy && !taken.contains(y)).collect();
    if free.len() < m {
        return None;
    }
    let nearest = |t: f64| -> usize {
        let mut best = 0;
        for (i, &y) in free.iter().enumerate() {
            if (f64::from(y) - t).abs() < (f64::from(free[best]) - t).abs() {
                best = i;
            }
        }
        best
    };
    let mut idx: Vec<usize> = targets.iter().map(|&t| nearest(t)).collect();
    for j in 1..m {
        idx[j] = idx[j].max(idx[j - 1] + 1);
    }
    // The forward pass can run off the end; pull back from the bottom.
    let last = free.len() - 1;
    for j in (0..m).rev() {
        let limit = if j + 1 < m { idx[j + 1].saturating_sub(1) } else { last };
        idx[j] = idx[j].min(limit);
    }
    Some(idx.into_iter().map(|i| free[i]).collect())
}

/// The fractional row of clockwise position `p` (0 top, ½ bottom) on a ring of radius `r`.
fn row_at(p: f64, r: i32, cy: i32) -> f64 {
    f64::from(cy) - f64::from(r) * (std::f64::consts::TAU * p).cos()
}

/// Rows, top to bottom, for nodes at clockwise positions `positions` (all on one half).
fn rows_for(positions: &[f64], r: i32, cy: i32, taken: &[i32]) -> Option<Vec<i32>> {
    let mut targets: Vec<f64> = positions.iter().map(|&p| row_at(p, r, cy)).collect();
    targets.sort_by(f64::total_cmp);
    spread(&targets, r, cy, taken)
}

/// Horizontal offset from the centre of a node `dy` rows off the centre on an ellipse with
/// radii `rx`, `ry`; at least 2, so the halves never meet.
fn offset(rx: i32, ry: i32, dy: i32) -> i32 {
    let t = if ry == 0 { 0.0 } else { f64::from(dy) / f64::from(ry) };
    let off = (f64::from(rx) * (1.0 - t * t).max(0.0).sqrt()).round() as i32;
    off.max(2)
}

/// The clockwise position (0 at the top, ½ at the bottom) of inner node `i` of `n` as
/// [`layout`] places them: the first half down the right, the rest up the left.
fn inner_position(i: usize, n: usize) -> f64 {
    let right = n.div_ceil(2);
    if i < right {
        0.5 * (i as f64 + 0.5) / right as f64
    } else {
        let left = n - right;
        0.5 + 0.5 * ((i - right) as f64 + 0.5) / left as f64
    }
}

/// Clockwise positions (0 to 1) for nodes whose preferred positions are `hints` (ascending):
/// evenly spaced, in the same order, turned round the ring to sit as near their hints as they
/// can (least squares over the circular distances).
fn evenly_around(hints: &[f64]) -> Vec<f64> {
    let k = hints.len();
    if k == 0 {
        return Vec::new();
    }
    let step = 1.0 / k as f64;
    let at = |turn: f64, j: usize| (turn + j as f64 * step).rem_euclid(1.0);
    let cost = |turn: f64| -> f64 {
        hints
            .iter()
            .enumerate()
            .map(|(j, h)| {
                let d = (at(turn, j) - h).rem_euclid(1.0);
                d.min(1.0 - d).powi(2)
            })
            .sum()
    };
    // Turns of a 240th of the ring: finer than any canvas has rows.
    const TURNS: u32 = 240;
    let best = (0..TURNS)
        .map(|t| f64::from(t) / f64::from(TURNS))
        .min_by(|a, b| cost(*a).total_cmp(&cost(*b)).then(a.total_cmp(b)))
        .unwrap_or(0.0);
    (0..k).map(|j| at(best, j)).collect()
}

/// Place `centre`, `inner` and as many of `outer` as fit (each outer node with the indices of
/// the inner nodes it is joined to, strongest first: it is placed beside the first) on a
/// `width` × `height` canvas.
/// `None` when the canvas is smaller than [`MIN_WIDTH`] × [`MIN_HEIGHT`] or the inner ring does
/// not fit legibly.
pub fn layout(
    centre: &str,
    inner: &[&str],
    outer: &[(&str, Vec<usize>)],
    width: u16,
    height: u16,
) -> Option<Layout> {
    if width < MIN_WIDTH || height < MIN_HEIGHT {
        return None;
    }
    (0..=outer.len()).rev().find_map(|k| place(centre, inner, &outer[..k], width, height))
}

fn place(
    centre: &str,
    inner: &[&str],
    outer: &[(&str, Vec<usize>)],
    width: u16,
    height: u16,
) -> Option<Layout> {
    let (w, h) = (i32::from(width), i32::from(height));
    let (cx, cy) = (w / 2, h / 2);
    let ry_o = cy.min(h - 1 - cy);
    let label_room = (w / 5).clamp(8, 28);
    let rx_o = (w - cx - 3 - label_room).max(4);

    // Inner ring: evenly spaced, the first half down the right side, the rest up the left.
    let n = inner.len();
    let right_n = n.div_ceil(2);
    let ry_i = ((ry_o + 1) / 2).max(right_n.div_ceil(2) as i32).min(ry_o);
    // Round where there is room (a cell is about twice as tall as wide), never inside half the
    // outer ring nor closer than four columns to it.
    let rx_i = (rx_o / 2).max((2 * ry_i).min(rx_o - 4)).max(3);
    let positions: Vec<f64> = (0..n).map(|i| inner_position(i, n)).collect();
    let right_rows = rows_for(&positions[..right_n], ry_i, cy, &[])?;
    let mut left_rows = rows_for(&positions[right_n..], ry_i, cy, &[])?;
    left_rows.reverse();

    // Outer ring: evenly spaced around the whole ring, so a large canvas is used all round
    // (nodes placed only beside what they are joined to bunch where the strongest values are),
    // in the clockwise order of the inner node each is most strongly joined to (its first
    // link), turned so each sits as near that node as the spacing allows. Positions below ½ are
    // on the right, the rest on the left.
    let hint = |links: &[usize], rank: usize| -> f64 {
        match links.iter().find(|&&i| i < n) {
            Some(&i) => inner_position(i, n),
            // Unlinked: spread by rank around the ring.
            None => (rank as f64 + 0.5) / outer.len().max(1) as f64,
        }
    };
    let mut order: Vec<(f64, usize)> = outer.iter().enumerate().map(|(i, (_, l))| (hint(l, i), i)).collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let hints: Vec<f64> = order.iter().map(|(h, _)| *h).collect();
    let mut around: Vec<(f64, usize)> =
        evenly_around(&hints).into_iter().zip(order.iter().map(|(_, i)| *i)).collect();
    around.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let right_k = around.iter().filter(|(p, _)| *p < 0.5).count();
    let order = around;
    let right_positions: Vec<f64> = order[..right_k].iter().map(|(p, _)| *p).collect();
    let left_positions: Vec<f64> = order[right_k..].iter().map(|(p, _)| *p).collect();
    let out_right_rows = rows_for(&right_positions, ry_o, cy, &right_rows)?;
    let mut out_left_rows = rows_for(&left_positions, ry_o, cy, &left_rows)?;
    out_left_rows.reverse();

    let on_right = |text: &str, x: i32, y: i32| -> Option<Placed> {
        let text = fit(text, w - (x + 2))?;
        let lw = columns(&text) as i32;
        Some(Placed {
            x: x as u16,
            y: y as u16,
            label: Label { x: (x + 2).min(w) as u16, y: y as u16, width: lw as u16, text },
        })
    };
    let on_left = |text: &str, x: i32, y: i32| -> Option<Placed> {
        let text = fit(text, x - 1)?;
        let lw = columns(&text) as i32;
        Some(Placed {
            x: x as u16,
            y: y as u16,
            label: Label { x: (x - 1 - lw).max(0) as u16, y: y as u16, width: lw as u16, text },
        })
    };

    let mut inner_placed = Vec::with_capacity(n);
    for (i, text) in inner.iter().enumerate() {
        let placed = if i < right_n {
            let y = right_rows[i];
            on_right(text, cx + offset(rx_i, ry_i, y - cy), y)?
        } else {
            let y = left_rows[i - right_n];
            on_left(text, cx - offset(rx_i, ry_i, y - cy), y)?
        };
        inner_placed.push(placed);
    }
    let mut outer_placed: Vec<Option<Placed>> = vec![None; outer.len()];
    for (pos, &(_, i)) in order.iter().enumerate() {
        let text = outer[i].0;
        let placed = if pos < right_k {
            let y = out_right_rows[pos];
            on_right(text, cx + offset(rx_o, ry_o, y - cy), y)?
        } else {
            let y = out_left_rows[pos - right_k];
            on_left(text, cx - offset(rx_o, ry_o, y - cy), y)?
        };
        outer_placed[i] = Some(placed);
    }

    let text = fit(centre, w - 2)?;
    let cw = columns(&text) as i32;
    let centre = Placed {
        x: cx as u16,
        y: cy as u16,
        label: Label {
            x: (cx - cw / 2).clamp(0, (w - cw).max(0)) as u16,
            y: cy as u16,
            width: cw as u16,
            text,
        },
    };
    Some(Layout {
        width,
        height,
        centre,
        inner: inner_placed,
        outer: outer_placed.into_iter().collect::<Option<Vec<_>>>()?,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The facet values of a typical well-tagged case: ten of them, some long.
    const TEN: [&str; 10] = [
        "Uneven work across ranks",
        "Collective call mismatch",
        "NCCL",
        "Checkpointing",
        "Training data loader",
        "Distributed training framework",
        "Hang",
        "Misleading metrics",
        "No preflight check",
        "No hang or stall monitoring",
    ];

    fn twelve_related() -> Vec<(String, Vec<usize>)> {
        (0..12)
            .map(|i| {
                (
                    format!("Related case number {i} whose title is long enough to need shortening"),
                    vec![i % 10, (i * 3) % 10],
                )
            })
            .collect()
    }

    /// Every property the pane relies on; panics naming the first one broken.
    fn check(l: &Layout, inner: &[&str], outer_asked: usize) {
        let all: Vec<(Slot, &Placed)> = l.placed().collect();
        assert_eq!(l.inner.len(), inner.len());
        assert!(l.outer.len() <= outer_asked);
        for (s, p) in &all {
            assert!(p.x < l.width && p.y < l.height, "{s:?} marker off the canvas: {p:?}");
            let end = u32::from(p.label.x) + u32::from(p.label.width);
            assert!(end <= u32::from(l.width), "{s:?} label runs off the canvas: {p:?}");
            assert_eq!(columns(&p.label.text), usize::from(p.label.width), "{s:?} width");
            assert!(!p.label.text.is_empty(), "{s:?} unlabelled");
            for (t, q) in &all {
                if s == t {
                    continue;
                }
                assert!(!p.label.overlaps(&q.label), "labels of {s:?} and {t:?} overlap: {p:?} {q:?}");
                assert!(!p.label.covers(q.x, q.y), "label of {s:?} covers the marker of {t:?}");
                assert!((p.x, p.y) != (q.x, q.y), "{s:?} and {t:?} share a marker cell");
            }
        }
        for (i, p) in l.inner.iter().enumerate() {
            let whole = columns(inner[i]);
            assert!(
                p.label.text == inner[i]
                    || (p.label.text.ends_with('…') && usize::from(p.label.width) >= MIN_LABEL),
                "inner {i} is neither whole nor legibly shortened: {:?} ({whole} columns)",
                p.label.text
            );
        }
    }

    fn run(width: u16, height: u16, inner: &[&str], outer: &[(String, Vec<usize>)]) -> Option<Layout> {
        let outer: Vec<(&str, Vec<usize>)> = outer.iter().map(|(s, l)| (s.as_str(), l.clone())).collect();
        let l =
            layout("Qwen3-32B fine-tune on 16 B300 GPUs hung for three hours", inner, &outer, width, height)?;
        check(&l, inner, outer.len());
        Some(l)
    }

    #[test]
    fn ten_values_and_a_dozen_related_cases_fit_legibly_at_80_by_24() {
        let l = run(80, 24, &TEN, &twelve_related()).expect("80x24 draws");
        assert_eq!(l.outer.len(), 12, "every related case has room at 80x24");
        // The longest value keeps most of its words.
        assert!(l.inner.iter().all(|p| p.label.width >= 20 || p.label.text.chars().count() < 20), "{l:#?}");
    }

    #[test]
    fn no_overlap_at_several_sizes() {
        // Whole terminals, and the graph pane's canvas inside 80x24 and 80x24-wide screens.
        for (w, h, min_outer) in [
            (80, 24, 12),
            (160, 48, 12),
            (120, 40, 12),
            (60, 16, 4),
            (100, 20, 8),
            (40, 12, 0),
            (42, 14, 12),
            (78, 15, 12),
        ] {
            let l = run(w, h, &TEN, &twelve_related()).unwrap_or_else(|| panic!("{w}x{h} draws"));
            assert!(l.outer.len() >= min_outer, "{w}x{h}: only {} outer nodes", l.outer.len());
        }
    }

    #[test]
    fn too_small_means_a_list() {
        for (w, h) in [(29, 24), (80, 6), (1, 1), (0, 0)] {
            assert!(layout("c", &TEN, &[], w, h).is_none(), "{w}x{h}");
        }
        // Ten values need five rows a side: seven rows give six, and the labels at 30 columns
        // are still legible, so it draws.
        assert!(layout("c", &TEN, &[], 30, 7).is_some());
        assert!(layout("c", &[TEN, TEN].concat(), &[], 200, 7).is_none(), "ten a side need ten rows");
    }

    #[test]
    fn outer_nodes_that_do_not_fit_are_dropped_worst_first() {
        let l = run(60, 12, &TEN, &twelve_related()).expect("60x12 draws the inner ring");
        assert!(l.outer.len() < 12);
        let fewer = run(60, 12, &TEN, &twelve_related()[..l.outer.len()]).unwrap();
        assert_eq!(l, fewer, "what is kept is the best ranked prefix");
    }

    #[test]
    fn rings_go_clockwise_from_the_top() {
        let l = run(80, 24, &TEN, &[]).unwrap();
        let (cx, cy) = (40, 12);
        for (i, p) in l.inner.iter().enumerate() {
            assert_eq!(p.x > cx, i < 5, "inner {i} on the {} half", if i < 5 { "right" } else { "left" });
            assert_ne!(p.y, cy, "the centre row is the centre's");
        }
        assert!(l.inner[..5].windows(2).all(|w| w[0].y < w[1].y), "down the right");
        assert!(l.inner[5..].windows(2).all(|w| w[0].y > w[1].y), "up the left");
    }

    #[test]
    fn outer_nodes_sit_near_what_they_are_joined_to() {
        // One related case joined to the first value (top right), one to the seventh (lower left).
        let outer = vec![("top right".to_string(), vec![0]), ("lower left".to_string(), vec![6])];
        let l = run(80, 24, &TEN, &outer).unwrap();
        assert!(l.outer[0].x > 40 && l.outer[0].y < 12, "{:?}", l.outer[0]);
        assert!(l.outer[1].x < 40 && l.outer[1].y > 12, "{:?}", l.outer[1]);
    }

    #[test]
    fn a_large_canvas_is_used_all_round_even_when_every_case_shares_one_value() {
        // Every related case joined to the same value (top right): they still go all round.
        let outer: Vec<(String, Vec<usize>)> =
            (0..12).map(|i| (format!("Related case {i} with a title"), vec![0])).collect();
        let l = run(196, 44, &TEN, &outer).expect("draws");
        assert_eq!(l.outer.len(), 12);
        let (cx, cy) = (98, 22);
        let quadrant = |p: &Placed| (p.x > cx, p.y > cy);
        for q in [(false, false), (false, true), (true, false), (true, true)] {
            let n = l.outer.iter().filter(|p| quadrant(p) == q).count();
            assert!(n >= 2, "quadrant {q:?} has {n} of the outer nodes: {:?}", l.outer);
        }
        let rows: Vec<u16> = l.outer.iter().map(|p| p.y).collect();
        let (top, bottom) = (rows.iter().min().unwrap(), rows.iter().max().unwrap());
        assert!(*top <= 4 && *bottom >= 40, "the outer ring spans the height: {rows:?}");
    }

    #[test]
    fn evenly_around_keeps_order_and_turns_towards_the_hints() {
        assert_eq!(evenly_around(&[]), Vec::<f64>::new());
        let p = evenly_around(&[0.1, 0.1, 0.1, 0.1]);
        let gaps: Vec<f64> = (0..4).map(|j| (p[(j + 1) % 4] - p[j]).rem_euclid(1.0)).collect();
        assert!(gaps.iter().all(|g| (g - 0.25).abs() < 1e-9), "{p:?}");
        let p = evenly_around(&[0.05, 0.65]);
        assert!((p[0] - 0.1).abs() < 0.01 && (p[1] - 0.6).abs() < 0.01, "{p:?}");
    }

    #[test]
    fn arrows_move_to_the_nearest_node_that_way() {
        let l = run(80, 24, &TEN, &twelve_related()).unwrap();
        assert!(matches!(l.step(Slot::Centre, Direction::Right), Some(Slot::Inner(_))));
        assert!(matches!(l.step(Slot::Centre, Direction::Left), Some(Slot::Inner(_))));
        for slot in l.slots() {
            for d in [Direction::Up, Direction::Down, Direction::Left, Direction::Right] {
                if let Some(to) = l.step(slot, d) {
                    let (a, b) = (l.get(slot).unwrap(), l.get(to).unwrap());
                    let moved = match d {
                        Direction::Up => b.y < a.y,
                        Direction::Down => b.y > a.y,
                        Direction::Left => b.x < a.x,
                        Direction::Right => b.x > a.x,
                    };
                    assert!(moved, "{slot:?} {d:?} -> {to:?}");
                }
            }
        }
        // Every node can be reached from the centre by arrows alone.
        let mut seen = vec![Slot::Centre];
        let mut i = 0;
        while i < seen.len() {
            for d in [Direction::Up, Direction::Down, Direction::Left, Direction::Right] {
                if let Some(to) = l.step(seen[i], d)
                    && !seen.contains(&to)
                {
                    seen.push(to);
                }
            }
            i += 1;
        }
        assert_eq!(seen.len(), l.slots().len(), "unreachable by arrows: {:?}", l.slots());
    }

    #[test]
    fn wide_characters_are_measured_in_columns() {
        let inner = ["日本語のラベルはとても長いのでここで切られるはずです", "NCCL"];
        let l = run(40, 12, &inner, &[]).unwrap();
        assert!(l.inner[0].label.text.ends_with('…'));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn no_overlap_anywhere(
            width in 0u16..220,
            height in 0u16..70,
            inner in prop::collection::vec("[a-zA-Z ]{1,40}", 0..20),
            outer in prop::collection::vec(("[a-zA-Z ]{1,60}", prop::collection::vec(0usize..20, 0..4)), 0..14),
        ) {
            let inner: Vec<&str> = inner.iter().map(String::as_str).collect();
            let outer_ref: Vec<(&str, Vec<usize>)> = outer.iter().map(|(s, l)| (s.as_str(), l.clone())).collect();
            if let Some(l) = layout("centre", &inner, &outer_ref, width, height) {
                check(&l, &inner, outer.len());
            }
        }
    }
}
