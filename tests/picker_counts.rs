//! A count is a promise in the facet picker too (issue 29, item 2): the number beside each value
//! is exactly the total the search reports once the picker applies that value — under a typed
//! sentence (ranked: only the real matches count, and the best among them can change), inline
//! filters in the box, filters applied already (the value itself among them), with the weaker
//! matches listed (`w`) or not, and for the excluding picker (`-`) alike.
//!
//! The picker is driven as a user drives it (the app, its keys, the real search worker code over
//! the bundled library); what applying a value gives is the total of the search that the app
//! sends once the value is set on its filters, as the picker's Enter sets it.

use std::sync::{Arc, OnceLock};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use incidex::{
    corpus::{
        Library,
        filter::{FacetFilter, Filters},
    },
    taxonomy::FacetKind,
    tui::{
        app::{App, Effect, Focus, Options, Overlay},
        event::Msg,
        session::Session,
        worker::{Request, Searcher},
    },
};
use proptest::prelude::*;

fn library() -> &'static Arc<Library> {
    static LIBRARY: OnceLock<Arc<Library>> = OnceLock::new();
    LIBRARY.get_or_init(|| Arc::new(Library::bundled()))
}

fn searcher() -> &'static Searcher {
    static SEARCHER: OnceLock<Searcher> = OnceLock::new();
    SEARCHER.get_or_init(|| Searcher::new(library().clone()))
}

/// Answer every search the app asks for at once, as the worker would.
fn run(app: &mut App, mut effects: Vec<Effect>) {
    while let Some(effect) = effects.pop() {
        if let Effect::Search(request) = effect {
            let response = searcher().run(&request);
            effects.extend(app.update(Msg::Searched(Box::new(response))));
        }
    }
}

fn key(app: &mut App, code: KeyCode) {
    let effects = app.update(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    run(app, effects);
}

/// The app with `query` in the search box and `filters` applied (as `--resume` brings them
/// back), the weaker matches listed when `all`, the case list focused.
fn app_with(query: &str, filters: &Filters, all: bool) -> App {
    let mut session = Session { query: query.to_string(), ..Session::default() };
    session.set_filters(filters);
    let options = Options { resume: Some(session), date: "2025-01-01".into(), ..Options::default() };
    let (mut app, effects) = App::new(library().clone(), (100, 30), options);
    run(&mut app, effects);
    app.focus = Focus::Results;
    if all {
        key(&mut app, KeyCode::Char('w'));
    }
    app
}

/// The picker's rows as (value, count) for the kind on key `digit`, including or excluding.
fn picker_counts(app: &mut App, digit: char, excluding: bool) -> (FacetKind, Vec<(String, Option<usize>)>) {
    key(app, KeyCode::Char(digit));
    if excluding {
        key(app, KeyCode::Char('-'));
    }
    let Some(Overlay::Picker(picker)) = &app.overlay else { panic!("the picker is open") };
    assert_eq!(picker.negated(), excluding);
    let rows = picker.rows.iter().map(|r| (r.value.clone(), r.count)).collect();
    let kind = picker.kind;
    key(app, KeyCode::Esc);
    (kind, rows)
}

/// Check every value of every kind, both ways.
fn counts_hold(query: &str, filters: &Filters, all: bool) {
    let mut app = app_with(query, filters, all);
    for digit in ['1', '2', '3', '4'] {
        for excluding in [false, true] {
            let (kind, rows) = picker_counts(&mut app, digit, excluding);
            assert_eq!(rows.len(), library().taxonomy.values_of(kind).count(), "every value is listed");
            for (value, count) in rows {
                let mut applied = app.filters.clone();
                applied.set_facet(FacetFilter { kind, value: value.clone(), negated: excluding });
                let request = Request {
                    generation: 1,
                    input: query.to_string(),
                    filters: applied,
                    offset: 0,
                    limit: 20,
                    locate: None,
                    all,
                    log: false,
                    suggest_from: None,
                    value_counts: false,
                };
                let total = searcher().run(&request).total;
                let sign = if excluding { "-" } else { "" };
                assert_eq!(
                    count,
                    Some(total),
                    "{query:?} (filters {}, all {all}): the picker shows {count:?} for {sign}{}: {value}, \
                     applying it gives {total}",
                    filters.to_query_string(),
                    kind.label(),
                );
            }
        }
    }
}

/// Words on-call engineers type.
const WORDS: &[&str] = &[
    "NCCL",
    "hang",
    "hung",
    "timeout",
    "watchdog",
    "checkpoint",
    "OOM",
    "memory",
    "GPU",
    "Xid",
    "79",
    "fell",
    "off",
    "the",
    "bus",
    "loader",
    "worker",
    "shm",
    "epoch",
    "slow",
    "allreduce",
    "disk",
    "full",
    "kubernetes",
    "evicted",
    "driver",
    "NVLink",
    "ECC",
    "error",
    "loss",
    "spike",
    "NaN",
    "inference",
    "latency",
    "storage",
    "InfiniBand",
    "flapping",
    "vLLM",
    "segfault",
    "optimizer",
    "overheating",
    "network",
    "tokenizer",
    "regression",
];

/// Inline syntax the box may hold beside the words.
const INLINE: &[&str] =
    &["", "component:nccl", "-symptom:hang", "year:2024", "after:2023-06", "component:gpu -root:hardware"];

/// A facet value of the bundled taxonomy, by position.
fn value_at(i: usize) -> (FacetKind, String) {
    let values = library().taxonomy.values();
    let v = &values[i % values.len()];
    (v.kind, v.name.clone())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn each_count_in_the_picker_is_what_applying_the_value_gives(
        words in proptest::collection::vec(proptest::sample::select(WORDS), 0..6),
        inline in proptest::sample::select(INLINE),
        applied in proptest::option::of((any::<usize>(), any::<bool>())),
        all in any::<bool>(),
    ) {
        let query = [words.join(" "), inline.to_string()].join(" ").trim().to_string();
        let mut filters = Filters::default();
        if let Some((i, negated)) = applied {
            let (kind, value) = value_at(i);
            filters.set_facet(FacetFilter { kind, value, negated });
        }
        counts_hold(&query, &filters, all);
    }
}

/// The cases the property may not draw often enough, each once: a sentence, the value applied
/// already being turned around, the inline clause naming the value.
#[test]
fn the_counts_hold_under_a_sentence_an_applied_value_and_an_inline_one() {
    let mut hang = Filters::default();
    hang.set_facet(FacetFilter { kind: FacetKind::Symptom, value: "Hang".into(), negated: false });
    let mut not_gpu = Filters::default();
    not_gpu.set_facet(FacetFilter { kind: FacetKind::Component, value: "GPU".into(), negated: true });
    for (query, filters) in [
        ("training job hung at the end-of-epoch checkpoint", Filters::default()),
        ("nccl watchdog timeout", hang.clone()),
        ("Xid 79 fell off the bus", not_gpu),
        ("component:nccl hang", Filters::default()),
        ("", hang),
    ] {
        for all in [false, true] {
            counts_hold(query, &filters, all);
        }
    }
}
