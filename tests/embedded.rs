//! The bundled library baked at build time (`incidex::store::embedded`) is the library parsed from
//! `data/` at run time: the same cases, bodies, diagnostics and taxonomy, and the same answer,
//! hit for hit and score for score, to every sentence of the evaluation set (`tests/eval`) and
//! to inputs that exercise the rest of the engine (typos, inline filters, the empty query).

// Only the evaluation sentences are used here, not the scoring.
#[allow(dead_code)]
#[path = "eval_support/mod.rs"]
mod eval_support;

use std::sync::Arc;

use incidex::{
    corpus::filter::Filters,
    corpus::{Library, LoadOptions},
    search::{Engine, Request},
    store::cache::{self, CacheOptions, CacheUse, Mode},
    store::embedded,
};

#[test]
fn embedded_and_run_time_libraries_are_the_same() {
    let (baked, prebuilt) = embedded::open().expect("the baked library opens");
    let parsed = Library::bundled();
    assert!(!baked.cases.is_empty());
    assert!(!baked.cases.all_decoded(), "opening decodes no case");
    assert_eq!(baked.cases, parsed.cases, "every head and body");
    assert_eq!(baked.diagnostics, parsed.diagnostics);
    assert_eq!(baked.taxonomy.values(), parsed.taxonomy.values());
    assert_eq!(prebuilt.catalog.map(|c| c.len()), Some(parsed.cases.len()));
}

#[test]
fn embedded_and_run_time_engines_agree() {
    let baked = embedded::engine().expect("the baked engine opens");
    let built = Engine::new(Arc::new(Library::bundled())).expect("the run-time engine builds");
    let mut inputs: Vec<String> = eval_support::load_queries().into_iter().map(|q| q.text).collect();
    assert!(inputs.len() > 50, "the evaluation set is read");
    inputs.extend(
        ["", "nccl hnag at teh end of epoch", "component:nccl -root:overheating year:2024 hang", "org:meta"]
            .map(String::from),
    );
    let none = Filters::default();
    for input in &inputs {
        let request = Request { limit: usize::MAX, ..Request::new(input, &none) };
        assert_eq!(baked.search(&request), built.search(&request), "{input:?}");
    }
}

#[test]
fn the_bundled_library_alone_opens_baked_and_with_a_directory_merges_at_run_time() {
    let options = CacheOptions { dir: None, mode: Mode::Off };
    let alone = cache::open(&LoadOptions::default(), &options, &incidex::support::progress::silent);
    assert_eq!(alone.cache, CacheUse::Unused);
    assert!(alone.prebuilt.index.is_some() && alone.prebuilt.catalog.is_some(), "baked, not built");
    assert!(!alone.library.cases.all_decoded());

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("2024-05-01-ours.md"),
        "+++\norganization = \"Us\"\ncomponents = [\"NCCL\"]\nroot_causes = [\"Deadlock\"]\nsymptom_tags = [\"Hang\"]\n+++\n\
# Our own hang\n\n## Summary\n\nStuck.\n\n## Detection\n\nPager.\n\n## Resolution\n\n- Restarted.\n\n## Action items\n\n- Add a watchdog.\n",
    )
    .unwrap();
    let load = LoadOptions { bundled: true, dirs: vec![dir.path().to_path_buf()] };
    let merged = cache::open(&load, &options, &incidex::support::progress::silent);
    assert_eq!(merged.library.cases.len(), alone.library.cases.len() + 1);
    assert!(merged.library.cases.iter().any(|c| c.title == "Our own hang"));
    assert_eq!(merged.library.cases, Library::load(&load).cases);
}
