//! The app's unit tests: every behaviour of [`App::update`], driven by messages, with no
//! terminal.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use std::sync::Arc;

use crate::taxonomy::FacetKind;
use crate::tui::{
    event::{Msg, Signal},
    paste::{LogJob, PastedLog},
    session::Session,
    worker::{Breakdown, Dimension, Request, Response, Suggestion},
};
use crate::{corpus::Library, corpus::filter::FacetFilter, graph::Graph};

use super::*;
use crate::corpus::LoadOptions;

/// The fixture library with only its own taxonomy, so the bundled one can grow freely.
fn library() -> Arc<Library> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tui");
    let mut library = Library::load(&LoadOptions { bundled: false, dirs: vec![dir.clone()] });
    let text = std::fs::read_to_string(dir.join("taxonomy.toml")).unwrap();
    library.taxonomy = crate::taxonomy::Taxonomy::parse("taxonomy.toml", &text).0;
    Arc::new(library)
}

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn alt(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::ALT))
}

fn typed(app: &mut App, text: &str) -> Vec<Effect> {
    text.chars().flat_map(|c| app.update(key(KeyCode::Char(c)))).collect()
}

fn searches(effects: &[Effect]) -> Vec<Request> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Search(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

/// A response to `request` listing every case of the library in order, with one suggestion.
fn answer(app: &App, request: &Request) -> Msg {
    let all: Vec<usize> = (0..app.library.cases.len()).collect();
    let mut breakdown = Breakdown::default();
    breakdown.set(Dimension::Component, vec![("NCCL".into(), 3), ("GPU".into(), 1)]);
    breakdown.set(Dimension::Year, vec![("2024".into(), 3), ("2023".into(), 1)]);
    Msg::Searched(Box::new(Response {
        generation: request.generation,
        offset: request.offset,
        total: all.len(),
        hits: all.iter().skip(request.offset).take(request.limit).copied().collect(),
        suggestions: vec![Suggestion {
            kind: FacetKind::Symptom,
            value: "Hang".into(),
            count: 2,
            matched: vec!["hung".into()],
            basis: "alias \"hung\"".into(),
        }],
        summary: "These cases involve NCCL".into(),
        breakdown,
        ..Response::default()
    }))
}

/// Answer every search in `effects` with the real engine over the app's library, as the
/// worker would (the facet picker's counts need it: a canned answer has none).
fn run_searches(app: &mut App, effects: Vec<Effect>) {
    let searcher = crate::tui::worker::Searcher::new(app.library.clone());
    let mut pending = searches(&effects);
    while let Some(request) = pending.pop() {
        let response = searcher.run(&request);
        pending.extend(searches(&app.update(Msg::Searched(Box::new(response)))));
    }
}

/// A started app that has its first results.
fn started(size: (u16, u16)) -> App {
    let (mut app, effects) = App::new(library(), size, Options::default());
    let request = searches(&effects).pop().unwrap();
    let msg = answer(&app, &request);
    app.update(msg);
    app
}

#[test]
fn a_large_librarys_related_cases_wait_for_the_graph_built_apart() {
    let big = Arc::new(crate::synthetic::library(GRAPH_APART_FROM, 7));
    let (mut app, effects) = App::new(big.clone(), (120, 40), Options::default());
    let request = searches(&effects).pop().unwrap();
    let msg = answer(&app, &request);
    app.update(msg);
    assert!(app.case_view.case.is_some());
    assert!(app.case_view.related.is_empty(), "no related cases before the graph is in");
    assert!(app.graph.get().is_none(), "the first frame did not build the graph");
    let lines_before = app.case_doc().map_or(0, |d| d.lines.len());
    let graph = Graph::build(&big.cases);
    // A graph for another library (one switched from) is not taken.
    let other = Arc::new((*big).clone());
    app.update(Msg::GraphBuilt(other, Box::new(graph.clone())));
    assert!(app.graph.get().is_none() && app.case_view.related.is_empty());
    app.update(Msg::GraphBuilt(big, Box::new(graph)));
    assert!(!app.case_view.related.is_empty(), "the related cases come with the graph");
    assert!(app.case_doc().map_or(0, |d| d.lines.len()) > lines_before, "the case pane lists them");
}

/// The fixture library as the loader would hand it over.
fn loaded(library: Arc<Library>, problems: crate::tui::loader::Problems) -> Msg {
    Msg::Loaded(Box::new(crate::tui::loader::Loaded { library, search: None, problems }))
}

/// An app started on an interim library of the fixture's first two cases, loading the rest.
fn loading(size: (u16, u16), resume: Option<Session>) -> App {
    let full = library();
    let interim = Library { cases: full.cases[..2].to_vec().into(), ..(*full).clone() };
    let options = Options { loading: Some(Interim::Bundled), resume, ..Options::default() };
    let (mut app, effects) = App::new(Arc::new(interim), size, options);
    let request = searches(&effects).pop().unwrap();
    let msg = answer(&app, &request);
    app.update(msg);
    app
}

#[test]
fn progress_moves_the_gauge_and_only_while_loading() {
    use crate::support::progress::{Progress, Stage};
    let mut app = loading((80, 24), None);
    app.take_dirty();
    let p = Progress { stage: Stage::Reading, done: 3, total: 10 };
    assert!(app.update(Msg::Progress(p)).is_empty());
    assert!(app.take_dirty(), "the gauge moved");
    assert_eq!(app.loading.map(|l| (l.progress, l.interim)), Some((Some(p), Interim::Bundled)));
    app.update(Msg::Progress(p));
    assert!(!app.take_dirty(), "the same progress draws nothing");
    let mut done = started((80, 24));
    done.update(Msg::Progress(p));
    assert!(done.loading.is_none(), "no gauge once the library is in");
}

#[test]
fn the_loaded_library_is_searched_again_and_the_selection_kept_by_id() {
    let mut app = loading((80, 24), None);
    typed(&mut app, "x");
    let before = app.generation;
    let old = searches(&app.update(key(KeyCode::Backspace))).pop().unwrap();
    let msg = answer(&app, &old);
    app.update(msg);
    app.update(key(KeyCode::Esc));
    app.update(key(KeyCode::Char('j')));
    let kept = app.selected_case().unwrap().id.clone();
    let full = library();
    let effects = app.update(loaded(full.clone(), Default::default()));
    let request = searches(&effects).pop().expect("the query is searched again");
    assert!(request.generation > old.generation && old.generation > before);
    assert_eq!((request.input.as_str(), request.offset), ("", 0));
    assert!(Arc::ptr_eq(&app.library, &full), "the app has the new library");
    assert!(app.loading.is_none());
    assert!(!app.results.loaded, "results that pointed into the old library are gone");
    assert_eq!(
        app.note.as_ref().map(|n| (n.text.as_str(), n.error)),
        Some(("Library loaded: 6 cases", false))
    );
    // A page the old engine answers late belongs to the old generation: dropped.
    let stale = answer(&app, &old);
    app.update(stale);
    assert!(!app.results.loaded && app.awaiting_results());
    // The full library lists its cases in another order: the selection follows the case.
    let mut answer_msg = answer(&app, &request);
    if let Msg::Searched(r) = &mut answer_msg {
        r.hits.reverse();
    }
    app.update(answer_msg);
    assert_eq!(app.selected_case().map(|c| c.id.clone()), Some(kept));
    assert_eq!(app.list.selected, 4, "case 1 of 6, listed in reverse");
}

#[test]
fn a_kept_selection_beyond_the_first_page_is_located_by_the_worker() {
    let mut app = loading((80, 24), None);
    let kept = app.selected_case().unwrap().id.clone();
    let request = searches(&app.update(loaded(library(), Default::default()))).pop().unwrap();
    assert_eq!(request.locate.as_deref(), Some(kept.as_str()), "the worker is asked where it is");
    let Msg::Searched(mut response) = answer(&app, &request) else { unreachable!() };
    // It is not among the first page's hits.
    let library = app.library.clone();
    response.hits.retain(|&i| library.cases[i].id != kept);
    response.total = 1000;
    response.located = Some(450);
    let effects = app.update(Msg::Searched(response));
    assert_eq!(app.list.selected, 450);
    let page = searches(&effects).pop().expect("the page around it is asked for");
    assert!(page.offset <= 450 && 450 < page.offset + page.limit && page.locate.is_none());
    assert_eq!(page.generation, request.generation);
}

#[test]
fn a_selection_missing_from_the_full_library_falls_back_to_the_first_result() {
    let mut app = loading((80, 24), None);
    let mut full = (*library()).clone();
    full.cases.all_mut().retain(|c| c.id != app.library.cases[0].id);
    let request = searches(&app.update(loaded(Arc::new(full), Default::default()))).pop().unwrap();
    let msg = answer(&app, &request);
    app.update(msg);
    assert_eq!(app.list.selected, 0);
    assert!(app.selected_case().is_some());
}

#[test]
fn load_problems_become_one_note() {
    let mut app = loading((80, 24), None);
    let problems = crate::tui::loader::Problems {
        warnings: vec![],
        diagnostics: vec!["a.toml:1:1: error: x".into(), "b.toml:2:1: error: y".into()],
        dirs: Vec::new(),
    };
    app.update(loaded(library(), problems));
    let note = app.note.clone().unwrap();
    assert!(note.error);
    assert_eq!(note.text, "2 problems in your library files: run `incidex check` · library loaded: 6 cases");
}

#[test]
fn a_resumed_selection_missing_from_the_interim_library_comes_back_with_the_full_one() {
    let full = library();
    let wanted = full.cases[4].id.clone();
    let session = Session { selected: Some(wanted.clone()), ..Session::default() };
    let mut app = loading((80, 24), Some(session));
    assert_eq!(app.session().selected.as_deref(), Some(wanted.as_str()), "kept while loading");
    let request = searches(&app.update(loaded(full, Default::default()))).pop().unwrap();
    let msg = answer(&app, &request);
    app.update(msg);
    assert_eq!(app.selected_case().map(|c| c.id.as_str()), Some(wanted.as_str()));
    // Moving first means the user chose another case: nothing is restored over it.
    let session = Session { selected: Some(wanted.clone()), ..Session::default() };
    let mut app = loading((80, 24), Some(session));
    app.update(key(KeyCode::Down));
    let chosen = app.selected_case().unwrap().id.clone();
    let request = searches(&app.update(loaded(library(), Default::default()))).pop().unwrap();
    let msg = answer(&app, &request);
    app.update(msg);
    assert_eq!(app.selected_case().map(|c| c.id.clone()), Some(chosen));
}

#[test]
fn the_case_pane_waits_for_a_pause_in_typing() {
    let mut app = started((120, 40));
    let first = app.case_view.case;
    assert!(first.is_some());
    // Each keystroke's answer puts another case first.
    for c in "nccl".chars() {
        for request in searches(&app.update(key(KeyCode::Char(c)))) {
            let Msg::Searched(mut response) = answer(&app, &request) else { unreachable!() };
            response.hits.reverse();
            app.update(Msg::Searched(response));
        }
    }
    assert_ne!(app.selected_index(), first);
    assert!(app.case_held());
    assert_eq!(app.case_view.case, first, "the case pane keeps its case while keys come");
    app.typing_paused();
    assert!(!app.case_held());
    assert_eq!(app.case_view.case, app.selected_index(), "and catches up at the pause");

    typed(&mut app, "x");
    assert!(app.case_held());
    app.update(key(KeyCode::Down));
    assert!(!app.case_held(), "any other key shows the pane as it is");
}

#[test]
fn the_list_waits_for_a_pause_in_typing_and_shows_each_pause_its_answer() {
    let mut app = started((120, 40));
    let shown = |app: &App| {
        let (results, list) = app.list_shown();
        (results.generation, results.hits.clone(), *list)
    };
    let before = shown(&app);
    // Keys in a row: the list stays as it was when typing began.
    for c in "nccl".chars() {
        for request in searches(&app.update(key(KeyCode::Char(c)))) {
            let Msg::Searched(mut response) = answer(&app, &request) else { unreachable!() };
            response.hits.reverse();
            app.update(Msg::Searched(response));
        }
        assert_eq!(shown(&app), before, "held at {c:?}");
    }
    // The pause shows the newest answer.
    app.typing_paused();
    let newest = (app.results.generation, app.results.hits.clone(), app.list);
    assert_eq!(shown(&app), newest);
    assert_ne!(newest.1, before.1);
    // Someone who pauses after every key sees every answer.
    for c in " hang".chars() {
        for request in searches(&app.update(key(KeyCode::Char(c)))) {
            let msg = answer(&app, &request);
            app.update(msg);
        }
        app.typing_paused();
        assert_eq!(shown(&app), (app.results.generation, app.results.hits.clone(), app.list), "{c:?}");
    }
    // Any other key shows the list as it is; so does a resize.
    for request in searches(&typed(&mut app, "x")) {
        let msg = answer(&app, &request);
        app.update(msg);
    }
    assert_ne!(shown(&app).0, app.results.generation);
    app.update(key(KeyCode::Down));
    assert_eq!(shown(&app).0, app.results.generation);
    typed(&mut app, "y");
    app.update(Msg::Resize(100, 30));
    assert_eq!(shown(&app).0, app.results.generation);
}

#[test]
fn starting_asks_for_the_first_page_of_everything() {
    let (app, effects) = App::new(library(), (80, 24), Options::default());
    let requests = searches(&effects);
    assert_eq!(requests.len(), 1);
    assert_eq!((requests[0].input.as_str(), requests[0].offset, requests[0].limit), ("", 0, PAGE));
    assert_eq!(app.focus, Focus::Search);
    // The library's own order is listed meanwhile (see `App::show_library_order`).
    assert!(!app.awaiting_results() && app.results.loaded);
}

#[test]
fn the_first_frame_lists_what_the_engine_answers() {
    let (mut app, effects) = App::new(library(), (120, 40), Options::default());
    let before = (app.results.total, app.results.hits.clone(), app.case_view.case);
    assert!(before.0 > 0 && !before.1.is_empty() && before.2 == Some(0), "{before:?}");
    let request = searches(&effects).pop().unwrap();
    let engine = crate::tui::worker::Searcher::new(app.library.clone());
    let response = engine.run(&request);
    assert_eq!((response.total, &response.hits), (before.0, &before.1), "the engine lists the same");
    app.update(Msg::Searched(Box::new(response)));
    assert!(!app.results.summary.is_empty(), "the engine's answer is taken: it adds the summary");
    assert_eq!((app.results.total, app.results.hits.clone(), app.case_view.case), before);
}

#[test]
fn the_first_frame_waits_for_the_engine_when_a_query_or_selection_is_resumed() {
    let session = |query: &str, selected: Option<&str>| Session {
        query: query.into(),
        selected: selected.map(String::from),
        ..Session::default()
    };
    for resumed in [session("nccl", None), session("", Some("whatever-id"))] {
        let options = Options { resume: Some(resumed.clone()), ..Options::default() };
        let (app, _) = App::new(library(), (120, 40), options);
        assert!(app.awaiting_results() && !app.results.loaded, "{resumed:?}");
    }
}

#[test]
fn each_keystroke_is_a_new_generation_and_old_answers_are_dropped() {
    let mut app = started((80, 24));
    let first = searches(&typed(&mut app, "h"));
    let second = searches(&typed(&mut app, "u"));
    assert_eq!(second[0].input, "hu");
    assert!(second[0].generation > first[0].generation);
    let stale = answer(&app, &first[0]);
    let before = app.results.clone();
    app.update(stale);
    assert_eq!(app.results, before, "an overtaken answer changes nothing");
    assert!(app.awaiting_results());
    let fresh = answer(&app, &second[0]);
    app.update(fresh);
    assert!(!app.awaiting_results());
    assert_eq!(app.results.generation, second[0].generation);
}

#[test]
fn moving_the_cursor_does_not_search() {
    let mut app = started((80, 24));
    typed(&mut app, "ab");
    assert!(searches(&app.update(key(KeyCode::Left))).is_empty());
    assert!(searches(&app.update(key(KeyCode::Home))).is_empty());
    assert_eq!(searches(&app.update(key(KeyCode::Delete)))[0].input, "b");
}

#[test]
fn alt_enter_applies_the_suggestion_and_keeps_the_sentence() {
    let mut app = started((80, 24));
    typed(&mut app, "hung");
    let effects = app.update(alt(KeyCode::Enter));
    let request = searches(&effects).pop().expect("applying searches again");
    assert_eq!(request.input, "hung");
    assert_eq!(
        request.filters.facets,
        [FacetFilter { kind: FacetKind::Symptom, value: "Hang".into(), negated: false }]
    );
    assert!(
        app.note.as_ref().is_some_and(|n| n.text == "applied Symptom: Hang (suggested by alias \"hung\")"),
        "{:?}",
        app.note
    );
    // The answer's suggestion is the applied filter: it is not offered again.
    let msg = answer(&app, &request);
    app.update(msg);
    assert!(app.results.suggestions.is_empty());
}

#[test]
fn minus_excludes_and_flips_chips() {
    let mut app = started((80, 24));
    app.update(key(KeyCode::Esc)); // to the case list
    assert_eq!(app.focus, Focus::Results);
    let request = searches(&app.update(key(KeyCode::Char('-')))).pop().unwrap();
    assert!(request.filters.facets[0].negated);
    let msg = answer(&app, &request);
    app.update(msg);
    app.update(key(KeyCode::Tab));
    app.update(key(KeyCode::Tab));
    app.update(key(KeyCode::Tab));
    assert_eq!(app.focus, Focus::Filters, "Tab reaches the filters row");
    assert_eq!(app.filter_items()[app.filter_cursor], FilterItem::Chip(Chip::Facet(0)));
    let flipped = searches(&app.update(key(KeyCode::Char('-')))).pop().unwrap();
    assert!(!flipped.filters.facets[0].negated);
    let removed = searches(&app.update(key(KeyCode::Char('d')))).pop().unwrap();
    assert!(removed.filters.is_empty());
}

#[test]
fn clear_all_empties_the_filters() {
    let mut app = started((80, 24));
    app.filters.set_facet(FacetFilter { kind: FacetKind::Component, value: "NCCL".into(), negated: false });
    app.filters.after = Some("2024".parse().unwrap());
    app.filters.before = Some("2024".parse().unwrap());
    assert_eq!(app.chips(), [Chip::Facet(0), Chip::Year(2024)]);
    app.focus = Focus::Filters;
    app.filter_cursor = 2;
    assert_eq!(app.filter_items()[2], FilterItem::ClearAll);
    let request = searches(&app.update(key(KeyCode::Enter))).pop().unwrap();
    assert!(request.filters.is_empty());
    assert_eq!(app.focus, Focus::Filters, "focus stays where the user was");
    app.update(key(KeyCode::Char('/')));
    assert_eq!((app.focus, app.input.text()), (Focus::Search, ""), "so `/` goes to the search box");
}

#[test]
fn the_list_moves_pages_and_asks_for_pages_beyond_the_loaded_window() {
    let mut app = started((80, 24));
    app.update(key(KeyCode::Esc));
    let items = app.layout().unwrap().list_items();
    app.update(key(KeyCode::Char('j')));
    assert_eq!(app.list.selected, 1);
    app.update(key(KeyCode::Char('G')));
    assert_eq!(app.list.selected, app.results.total - 1);
    assert!(app.list.top + items > app.list.selected);
    app.update(key(KeyCode::Char('g')));
    assert_eq!((app.list.selected, app.list.top), (0, 0));
    // A result set bigger than one page: going to the end asks for the last page.
    app.results.total = 1000;
    let request = searches(&app.update(key(KeyCode::End))).pop().expect("a page request");
    assert_eq!(request.generation, app.generation, "a page belongs to the same query");
    assert!(request.offset <= 999 && 999 < request.offset + request.limit);
    assert!(!app.awaiting_results(), "pages do not hold the frame");
}

#[test]
fn enter_opens_the_case_and_esc_goes_back() {
    let mut app = started((80, 24));
    app.update(key(KeyCode::Enter));
    assert_eq!(app.focus, Focus::Results);
    app.update(key(KeyCode::Char('j')));
    app.update(key(KeyCode::Enter));
    assert_eq!((app.focus, app.right), (Focus::Detail, RightPane::Case));
    assert_eq!(app.case_view.case, Some(1));
    app.update(key(KeyCode::Char('j')));
    assert_eq!(app.case_view.scroll, 1);
    app.update(key(KeyCode::Esc));
    assert_eq!(app.focus, Focus::Results);
    app.update(key(KeyCode::Esc));
    assert_eq!(app.focus, Focus::Search);
}

#[test]
fn facet_values_in_the_case_pane_apply_as_filters() {
    let mut app = started((100, 30));
    app.update(key(KeyCode::Esc));
    app.update(key(KeyCode::Enter));
    assert!(searches(&app.update(key(KeyCode::Enter))).is_empty(), "no value highlighted yet");
    app.update(key(KeyCode::Right));
    let doc = app.case_doc().unwrap().clone();
    let first = doc.facets[app.case_view.facet().unwrap()].clone();
    app.update(key(KeyCode::Right));
    let second = doc.facets[app.case_view.facet().unwrap()].clone();
    assert_ne!(first, second);
    let request = searches(&app.update(key(KeyCode::Enter))).pop().unwrap();
    assert_eq!(
        request.filters.facets,
        [FacetFilter { kind: second.kind, value: second.value.clone(), negated: false }]
    );
    let request = searches(&app.update(key(KeyCode::Char('-')))).pop().unwrap();
    assert!(request.filters.facets[0].negated, "- excludes the highlighted value");
}

#[test]
fn v_cycles_the_right_pane_and_the_breakdown_applies_bars() {
    let mut app = started((100, 30));
    app.update(key(KeyCode::Esc));
    app.update(key(KeyCode::Char('v')));
    assert_eq!(app.right, RightPane::Graph, "case, graph, breakdown: DESIGN.md's order");
    app.update(key(KeyCode::Char('v')));
    assert_eq!(app.right, RightPane::Breakdown);
    assert_eq!(app.breakdown.dimension, Dimension::RootCause, "root cause first, as on the seed page");
    app.update(key(KeyCode::Tab));
    assert_eq!(app.focus, Focus::Detail);
    app.update(key(KeyCode::Right));
    assert_eq!(app.breakdown.dimension, Dimension::Component);
    app.update(key(KeyCode::Char('j')));
    let request = searches(&app.update(key(KeyCode::Enter))).pop().unwrap();
    assert_eq!(request.filters.facets[0].value, "GPU");
    app.update(key(KeyCode::Left));
    app.update(key(KeyCode::Left));
    assert_eq!(app.breakdown.dimension, Dimension::Year);
    let request = searches(&app.update(key(KeyCode::Enter))).pop().unwrap();
    assert_eq!(request.filters.after, Some("2024".parse().unwrap()));
    assert!(searches(&app.update(key(KeyCode::Char('-')))).is_empty(), "a year cannot be excluded");
    app.update(key(KeyCode::Char('v')));
    assert_eq!(app.right, RightPane::Case);
}

#[test]
fn the_picker_filters_fuzzily_and_a_leading_minus_excludes() {
    let mut app = started((80, 24));
    app.update(key(KeyCode::Esc));
    let effects = app.update(key(KeyCode::Char('2')));
    run_searches(&mut app, effects);
    let Some(Overlay::Picker(p)) = &app.overlay else { panic!("picker open") };
    assert_eq!(p.kind, FacetKind::Component);
    assert_eq!(p.rows.len(), 4);
    let order: Vec<(Option<usize>, &str)> = p.rows.iter().map(|r| (r.count, r.value.as_str())).collect();
    assert_eq!(
        order,
        [(Some(3), "Checkpointing"), (Some(3), "NCCL"), (Some(3), "Training data loader"), (Some(1), "GPU")]
    );
    for c in "-dtldr".chars() {
        app.update(key(KeyCode::Char(c)));
    }
    let Some(Overlay::Picker(p)) = &app.overlay else { panic!("picker open") };
    assert_eq!(p.rows[0].value, "Training data loader");
    assert!(p.negated());
    let request = searches(&app.update(key(KeyCode::Enter))).pop().unwrap();
    assert_eq!(
        request.filters.facets,
        [FacetFilter { kind: FacetKind::Component, value: "Training data loader".into(), negated: true }]
    );
    assert!(app.overlay.is_none());
    // Aliases find values too, and Tab changes the kind.
    let effects = app.update(key(KeyCode::Char('f')));
    run_searches(&mut app, effects);
    app.update(key(KeyCode::Tab));
    for c in "stuck".chars() {
        app.update(key(KeyCode::Char(c)));
    }
    let Some(Overlay::Picker(p)) = &app.overlay else { panic!("picker open") };
    assert_eq!(p.kind, FacetKind::Symptom);
    assert_eq!(p.rows.first().map(|r| r.value.as_str()), Some("Hang"));
    app.update(key(KeyCode::Esc));
    assert!(app.overlay.is_none());
}

#[test]
fn the_picker_counts_what_would_remain_and_reads_near_spellings() {
    let mut app = started((80, 24));
    let total = app.library.cases.len();
    app.update(key(KeyCode::Esc));
    let effects = app.update(key(KeyCode::Char('2')));
    run_searches(&mut app, effects);
    for c in "-gpu".chars() {
        app.update(key(KeyCode::Char(c)));
    }
    let Some(Overlay::Picker(p)) = &app.overlay else { panic!("picker open") };
    assert_eq!(p.rows[0].value, "GPU", "the order is the same as when including");
    assert_eq!(p.rows[0].count, Some(total - 1), "excluding GPU leaves the cases without it");
    for _ in 0.."-gpu".len() {
        app.update(key(KeyCode::Backspace));
    }
    for c in "nccll".chars() {
        app.update(key(KeyCode::Char(c)));
    }
    let Some(Overlay::Picker(p)) = &app.overlay else { panic!("picker open") };
    assert_eq!(p.rows.first().map(|r| (r.value.as_str(), r.count)), Some(("NCCL", Some(3))));
    assert_eq!(p.note.as_deref(), Some("read as 'NCCL' (the nearest spelling)"));
    let request = searches(&app.update(key(KeyCode::Enter))).pop().unwrap();
    assert_eq!(
        request.filters.facets,
        [FacetFilter { kind: FacetKind::Component, value: "NCCL".into(), negated: false }]
    );
}

#[test]
fn the_picker_shows_no_count_until_the_counts_for_the_query_shown_come() {
    let mut app = started((80, 24));
    let searcher = crate::tui::worker::Searcher::new(app.library.clone());
    let first = searches(&typed(&mut app, "hung")).pop().unwrap();
    assert!(!first.value_counts, "no picker open, nothing to count");
    app.focus = Focus::Results;
    let opened = searches(&app.update(key(KeyCode::Char('2'))));
    assert_eq!(opened.len(), 1, "opening the picker asks for its counts");
    assert!(opened[0].value_counts && opened[0].generation == first.generation);
    let counted = |app: &App| {
        let Some(Overlay::Picker(p)) = &app.overlay else { panic!("picker open") };
        assert_eq!(p.counted(), p.rows.iter().all(|r| r.count.is_some()), "{:?}", p.rows);
        assert!(p.counted() || p.rows.iter().all(|r| r.count.is_none()), "{:?}", p.rows);
        p.counted()
    };
    assert!(!counted(&app) && app.awaiting_answer());
    // The answer to the query as sent before the picker opened has no counts: still none shown.
    app.update(Msg::Searched(Box::new(searcher.run(&first))));
    assert!(!counted(&app) && app.awaiting_answer());
    // Counts for an older query are dropped with its answer.
    let older = Request { generation: first.generation - 1, ..opened[0].clone() };
    app.update(Msg::Searched(Box::new(searcher.run(&older))));
    assert!(!counted(&app));
    app.update(Msg::Searched(Box::new(searcher.run(&opened[0]))));
    assert!(counted(&app) && !app.awaiting_answer());
    let Some(Overlay::Picker(p)) = &app.overlay else { panic!("picker open") };
    for row in &p.rows {
        let mut filters = Filters::default();
        filters.set_facet(FacetFilter {
            kind: FacetKind::Component,
            value: row.value.clone(),
            negated: false,
        });
        let applied = Request { filters, value_counts: false, ..opened[0].clone() };
        assert_eq!(row.count, Some(searcher.run(&applied).total), "{} under 'hung'", row.value);
    }
    // Open again on the same query: the counts are there, nothing to ask.
    app.update(key(KeyCode::Esc));
    assert!(searches(&app.update(key(KeyCode::Char('3')))).is_empty());
    assert!(counted(&app));
    // Another query: the old counts are not shown for it.
    app.update(key(KeyCode::Esc));
    app.focus = Focus::Search;
    typed(&mut app, " forever");
    app.focus = Focus::Results;
    assert!(!searches(&app.update(key(KeyCode::Char('3')))).is_empty());
    assert!(!counted(&app));
}

#[test]
fn y_copies_the_case_id_or_the_highlighted_source_address() {
    let mut app = started((100, 30));
    app.update(key(KeyCode::Esc));
    let id = app.selected_case().unwrap().id.clone();
    let copies = |effects: Vec<Effect>| -> Vec<Clip> {
        effects
            .into_iter()
            .filter_map(|e| match e {
                Effect::Copy(clip) => Some(clip),
                _ => None,
            })
            .collect()
    };
    let clips = copies(app.update(key(KeyCode::Char('y'))));
    assert_eq!(clips, [Clip { text: id.clone(), what: format!("the id {id}") }], "from the list");
    app.copy_finished(&clips[0], Ok(crate::tui::clipboard::Copied::Terminal));
    assert_eq!(app.note.as_ref().map(|n| n.text.clone()), Some(format!("copied the id {id} (OSC 52)")));
    // In the case pane, → walks past the facet values to the sources.
    app.update(key(KeyCode::Enter));
    let doc = app.case_doc().unwrap().clone();
    for _ in 0..=doc.facets.len() {
        app.update(key(KeyCode::Right));
    }
    assert_eq!(app.case_view.source(), Some(0));
    let clips = copies(app.update(key(KeyCode::Char('y'))));
    assert_eq!(clips[0].text, doc.sources[0].url);
    app.copy_finished(&clips[0], Err("too large".into()));
    assert!(app.note.as_ref().is_some_and(|n| n.error && n.text == "cannot copy: too large"));
    assert!(searches(&app.update(key(KeyCode::Char('/')))).is_empty());
    assert!(copies(app.update(key(KeyCode::Char('y')))).is_empty(), "y is text in the search box");
    assert_eq!(app.input.text(), "y");
}

#[test]
fn help_opens_and_closes_and_q_types_in_the_search_box() {
    let mut app = started((80, 24));
    assert!(searches(&app.update(key(KeyCode::Char('q')))).len() == 1, "q is text in the search box");
    app.update(key(KeyCode::F(1)));
    assert!(matches!(app.overlay, Some(Overlay::Help(0))));
    app.update(key(KeyCode::Char('j')));
    assert!(matches!(app.overlay, Some(Overlay::Help(1))));
    app.update(key(KeyCode::Esc));
    assert!(app.overlay.is_none());
    app.update(key(KeyCode::Esc));
    app.update(key(KeyCode::Esc));
    assert_eq!(app.update(key(KeyCode::Char('q'))), [Effect::Quit]);
}

#[test]
fn signals_and_a_dead_terminal_quit() {
    for msg in [
        Msg::Signal(Signal::Hangup),
        Msg::Signal(Signal::Terminate),
        Msg::Signal(Signal::Interrupt),
        Msg::InputClosed("gone".into()),
        Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
    ] {
        let mut app = started((80, 24));
        assert_eq!(app.update(msg), [Effect::Quit]);
    }
    let mut app = started((80, 24));
    assert_eq!(app.update(Msg::Signal(Signal::Continue)), [Effect::Redraw]);
    let ctrl_z = Msg::Key(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL));
    assert_eq!(app.update(ctrl_z), [Effect::Suspend]);
}

#[test]
fn the_session_is_saved_as_it_changes_and_restored() {
    let mut app = started((80, 24));
    let effects = typed(&mut app, "x");
    let saved = effects.iter().find_map(|e| match e {
        Effect::Save(s) => Some(s.clone()),
        _ => None,
    });
    assert_eq!(saved.as_ref().map(|s| s.query.as_str()), Some("x"));
    assert!(
        !app.update(key(KeyCode::Left)).iter().any(|e| matches!(e, Effect::Save(_))),
        "nothing saved when nothing it keeps changed"
    );
    let mut session = saved.unwrap();
    session.selected = Some(app.library.cases[2].id.clone());
    session.pane = "breakdown".into();
    session.breakdown = "year".into();
    let (mut resumed, effects) =
        App::new(library(), (80, 24), Options { resume: Some(session.clone()), ..Options::default() });
    assert_eq!(resumed.input.text(), "x");
    assert_eq!((resumed.right, resumed.breakdown.dimension), (RightPane::Breakdown, Dimension::Year));
    let request = searches(&effects).pop().unwrap();
    let msg = answer(&resumed, &request);
    resumed.update(msg);
    assert_eq!(resumed.list.selected, 2, "the saved selection comes back");
    assert_eq!(resumed.focus, Focus::Results);
}

#[test]
fn resizing_keeps_the_selection_in_view_and_tiny_sizes_do_not_panic() {
    let mut app = started((80, 24));
    app.update(key(KeyCode::Esc));
    app.update(key(KeyCode::End));
    for (w, h) in [(1, 1), (0, 0), (39, 9), (40, 10), (200, 50), (60, 16), (80, 24)] {
        app.update(Msg::Resize(w, h));
        app.update(key(KeyCode::Char('j')));
        app.update(key(KeyCode::Char('k')));
        if let Some(l) = app.layout() {
            assert!(app.list.selected >= app.list.top && app.list.selected < app.list.top + l.list_items());
        }
    }
}

#[test]
fn pasted_text_goes_to_the_search_box_as_one_line() {
    let mut app = started((80, 24));
    app.update(key(KeyCode::Esc));
    let request = searches(&app.update(Msg::Paste("NCCL WARN Timeout\x1b[2J".into()))).pop().unwrap();
    assert_eq!(request.input, "NCCL WARN Timeout\u{241b}[2J");
    assert!(!request.log, "one line is a sentence, searched as typed");
    assert_eq!(app.focus, Focus::Search);
}

/// The log-reading jobs among `effects`.
fn read_jobs(effects: &[Effect]) -> Vec<LogJob> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::ReadLog(job) => Some(job.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_pasted_log_is_read_apart_down_to_the_lines_that_stood_out() {
    let mut app = started((80, 24));
    app.update(key(KeyCode::Esc));
    let mut log = String::new();
    for step in 0..500 {
        log.push_str(&format!("[rank{}]: step {step} loss 2.{step} lr 3e-4\r", step % 8));
    }
    log.push_str("[rank3]: RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error.\r");
    log.push_str("[rank3]: step 501 loss 2.0\r\x1b[2J");
    let effects = app.update(Msg::Paste(log));
    assert!(searches(&effects).is_empty(), "nothing is searched before the log is read");
    let job = read_jobs(&effects).pop().expect("the paste is read apart");
    let note = app.note.as_ref().map(|n| n.text.clone()).unwrap_or_default();
    assert!(note.starts_with("reading the pasted log (") && note.contains(" KB)… Esc stops"), "{note}");
    let read = job.run().expect("read");
    let request = searches(&app.update(Msg::LogRead(Box::new(read)))).pop().unwrap();
    assert!(request.log, "a log is searched as a log: no inline syntax, no typo corrections");
    assert_eq!(request.input, "RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error.");
    let note = app.note.as_ref().map(|n| n.text.clone()).unwrap_or_default();
    assert_eq!(note, "pasted log: 503 lines read; 1 stood out (L501)");
    // Clearing the box ends the log: the next words are a sentence again.
    app.update(key(KeyCode::Esc));
    let typed = searches(&app.update(key(KeyCode::Char('x')))).pop().unwrap();
    assert!(!typed.log);
}

#[test]
fn a_paste_the_user_moved_on_from_is_cancelled_and_its_answer_dropped() {
    let mut app = started((80, 24));
    app.update(key(KeyCode::Esc));
    let log = "NCCL WARN Timeout on ring 3\r".repeat(1000);
    // Typed over: the job is cancelled, a late answer changes nothing.
    let first = read_jobs(&app.update(Msg::Paste(log.clone()))).pop().unwrap();
    let finished = first.run().unwrap();
    app.update(key(KeyCode::Char('x')));
    assert_eq!(first.run(), None, "typing cancels the reading");
    assert!(app.update(Msg::LogRead(Box::new(finished))).is_empty());
    assert_eq!(app.input.text(), "x");
    // Pasted again: only the latest paste's answer is taken.
    app.update(key(KeyCode::Esc));
    let older = read_jobs(&app.update(Msg::Paste(log.clone()))).pop().unwrap();
    let newer = read_jobs(&app.update(Msg::Paste(format!("{log}ERROR: disk full\r")))).pop().unwrap();
    assert_eq!(older.run(), None);
    assert!(
        app.update(Msg::LogRead(Box::new(PastedLog { id: older.id, digest: Default::default() }))).is_empty()
    );
    let request = searches(&app.update(Msg::LogRead(Box::new(newer.run().unwrap())))).pop().unwrap();
    assert!(request.input.contains("ERROR: disk full"), "{}", request.input);
    // Esc while reading stops it and says so.
    app.update(key(KeyCode::Esc));
    let job = read_jobs(&app.update(Msg::Paste(log))).pop().unwrap();
    assert!(app.update(key(KeyCode::Esc)).iter().all(|e| matches!(e, Effect::Save(_))));
    assert_eq!(job.run(), None);
    assert_eq!(app.note.as_ref().map(|n| n.text.as_str()), Some("stopped reading the pasted log"));
}

#[test]
fn mouse_events_are_ignored_unless_turned_on() {
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let click = |row, column| {
        Msg::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    let mut app = started((100, 30));
    app.update(click(8, 5));
    assert_eq!(app.focus, Focus::Search);
    app.mouse = true;
    let l = app.layout().unwrap();
    // The second case of the list.
    app.update(click(l.list.y + 1 + l.list_item_height() as u16, 5));
    assert_eq!((app.focus, app.list.selected), (Focus::Results, 1));
    app.update(click(l.right.y + 2, l.right.x + 3));
    assert_eq!(app.focus, Focus::Detail);
    let wheel = Msg::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: l.right.x + 3,
        row: l.right.y + 2,
        modifiers: KeyModifiers::NONE,
    });
    app.update(wheel);
    assert_eq!(app.case_view.scroll, 3);
}

/// A node audit in which `shm.size` found a 64 MiB /dev/shm and cites `loader-shm`.
fn audit_citing_loader_shm() -> Arc<crate::doctor::Report> {
    use crate::doctor::{CheckResult, Context, Finding, Outcome, Report, Snapshot, State};
    let finding = Finding::new(State::Warn, "/dev/shm", "/dev/shm is 64 MiB");
    Arc::new(Report {
        context: Context::of(&Snapshot::default()),
        results: vec![
            CheckResult {
                id: "shm.size",
                title: "shm",
                outcome: Outcome::found(vec![finding], ""),
                cases: vec!["loader-shm".into()],
            },
            CheckResult {
                id: "gpu.xid",
                title: "xid",
                outcome: Outcome::pass("no Xid"),
                cases: vec!["xid-79".into()],
            },
        ],
    })
}

#[test]
fn check_your_cluster_for_this_names_what_the_audit_found_for_the_listed_cases() {
    let mut app = started((120, 40));
    assert_eq!(app.node_line(), None, "the first frame does not wait for the audit");
    app.take_dirty();
    app.update(Msg::Audited(audit_citing_loader_shm()));
    assert!(app.take_dirty(), "the audit's arrival is drawn with no key pressed");
    let line = app.node_line().unwrap();
    assert!(line.starts_with("On this node: /dev/shm is 64 MiB, as in 1 of these"), "{line}");
    assert!(line.contains("D shows the checks"));
    // D opens the checks, which name the check and the listed case it cites.
    app.update(Msg::Key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE)));
    app.update(Msg::Key(KeyEvent::new(KeyCode::Char('D'), KeyModifiers::SHIFT)));
    assert!(matches!(app.overlay, Some(Overlay::Checks(0))));
    let lines = app.checks_lines().join("\n");
    assert!(
        lines.contains("WARN    shm.size  /dev/shm is 64 MiB") && lines.contains("loader-shm"),
        "{lines}"
    );
    app.update(key(KeyCode::Esc));
    assert!(app.overlay.is_none());
    // The case a check cites shows the check's result in its pane.
    assert_eq!(app.checks_for_case("loader-shm").len(), 1);
    assert!(app.checks_for_case("no-such-case").is_empty());
}

#[test]
fn with_nothing_found_the_line_says_so_and_without_citing_checks_there_is_none() {
    use crate::doctor::{CheckResult, Context, Outcome, Report, Snapshot};
    let mut app = started((120, 40));
    let report = Report {
        context: Context::of(&Snapshot::default()),
        results: vec![CheckResult {
            id: "shm.size",
            title: "shm",
            outcome: Outcome::pass("16 GiB"),
            cases: vec!["loader-shm".into()],
        }],
    };
    app.update(Msg::Audited(Arc::new(report)));
    assert!(app.node_line().unwrap().contains("nothing of these cases found here"));
    let report = Report { context: Context::of(&Snapshot::default()), results: vec![] };
    app.update(Msg::Audited(Arc::new(report)));
    assert_eq!(app.node_line(), None);
}

/// The preflight of a GPU pod with no /dev/shm volume, its rule citing the test library's case.
fn preflight_of_a_pod() -> crate::doctor::spec::FileReport {
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: t\nspec:\n  containers:\n  - name: t\n    image: img:1\n    resources:\n      limits:\n        nvidia.com/gpu: 8\n";
    let mut report = crate::doctor::spec::check_text(
        "pod.yaml",
        pod,
        &crate::doctor::Rules::bundled(),
        &crate::doctor::Selection { only: vec!["shm.size".into()], skip: vec![] },
        &[],
    );
    report.results[0].cases = vec!["loader-shm".into()];
    report
}

#[test]
fn opened_on_a_job_spec_the_ui_starts_on_its_findings_and_enter_lists_the_cases_behind_one() {
    let options = Options { preflight: vec![preflight_of_a_pod()], ..Options::default() };
    let (mut app, _) = App::new(library(), (120, 40), options);
    assert!(matches!(app.overlay, Some(Overlay::Preflight(0))), "the findings are the first view");
    assert_eq!(app.context(), Context::Preflight);
    let lines = app.preflight_lines().join("\n");
    assert!(lines.contains("WARN  shm.size") && lines.contains("pod.yaml:7"), "{lines}");
    let effects = app.update(key(KeyCode::Enter));
    assert!(app.overlay.is_none());
    assert!(!searches(&effects).is_empty(), "the cases are searched for");
    assert!(!app.filters.facets.is_empty(), "the cited case's facets are applied");
    let loader = app.library.cases.iter().find(|c| c.id == "loader-shm").unwrap();
    for f in &app.filters.facets {
        assert!(loader.facets.values(f.kind).contains(&f.value), "{f} is not a facet of the cited case");
    }
    assert_eq!(app.restore_selection.as_deref(), Some("loader-shm"));
    assert!(app.note.as_ref().is_some_and(|n| n.text.starts_with("shm.size: 1 case(s) cite it")));
    // P brings the findings back; Esc closes them.
    app.update(Msg::Key(KeyEvent::new(KeyCode::Char('P'), KeyModifiers::SHIFT)));
    assert!(matches!(app.overlay, Some(Overlay::Preflight(0))));
    app.update(key(KeyCode::Esc));
    assert!(app.overlay.is_none());
}

#[test]
fn without_job_specs_p_says_how_to_give_them() {
    let mut app = started((120, 40));
    app.update(key(KeyCode::Tab));
    app.update(Msg::Key(KeyEvent::new(KeyCode::Char('P'), KeyModifiers::SHIFT)));
    assert!(app.overlay.is_none());
    assert!(app.note.as_ref().is_some_and(|n| n.text.contains("incidex FILE")), "{:?}", app.note);
}
