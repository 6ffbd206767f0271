//! Whole-screen snapshots of the terminal UI (ratatui's `TestBackend` + insta) over the small
//! fixture library in `tests/fixtures/tui`, with its own taxonomy, so the bundled library can
//! grow without churning them. Searches run synchronously through the real search worker code.

use std::sync::Arc;

#[path = "tui_support/mod.rs"]
mod tui_support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use incidex::{
    corpus::Library,
    settings::theme::{ColorDepth, Theme},
    support::progress::{Progress, Stage},
    tui::{
        app::{App, Effect, Interim, Options},
        event::Msg,
        loader::{Loaded, Opened, Problems},
        session::{SavedFilter, Session},
        style::Styles,
        worker::Searcher,
    },
};
use ratatui::buffer::Buffer;
use tui_support::{fixture_library, render, screen_text};

/// The UI, its searcher and a theme, driven without a terminal.
struct Harness {
    app: App,
    searcher: Searcher,
    styles: Styles,
}

impl Harness {
    fn new(width: u16, height: u16) -> Harness {
        Harness::with_theme(width, height, "default")
    }

    fn with_theme(width: u16, height: u16, theme: &str) -> Harness {
        Harness::start(width, height, theme, fixture_library("tui"), Options::default())
    }

    /// The UI started on `library` while the whole one loads: the first two fixture cases
    /// stand in for the bundled library.
    fn loading(width: u16, height: u16, theme: &str) -> Harness {
        let full = fixture_library("tui");
        let interim = Library { cases: full.cases[..2].to_vec().into(), ..(*full).clone() };
        let options = Options { loading: Some(Interim::Bundled), ..Options::default() };
        let mut h = Harness::start(width, height, theme, Arc::new(interim), options);
        h.send(Msg::Progress(Progress { stage: Stage::Reading, done: 41_203, total: 100_000 }));
        h
    }

    fn start(width: u16, height: u16, theme: &str, library: Arc<Library>, options: Options) -> Harness {
        let searcher = Searcher::new(library.clone());
        let (app, effects) = App::new(library, (width, height), options);
        let styles = Styles::new(&Theme::bundled(theme).unwrap(), ColorDepth::TrueColor);
        let mut h = Harness { app, searcher, styles };
        h.run(effects);
        h
    }

    /// Run effects, answering searches at once, until none is left.
    fn run(&mut self, mut effects: Vec<Effect>) {
        while let Some(effect) = effects.pop() {
            if let Effect::Search(request) = effect {
                let response = self.searcher.run(&request);
                effects.extend(self.app.update(Msg::Searched(Box::new(response))));
            }
        }
    }

    fn send(&mut self, mut msg: Msg) -> &mut Self {
        // As the main loop does: the new engine goes to the searcher before the app sees it.
        if let Msg::Loaded(loaded) = &mut msg
            && let Some(search) = loaded.search.take()
        {
            self.searcher = search.into_searcher(loaded.library.clone());
        }
        let effects = self.app.update(msg);
        self.run(effects);
        self
    }

    fn key(&mut self, code: KeyCode) -> &mut Self {
        self.send(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
    }

    fn alt(&mut self, code: KeyCode) -> &mut Self {
        self.send(Msg::Key(KeyEvent::new(code, KeyModifiers::ALT)))
    }

    /// Type `text`, then pause: the screen as it settles (the case pane follows the selection
    /// once typing pauses, see `App::case_held`).
    fn typed(&mut self, text: &str) -> &mut Self {
        for c in text.chars() {
            self.key(KeyCode::Char(c));
        }
        self.app.typing_paused();
        self
    }

    fn resize(&mut self, width: u16, height: u16) -> &mut Self {
        self.send(Msg::Resize(width, height))
    }

    fn buffer(&self) -> Buffer {
        render(&self.app, &self.styles)
    }

    /// The screen as text.
    fn screen(&self) -> String {
        screen_text(&self.buffer(), false)
    }

    /// The screen as text, each row followed by a row marking reversed (`r`), bold (`b`) and
    /// underlined (`u`) cells, when it has any: what the mono theme shows instead of colour.
    fn screen_with_attributes(&self) -> String {
        screen_text(&self.buffer(), true)
    }
}

#[test]
fn empty_query_80x24() {
    insta::assert_snapshot!(Harness::new(80, 24).screen());
}

#[test]
fn a_sentence_with_suggestions() {
    let mut h = Harness::new(80, 24);
    h.typed("job hung at the checkpoint");
    insta::assert_snapshot!(h.screen());
}

#[test]
fn a_typo() {
    let mut h = Harness::new(80, 24);
    h.typed("chekpoint");
    insta::assert_snapshot!(h.screen());
}

#[test]
fn an_unknown_inline_value_is_shown_as_an_error() {
    let mut h = Harness::new(80, 24);
    h.typed("component:flux");
    insta::assert_snapshot!(h.screen());
}

#[test]
fn a_filter_applied() {
    let mut h = Harness::new(80, 24);
    h.typed("job hung at the checkpoint").alt(KeyCode::Enter);
    insta::assert_snapshot!(h.screen());
}

#[test]
fn a_negated_filter() {
    let mut h = Harness::new(80, 24);
    h.typed("hung").key(KeyCode::Tab).key(KeyCode::Char('-'));
    insta::assert_snapshot!(h.screen());
}

#[test]
fn a_case_open() {
    let mut h = Harness::new(80, 24);
    h.key(KeyCode::Enter).key(KeyCode::Enter);
    insta::assert_snapshot!(h.screen());
}

#[test]
fn a_case_scrolled_with_a_facet_value_highlighted() {
    let mut h = Harness::new(100, 30);
    h.key(KeyCode::Enter).key(KeyCode::Enter).key(KeyCode::Right).key(KeyCode::Right).key(KeyCode::Right);
    insta::assert_snapshot!(h.screen());
}

#[test]
fn the_breakdown() {
    let mut h = Harness::new(80, 24);
    // v cycles case, graph, breakdown.
    h.key(KeyCode::Enter).key(KeyCode::Char('v')).key(KeyCode::Char('v'));
    insta::assert_snapshot!(h.screen());
}

#[test]
fn the_help_overlay() {
    let mut h = Harness::new(80, 24);
    h.key(KeyCode::F(1));
    insta::assert_snapshot!(h.screen());
}

#[test]
fn the_facet_picker() {
    let mut h = Harness::new(80, 24);
    h.key(KeyCode::Esc).key(KeyCode::Char('3')).typed("h");
    insta::assert_snapshot!(h.screen());
}

#[test]
fn the_facet_picker_counts_what_excluding_would_leave() {
    let mut h = Harness::new(80, 24);
    h.key(KeyCode::Esc).key(KeyCode::Char('2')).typed("-gpu");
    insta::assert_snapshot!(h.screen());
}

#[test]
fn the_facet_picker_reads_a_near_spelling_and_says_so() {
    let mut h = Harness::new(80, 24);
    h.key(KeyCode::Esc).key(KeyCode::Char('2')).typed("nccll");
    let screen = h.screen();
    assert!(!screen.contains("no value matches"), "{screen}");
    insta::assert_snapshot!(screen);
}

/// With a sentence typed, each count is what applying the value would leave of its real
/// matches (issue 29, item 2), not of the whole library: the same total the case list shows
/// once it is applied.
#[test]
fn the_facet_picker_under_a_sentence_counts_what_applying_would_leave() {
    let mut h = Harness::new(80, 24);
    // Tab: from the search box to the suggestions; 3: the symptoms.
    h.typed("job hung at the checkpoint").key(KeyCode::Tab).key(KeyCode::Char('3'));
    let screen = h.screen();
    let Some(incidex::tui::app::Overlay::Picker(picker)) = &h.app.overlay else { panic!("picker open") };
    let rows: Vec<(String, Option<usize>)> = picker.rows.iter().map(|r| (r.value.clone(), r.count)).collect();
    for (value, count) in rows {
        // The same sentence with the value applied (as --resume brings a query and filters back).
        let mut session = Session { query: "job hung at the checkpoint".into(), ..Session::default() };
        session.filters = vec![SavedFilter { kind: "symptom".into(), value: value.clone(), negated: false }];
        let options = Options { resume: Some(session), ..Options::default() };
        let applied = Harness::start(80, 24, "default", fixture_library("tui"), options);
        assert_eq!(count, Some(applied.app.results.total), "Symptom: {value}\n{screen}");
    }
    insta::assert_snapshot!(screen);
}

/// Until the worker has counted for the query shown, the picker shows no number (issue 29,
/// item 2: never a count that is not the query's, presented as if it were).
#[test]
fn the_facet_picker_waiting_for_its_counts_shows_none() {
    let mut h = Harness::new(80, 24);
    h.typed("job hung at the checkpoint").key(KeyCode::Tab);
    // The picker opens; its request for the counts is not answered yet.
    let effects = h.app.update(Msg::Key(KeyEvent::new(KeyCode::Char('3'), KeyModifiers::NONE)));
    assert!(effects.iter().any(|e| matches!(e, Effect::Search(r) if r.value_counts)), "{effects:?}");
    let screen = h.screen();
    assert!(screen.contains("counting…") && !screen.contains("cases each would leave"), "{screen}");
    for value in ["Hang", "Training job failure", "Slow training"] {
        let row = screen.lines().find(|l| l.contains(value)).unwrap_or_else(|| panic!("{value}\n{screen}"));
        assert!(row.contains(&format!("│  …  {value}")), "no number yet: {row}");
    }
    h.run(effects);
    assert!(h.screen().contains("cases each would leave"));
}

#[test]
fn an_inline_near_spelling_resolves_with_a_note() {
    let mut h = Harness::new(80, 24);
    h.typed("component:nccll ");
    let screen = h.screen();
    assert!(
        screen.contains("[Component: NCCL]") || screen.contains("read component 'nccll' as 'NCCL'"),
        "{screen}"
    );
    insta::assert_snapshot!(screen);
}

#[test]
fn a_source_address_highlighted_at_80x24_is_whole_in_the_status_line_and_wrapped_whole_in_the_pane() {
    let mut h = Harness::new(80, 24);
    h.typed("epoch end hang").key(KeyCode::Enter).key(KeyCode::Enter);
    let facets = h.app.case_doc().expect("a case open").facets.len();
    for _ in 0..=facets {
        h.key(KeyCode::Right);
    }
    let screen = h.screen();
    let url = "https://example.org/postmortems/epoch-end-hang-too-long-for-the-pane";
    let last = screen.lines().last().unwrap_or_default();
    assert!(last.trim_start().starts_with(url), "the whole address on the status line: {last}");
    // Wrapped whole in the pane: its rows, read in order, join back into the address.
    let pane: Vec<String> = screen
        .lines()
        .filter_map(|l| l.split_once("││").map(|(_, right)| right.trim_end_matches('│').trim().to_string()))
        .collect();
    let start =
        pane.iter().position(|l| l.starts_with("https://example.org/postmortems")).expect("in the pane");
    let mut joined = String::new();
    for row in &pane[start..] {
        if joined.len() >= url.len() {
            break;
        }
        joined.push_str(row);
    }
    assert_eq!(joined, url, "the pane's rows from {start}: {pane:#?}");
    insta::assert_snapshot!(screen);
}

/// The pieces `ui::links` hands the main loop to make OSC 8 hyperlinks (issue 29, item 8) are
/// exactly where the case pane drew the source's address, row by row, and join into it: the
/// link is written over those cells and no others.
#[test]
fn the_links_lie_over_the_address_the_case_pane_draws() {
    let url = "https://example.org/postmortems/epoch-end-hang-too-long-for-the-pane";
    for (width, height) in [(80, 24), (100, 30), (160, 40), (60, 16)] {
        let mut h = Harness::new(width, height);
        h.typed("epoch end hang").key(KeyCode::Enter).key(KeyCode::Enter);
        // → past the facet values to the first source: it scrolls into view, highlighted.
        let facets = h.app.case_doc().expect("a case open").facets.len();
        for _ in 0..=facets {
            h.key(KeyCode::Right);
        }
        let buffer = h.buffer();
        let links = incidex::tui::ui::links(&h.app, buffer.area);
        assert!(!links.is_empty(), "{width}x{height}: the sources are in view\n{}", h.screen());
        let joined: String = links.iter().filter(|l| l.url == url).map(|l| l.text.as_str()).collect();
        assert_eq!(joined, url, "{width}x{height}: {links:?}");
        for link in &links {
            let drawn: String =
                (0..link.text.len() as u16).map(|i| buffer[(link.x + i, link.y)].symbol()).collect();
            assert_eq!(drawn, link.text, "{width}x{height}: the cells under {link:?}");
        }
        let mut writer = incidex::tui::hyperlink::Hyperlinks::new(true);
        let bytes = String::from_utf8(writer.bytes(&buffer, &links)).unwrap();
        assert!(bytes.contains(&format!("\x1b]8;;{url}\x1b\\")), "{width}x{height}: {bytes:?}");
        // The help over the pane: the cells no longer spell the address, so no link is written
        // over the help's text.
        h.key(KeyCode::F(1));
        let covered = h.buffer();
        let mut writer = incidex::tui::hyperlink::Hyperlinks::new(true);
        let over_help = writer.bytes(&covered, &incidex::tui::ui::links(&h.app, covered.area));
        assert!(over_help.is_empty(), "{width}x{height}: {:?}", String::from_utf8_lossy(&over_help));
    }
}

#[test]
fn suggestions_that_do_not_fit_say_how_many_more_and_are_reachable() {
    let mut h = Harness::new(80, 24);
    h.typed("nccl hang checkpoint dataloader gpu xid shm disk full slow allreduce");
    let screen = h.screen();
    let row = screen.lines().find(|l| l.starts_with("Suggested: ")).expect("the row");
    assert!(row.contains(" more (Tab →)"), "{row}");
    let hidden: usize = row
        .split('+')
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a count");
    insta::assert_snapshot!(screen);
    let total = h.app.results.suggestions.len();
    h.key(KeyCode::Tab);
    for _ in 0..total {
        h.key(KeyCode::Right);
    }
    let last = h.app.results.suggestions.last().expect("suggestions").value.clone();
    let row =
        h.screen().lines().find(|l| l.starts_with("Suggested: ")).map(str::to_string).unwrap_or_default();
    assert!(row.contains(&last), "→ reaches the last of the {hidden} that were cut off: {row}");
}

#[test]
fn usable_at_60x16() {
    let mut h = Harness::new(60, 16);
    h.typed("hung");
    insta::assert_snapshot!("60x16_list", h.screen());
    h.key(KeyCode::Enter).key(KeyCode::Enter);
    insta::assert_snapshot!("60x16_case", h.screen());
}

#[test]
fn wide_at_160x40() {
    let mut h = Harness::new(160, 40);
    h.key(KeyCode::Enter);
    insta::assert_snapshot!(h.screen());
}

#[test]
fn too_small() {
    insta::assert_snapshot!("39x10", Harness::new(39, 10).screen());
    insta::assert_snapshot!("1x1", Harness::new(1, 1).screen());
}

#[test]
fn the_mono_theme_shows_focus_and_selection_without_colour() {
    let mut h = Harness::with_theme(80, 24, "mono");
    h.typed("hung").key(KeyCode::Enter);
    let screen = h.screen_with_attributes();
    for cell in h.buffer().content() {
        assert_eq!(cell.fg, ratatui::style::Color::Reset, "mono draws no colour");
        assert_eq!(cell.bg, ratatui::style::Color::Reset, "mono draws no colour");
    }
    assert!(screen.contains("rrrrrrrrrr"), "the selected case is reversed:\n{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn no_control_character_reaches_the_screen() {
    let mut h = Harness::new(120, 40);
    h.typed("stuck").key(KeyCode::Enter).key(KeyCode::End).key(KeyCode::Enter);
    let screen = h.screen();
    assert!(screen.contains("日本語"), "{screen}");
    assert!(screen.contains('\u{241b}'), "ESC shown as ␛: {screen}");
    assert!(!screen.chars().any(|c| incidex::text::is_unsafe_char(c) && c != '\n'), "{screen}");
}

#[test]
fn every_size_and_state_renders_without_panicking() {
    let mut h = Harness::new(80, 24);
    h.typed("hung checkpoint").alt(KeyCode::Enter).key(KeyCode::Enter);
    let states: [&[KeyCode]; 5] = [
        &[],
        &[KeyCode::Enter],
        &[KeyCode::Char('v')],
        &[KeyCode::F(1)],
        &[KeyCode::Esc, KeyCode::Esc, KeyCode::Esc, KeyCode::Char('f')],
    ];
    for keys in states {
        for &k in keys {
            h.key(k);
        }
        for (w, height) in (0..=130).step_by(3).flat_map(|w| (0..=45).step_by(4).map(move |h| (w, h))) {
            h.resize(w, height);
            let buf = h.buffer();
            assert_eq!(buf.area.width, w);
        }
    }
}

#[test]
fn loading_80x24() {
    let mut h = Harness::loading(80, 24, "default");
    h.typed("hung");
    insta::assert_snapshot!(h.screen());
}

#[test]
fn loading_200x50() {
    let mut h = Harness::loading(200, 50, "default");
    h.key(KeyCode::Enter);
    insta::assert_snapshot!(h.screen());
}

#[test]
fn loading_in_mono_shows_the_bar_without_colour() {
    let mut h = Harness::loading(80, 24, "mono");
    h.send(Msg::Progress(Progress { stage: Stage::Indexing, done: 25_000, total: 100_000 }));
    let screen = h.screen_with_attributes();
    for cell in h.buffer().content() {
        assert_eq!(cell.fg, ratatui::style::Color::Reset, "mono draws no colour");
    }
    assert!(screen.contains("indexing 25,000 of 100,000 cases ███░"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn the_loaded_library_replaces_the_gauge_and_the_results() {
    let mut h = Harness::loading(80, 24, "default");
    h.key(KeyCode::Esc).key(KeyCode::Char('j'));
    let kept = h.app.selected_case().unwrap().id.clone();
    let loaded = Loaded::new(
        Opened {
            library: (*fixture_library("tui")).clone(),
            prebuilt: Default::default(),
            problems: Problems {
                warnings: vec!["the cache is read-only".into()],
                diagnostics: vec![],
                dirs: vec![],
            },
        },
        true,
    );
    h.send(Msg::Loaded(Box::new(loaded)));
    let screen = h.screen();
    assert!(screen.contains("Cases 1 to 6 of 6"), "{screen}");
    assert!(!screen.contains('░'), "the gauge is gone: {screen}");
    assert!(screen.contains("warning: the cache is read-only · library loaded: 6 cases"), "{screen}");
    assert_eq!(h.app.selected_case().map(|c| c.id.clone()), Some(kept));
}

#[test]
fn the_loading_state_renders_at_every_size_and_keeps_the_gauge_on_one_line() {
    let mut h = Harness::loading(80, 24, "default");
    for (w, height) in (0..=210).step_by(7).flat_map(|w| (0..=50).step_by(5).map(move |h| (w, h))) {
        h.resize(w, height);
        let buf = h.buffer();
        assert_eq!(buf.area.width, w);
        if w >= 40 && height >= 10 {
            let screen = screen_text(&buf, false);
            let status = screen.lines().last().unwrap_or_default();
            assert!(status.contains("41%"), "{w}x{height}: {status}");
        }
    }
}

/// A node audit whose `shm.size` found a 64 MiB /dev/shm, citing the fixture's shm case.
fn audit_of_a_small_shm() -> Arc<incidex::doctor::Report> {
    use incidex::doctor::{CheckResult, Context, Evidence, Finding, Outcome, Report, Snapshot, State};
    let finding = Finding::new(State::Warn, "/dev/shm", "/dev/shm is 64 MiB").evidence(Evidence::at(
        "/proc/self/mountinfo",
        2,
        "24 22 0:21 / /dev/shm rw - tmpfs tmpfs rw,size=65536k",
    ));
    Arc::new(Report {
        context: Context::of(&Snapshot::default()),
        results: vec![CheckResult {
            id: "shm.size",
            title: "/dev/shm is large enough",
            outcome: Outcome::found(vec![finding], ""),
            cases: vec!["loader-shm".into()],
        }],
    })
}

#[test]
fn check_your_cluster_for_this_under_the_result_set_and_in_the_case_pane() {
    let mut h = Harness::new(120, 30);
    h.typed("bus error shm");
    h.send(Msg::Audited(audit_of_a_small_shm()));
    insta::assert_snapshot!(h.screen());
}

#[test]
fn the_checks_overlay() {
    let mut h = Harness::new(100, 24);
    h.send(Msg::Audited(audit_of_a_small_shm()));
    h.key(KeyCode::Tab).key(KeyCode::Char('D'));
    insta::assert_snapshot!(h.screen());
}

/// The UI opened on a job spec (`incidex train.sbatch`): its findings are the first view.
fn opened_on_a_job_spec(width: u16, height: u16, theme: &str) -> Harness {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/preflight/bad/train-pyxis.sbatch");
    let text = std::fs::read_to_string(script).unwrap();
    let report = incidex::doctor::spec::check_text(
        "train.sbatch",
        &text,
        &incidex::doctor::Rules::bundled(),
        &incidex::doctor::Selection::default(),
        &[],
    );
    let options = Options { preflight: vec![report], ..Options::default() };
    Harness::start(width, height, theme, fixture_library("tui"), options)
}

#[test]
fn opened_on_a_job_spec_at_80x24() {
    insta::assert_snapshot!(opened_on_a_job_spec(80, 24, "default").screen());
}

#[test]
fn opened_on_a_job_spec_at_200x50_in_mono() {
    insta::assert_snapshot!(opened_on_a_job_spec(200, 50, "mono").screen_with_attributes());
}

#[test]
fn a_job_spec_view_survives_every_small_size() {
    let mut h = opened_on_a_job_spec(80, 24, "default");
    for (w, ht) in [(1, 1), (10, 3), (20, 5), (40, 12), (60, 8)] {
        h.resize(w, ht);
        let _ = h.buffer();
    }
}
