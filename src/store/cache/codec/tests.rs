//! Round trips, damage anywhere, and paths shown as the directories are named now.

use std::sync::Arc;

use super::decode::{Decoded, Rebase, check_bodies_header, decode, decode_body};
use super::encode::{Encoded, encode};
use super::format::{BODIES_HEADER, RECORD_HEADER, Result};
use super::records::{get_set, put_set};
use super::wire::{Reader, Writer};
use crate::taxonomy::FacetKind;
use crate::{
    corpus::{
        body::BodySource,
        model::{Case, CaseBody},
    },
    search::{caseset::CaseSet, catalog::Catalog},
    support::diag::{Diagnostic, Severity},
};

use crate::corpus::Library;

fn sample() -> (Vec<Case>, Vec<Diagnostic>) {
    let library = Library::bundled();
    let mut cases = library.cases.into_vec();
    // Exercise what bundled cases lack: inferred values, a root cause, a timeline, an owner and an
    // incident id, no date.
    cases[0].facets.add_inferred(
        FacetKind::Component,
        "Inferred value".into(),
        "learned from \"x\" (0.90)".into(),
    );
    cases[0].body.root_cause = Some("Why.".into());
    cases[0].body.timeline = Some("10:00 it broke\n10:05 fixed".into());
    cases[0].body.owner = Some("dana".into());
    cases[0].body.incident_id = Some("INC-2043".into());
    cases[1].date = None;
    let diagnostics = vec![
        Diagnostic::new("a.md", (3, 7), Severity::Hint, "inferred"),
        Diagnostic::new("b.md", (0, 0), Severity::Error, "cannot read"),
    ];
    (cases, diagnostics)
}

/// Bodies read from memory, as the cache reads them from the bodies file.
struct InMemory(Vec<u8>);

impl BodySource for InMemory {
    fn read(&self, at: u64, len: u32) -> std::result::Result<CaseBody, String> {
        let at = at as usize;
        let record = self.0.get(at..at + RECORD_HEADER + len as usize).ok_or("out of range")?;
        decode_body(record).map_err(|e| e.to_string())
    }
    fn damaged(&self, _why: &str) {}
}

fn round_trip(encoded: &Encoded) -> Result<Decoded> {
    check_bodies_header(&encoded.bodies)?;
    let bodies: Arc<dyn BodySource> = Arc::new(InMemory(encoded.bodies.clone()));
    decode(encoded.library.clone(), &bodies, encoded.bodies.len() as u64, &["lib/".to_string()])
}

fn encode_cases(cases: &[Case], diagnostics: &[Diagnostic]) -> Encoded {
    let library = Library {
        cases: cases.to_vec().into(),
        taxonomy: Library::bundled().taxonomy,
        diagnostics: Vec::new(),
    };
    encode(cases, &Catalog::new(&library), diagnostics, &["lib/".to_string()])
}

#[test]
fn paths_are_shown_as_the_directories_are_named_now() {
    let rebase =
        Rebase::new(vec!["lib/".into(), "lib/sub/".into()], &["/abs/lib/".into(), "/abs/lib/sub/".into()])
            .unwrap();
    assert_eq!(rebase.path("lib/a.md"), "/abs/lib/a.md");
    assert_eq!(rebase.path("lib/sub/b.md"), "/abs/lib/sub/b.md");
    assert_eq!(rebase.path("other/c.md"), "other/c.md");
    assert_eq!(
        rebase.text("duplicate id 'x': also in lib/a.md; mylib/a.md stays"),
        "duplicate id 'x': also in /abs/lib/a.md; mylib/a.md stays"
    );
    assert_eq!(Rebase::new(vec!["lib/".into()], &["lib/".into()]), None);
}

#[test]
fn a_library_round_trips_with_cases_decoded_when_used() {
    let (cases, diagnostics) = sample();
    let encoded = encode_cases(&cases, &diagnostics);
    let decoded = round_trip(&encoded).unwrap();
    assert_eq!(decoded.cases.len(), cases.len());
    assert_eq!(decoded.cases[3].id, cases[3].id);
    assert!(!decoded.cases[3].body.is_read(), "a head is decoded without its body");
    let library = Library {
        cases: cases.clone().into(),
        taxonomy: Library::bundled().taxonomy,
        diagnostics: Vec::new(),
    };
    assert_eq!(decoded.catalog.parts(), Catalog::new(&library).parts(), "the catalog comes back whole");
    assert!(decoded.cases.iter().all(|c| !c.body.is_read() || c.id == cases[3].id));
    assert_eq!(decoded.cases.all(), cases);
    assert_eq!(decoded.diagnostics, diagnostics);
    assert!(decoded.cases[0].facets.is_inferred(FacetKind::Component, "Inferred value"));
    assert_eq!(
        decoded.cases[0].facets.inferred_reason(FacetKind::Component, "Inferred value"),
        Some("learned from \"x\" (0.90)")
    );
    assert!(
        encoded.library.len() * 2 < encoded.bodies.len(),
        "start-up reads the smaller part: {} of {} bytes",
        encoded.library.len(),
        encoded.bodies.len()
    );
    let empty = round_trip(&encode_cases(&[], &[])).unwrap();
    assert!(empty.cases.is_empty() && empty.diagnostics.is_empty());
}

#[test]
fn case_sets_are_stored_either_way() {
    let mut sparse = CaseSet::empty(1000);
    sparse.insert(3);
    sparse.insert(999);
    let full = CaseSet::full(1000);
    for set in [sparse, full, CaseSet::empty(0), CaseSet::full(64)] {
        let mut w = Writer::default();
        put_set(&set, &mut w);
        let mut r = Reader { bytes: &w.0, at: 0 };
        assert_eq!(get_set(&mut r, set.capacity()).unwrap(), set);
        assert_eq!(r.at, w.0.len());
    }
}

#[test]
fn damage_anywhere_is_an_error_not_a_panic() {
    let (cases, diagnostics) = sample();
    let encoded = encode_cases(&cases[..5], &diagnostics);
    for at in (0..encoded.library.len()).step_by(97) {
        let mut bad = encoded.clone();
        bad.library[at] ^= 0x5a;
        assert!(round_trip(&bad).is_err(), "a flipped byte at {at} went unnoticed");
    }
    for len in [0, 10, 24, encoded.library.len() / 2, encoded.library.len() - 1] {
        let mut bad = encoded.clone();
        bad.library.truncate(len);
        assert!(round_trip(&bad).is_err(), "truncated to {len}");
    }
    let mut short = encoded.clone();
    short.bodies.pop();
    assert!(round_trip(&short).is_err(), "a bodies file of another length");
    let mut other = encoded.clone();
    other.bodies[3] ^= 1;
    assert!(round_trip(&other).is_err(), "a bodies file with another header");
}

#[test]
fn a_damaged_body_is_found_when_it_is_read() {
    let (cases, diagnostics) = sample();
    let encoded = encode_cases(&cases[..3], &diagnostics);
    for at in (BODIES_HEADER..encoded.bodies.len()).step_by(31) {
        let mut bad = encoded.clone();
        bad.bodies[at] ^= 0x21;
        let decoded = round_trip(&bad).expect("the heads are intact");
        let spoiled: Vec<&Case> = decoded
            .cases
            .iter()
            .zip(&cases)
            .filter(|(got, want)| got.body != want.body)
            .map(|(g, _)| g)
            .collect();
        assert_eq!(spoiled.len(), 1, "a flipped byte at {at} spoils exactly one body");
        assert!(spoiled[0].body.symptoms.contains("checksum mismatch"), "{}", spoiled[0].body.symptoms);
    }
}
