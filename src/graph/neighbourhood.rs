//! Neighbourhoods: a node and everything within *k* hops of it, with the edges among them.
//!
//! A breadth-first walk; the result is the induced subgraph of the ball (in a bipartite graph
//! that is every edge the walk could have crossed). Order is deterministic: nodes by distance,
//! then kind (legend order), then label and key; edges by (case, value) in that node order.

use std::collections::VecDeque;

use super::{Graph, NodeId};

/// A node and what lies within `depth` hops of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbourhood {
    /// The node it is the neighbourhood of.
    pub centre: NodeId,
    /// The number of hops asked for.
    pub depth: usize,
    /// Every node within `depth` hops, with its distance; the centre first (distance 0).
    pub nodes: Vec<(NodeId, usize)>,
    /// Every edge between two of those nodes, as (case, value).
    pub edges: Vec<(NodeId, NodeId)>,
}

impl Neighbourhood {
    /// The distance of `id` from the centre, when it is in the neighbourhood.
    pub fn distance(&self, id: NodeId) -> Option<usize> {
        self.nodes.iter().find(|(n, _)| *n == id).map(|(_, d)| *d)
    }
}

impl Graph {
    /// The neighbourhood of `centre` to `depth` hops (0: the centre alone).
    pub fn neighbourhood(&self, centre: NodeId, depth: usize) -> Neighbourhood {
        let mut distance: Vec<Option<usize>> = vec![None; self.len()];
        distance[centre.index()] = Some(0);
        let mut queue = VecDeque::from([centre]);
        let mut reached = vec![centre];
        while let Some(id) = queue.pop_front() {
            let d = distance[id.index()].unwrap_or(0);
            if d == depth {
                continue;
            }
            for &n in self.neighbours(id) {
                if distance[n.index()].is_none() {
                    distance[n.index()] = Some(d + 1);
                    reached.push(n);
                    queue.push_back(n);
                }
            }
        }
        let mut nodes: Vec<(NodeId, usize)> =
            reached.iter().map(|&id| (id, distance[id.index()].unwrap_or(0))).collect();
        nodes.sort_by(|(a, da), (b, db)| {
            let (na, nb) = (self.node(*a), self.node(*b));
            da.cmp(db)
                .then_with(|| na.kind().cmp(&nb.kind()))
                // Cases keep library order (newest first); values go by name.
                .then_with(|| match (na.case_index, nb.case_index) {
                    (Some(x), Some(y)) => x.cmp(&y),
                    _ => na.label.cmp(&nb.label),
                })
                .then_with(|| na.key.cmp(&nb.key))
        });
        let rank: std::collections::HashMap<NodeId, usize> =
            nodes.iter().enumerate().map(|(i, (id, _))| (*id, i)).collect();
        let mut edges: Vec<(NodeId, NodeId)> = Vec::new();
        for &(id, _) in &nodes {
            if self.node(id).case_index.is_none() {
                continue;
            }
            for &value in self.neighbours(id) {
                if rank.contains_key(&value) {
                    edges.push((id, value));
                }
            }
        }
        edges.sort_by_key(|(c, v)| (rank[c], rank[v]));
        Neighbourhood { centre, depth, nodes, edges }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Graph, NodeKey, tests::small};
    use crate::taxonomy::FacetKind;

    fn keys(g: &Graph, n: &super::Neighbourhood) -> Vec<(String, usize)> {
        n.nodes.iter().map(|(id, d)| (g.node(*id).key.to_string(), *d)).collect()
    }

    #[test]
    fn depths_zero_one_and_two() {
        let g = Graph::build(&small());
        let b = g.case_node("b").unwrap();
        for (depth, want) in [
            (0, vec![("b", 0)]),
            (1, vec![("b", 0), ("root_cause:Uneven work", 1), ("component:GPU", 1), ("symptom:Crash", 1)]),
            (
                2,
                vec![
                    ("b", 0),
                    ("root_cause:Uneven work", 1),
                    ("component:GPU", 1),
                    ("symptom:Crash", 1),
                    ("a", 2),
                    ("c", 2),
                    ("d", 2),
                ],
            ),
        ] {
            let n = g.neighbourhood(b, depth);
            let want: Vec<(String, usize)> = want.into_iter().map(|(k, d)| (k.to_string(), d)).collect();
            assert_eq!(keys(&g, &n), want, "depth {depth}");
        }
    }

    #[test]
    fn edges_are_the_induced_subgraph() {
        let g = Graph::build(&small());
        let hang = g.facet_node(FacetKind::Symptom, "Hang").unwrap();
        let n = g.neighbourhood(hang, 1);
        let edges: Vec<(String, String)> =
            n.edges.iter().map(|(c, v)| (g.node(*c).key.to_string(), g.node(*v).key.to_string())).collect();
        assert_eq!(edges, [("a".into(), "symptom:Hang".into()), ("c".into(), "symptom:Hang".into())]);
        // At depth 2 the cases' other values join, with every edge between nodes in the ball.
        let n = g.neighbourhood(hang, 2);
        for (c, v) in &n.edges {
            assert!(n.distance(*c).is_some() && n.distance(*v).is_some());
            assert!(g.neighbours(*c).contains(v));
        }
        let expected: usize = ["a", "c"].iter().map(|id| g.neighbours(g.case_node(id).unwrap()).len()).sum();
        assert_eq!(n.edges.len(), expected);
        assert_eq!(
            n.distance(g.find(&NodeKey::Facet(FacetKind::RootCause, "Uneven work".into())).unwrap()),
            Some(2)
        );
    }

    #[test]
    fn a_deep_walk_reaches_the_whole_component_and_stops() {
        let g = Graph::build(&small());
        let n = g.neighbourhood(g.case_node("a").unwrap(), 50);
        assert_eq!(n.nodes.len(), g.len(), "the small graph is connected through GPU");
        assert_eq!(n.nodes.iter().map(|(_, d)| *d).max(), Some(3), "a - GPU - d - Crash");
    }
}
