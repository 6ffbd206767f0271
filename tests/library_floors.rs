//! The bundled library covers what on-call engineers meet most: at least 600 cases (issue 31),
//! the floors of cases per taxonomy value that issue 19 set (where a login-node on-call spends
//! its nights), every taxonomy value carried by at least five cases (a value too rare to find
//! anything is retired, not kept), and no organisation behind more than 8% of the cases (so the
//! library is not one company's history). Counted over the library as it is compiled in, so a case removed or a tag
//! changed that breaks a floor fails here.

use incidex::corpus::Library;
use incidex::taxonomy::FacetKind;

/// (kind, value, at least this many cases carry it).
const FLOORS: &[(FacetKind, &str, usize)] = &[
    (FacetKind::Symptom, "GPU out of memory", 12),
    (FacetKind::Component, "Job scheduler", 15),
    (FacetKind::Component, "Shared filesystem", 15),
    (FacetKind::Component, "Object storage", 8),
    (FacetKind::Component, "Container runtime and images", 10),
    (FacetKind::Component, "GPU driver and firmware", 15),
    (FacetKind::Component, "Cooling and power", 8),
    (FacetKind::Component, "PCIe and host platform", 8),
    (FacetKind::Symptom, "Checkpoint cannot be loaded", 10),
    (FacetKind::Symptom, "Checkpoint save failure", 10),
    (FacetKind::Symptom, "Host memory growth", 15),
    (FacetKind::Component, "Math libraries", 8),
];

/// Cases carrying either Kubernetes component: at least this many.
const KUBERNETES_FLOOR: usize = 18;
/// Cases in the library: at least this many.
const CASES_FLOOR: usize = 600;
/// Every taxonomy value: at least this many cases.
const EVERY_VALUE_FLOOR: usize = 5;
/// No organisation behind more than this share of the cases.
const ORG_SHARE_CEILING: f64 = 0.08;

fn count(library: &Library, kind: FacetKind, value: &str) -> usize {
    library.cases.iter().filter(|c| c.facets.contains(kind, value)).count()
}

#[test]
fn the_library_meets_its_floors() {
    let library = Library::bundled();
    assert!(library.cases.len() >= CASES_FLOOR, "{} cases, fewer than {CASES_FLOOR}", library.cases.len());
    let mut short = Vec::new();
    for &(kind, value, floor) in FLOORS {
        assert!(library.taxonomy.get(kind, value).is_some(), "{value} is not a {kind:?} of the taxonomy");
        let n = count(&library, kind, value);
        if n < floor {
            short.push(format!("{}: {value} on {n} cases, floor {floor}", kind.label()));
        }
    }
    let kubernetes = library
        .cases
        .iter()
        .filter(|c| {
            c.facets.contains(FacetKind::Component, "Kubernetes control plane")
                || c.facets.contains(FacetKind::Component, "GPU operator and device plugins")
        })
        .count();
    if kubernetes < KUBERNETES_FLOOR {
        short.push(format!("Kubernetes components on {kubernetes} cases, floor {KUBERNETES_FLOOR}"));
    }
    assert!(short.is_empty(), "floors not met:\n{}", short.join("\n"));
}

#[test]
fn every_taxonomy_value_is_used_by_enough_cases() {
    let library = Library::bundled();
    let rare: Vec<String> = library
        .taxonomy
        .values()
        .iter()
        .map(|v| (v, count(&library, v.kind, &v.name)))
        .filter(|(_, n)| *n < EVERY_VALUE_FLOOR)
        .map(|(v, n)| format!("{}: {} on {n} cases", v.kind.label(), v.name))
        .collect();
    assert!(
        rare.is_empty(),
        "values carried by fewer than {EVERY_VALUE_FLOOR} cases (add cases or retire them):\n{}",
        rare.join("\n")
    );
}

#[test]
fn no_organisation_is_behind_more_than_eight_percent_of_the_cases() {
    let library = Library::bundled();
    let mut counts = std::collections::HashMap::<String, usize>::new();
    for c in library.cases.iter() {
        *counts.entry(c.organization.trim().to_lowercase()).or_default() += 1;
    }
    let total = library.cases.len() as f64;
    let (org, n) = counts.iter().max_by_key(|(_, n)| **n).expect("a case");
    assert!(
        *n as f64 / total <= ORG_SHARE_CEILING,
        "{org} is behind {n} of {total} cases, over {}%",
        ORG_SHARE_CEILING * 100.0
    );
}
