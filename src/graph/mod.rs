//! The graph of cases and facet values: every case links to each of its facet values.
//!
//! This module owns the graph's shape ([`Graph`], built once from the loaded cases), its node
//! kinds and stable keys, and the rarity weight of a value. Walking it lives beside it:
//! [`neighbourhood`] (what lies within *k* hops), [`related`] (cases ranked by the rare values
//! they share, with the shared values as the reason), [`picture`] (what the drawn pane shows),
//! [`layout`] (where the drawn pane puts it, in terminal cells), [`resolve`] (what someone typed
//! to a node) and [`format`](mod@format) (text, Graphviz, Mermaid and JSON output).
//!
//! Invariants: the graph is bipartite (edges join a case and a facet value, never two of a kind);
//! node ids are dense and their order is deterministic (cases in library order, then values by
//! kind and name); every adjacency list is sorted by node id. Nothing here touches a terminal.

pub mod format;
pub mod layout;
pub mod neighbourhood;
pub mod picture;
pub mod related;
pub mod resolve;

use std::{collections::HashMap, fmt};

use crate::corpus::Case;
use crate::taxonomy::FacetKind;

/// A node's position in its [`Graph`]: dense, valid only for the graph that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(u32);

impl NodeId {
    /// The index into the graph's node list.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What a node stands for: a case, or a value of one facet kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeKind {
    /// A facet value of this kind.
    Facet(FacetKind),
    /// An incident report.
    Case,
}

impl NodeKind {
    /// Every kind, in legend order: the four facet kinds in the seed page's order, then Case.
    pub const ALL: [NodeKind; 5] = [
        NodeKind::Facet(FacetKind::RootCause),
        NodeKind::Facet(FacetKind::Component),
        NodeKind::Facet(FacetKind::Symptom),
        NodeKind::Facet(FacetKind::ContributingFactor),
        NodeKind::Case,
    ];

    /// The machine name: `case` or the facet kind's key (`root_cause`, `component`, ...).
    pub fn key(self) -> &'static str {
        match self {
            NodeKind::Facet(kind) => kind.key(),
            NodeKind::Case => "case",
        }
    }

    /// The legend's label: `Case` or the facet kind's label (`Root cause`, ...).
    pub fn label(self) -> &'static str {
        match self {
            NodeKind::Facet(kind) => kind.label(),
            NodeKind::Case => "Case",
        }
    }
}

impl serde::Serialize for NodeKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.key())
    }
}

/// A node's identity independent of any one graph: a case id, or a facet kind and value name.
///
/// It prints as the form the command line takes: the case id, or `kind:value`
/// (`component:NCCL`). Case ids never contain `:`, so the two forms cannot be confused.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeKey {
    /// The case with this id.
    Case(String),
    /// The value with this canonical name.
    Facet(FacetKind, String),
}

impl NodeKey {
    /// The node's kind.
    pub fn kind(&self) -> NodeKind {
        match self {
            NodeKey::Case(_) => NodeKind::Case,
            NodeKey::Facet(kind, _) => NodeKind::Facet(*kind),
        }
    }
}

impl fmt::Display for NodeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeKey::Case(id) => f.write_str(id),
            NodeKey::Facet(kind, value) => write!(f, "{}:{value}", kind.key()),
        }
    }
}

/// One node.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Its identity.
    pub key: NodeKey,
    /// What a person reads: the case's title, or the value's name.
    pub label: String,
    /// For a case, its position in the slice the graph was built from.
    pub case_index: Option<usize>,
}

impl Node {
    /// The node's kind.
    pub fn kind(&self) -> NodeKind {
        self.key.kind()
    }
}

/// The case <-> facet-value graph of one library.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    nodes: Vec<Node>,
    adjacency: Vec<Vec<NodeId>>,
    index: HashMap<NodeKey, NodeId>,
    cases: usize,
}

impl Graph {
    /// Build the graph of `cases` (in the order given, which should be the library's).
    ///
    /// Every value a case is tagged with becomes a node, taxonomy or not, so user cases with
    /// values of their own are walkable too. A value listed twice in one case links once.
    pub fn build(cases: &[Case]) -> Graph {
        let mut graph = Graph { cases: cases.len(), ..Graph::default() };
        for (i, case) in cases.iter().enumerate() {
            graph.push(Node {
                key: NodeKey::Case(case.id.clone()),
                label: case.title.clone(),
                case_index: Some(i),
            });
        }
        // The distinct values (a few hundred, however many cases), sorted, then one lookup
        // table from borrowed names so linking allocates nothing per edge.
        let distinct: std::collections::HashSet<(FacetKind, &str)> =
            cases.iter().flat_map(|c| c.facets.iter()).collect();
        let mut values: Vec<(FacetKind, &str)> = distinct.into_iter().collect();
        values.sort_unstable();
        let mut value_ids: HashMap<(FacetKind, &str), NodeId> = HashMap::with_capacity(values.len());
        for (kind, value) in values {
            value_ids.insert((kind, value), NodeId(graph.nodes.len() as u32));
            graph.push(Node {
                key: NodeKey::Facet(kind, value.to_string()),
                label: value.to_string(),
                case_index: None,
            });
        }
        graph.adjacency = vec![Vec::new(); graph.nodes.len()];
        for (i, case) in cases.iter().enumerate() {
            let case_id = NodeId(i as u32);
            for (kind, value) in case.facets.iter() {
                let Some(&value_id) = value_ids.get(&(kind, value)) else { continue };
                graph.adjacency[case_id.index()].push(value_id);
                graph.adjacency[value_id.index()].push(case_id);
            }
        }
        for list in &mut graph.adjacency {
            list.sort_unstable();
            list.dedup();
        }
        graph
    }

    fn push(&mut self, node: Node) {
        let id = NodeId(self.nodes.len() as u32);
        // The first case with an id wins, as in the loader; the loader never lets two through.
        self.index.entry(node.key.clone()).or_insert(id);
        self.nodes.push(node);
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when there is no node (no cases).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Number of case nodes.
    pub fn case_count(&self) -> usize {
        self.cases
    }

    /// Every node id, in order.
    pub fn ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    /// The node `id` stands for.
    ///
    /// # Panics
    /// When `id` comes from another graph and is out of range; ids are never typed by a person.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The node of the case at `index` of the slice the graph was built from.
    pub fn case_at(&self, index: usize) -> Option<NodeId> {
        (index < self.cases).then_some(NodeId(index as u32))
    }

    /// The node with this key.
    pub fn find(&self, key: &NodeKey) -> Option<NodeId> {
        self.index.get(key).copied()
    }

    /// The case node with this id.
    pub fn case_node(&self, id: &str) -> Option<NodeId> {
        self.find(&NodeKey::Case(id.to_string()))
    }

    /// The value node of `kind` with exactly this name.
    pub fn facet_node(&self, kind: FacetKind, value: &str) -> Option<NodeId> {
        self.find(&NodeKey::Facet(kind, value.to_string()))
    }

    /// The nodes joined to `id`, in id order (for a value: its cases in library order; for a
    /// case: its values by kind and name).
    pub fn neighbours(&self, id: NodeId) -> &[NodeId] {
        &self.adjacency[id.index()]
    }

    /// The rarity weight of a value node: `ln(1 + N / n)` for a value tagged on `n` of the
    /// library's `N` cases. A value on every case still weighs `ln 2`, so sharing it counts a
    /// little; a value on one case in 250 weighs about 5.5. Case nodes weigh 0.
    pub fn weight(&self, id: NodeId) -> f64 {
        if self.node(id).case_index.is_some() {
            return 0.0;
        }
        let n = self.neighbours(id).len().max(1) as f64;
        (1.0 + self.cases as f64 / n).ln()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::corpus::Case;

    pub(crate) use crate::corpus::model::test_case as case;

    use FacetKind::{Component as C, ContributingFactor as F, RootCause as R, Symptom as S};

    /// Four cases: `a` and `b` share the rare root cause; everyone has GPU.
    pub(crate) fn small() -> Vec<Case> {
        vec![
            case("a", &[(R, "Uneven work"), (C, "GPU"), (C, "NCCL"), (S, "Hang")]),
            case("b", &[(R, "Uneven work"), (C, "GPU"), (S, "Crash")]),
            case("c", &[(R, "Hardware fault"), (C, "GPU"), (C, "NCCL"), (S, "Hang"), (F, "No preflight")]),
            case("d", &[(R, "Hardware fault"), (C, "GPU"), (S, "Crash"), (S, "Crash")]),
        ]
    }

    #[test]
    fn every_case_links_to_each_of_its_values_once() {
        let g = Graph::build(&small());
        assert_eq!(g.case_count(), 4);
        // 4 cases + values: Uneven work, Hardware fault, GPU, NCCL, Hang, Crash, No preflight.
        assert_eq!(g.len(), 11);
        let d = g.case_node("d").unwrap();
        let labels: Vec<&str> = g.neighbours(d).iter().map(|&n| g.node(n).label.as_str()).collect();
        assert_eq!(labels, ["Hardware fault", "GPU", "Crash"], "kind order, then name; Crash once");
        let gpu = g.facet_node(C, "GPU").unwrap();
        let cases: Vec<String> = g.neighbours(gpu).iter().map(|&n| g.node(n).key.to_string()).collect();
        assert_eq!(cases, ["a", "b", "c", "d"]);
    }

    #[test]
    fn the_graph_is_bipartite() {
        let g = Graph::build(&small());
        for id in g.ids() {
            for &n in g.neighbours(id) {
                assert_ne!(g.node(id).kind() == NodeKind::Case, g.node(n).kind() == NodeKind::Case);
                assert!(g.neighbours(n).contains(&id), "edges go both ways");
            }
        }
    }

    #[test]
    fn rarer_values_weigh_more() {
        let g = Graph::build(&small());
        let w = |kind, v| g.weight(g.facet_node(kind, v).unwrap());
        assert!(w(F, "No preflight") > w(R, "Uneven work"));
        assert!(w(R, "Uneven work") > w(C, "GPU"));
        assert!((w(C, "GPU") - 2f64.ln()).abs() < 1e-12, "a value on every case weighs ln 2");
        assert_eq!(g.weight(g.case_node("a").unwrap()), 0.0);
    }

    #[test]
    fn keys_print_as_the_command_line_takes_them() {
        assert_eq!(NodeKey::Case("2024-x".into()).to_string(), "2024-x");
        assert_eq!(NodeKey::Facet(R, "Uneven work".into()).to_string(), "root_cause:Uneven work");
        assert_eq!(
            NodeKind::ALL.map(NodeKind::label).join(", "),
            "Root cause, Component, Symptom, Contributing factor, Case"
        );
    }
}
