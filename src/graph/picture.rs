//! What the drawn graph shows around a centre node, before any geometry: the inner ring (a
//! case's facet values, or a value's cases), the outer ring (the related nodes, best first) and
//! which outer node is joined to which inner node. [`super::layout`] places it; the TUI draws it.

use super::{Graph, NodeId, NodeKind, related::Related};

/// The most inner-ring nodes a picture shows (a case rarely has more values than this; a
/// value's cases beyond it are counted, not drawn).
pub const MAX_INNER: usize = 16;
/// The most outer-ring nodes a picture shows: about a dozen related nodes, best first.
pub const MAX_OUTER: usize = 12;

/// The nodes of one drawn neighbourhood.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    /// The node in the middle.
    pub centre: NodeId,
    /// The inner ring: for a case, its values (kind order, then name); for a value, its cases
    /// (library order, newest first).
    pub inner: Vec<NodeId>,
    /// Inner-ring nodes left out for room.
    pub inner_hidden: usize,
    /// The outer ring: related nodes, best first, each with what it shares.
    pub outer: Vec<Related>,
    /// For each outer node, the indices into `inner` of the nodes it is joined to, strongest
    /// first (for related cases the rarest shared value: the main reason they are related).
    pub links: Vec<Vec<usize>>,
}

impl Picture {
    /// Every node in the picture with its kind: the centre, the inner ring, the outer ring.
    pub fn nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::once(self.centre)
            .chain(self.inner.iter().copied())
            .chain(self.outer.iter().map(|r| r.node))
    }
}

impl Graph {
    /// The picture around `centre` with at most `max_inner` and `max_outer` nodes per ring.
    pub fn picture(&self, centre: NodeId, max_inner: usize, max_outer: usize) -> Picture {
        let all = self.neighbours(centre);
        let inner: Vec<NodeId> = all.iter().copied().take(max_inner).collect();
        let outer = self.related(centre, max_outer);
        // In the order of what they share: strongest (rarest, for cases) first.
        let links = outer
            .iter()
            .map(|r| r.shared.iter().filter_map(|s| inner.iter().position(|n| n == s)).collect())
            .collect();
        Picture { centre, inner_hidden: all.len() - inner.len(), inner, outer, links }
    }

    /// Whether `id` is a facet value (what `a` applies as a filter) rather than a case.
    pub fn is_facet(&self, id: NodeId) -> bool {
        self.node(id).kind() != NodeKind::Case
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Graph, tests::small};
    use crate::taxonomy::FacetKind;

    #[test]
    fn a_case_shows_its_values_inside_and_related_cases_outside() {
        let g = Graph::build(&small());
        let a = g.case_node("a").unwrap();
        let p = g.picture(a, 16, 12);
        let inner: Vec<&str> = p.inner.iter().map(|&n| g.node(n).label.as_str()).collect();
        assert_eq!(inner, ["Uneven work", "GPU", "NCCL", "Hang"]);
        let outer: Vec<String> = p.outer.iter().map(|r| g.node(r.node).key.to_string()).collect();
        assert_eq!(outer, ["c", "b", "d"]);
        // c shares NCCL, Hang and GPU (inner 2, 3, 1; GPU, on every case, last); b shares
        // Uneven work and GPU.
        assert_eq!(p.links, [vec![2, 3, 1], vec![0, 1], vec![1]]);
        assert_eq!(p.inner_hidden, 0);
        assert_eq!(p.nodes().count(), 8);
    }

    #[test]
    fn a_value_shows_its_cases_inside_and_co_occurring_values_outside() {
        let g = Graph::build(&small());
        let gpu = g.facet_node(FacetKind::Component, "GPU").unwrap();
        let p = g.picture(gpu, 3, 2);
        assert_eq!(p.inner.len(), 3);
        assert_eq!(p.inner_hidden, 1, "four cases have GPU; three are drawn");
        assert_eq!(p.outer.len(), 2);
        assert!(p.outer.iter().all(|r| g.is_facet(r.node)));
        assert!(p.links.iter().all(|l| !l.is_empty()));
    }
}
