//! The graph pane's side of [`App`]: following the selected case, the keys that walk the
//! graph (move the highlight, recentre, go back, apply a value, open a case), clicks on nodes,
//! and the related cases the case pane lists.
//!
//! The walk follows the list: a new selected case starts a new walk, except while someone is
//! out walking in the graph pane (then new results, say after `a` applied a filter, leave the
//! walk where it is). The picture is computed only when the graph pane is shown.

use std::sync::OnceLock;

use ratatui::layout::Rect;

use super::{App, Effect, Focus, Note, RightPane};
use crate::{
    corpus::Library,
    graph::{Graph, NodeKey, NodeKind, layout::Direction},
    tui::{doc::RelatedCase, graph_view::GraphView, keymap::Action},
};

/// The graph in `cell`, built from `library` the first time (a free function so that the graph
/// and the walk, two fields of [`App`], can be borrowed at once).
fn graph_of<'a>(cell: &'a OnceLock<Graph>, library: &Library) -> &'a Graph {
    cell.get_or_init(|| Graph::build(&library.cases))
}

/// Narrower than this, the graph pane has the whole width (the case list's room too) while it
/// has the focus: at 80 columns the drawing gets 78 instead of 42, room for whole labels.
pub const GRAPH_ALONE_BELOW: u16 = 120;

impl App {
    /// Whether the graph pane fills the width of the screen (see `GRAPH_ALONE_BELOW`).
    pub fn graph_alone(&self) -> bool {
        self.right == RightPane::Graph
            && self.focus == Focus::Detail
            && self.layout().is_some_and(|l| !l.narrow && l.screen.width < GRAPH_ALONE_BELOW)
    }

    /// Where the graph pane goes (with its border), when the screen has a layout.
    pub fn graph_area(&self) -> Option<Rect> {
        let l = self.layout()?;
        Some(if self.graph_alone() { l.list.union(l.right) } else { l.right })
    }

    /// The graph pane's drawing area (inside its border, above its footer).
    pub fn graph_canvas(&self) -> Option<Rect> {
        self.graph_area().map(|a| GraphView::canvas(crate::tui::layout::inner(a)))
    }

    /// Start a new walk when the selected case changed (see the module docs), compute the
    /// picture when the pane is shown, and keep the highlight on a node that is drawn.
    pub(super) fn sync_graph_view(&mut self) {
        let selected = self.selected_index();
        let walking = self.focus == Focus::Detail && !self.graph_view.history.is_empty();
        if selected != self.graph_view.origin && !walking {
            self.graph_view = GraphView { origin: selected, ..GraphView::default() };
        }
        if self.right != RightPane::Graph {
            return;
        }
        let graph = graph_of(&self.graph, &self.library);
        if self.graph_view.picture.is_none() && selected.is_some() {
            self.graph_view = GraphView::start(graph, selected);
        }
        if let Some(canvas) = self.graph_canvas() {
            self.graph_view.clamp(graph, canvas);
        }
    }

    /// The cases most related to case `index`, for the case pane.
    pub(super) fn related_cases(&self, index: usize) -> Vec<RelatedCase> {
        // A large library's graph is being built apart: the related cases come with it.
        let graph = match self.graph.get() {
            Some(graph) => graph,
            None if super::graph_built_apart(&self.library) => return Vec::new(),
            None => self.graph(),
        };
        let Some(node) = graph.case_at(index) else { return Vec::new() };
        graph
            .related(node, super::RELATED_IN_CASE_PANE)
            .into_iter()
            .map(|r| {
                let case = graph.node(r.node);
                RelatedCase {
                    id: case.key.to_string(),
                    title: case.label.clone(),
                    shared: r.shared.iter().map(|&v| graph.node(v).label.clone()).collect(),
                }
            })
            .collect()
    }

    /// Handle a key in the graph pane; `None` leaves it to the keys every pane shares.
    pub(super) fn graph_action(&mut self, action: Action) -> Option<Vec<Effect>> {
        let canvas = self.graph_canvas()?;
        let graph = graph_of(&self.graph, &self.library);
        let view = &mut self.graph_view;
        // The pane may have changed size since the last key (focus, resize).
        view.clamp(graph, canvas);
        match action {
            Action::Up => view.step(graph, canvas, Direction::Up),
            Action::Down => view.step(graph, canvas, Direction::Down),
            Action::Left => view.step(graph, canvas, Direction::Left),
            Action::Right => view.step(graph, canvas, Direction::Right),
            Action::NextNode => view.cycle(graph, canvas, 1),
            Action::PrevNode => view.cycle(graph, canvas, -1),
            Action::Open => {
                if !view.recentre(graph) {
                    self.note = Some(Note {
                        text: "move the highlight to another node (arrows, Tab), then Enter walks to it"
                            .into(),
                        error: false,
                    });
                }
            }
            Action::WalkBack => {
                if !view.back(graph) {
                    self.note = Some(Note { text: "this is where the walk started".into(), error: false });
                }
            }
            // These change the case pane, the filters or the note: each is a new frame too.
            Action::ApplyNode | Action::Negate | Action::OpenCase => {
                self.dirty = true;
                return Some(match action {
                    Action::OpenCase => self.open_node(),
                    _ => self.apply_node(action == Action::Negate),
                });
            }
            Action::PageUp | Action::PageDown | Action::Top | Action::Bottom => {}
            _ => return None,
        }
        self.dirty = true;
        Some(Vec::new())
    }

    /// Apply the highlighted facet value as a filter (`a`), or exclude it (`-`).
    pub(super) fn apply_node(&mut self, negated: bool) -> Vec<Effect> {
        let graph = graph_of(&self.graph, &self.library);
        match self.graph_view.highlighted().map(|n| graph.node(n).key.clone()) {
            Some(NodeKey::Facet(kind, value)) => self.apply(kind, &value, negated),
            Some(NodeKey::Case(_)) => {
                self.note = Some(Note {
                    text: "a case is not a filter: o opens it, Enter walks to it".into(),
                    error: false,
                });
                Vec::new()
            }
            None => Vec::new(),
        }
    }

    /// Show the highlighted case in the case pane (`o`), the list selection left as it is.
    fn open_node(&mut self) -> Vec<Effect> {
        let graph = graph_of(&self.graph, &self.library);
        let Some(node) = self.graph_view.highlighted().map(|n| graph.node(n)) else { return Vec::new() };
        let (Some(index), NodeKey::Case(id)) = (node.case_index, &node.key) else {
            let kind = node.kind();
            self.note = Some(Note {
                text: format!(
                    "{} is a {}: a applies it as a filter",
                    node.label,
                    kind.label().to_lowercase()
                ),
                error: false,
            });
            return Vec::new();
        };
        self.note =
            Some(Note { text: format!("opened {id} (Esc, then j or k: back to the list)"), error: false });
        self.opened = Some(index);
        self.right = RightPane::Case;
        self.focus = Focus::Detail;
        self.sync_case_view();
        Vec::new()
    }

    /// Highlight the node under a click in the graph pane.
    pub(super) fn click_node(&mut self, x: u16, y: u16) {
        let Some(canvas) = self.graph_canvas() else { return };
        let graph = graph_of(&self.graph, &self.library);
        if let Some(slot) = self.graph_view.slot_at(graph, canvas, x, y) {
            self.graph_view.highlight = slot;
        }
    }

    /// What the highlighted graph node is, for the pane's footer: its kind and label.
    pub fn highlighted_node(&self) -> Option<(NodeKind, &str)> {
        let graph = self.graph.get()?;
        self.graph_view.highlighted().map(|n| {
            let node = graph.node(n);
            (node.kind(), node.label.as_str())
        })
    }
}
