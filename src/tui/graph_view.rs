//! The graph pane's state: the walk (the node in the middle and the way back), the highlighted
//! node, and what is drawn around the centre (a [`Picture`], computed when the centre changes,
//! not at every frame).
//!
//! Pure: `App::update` calls these with the graph and the pane's canvas rectangle, and the
//! widget (`ui::graph`) calls the same [`GraphView::layout`], so the node a key moves to is the
//! node drawn there. When the canvas is too small for the drawing the same neighbourhood is a
//! list grouped by kind, and the keys move through [`GraphView::list`] instead.

use ratatui::layout::Rect;

use crate::graph::{
    Graph, NodeId, NodeKind,
    layout::{self, Direction, Layout, Slot},
    picture::{MAX_INNER, MAX_OUTER, Picture},
};

/// Rows of the pane under the drawing: the highlighted node's line and the legend.
pub const FOOTER_ROWS: u16 = 2;

/// The walk through the graph.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GraphView {
    /// What is drawn around the centre; `None` before the first case.
    pub picture: Option<Picture>,
    /// The centres walked from, oldest first.
    pub history: Vec<NodeId>,
    /// The highlighted node.
    pub highlight: Slot,
    /// The case (an index into `Library::cases`) the walk started from.
    pub origin: Option<usize>,
}

impl GraphView {
    /// A walk that starts at case `index` of the library.
    pub fn start(graph: &Graph, index: Option<usize>) -> GraphView {
        let picture = index.and_then(|i| graph.case_at(i)).map(|n| graph.picture(n, MAX_INNER, MAX_OUTER));
        GraphView { picture, history: Vec::new(), highlight: Slot::Centre, origin: index }
    }

    /// The node in the middle.
    pub fn centre(&self) -> Option<NodeId> {
        self.picture.as_ref().map(|p| p.centre)
    }

    /// The node in `slot`.
    pub fn node(&self, slot: Slot) -> Option<NodeId> {
        let p = self.picture.as_ref()?;
        match slot {
            Slot::Centre => Some(p.centre),
            Slot::Inner(i) => p.inner.get(i).copied(),
            Slot::Outer(i) => p.outer.get(i).map(|r| r.node),
        }
    }

    /// The highlighted node.
    pub fn highlighted(&self) -> Option<NodeId> {
        self.node(self.highlight)
    }

    /// The drawing area inside the pane's border: all but the footer rows.
    pub fn canvas(inner: Rect) -> Rect {
        Rect { height: inner.height.saturating_sub(FOOTER_ROWS), ..inner }
    }

    /// Where the nodes go on `canvas`, or `None` when it is too small to draw legibly.
    pub fn layout(&self, graph: &Graph, canvas: Rect) -> Option<Layout> {
        let p = self.picture.as_ref()?;
        let label = |n: NodeId| graph.node(n).label.as_str();
        let inner: Vec<&str> = p.inner.iter().map(|&n| label(n)).collect();
        let outer: Vec<(&str, Vec<usize>)> =
            p.outer.iter().zip(&p.links).map(|(r, l)| (label(r.node), l.clone())).collect();
        layout::layout(label(p.centre), &inner, &outer, canvas.width, canvas.height)
    }

    /// The list shown instead of the drawing: the centre, then every kind in legend order with
    /// its nodes (inner ring first).
    pub fn list(&self, graph: &Graph) -> Vec<(Option<NodeKind>, Vec<Slot>)> {
        let Some(p) = &self.picture else { return Vec::new() };
        let mut groups = vec![(None, vec![Slot::Centre])];
        for kind in NodeKind::ALL {
            let of_kind = |n: NodeId| graph.node(n).kind() == kind;
            let slots: Vec<Slot> = (0..p.inner.len())
                .filter(|&i| of_kind(p.inner[i]))
                .map(Slot::Inner)
                .chain((0..p.outer.len()).filter(|&i| of_kind(p.outer[i].node)).map(Slot::Outer))
                .collect();
            if !slots.is_empty() {
                groups.push((Some(kind), slots));
            }
        }
        groups
    }

    /// The slots keys move through, in order: the drawing's, or the list's.
    fn order(&self, graph: &Graph, canvas: Rect) -> Vec<Slot> {
        match self.layout(graph, canvas) {
            Some(l) => l.slots(),
            None => self.list(graph).into_iter().flat_map(|(_, s)| s).collect(),
        }
    }

    /// Keep the highlight on a node that is shown (a resize can drop outer nodes).
    pub fn clamp(&mut self, graph: &Graph, canvas: Rect) {
        if !self.order(graph, canvas).contains(&self.highlight) {
            self.highlight = Slot::Centre;
        }
    }

    /// Move the highlight with an arrow key: to the nearest node that way in the drawing, or
    /// to the previous or next item of the list (left and right act as up and down there).
    pub fn step(&mut self, graph: &Graph, canvas: Rect, direction: Direction) {
        match self.layout(graph, canvas) {
            Some(l) => {
                if let Some(to) = l.step(self.highlight, direction) {
                    self.highlight = to;
                }
            }
            None => {
                let delta = match direction {
                    Direction::Up | Direction::Left => -1,
                    Direction::Down | Direction::Right => 1,
                };
                self.cycle_within(graph, canvas, delta, false);
            }
        }
    }

    /// Move the highlight along the Tab order (wrapping around).
    pub fn cycle(&mut self, graph: &Graph, canvas: Rect, delta: isize) {
        self.cycle_within(graph, canvas, delta, true);
    }

    fn cycle_within(&mut self, graph: &Graph, canvas: Rect, delta: isize, wrap: bool) {
        let order = self.order(graph, canvas);
        if order.is_empty() {
            return;
        }
        let n = order.len() as isize;
        let here = order.iter().position(|s| *s == self.highlight).unwrap_or(0) as isize;
        let next = if wrap { (here + delta).rem_euclid(n) } else { (here + delta).clamp(0, n - 1) };
        self.highlight = order[next as usize];
    }

    /// Put the highlighted node in the middle (Enter). Returns false when it already is.
    pub fn recentre(&mut self, graph: &Graph) -> bool {
        let (Some(centre), Some(target)) = (self.centre(), self.highlighted()) else { return false };
        if centre == target {
            return false;
        }
        self.history.push(centre);
        self.picture = Some(graph.picture(target, MAX_INNER, MAX_OUTER));
        self.highlight = Slot::Centre;
        true
    }

    /// Go back to the previous centre (Backspace), highlighting the node that was left.
    /// Returns false at the start of the walk.
    pub fn back(&mut self, graph: &Graph) -> bool {
        let Some(previous) = self.history.pop() else { return false };
        let left = self.centre();
        self.picture = Some(graph.picture(previous, MAX_INNER, MAX_OUTER));
        self.highlight = Slot::Centre;
        if let (Some(left), Some(p)) = (left, &self.picture) {
            if let Some(i) = p.inner.iter().position(|&n| n == left) {
                self.highlight = Slot::Inner(i);
            } else if let Some(i) = p.outer.iter().position(|r| r.node == left) {
                self.highlight = Slot::Outer(i);
            }
        }
        true
    }

    /// The slot whose marker or label covers the cell (`x`, `y`) of `canvas`, for a click.
    pub fn slot_at(&self, graph: &Graph, canvas: Rect, x: u16, y: u16) -> Option<Slot> {
        let (cx, cy) = (x.checked_sub(canvas.x)?, y.checked_sub(canvas.y)?);
        let l = self.layout(graph, canvas)?;
        l.placed().find(|(_, p)| (p.x == cx && p.y == cy) || p.label.covers(cx, cy)).map(|(s, _)| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::tests::small;

    fn setup() -> (Graph, GraphView) {
        let graph = Graph::build(&small());
        let view = GraphView::start(&graph, Some(0));
        (graph, view)
    }

    const WIDE: Rect = Rect { x: 0, y: 0, width: 80, height: 20 };
    const TINY: Rect = Rect { x: 0, y: 0, width: 20, height: 5 };

    #[test]
    fn a_walk_goes_out_and_comes_back_to_where_it_was() {
        let (graph, mut view) = setup();
        let a = graph.case_node("a").unwrap();
        assert_eq!(view.centre(), Some(a));
        // a's values: Uneven work, GPU, NCCL, Hang; highlight NCCL and walk to it.
        view.highlight = Slot::Inner(2);
        assert!(view.recentre(&graph));
        let nccl = view.centre().unwrap();
        assert_eq!(graph.node(nccl).label, "NCCL");
        assert_eq!(view.highlight, Slot::Centre);
        assert!(!view.recentre(&graph), "the centre is already in the middle");
        // From NCCL to the other NCCL case, c.
        view.highlight = Slot::Inner(1);
        assert_eq!(graph.node(view.highlighted().unwrap()).key.to_string(), "c");
        view.recentre(&graph);
        assert!(view.back(&graph));
        assert_eq!(view.centre(), Some(nccl));
        assert_eq!(view.highlight, Slot::Inner(1), "back highlights the node that was left");
        assert!(view.back(&graph));
        assert_eq!((view.centre(), view.highlight), (Some(a), Slot::Inner(2)));
        assert!(!view.back(&graph), "the start of the walk");
    }

    #[test]
    fn keys_follow_the_drawing_or_the_list() {
        let (graph, mut view) = setup();
        assert!(view.layout(&graph, WIDE).is_some());
        view.step(&graph, WIDE, Direction::Right);
        assert!(matches!(view.highlight, Slot::Inner(_)), "{:?}", view.highlight);
        view.cycle(&graph, WIDE, -1);
        view.cycle(&graph, WIDE, -1);
        let slots = view.layout(&graph, WIDE).unwrap().slots();
        assert_eq!(view.highlight, slots[slots.len() - 1], "Tab wraps around");

        // Too small to draw: the list, centre first, then by kind.
        assert!(view.layout(&graph, TINY).is_none());
        let list = view.list(&graph);
        let kinds: Vec<Option<&str>> = list.iter().map(|(k, _)| k.map(NodeKind::label)).collect();
        assert_eq!(kinds, [None, Some("Root cause"), Some("Component"), Some("Symptom"), Some("Case")]);
        view.highlight = Slot::Centre;
        view.step(&graph, TINY, Direction::Up);
        assert_eq!(view.highlight, Slot::Centre, "the list does not wrap on arrows");
        view.step(&graph, TINY, Direction::Down);
        assert_eq!(view.highlight, list[1].1[0]);
    }

    #[test]
    fn a_hidden_highlight_falls_back_to_the_centre() {
        let (graph, mut view) = setup();
        view.highlight = Slot::Outer(99);
        view.clamp(&graph, WIDE);
        assert_eq!(view.highlight, Slot::Centre);
    }

    #[test]
    fn clicks_find_the_node_under_them() {
        let (graph, view) = setup();
        let canvas = Rect { x: 10, y: 5, ..WIDE };
        let l = view.layout(&graph, canvas).unwrap();
        let first = &l.inner[0];
        assert_eq!(view.slot_at(&graph, canvas, 10 + first.x, 5 + first.y), Some(Slot::Inner(0)));
        assert_eq!(view.slot_at(&graph, canvas, 10 + first.label.x, 5 + first.label.y), Some(Slot::Inner(0)));
        assert_eq!(view.slot_at(&graph, canvas, 0, 0), None);
    }
}
