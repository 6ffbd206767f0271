//! Training the facet model: count, over the cases, each value, each feature of the text that
//! speaks for each kind, and each (value, feature) pair; keep the pairs that could ever be
//! evidence. Deterministic (sorted keys and values), so the same library bakes the same model.
//!
//! What is kept: a pair whose value [`MIN_SUPPORT`] or more cases share with the feature, and
//! whose evidence, even with one case that lacks the value hidden (the most that hiding a case
//! can raise it), reaches [`MIN_EVIDENCE`]; and the features that have such a pair. What
//! prediction ignores anyway is left out, so leave-one-out on the kept counts is exact.

use rustc_hash::FxHashMap;

use super::{
    Entry, FacetModel, MIN_EVIDENCE, MIN_SUPPORT, ModelValue, case_parts, evidence, features::FeatureReader,
    reads,
};
use crate::{corpus::Case, taxonomy::FacetKind};

/// Per feature while counting: cases per kind, and (value id -> cases with both).
#[derive(Default)]
struct Counting {
    doc_freq: [u32; 4],
    with: FxHashMap<u16, u32>,
}

/// The model of `cases`.
pub fn train(cases: &[Case]) -> FacetModel {
    // Values, sorted by kind and name, so ids do not depend on case order.
    let mut names: Vec<(FacetKind, String)> =
        cases.iter().flat_map(|c| c.facets.iter().map(|(k, v)| (k, v.to_string()))).collect();
    names.sort();
    names.dedup();
    let id_of: FxHashMap<(FacetKind, &str), u16> =
        names.iter().enumerate().map(|(i, (k, v))| ((*k, v.as_str()), i as u16)).collect();
    let mut values: Vec<ModelValue> =
        names.iter().map(|(kind, name)| ModelValue { kind: *kind, name: name.clone(), cases: 0 }).collect();

    let mut counts: FxHashMap<u64, Counting> = FxHashMap::default();
    let mut reader = FeatureReader::new();
    for case in cases {
        let ids: Vec<u16> = case.facets.iter().filter_map(|(k, v)| id_of.get(&(k, v)).copied()).collect();
        for &id in &ids {
            values[id as usize].cases += 1;
        }
        let parts = case_parts(case);
        let read: Vec<_> = parts.iter().map(|&(part, text)| (part, reader.features(text))).collect();
        for kind in FacetKind::ALL {
            let mut keys: Vec<u64> = read
                .iter()
                .filter(|(p, _)| reads(kind, *p))
                .flat_map(|(_, f)| f.iter().map(|f| f.key))
                .collect();
            keys.sort_unstable();
            keys.dedup();
            let own: Vec<u16> = ids.iter().copied().filter(|&id| values[id as usize].kind == kind).collect();
            for key in keys {
                let c = counts.entry(key).or_default();
                c.doc_freq[kind.index()] += 1;
                for &id in &own {
                    *c.with.entry(id).or_default() += 1;
                }
            }
        }
    }

    let n = cases.len() as u32;
    let mut keyed: Vec<(u64, Counting)> = counts.into_iter().collect();
    keyed.sort_unstable_by_key(|(k, _)| *k);
    let mut model = FacetModel { cases: n, values, ..FacetModel::default() };
    for (key, counting) in keyed {
        let mut pairs: Vec<(u16, u32)> = counting
            .with
            .into_iter()
            .filter(|&(v, a)| {
                let value = &model.values[v as usize];
                let d = counting.doc_freq[value.kind.index()];
                // The highest this pair's evidence can be with one case hidden: one that has
                // the feature but not the value.
                a >= MIN_SUPPORT
                    && evidence(a, d.saturating_sub(1).max(a), value.cases, n.saturating_sub(1))
                        >= MIN_EVIDENCE
            })
            .collect();
        if pairs.is_empty() {
            continue;
        }
        pairs.sort_unstable();
        let start = model.pairs.len() as u32;
        model.pairs.extend(pairs);
        model.keys.push(key);
        model.entries.push(Entry { doc_freq: counting.doc_freq, start, end: model.pairs.len() as u32 });
    }
    model
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::model::test_case;

    #[test]
    fn only_what_two_cases_share_is_kept_and_order_does_not_matter() {
        let mut cases = Vec::new();
        let titles = [
            "Lustre metadata server overloaded",
            "Lustre metadata storm",
            "Lustre metadata again",
            "A lone event",
            "Xid 79",
            "Xid 48",
            "Xid 94",
            "Xid 31",
            "Xid 13",
            "Xid 74",
            "Xid 63",
            "Xid 64",
        ];
        for (i, title) in titles.iter().enumerate() {
            let mut c =
                test_case(&format!("c{i}"), &[(FacetKind::Component, if i < 3 { "Storage" } else { "GPU" })]);
            c.title = title.to_string();
            cases.push(c);
        }
        let model = train(&cases);
        assert_eq!(model.cases(), 12);
        assert!(model.features() > 0);
        // `lone` is in one case only: never evidence, never kept.
        assert!(model.keys.binary_search(&super::super::features::key_of("lone")).is_err());
        assert!(model.keys.binary_search(&super::super::features::key_of("lustr")).is_ok());
        let mut reversed = cases.clone();
        reversed.reverse();
        assert_eq!(train(&reversed), model);
    }
}
