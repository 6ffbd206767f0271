//! What applying each facet value to a search would leave, with it and excluding it: the counts
//! the terminal UI's facet picker shows beside every value (issue 29, item 2).
//!
//! Each count is exactly the `total` that [`Engine::search`] reports once the value is applied
//! to the request's filters. A filter narrows the allowed cases without changing any case's
//! score, so with a sentence applying a value keeps the cases of the narrowed set that score at
//! least [`STRONG_SHARE`] of the best among *them* (the best can fall, and weaker matches then
//! become real ones: the same rule as the suggestions' counts); with no sentence, or when the
//! weaker matches are listed too, it is the plain intersection with the results. Two kinds of
//! value are not counted on the search as it stands: one the query's inline syntax names (the
//! inline clause wins when filters are merged, so applying it either way changes nothing), and
//! one applied already (applying it the other way lifts its condition, so it is counted on a
//! search without it).
//!
//! The work is one search that keeps every scored case (`all`, no limit), then set arithmetic
//! per value, O(cases · log cases + the sum of the values' case counts), plus one search per
//! applied value. It is meant to run on the search worker when the picker asks, never on a
//! keystroke. Only [`Engine`]'s public calls are used, so the engine's internals can change
//! freely; `tests/picker_counts.rs` holds the counts equal to the engine's totals.

use super::{Engine, Request, Response, STRONG_SHARE};
use crate::{corpus::filter::Filters, search::caseset::CaseSet, taxonomy::FacetKind};

/// What applying one value would leave.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Leaves {
    /// Cases left with the value applied (they must have it).
    pub with: usize,
    /// Cases left with the value excluded (they must not have it).
    pub without: usize,
}

/// One facet value and what applying it would leave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueLeaves {
    /// The value's kind.
    pub kind: FacetKind,
    /// The value's canonical name.
    pub value: String,
    /// What applying it, or excluding it, would leave.
    pub leaves: Leaves,
}

impl Engine {
    /// For every facet value of the library (in the catalog's order), what applying it to
    /// `request`, or excluding it, would leave: each exactly the `total` of [`Engine::search`]
    /// with the value set on `request.filters` (see the module docs). The request's `offset`
    /// and `limit` do not matter.
    pub fn facet_leaves(&self, request: &Request<'_>) -> Vec<ValueLeaves> {
        let cases = self.library().cases.len();
        let every = |filters: &Filters| {
            self.search(&Request { filters, offset: 0, limit: usize::MAX, all: true, ..request.clone() })
        };
        let base_response = every(request.filters);
        let base = Scored::new(&base_response, cases, !request.all);
        let total = base.total();
        let names = |filters: &Filters, kind: FacetKind, value: &str| {
            filters.facets.iter().any(|f| f.kind == kind && f.value == value)
        };
        self.catalog()
            .values()
            .iter()
            .map(|v| {
                let leaves = if names(&base_response.inline, v.kind, &v.name) {
                    Leaves { with: total, without: total }
                } else if names(request.filters, v.kind, &v.name) {
                    let mut lifted = request.filters.clone();
                    lifted.remove_facet(v.kind, &v.name);
                    Scored::new(&every(&lifted), cases, !request.all).leaves(&v.cases)
                } else {
                    base.leaves(&v.cases)
                };
                ValueLeaves { kind: v.kind, value: v.name.clone(), leaves }
            })
            .collect()
    }
}

/// Every case a search matched at all, with its score, to count subsets of.
struct Scored {
    /// Per case of the library: its score, when the search matched it.
    score: Vec<Option<f32>>,
    /// The matched cases and their scores, best first.
    best_first: Vec<(usize, f32)>,
    /// Whether only the real matches count (a ranked search that does not list the weaker ones).
    strong_only: bool,
    /// Whether no case really matches, whatever is applied (the words matched nothing well:
    /// `Response::poor`).
    none_strong: bool,
}

impl Scored {
    /// The matches of `every` (a search with `all` and no limit, so every scored case, best
    /// first) over a library of `cases`; `strong_only` when the search counted stands for one
    /// that lists only the real matches.
    fn new(every: &Response, cases: usize, strong_only: bool) -> Scored {
        let mut score = vec![None; cases];
        let best_first: Vec<(usize, f32)> =
            every.hits.iter().map(|h| (h.index, h.score.unwrap_or(0.0))).collect();
        for &(i, s) in &best_first {
            if let Some(slot) = score.get_mut(i) {
                *slot = Some(s);
            }
        }
        let strong_only = strong_only && every.ranked;
        Scored { score, best_first, strong_only, none_strong: strong_only && every.poor }
    }

    /// The cases at least [`STRONG_SHARE`] of `best` (`best` as the engine takes it: at least 0).
    fn threshold(best: f32) -> f32 {
        STRONG_SHARE * best.max(0.0)
    }

    /// What the search itself reports as its total.
    fn total(&self) -> usize {
        if self.none_strong {
            return 0;
        }
        if !self.strong_only {
            return self.best_first.len();
        }
        let t = Scored::threshold(self.best_first.first().map_or(0.0, |r| r.1));
        self.best_first.partition_point(|r| r.1 >= t)
    }

    /// What narrowing the search to the cases of `with`, or to the others, would leave.
    fn leaves(&self, with: &CaseSet) -> Leaves {
        if self.none_strong {
            return Leaves::default();
        }
        let members = || with.iter().filter_map(|i| self.score.get(i).copied().flatten());
        let (matched, best_with) = members().fold((0, 0.0f32), |(n, best), s| (n + 1, best.max(s)));
        if !self.strong_only {
            return Leaves { with: matched, without: self.best_first.len() - matched };
        }
        let with_threshold = Scored::threshold(best_with);
        // Best first: the first case without the value is the best of them.
        let best_without = self.best_first.iter().find(|r| !with.contains(r.0)).map_or(0.0, |r| r.1);
        let without_threshold = Scored::threshold(best_without);
        let (mut strong_with, mut with_above_without_threshold) = (0, 0);
        for s in members() {
            strong_with += usize::from(s >= with_threshold);
            with_above_without_threshold += usize::from(s >= without_threshold);
        }
        let above_without_threshold = self.best_first.partition_point(|r| r.1 >= without_threshold);
        Leaves { with: strong_with, without: above_without_threshold - with_above_without_threshold }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::corpus::{Library, filter::FacetFilter};

    fn engine() -> Engine {
        Engine::new(Arc::new(Library::bundled())).unwrap()
    }

    /// The total of the search with (kind, value) set on `filters` as `negated`.
    fn applied_total(e: &Engine, input: &str, filters: &Filters, v: &ValueLeaves, negated: bool) -> usize {
        let mut applied = filters.clone();
        applied.set_facet(FacetFilter { kind: v.kind, value: v.value.clone(), negated });
        e.search(&Request::new(input, &applied)).total
    }

    #[test]
    fn each_count_is_the_total_applying_the_value_gives() {
        let e = engine();
        let mut filters = Filters::default();
        filters.set_facet(FacetFilter { kind: FacetKind::Symptom, value: "Hang".into(), negated: false });
        for (input, filters) in [
            ("checkpoint hang nccl timeout", Filters::default()),
            ("", Filters::default()),
            ("checkpoint", filters.clone()),
            ("component:nccl watchdog", Filters::default()),
            // Words that match nothing well: no value leaves a case.
            ("zxqv blorpt foo bar", Filters::default()),
        ] {
            let leaves = e.facet_leaves(&Request::new(input, &filters));
            assert_eq!(leaves.len(), e.catalog().values().len());
            for v in &leaves {
                let with = applied_total(&e, input, &filters, v, false);
                let without = applied_total(&e, input, &filters, v, true);
                assert_eq!((v.leaves.with, v.leaves.without), (with, without), "{input:?}: {v:?}");
            }
        }
    }

    #[test]
    fn under_a_sentence_the_counts_are_not_the_plain_intersection() {
        // The weaker matches become real ones when a value takes the best case away: a count
        // that only intersected the listed results would be smaller.
        let e = engine();
        let none = Filters::default();
        let input = "checkpoint hang nccl timeout";
        let listed = e.search(&Request { limit: usize::MAX, ..Request::new(input, &none) });
        let cases = e.library().cases.len();
        let mut set = CaseSet::empty(cases);
        listed.hits.iter().for_each(|h| set.insert(h.index));
        let differs = e.facet_leaves(&Request::new(input, &none)).iter().any(|v| {
            let value = &e.catalog().values()[e.catalog().id(v.kind, &v.value).unwrap()];
            v.leaves.with != value.cases.intersection_count(&set)
        });
        assert!(differs, "some value counts cases beyond the listed results");
    }
}
