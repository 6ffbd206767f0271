//! Related nodes, ranked, with the reason.
//!
//! For a case: the other cases that share facet values with it, scored by the sum of the
//! shared values' rarity weights ([`Graph::weight`], IDF-like), so two cases that share
//! "Uneven work across ranks" are closer than two that share "GPU". The shared values are the
//! explanation, rarest first.
//!
//! For a facet value: the other values that occur on the same cases, scored by the number of
//! cases they share times their own rarity weight (so "GPU", on everything, does not crowd out
//! what is specific), with the shared cases as the explanation.
//!
//! Order is total and deterministic: score, then number shared, then key (case id or value).

use super::{Graph, NodeId, NodeKind};

/// A node related to the one asked about.
#[derive(Debug, Clone, PartialEq)]
pub struct Related {
    /// The related node (a case for a case, a value for a value).
    pub node: NodeId,
    /// How related: higher is closer.
    pub score: f64,
    /// What they share: for cases the shared values (rarest first, then kind and name); for
    /// values the shared cases (library order).
    pub shared: Vec<NodeId>,
}

impl Related {
    /// The reason in words: the shared values with their kinds (`Uneven work across ranks (root
    /// cause), NCCL (component)`), or for values the number of shared cases (`on 3 cases`).
    pub fn reason(&self, graph: &Graph) -> String {
        match graph.node(self.node).kind() {
            NodeKind::Case => self
                .shared
                .iter()
                .map(|&v| {
                    let node = graph.node(v);
                    format!("{} ({})", node.label, node.kind().label().to_lowercase())
                })
                .collect::<Vec<_>>()
                .join(", "),
            NodeKind::Facet(_) => match self.shared.len() {
                1 => "on 1 case".to_string(),
                n => format!("on {n} cases"),
            },
        }
    }
}

impl Graph {
    /// The `limit` nodes most related to `id`, best first (see the module docs).
    pub fn related(&self, id: NodeId, limit: usize) -> Vec<Related> {
        let mut score = vec![0.0f64; self.len()];
        let mut shared: Vec<Vec<NodeId>> = vec![Vec::new(); self.len()];
        let mut touched: Vec<NodeId> = Vec::new();
        let is_case = self.node(id).kind() == NodeKind::Case;
        for &middle in self.neighbours(id) {
            for &other in self.neighbours(middle) {
                if other == id {
                    continue;
                }
                if shared[other.index()].is_empty() {
                    touched.push(other);
                }
                // Summed in the centre's neighbour order, so equal sets give bit-equal scores.
                score[other.index()] += if is_case { self.weight(middle) } else { 1.0 };
                shared[other.index()].push(middle);
            }
        }
        let mut related: Vec<Related> = touched
            .into_iter()
            .map(|node| {
                let mut via = std::mem::take(&mut shared[node.index()]);
                let s = if is_case { score[node.index()] } else { score[node.index()] * self.weight(node) };
                if is_case {
                    via.sort_by(|a, b| {
                        self.weight(*b)
                            .total_cmp(&self.weight(*a))
                            .then_with(|| self.node(*a).kind().cmp(&self.node(*b).kind()))
                            .then_with(|| self.node(*a).label.cmp(&self.node(*b).label))
                    });
                }
                Related { node, score: s, shared: via }
            })
            .collect();
        related.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| b.shared.len().cmp(&a.shared.len()))
                .then_with(|| self.node(a.node).key.cmp(&self.node(b.node).key))
        });
        related.truncate(limit);
        related
    }
}

#[cfg(test)]
mod tests {
    use super::super::{
        Graph,
        tests::{case, small},
    };
    use crate::taxonomy::FacetKind::{Component as C, RootCause as R, Symptom as S};

    fn ranked(g: &Graph, id: &str) -> Vec<(String, Vec<String>)> {
        g.related(g.case_node(id).unwrap(), 10)
            .iter()
            .map(|r| {
                (g.node(r.node).key.to_string(), r.shared.iter().map(|&v| g.node(v).label.clone()).collect())
            })
            .collect()
    }

    #[test]
    fn a_rare_shared_value_outranks_several_common_ones() {
        // x shares one rare value with `rare`, and two common ones with `common`.
        let mut cases = vec![
            case("x", &[(R, "Rare"), (C, "GPU"), (S, "Hang")]),
            case("rare", &[(R, "Rare")]),
            case("common", &[(C, "GPU"), (S, "Hang")]),
        ];
        for i in 0..20 {
            cases.push(case(&format!("filler-{i:02}"), &[(C, "GPU"), (S, "Hang")]));
        }
        let g = Graph::build(&cases);
        let top = ranked(&g, "x");
        assert_eq!(top[0], ("rare".to_string(), vec!["Rare".to_string()]));
        assert_eq!(top[1].0, "common", "ties among equal sets go by id");
        assert_eq!(top[1].1, ["GPU", "Hang"], "equal weights: kind order");
    }

    #[test]
    fn ranking_and_explanation_on_the_small_library() {
        let g = Graph::build(&small());
        assert_eq!(
            ranked(&g, "a"),
            [
                ("c".to_string(), vec!["NCCL".to_string(), "Hang".to_string(), "GPU".to_string()]),
                ("b".to_string(), vec!["Uneven work".to_string(), "GPU".to_string()]),
                ("d".to_string(), vec!["GPU".to_string()]),
            ]
        );
        let r = &g.related(g.case_node("a").unwrap(), 1)[0];
        assert_eq!(r.reason(&g), "NCCL (component), Hang (symptom), GPU (component)");
        let scores: Vec<f64> = g.related(g.case_node("a").unwrap(), 10).iter().map(|r| r.score).collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    }

    #[test]
    fn a_case_sharing_nothing_is_not_related() {
        let g = Graph::build(&[case("a", &[(C, "GPU")]), case("b", &[(C, "DNS")])]);
        assert!(g.related(g.case_node("a").unwrap(), 5).is_empty());
    }

    #[test]
    fn values_relate_through_shared_cases_weighted_by_rarity() {
        let g = Graph::build(&small());
        let hang = g.facet_node(S, "Hang").unwrap();
        let related = g.related(hang, 10);
        let names: Vec<&str> = related.iter().map(|r| g.node(r.node).label.as_str()).collect();
        // NCCL is on both Hang cases (a, c) and rare; GPU is on both but on every case.
        assert_eq!(names[0], "NCCL");
        assert!(names.iter().position(|n| *n == "NCCL") < names.iter().position(|n| *n == "GPU"));
        assert_eq!(related[0].reason(&g), "on 2 cases");
        assert!(related.iter().all(|r| g.node(r.node).kind() != super::super::NodeKind::Case));
    }

    #[test]
    fn the_limit_cuts_after_ranking() {
        let g = Graph::build(&small());
        let a = g.case_node("a").unwrap();
        assert_eq!(g.related(a, 2), g.related(a, 10)[..2].to_vec());
        assert!(g.related(a, 0).is_empty());
    }
}
