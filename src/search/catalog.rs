//! The catalog: every facet value, organization and date of the loaded cases, as case sets, so
//! that filters, breakdowns and suggestion counts are set operations rather than scans.
//!
//! Built once from the library; read-only afterwards. Facet values are numbered taxonomy first
//! (in file order), then any value a user case uses that the taxonomy lacks. Evaluating
//! [`Filters`] here gives exactly the cases [`Filters::matches`] accepts.

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use crate::taxonomy::FacetKind;
use crate::{corpus::Library, corpus::filter::Filters, search::caseset::CaseSet};

/// The first and last day a case's date can mean.
pub type DayRange = ((u16, u8, u8), (u16, u8, u8));

/// Everything a catalog holds, to store it and build it again without the cases (the on-disk
/// cache keeps it, so a warm start decodes no case to filter and count).
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogParts {
    /// The number of cases.
    pub len: usize,
    /// Every value, by id.
    pub values: Vec<ValueEntry>,
    /// ASCII-lowercased organization -> its cases.
    pub orgs: Vec<(String, CaseSet)>,
    /// Distinct organization names as written, sorted case-insensitively.
    pub org_names: Vec<String>,
    /// Per case: the first and last day its date can mean.
    pub dates: Vec<Option<DayRange>>,
    /// Per case: its year.
    pub years: Vec<Option<u16>>,
}

/// One facet value known to the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueEntry {
    /// Its kind.
    pub kind: FacetKind,
    /// Its canonical name.
    pub name: String,
    /// The cases tagged with it.
    pub cases: CaseSet,
}

/// Facet values, organizations and dates of a library, as case sets.
#[derive(Debug, Clone)]
pub struct Catalog {
    values: Vec<ValueEntry>,
    /// Per kind (by [`FacetKind::index`]): name -> value id. (A fast hash: the keys are the
    /// library's own values, and start-up looks one up per facet of every case.)
    ids: [FxHashMap<String, usize>; 4],
    /// ASCII-lowercased organization -> its cases.
    orgs: HashMap<String, CaseSet>,
    /// Distinct organization names as written, sorted case-insensitively.
    org_names: Vec<String>,
    /// Per case: the first and last day its date can mean.
    dates: Vec<Option<DayRange>>,
    years: Vec<Option<u16>>,
    len: usize,
}

impl Catalog {
    /// Number the values and build the sets of `library`.
    pub fn new(library: &Library) -> Catalog {
        let len = library.cases.len();
        let mut catalog = Catalog {
            values: Vec::new(),
            ids: Default::default(),
            orgs: HashMap::new(),
            org_names: Vec::new(),
            dates: Vec::with_capacity(len),
            years: Vec::with_capacity(len),
            len,
        };
        for v in library.taxonomy.values() {
            catalog.intern(v.kind, &v.name);
        }
        // Organizations as written -> their lowercased key: most cases repeat a name seen before,
        // and looking it up costs no allocation.
        let mut org_keys: FxHashMap<&str, String> = FxHashMap::default();
        for (i, case) in library.cases.iter().enumerate() {
            for (kind, value) in case.facets.iter() {
                let id = catalog.intern(kind, value);
                catalog.values[id].cases.insert(i);
            }
            let org =
                org_keys.entry(&case.organization).or_insert_with(|| case.organization.to_ascii_lowercase());
            match catalog.orgs.get_mut(org.as_str()) {
                Some(cases) => cases.insert(i),
                None => {
                    catalog.org_names.push(case.organization.clone());
                    let mut cases = CaseSet::empty(len);
                    cases.insert(i);
                    catalog.orgs.insert(org.clone(), cases);
                }
            }
            catalog.dates.push(case.date.map(|d| (d.start(), d.end())));
            catalog.years.push(case.year());
        }
        catalog.org_names.sort_by_key(|o| (o.to_lowercase(), o.clone()));
        catalog
    }

    /// What the catalog holds; see [`CatalogParts`].
    pub fn parts(&self) -> CatalogParts {
        let mut orgs: Vec<(String, CaseSet)> =
            self.orgs.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        orgs.sort_by(|a, b| a.0.cmp(&b.0));
        CatalogParts {
            len: self.len,
            values: self.values.clone(),
            orgs,
            org_names: self.org_names.clone(),
            dates: self.dates.clone(),
            years: self.years.clone(),
        }
    }

    /// The catalog [`Catalog::parts`] gave.
    pub fn from_parts(parts: CatalogParts) -> Catalog {
        let mut ids: [FxHashMap<String, usize>; 4] = Default::default();
        for (id, v) in parts.values.iter().enumerate() {
            ids[v.kind.index()].insert(v.name.clone(), id);
        }
        Catalog {
            values: parts.values,
            ids,
            orgs: parts.orgs.into_iter().collect(),
            org_names: parts.org_names,
            dates: parts.dates,
            years: parts.years,
            len: parts.len,
        }
    }

    fn intern(&mut self, kind: FacetKind, name: &str) -> usize {
        if let Some(&id) = self.ids[kind.index()].get(name) {
            return id;
        }
        self.values.push(ValueEntry { kind, name: name.to_string(), cases: CaseSet::empty(self.len) });
        self.ids[kind.index()].insert(name.to_string(), self.values.len() - 1);
        self.values.len() - 1
    }

    /// The number of cases.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the library has no case.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every value, by id.
    pub fn values(&self) -> &[ValueEntry] {
        &self.values
    }

    /// The id of (kind, exact name).
    pub fn id(&self, kind: FacetKind, name: &str) -> Option<usize> {
        self.ids[kind.index()].get(name).copied()
    }

    /// Distinct organizations, sorted case-insensitively.
    pub fn organizations(&self) -> &[String] {
        &self.org_names
    }

    /// The year of case `i`, when it is dated.
    pub fn year(&self, i: usize) -> Option<u16> {
        self.years.get(i).copied().flatten()
    }

    /// The cases that meet every condition of `filters`.
    pub fn filter(&self, filters: &Filters) -> CaseSet {
        let mut set = CaseSet::full(self.len);
        for f in &filters.facets {
            match (self.id(f.kind, &f.value), f.negated) {
                (Some(id), false) => set.intersect_with(&self.values[id].cases),
                (Some(id), true) => set.subtract(&self.values[id].cases),
                (None, false) => return CaseSet::empty(self.len),
                (None, true) => {}
            }
        }
        if !filters.organizations.is_empty() {
            let mut any = CaseSet::empty(self.len);
            for o in &filters.organizations {
                if let Some(cases) = self.orgs.get(&o.to_ascii_lowercase()) {
                    any.union_with(cases);
                }
            }
            set.intersect_with(&any);
        }
        if filters.after.is_some() || filters.before.is_some() {
            let after = filters.after.map(|a| a.start());
            let before = filters.before.map(|b| b.end());
            for i in 0..self.len {
                let keep = match self.dates[i] {
                    Some((start, end)) => after.is_none_or(|a| end >= a) && before.is_none_or(|b| start <= b),
                    None => false,
                };
                if !keep {
                    set.remove(i);
                }
            }
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::filter::FacetFilter;

    #[test]
    fn a_catalog_is_rebuilt_from_its_parts() {
        let library = Library::bundled();
        let catalog = Catalog::new(&library);
        let again = Catalog::from_parts(catalog.parts());
        assert_eq!(again.parts(), catalog.parts());
        let filters = Filters { after: "2024".parse().ok(), ..Filters::default() };
        assert_eq!(again.filter(&filters), catalog.filter(&filters));
        for v in catalog.values() {
            assert_eq!(again.id(v.kind, &v.name), catalog.id(v.kind, &v.name));
        }
    }

    #[test]
    fn filtering_agrees_with_filters_matches() {
        let library = Library::bundled();
        let catalog = Catalog::new(&library);
        let first = &library.cases[0];
        let component = first.facets.values(FacetKind::Component)[0].clone();
        let symptom = first.facets.values(FacetKind::Symptom)[0].clone();
        let cases = [
            Filters::default(),
            Filters {
                facets: vec![FacetFilter {
                    kind: FacetKind::Component,
                    value: component.clone(),
                    negated: false,
                }],
                ..Filters::default()
            },
            Filters {
                facets: vec![
                    FacetFilter { kind: FacetKind::Component, value: component, negated: true },
                    FacetFilter { kind: FacetKind::Symptom, value: symptom, negated: false },
                ],
                ..Filters::default()
            },
            Filters {
                organizations: vec![first.organization.to_uppercase(), "nobody at all".into()],
                after: Some("2023-02".parse().unwrap()),
                before: Some("2030".parse().unwrap()),
                ..Filters::default()
            },
            Filters {
                facets: vec![FacetFilter {
                    kind: FacetKind::RootCause,
                    value: "No such".into(),
                    negated: false,
                }],
                ..Filters::default()
            },
        ];
        for filters in cases {
            let want: Vec<usize> =
                (0..library.cases.len()).filter(|&i| filters.matches(&library.cases[i])).collect();
            assert_eq!(catalog.filter(&filters).iter().collect::<Vec<_>>(), want, "{filters:?}");
        }
    }

    #[test]
    fn taxonomy_values_come_first_and_organizations_are_distinct() {
        let library = Library::bundled();
        let catalog = Catalog::new(&library);
        let first = library.taxonomy.values().first().unwrap();
        assert_eq!(catalog.id(first.kind, &first.name), Some(0));
        let mut orgs = catalog.organizations().to_vec();
        orgs.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        assert_eq!(orgs.len(), catalog.organizations().len());
    }
}
