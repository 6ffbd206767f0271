//! Breakdowns and the summary of a result set: how many cases carry each facet value and each
//! year, the "1 to 20 of 57" range, and "These 57 cases involve A and B".
//!
//! Pure counting over case sets; ties are broken by name (or by year, newest first) so the same
//! results always give the same bars.

use serde::Serialize;

use crate::{
    search::{caseset::CaseSet, catalog::Catalog},
    taxonomy::FacetKind,
    text::numbers::thousands,
};

/// One bar: a value and the cases that have it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Count {
    /// The facet value's name, or the year.
    pub value: String,
    /// The number of cases in the result set with it.
    pub count: usize,
}

/// Counts by root cause, component, symptom, contributing factor and year over a result set.
/// Each list holds only values with at least one case, most cases first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Breakdown {
    /// By root cause.
    pub root_cause: Vec<Count>,
    /// By component.
    pub component: Vec<Count>,
    /// By symptom.
    pub symptom: Vec<Count>,
    /// By contributing factor.
    pub contributing_factor: Vec<Count>,
    /// By year, newest first (`undated` last, when there are such cases).
    pub year: Vec<Count>,
}

impl Breakdown {
    /// The counts for one facet kind.
    pub fn of(&self, kind: FacetKind) -> &[Count] {
        match kind {
            FacetKind::RootCause => &self.root_cause,
            FacetKind::Component => &self.component,
            FacetKind::Symptom => &self.symptom,
            FacetKind::ContributingFactor => &self.contributing_factor,
        }
    }
}

/// Count the cases of `results` per facet value and per year.
pub fn breakdown(catalog: &Catalog, results: &CaseSet) -> Breakdown {
    let mut lists: [Vec<Count>; 4] = Default::default();
    for v in catalog.values() {
        let count = v.cases.intersection_count(results);
        if count > 0 {
            lists[v.kind.index()].push(Count { value: v.name.clone(), count });
        }
    }
    for list in &mut lists {
        list.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.value.cmp(&b.value)));
    }
    let mut years: std::collections::BTreeMap<u16, usize> = std::collections::BTreeMap::new();
    let mut undated = 0;
    for i in results.iter() {
        match catalog.year(i) {
            Some(y) => *years.entry(y).or_default() += 1,
            None => undated += 1,
        }
    }
    let mut year: Vec<Count> =
        years.into_iter().rev().map(|(y, count)| Count { value: y.to_string(), count }).collect();
    if undated > 0 {
        year.push(Count { value: "undated".into(), count: undated });
    }
    let [root_cause, component, symptom, contributing_factor] = lists;
    Breakdown { root_cause, component, symptom, contributing_factor, year }
}

/// "1 to 20 of 57", "57 of 57" style range of a page; "0 of 0" when empty.
pub fn range_text(offset: usize, shown: usize, total: usize) -> String {
    if shown == 0 {
        return format!("0 of {}", thousands(total));
    }
    format!("{} to {} of {}", thousands(offset + 1), thousands(offset + shown), thousands(total))
}

/// "These 57 cases involve NCCL and GPU." — the two most frequent components of the results.
pub fn summary(total: usize, breakdown: &Breakdown) -> String {
    let top: Vec<&str> = breakdown.component.iter().take(2).map(|c| c.value.as_str()).collect();
    let involve = match top.as_slice() {
        [] => String::new(),
        [a] => format!(" {a}"),
        [a, b, ..] => format!(" {a} and {b}"),
    };
    match total {
        0 => "No case matches.".to_string(),
        1 if !involve.is_empty() => format!("This case involves{involve}."),
        1 => "One case matches.".to_string(),
        n if !involve.is_empty() => format!("These {} cases involve{involve}.", thousands(n)),
        n => format!("{} cases match.", thousands(n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pairs: &[(&str, usize)]) -> Vec<Count> {
        pairs.iter().map(|(v, c)| Count { value: (*v).into(), count: *c }).collect()
    }

    #[test]
    fn summary_sentences() {
        let mut b =
            Breakdown { component: counts(&[("NCCL", 5), ("GPU", 3), ("DNS", 1)]), ..Default::default() };
        assert_eq!(summary(57, &b), "These 57 cases involve NCCL and GPU.");
        assert_eq!(summary(0, &Breakdown::default()), "No case matches.");
        assert_eq!(summary(100_228, &b), "These 100,228 cases involve NCCL and GPU.");
        assert_eq!(range_text(1000, 20, 100_228), "1,001 to 1,020 of 100,228");
        b.component.truncate(1);
        assert_eq!(summary(1, &b), "This case involves NCCL.");
        assert_eq!(summary(2, &Breakdown::default()), "2 cases match.");
    }

    #[test]
    fn ranges() {
        assert_eq!(range_text(0, 20, 57), "1 to 20 of 57");
        assert_eq!(range_text(40, 17, 57), "41 to 57 of 57");
        assert_eq!(range_text(0, 0, 0), "0 of 0");
        assert_eq!(range_text(100, 0, 57), "0 of 57");
    }

    #[test]
    fn counts_are_over_the_result_set_with_ties_by_name() {
        let library = crate::corpus::Library::bundled();
        let catalog = Catalog::new(&library);
        let all = CaseSet::full(catalog.len());
        let b = breakdown(&catalog, &all);
        let total_years: usize = b.year.iter().map(|c| c.count).sum();
        assert_eq!(total_years, library.cases.len());
        for kind in FacetKind::ALL {
            let list = b.of(kind);
            assert!(
                list.windows(2).all(|w| (w[0].count, &w[1].value) >= (w[1].count, &w[0].value)),
                "{list:?}"
            );
            for c in list {
                let want = library.cases.iter().filter(|case| case.facets.contains(kind, &c.value)).count();
                assert_eq!(c.count, want, "{}", c.value);
            }
        }
        assert_eq!(breakdown(&catalog, &CaseSet::empty(catalog.len())), Breakdown::default());
    }
}
