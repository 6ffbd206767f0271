//! The graph pane, the case pane's related cases and the checklist export dialog, driven by
//! keys without a terminal (ratatui's `TestBackend` + insta) over the graph fixture library
//! (tests/fixtures/graph: six cases, one of them with ten facet values). Export jobs are run
//! the way the main loop runs them, into a temporary directory and a byte buffer.

#[path = "tui_support/mod.rs"]
mod tui_support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use incidex::{
    graph::NodeKind,
    settings::theme::{ColorDepth, Theme},
    tui::osc52,
    tui::{
        app::{App, Effect, Options, RightPane},
        event::Msg,
        export::{Job, Outcome, Step},
        style::Styles,
        worker::Searcher,
    },
};
use ratatui::buffer::Buffer;
use tui_support::{fixture_library, render, screen_text};

/// The UI and its searcher, with what the main loop would have done with export jobs.
struct Harness {
    app: App,
    searcher: Searcher,
    styles: Styles,
    /// Bytes "written to the terminal" by copies.
    copied: Vec<u8>,
    /// Text "printed after the UI closed".
    printed: Option<String>,
}

impl Harness {
    fn new(width: u16, height: u16) -> Harness {
        Harness::with_theme(width, height, "default")
    }

    fn with_theme(width: u16, height: u16, theme: &str) -> Harness {
        let library = fixture_library("graph");
        let searcher = Searcher::new(library.clone());
        let options = Options { date: "2025-01-01".into(), ..Options::default() };
        let (app, effects) = App::new(library, (width, height), options);
        let styles = Styles::new(&Theme::bundled(theme).unwrap(), ColorDepth::TrueColor);
        let mut h = Harness { app, searcher, styles, copied: Vec::new(), printed: None };
        h.run(effects);
        h
    }

    /// Run effects as the main loop does, answering searches at once.
    fn run(&mut self, mut effects: Vec<Effect>) {
        while let Some(effect) = effects.pop() {
            match effect {
                Effect::Search(request) => {
                    let response = self.searcher.run(&request);
                    effects.extend(self.app.update(Msg::Searched(Box::new(response))));
                }
                Effect::Export(Job::Save { path, text, overwrite }) => {
                    let outcome =
                        match incidex::support::export::write_file(&path, text.as_bytes(), overwrite) {
                            Ok(()) => Outcome::Saved(path),
                            Err(incidex::support::export::ExportError::Exists(p)) => Outcome::Exists(p),
                            Err(e) => Outcome::Failed(e.to_string()),
                        };
                    self.app.export_finished(outcome);
                }
                Effect::Export(Job::Copy { text }) => {
                    self.copied = osc52::encode(text.as_bytes(), osc52::Passthrough::None).unwrap();
                    self.app.export_finished(Outcome::Copied(incidex::tui::clipboard::Copied::Terminal));
                }
                Effect::Export(Job::Print { text }) => self.printed = Some(text),
                _ => {}
            }
        }
    }

    fn key(&mut self, code: KeyCode) -> &mut Self {
        self.with(code, KeyModifiers::NONE)
    }

    fn with(&mut self, code: KeyCode, modifiers: KeyModifiers) -> &mut Self {
        let effects = self.app.update(Msg::Key(KeyEvent::new(code, modifiers)));
        self.run(effects);
        self
    }

    /// Type `text`, then pause: the screen as it settles (the right pane follows the selection
    /// once typing pauses, see `App::case_held`).
    fn typed(&mut self, text: &str) -> &mut Self {
        for c in text.chars() {
            self.key(KeyCode::Char(c));
        }
        self.app.typing_paused();
        self
    }

    fn buffer(&self) -> Buffer {
        render(&self.app, &self.styles)
    }

    fn screen(&self) -> String {
        screen_text(&self.buffer(), false)
    }

    /// Select the case the search for `words` puts first and show the graph pane, focused.
    fn graph_of(&mut self, words: &str) -> &mut Self {
        self.typed(words).key(KeyCode::Enter).key(KeyCode::Char('v'));
        if self.app.focus != incidex::tui::app::Focus::Detail {
            self.key(KeyCode::Tab);
        }
        self
    }

    /// The centre's label.
    fn centre(&self) -> String {
        let graph = self.app.graph();
        graph.node(self.app.graph_view.centre().expect("a centre")).label.clone()
    }

    /// Press Tab until the highlighted node is `label` of `kind` (at most once round).
    fn highlight(&mut self, kind: NodeKind, label: &str) -> &mut Self {
        for _ in 0..40 {
            if self.app.highlighted_node() == Some((kind, label)) {
                return self;
            }
            self.key(KeyCode::Tab);
        }
        panic!("Tab never reached {kind:?} {label}:\n{}", self.screen());
    }
}

const ZETA: &str = "Zeta: a fine-tune on 16 GPUs hung for three hours at the end-of-epoch checkpoint";

#[test]
fn the_graph_of_a_case_with_ten_values_at_80x24() {
    let mut h = Harness::new(80, 24);
    h.graph_of("zeta fine-tune");
    assert_eq!(h.centre(), ZETA);
    insta::assert_snapshot!(h.screen());
}

#[test]
fn the_graph_at_160x48() {
    let mut h = Harness::new(160, 48);
    h.graph_of("zeta fine-tune").key(KeyCode::Right);
    insta::assert_snapshot!(h.screen());
}

#[test]
fn the_graph_at_200x50_uses_the_room() {
    let mut h = Harness::new(200, 50);
    h.graph_of("zeta fine-tune");
    let screen = h.screen();
    // Cases (■) in every quadrant of the graph pane, not bunched in two corners.
    let lines: Vec<&str> = screen.lines().collect();
    let pane_left = lines
        .iter()
        .find_map(|l| l.find("┌ Graph").map(|byte| l[..byte].chars().count()))
        .unwrap_or_else(|| panic!("the graph pane:\n{screen}"));
    let rows: Vec<(usize, usize)> = lines
        .iter()
        .enumerate()
        .flat_map(|(y, l)| {
            l.chars().enumerate().filter(|(x, c)| *c == '■' && *x >= pane_left).map(move |(x, _)| (x, y))
        })
        .collect();
    let (mid_x, mid_y) = (pane_left + (200 - pane_left) / 2, lines.len() / 2);
    for (right, below) in [(false, false), (false, true), (true, false), (true, true)] {
        let n = rows.iter().filter(|(x, y)| (*x > mid_x) == right && (*y > mid_y) == below).count();
        assert!(n >= 1, "no case in the {right}/{below} quadrant:\n{screen}");
    }
    insta::assert_snapshot!(screen);
}

#[test]
fn too_small_to_draw_the_graph_is_a_list_by_kind() {
    let mut h = Harness::new(50, 14);
    h.graph_of("zeta fine-tune").key(KeyCode::Down).key(KeyCode::Down);
    let screen = h.screen();
    assert!(
        h.app.graph_view.layout(h.app.graph(), h.app.graph_canvas().unwrap()).is_none(),
        "too small to draw"
    );
    assert!(screen.contains("Root cause\n") || screen.contains("│Root cause"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn no_two_labels_overlap_and_every_node_is_labelled_at_80x24() {
    let mut h = Harness::new(80, 24);
    h.graph_of("zeta fine-tune");
    let canvas = h.app.graph_canvas().unwrap();
    let graph = h.app.graph();
    let layout = h.app.graph_view.layout(graph, canvas).expect("80x24 draws the graph");
    let picture = h.app.graph_view.picture.as_ref().unwrap();
    assert_eq!(layout.inner.len(), 10, "all ten facet values");
    assert_eq!(layout.outer.len(), picture.outer.len(), "every related case");
    let buf = h.buffer();
    let placed: Vec<_> = layout.placed().collect();
    for (slot, p) in &placed {
        for (other, q) in &placed {
            assert!(slot == other || !p.label.overlaps(&q.label), "{slot:?} and {other:?} overlap");
        }
        // The label is on the screen where the layout put it.
        let row: String = (0..p.label.width)
            .map(|i| buf[(canvas.x + p.label.x + i, canvas.y + p.label.y)].symbol().to_string())
            .collect();
        let text: String = p.label.text.chars().collect();
        assert!(
            row.starts_with(text.split_whitespace().next().unwrap_or_default()),
            "{slot:?}: {row:?} vs {text:?}"
        );
    }
}

#[test]
fn walking_case_component_case_root_cause_case_by_keys_alone() {
    let mut h = Harness::new(80, 24);
    h.graph_of("zeta fine-tune");
    assert_eq!(h.centre(), ZETA);
    h.highlight(NodeKind::Facet(incidex::taxonomy::FacetKind::Component), "NCCL").key(KeyCode::Enter);
    assert_eq!(h.centre(), "NCCL");
    assert!(h.screen().contains("Alpha: NCCL all-reduce"), "NCCL's cases are drawn:\n{}", h.screen());
    h.highlight(NodeKind::Case, "Alpha: NCCL all-reduce hung at the epoch-end checkpoint")
        .key(KeyCode::Enter);
    assert_eq!(h.centre(), "Alpha: NCCL all-reduce hung at the epoch-end checkpoint");
    h.highlight(NodeKind::Facet(incidex::taxonomy::FacetKind::RootCause), "Uneven work across ranks")
        .key(KeyCode::Enter);
    assert_eq!(h.centre(), "Uneven work across ranks");
    h.highlight(NodeKind::Case, "Gamma: uneven shards made half the ranks wait").key(KeyCode::Enter);
    assert_eq!(h.centre(), "Gamma: uneven shards made half the ranks wait");
    // The footer names the highlighted node in full, whatever the drawing had to shorten.
    h.key(KeyCode::Tab);
    let (kind, label) = h.app.highlighted_node().unwrap();
    assert!(h.screen().contains(&format!("{}: {label}", kind.label())), "{}", h.screen());
    // Backspace retraces the walk, highlighting where it went next.
    for want in
        ["Uneven work across ranks", "Alpha: NCCL all-reduce hung at the epoch-end checkpoint", "NCCL", ZETA]
    {
        h.key(KeyCode::Backspace);
        assert_eq!(h.centre(), want);
    }
    assert_eq!(h.app.highlighted_node().map(|(_, l)| l.to_string()), Some("NCCL".into()));
    h.key(KeyCode::Backspace);
    assert_eq!(h.app.note.as_ref().map(|n| n.text.as_str()), Some("this is where the walk started"));
}

#[test]
fn a_applies_a_value_and_o_opens_a_case() {
    let mut h = Harness::new(80, 24);
    h.graph_of("zeta fine-tune");
    h.highlight(NodeKind::Facet(incidex::taxonomy::FacetKind::Symptom), "Misleading metrics")
        .key(KeyCode::Char('a'));
    assert_eq!(h.app.filters.to_query_string(), "symptom:\"Misleading metrics\"");
    assert_eq!(h.app.graph_view.centre().map(|_| h.centre()), Some(ZETA.to_string()), "the walk stays");
    h.highlight(NodeKind::Case, "Beta: NCCL timeouts after an RDMA link flapped").key(KeyCode::Char('o'));
    assert_eq!(h.app.right, RightPane::Case);
    let screen = h.screen();
    assert!(screen.contains("Case (from the graph)") && screen.contains("Beta: NCCL timeouts"), "{screen}");
    // The case was not in the filtered list; moving in the list shows the list's case again.
    h.key(KeyCode::Esc).key(KeyCode::Char('k'));
    assert_eq!(h.app.opened, None);
}

#[test]
fn the_case_pane_lists_related_cases_with_what_they_share() {
    let mut h = Harness::new(100, 40);
    h.typed("alpha all-reduce").key(KeyCode::Enter).key(KeyCode::Enter).key(KeyCode::Char('G'));
    let screen = h.screen();
    assert!(screen.contains("Related cases"), "{screen}");
    assert!(screen.contains("• Zeta: a fine-tune"), "{screen}");
    assert!(screen.contains("2022-01-zeta-ten-values · shares Checkpointing"), "{screen}");
    assert_eq!(h.app.case_view.related.len(), 4, "four cases share a value with Alpha");
}

#[test]
fn x_exports_the_component_under_the_cursor_and_copies_it() {
    let mut h = Harness::new(80, 24);
    h.graph_of("zeta fine-tune");
    h.highlight(NodeKind::Facet(incidex::taxonomy::FacetKind::Component), "NCCL").key(KeyCode::Char('x'));
    insta::assert_snapshot!(h.screen());
    h.key(KeyCode::Char('c'));
    assert_eq!(h.app.note.as_ref().map(|n| n.text.as_str()), Some("copied 1 item (OSC 52)"));
    assert!(h.copied.starts_with(b"\x1b]52;c;") && h.copied.ends_with(b"\x1b\\"));
    assert!(h.app.overlay.is_none());
}

#[test]
fn saving_asks_before_overwriting() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nccl.md");
    let mut h = Harness::new(80, 24);
    h.graph_of("zeta fine-tune");
    h.highlight(NodeKind::Facet(incidex::taxonomy::FacetKind::Component), "NCCL");
    let save = |h: &mut Harness| {
        h.key(KeyCode::Char('x')).key(KeyCode::Char('s'));
        h.with(KeyCode::Char('u'), KeyModifiers::CONTROL).typed(path.to_str().unwrap()).key(KeyCode::Enter);
    };
    save(&mut h);
    assert_eq!(h.app.note.as_ref().unwrap().text, format!("saved 1 item to {}", path.display()));
    let first = std::fs::read_to_string(&path).unwrap();
    assert!(first.starts_with("# Checklist: NCCL\n") && first.contains("Date: 2025-01-01"), "{first}");

    std::fs::write(&path, "my notes").unwrap();
    save(&mut h);
    let Some(incidex::tui::app::Overlay::Export(dialog)) = &h.app.overlay else { panic!("the dialog stays") };
    assert_eq!(dialog.step, Step::Confirm);
    assert!(h.screen().contains("exists.") && h.screen().contains("Overwrite it?"), "{}", h.screen());
    h.key(KeyCode::Char('n'));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "my notes", "no means no");
    h.key(KeyCode::Enter).key(KeyCode::Char('y'));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), first);
    assert!(h.app.overlay.is_none());
}

#[test]
fn print_hands_the_checklist_to_the_loop_and_errors_are_clear() {
    let mut h = Harness::new(80, 24);
    h.key(KeyCode::Esc).key(KeyCode::Char('x'));
    let note = h.app.note.clone().unwrap();
    assert!(note.error && note.text.starts_with("x exports a component's checklist"), "{note:?}");
    h.with(KeyCode::Char('2'), KeyModifiers::NONE)
        .typed("nccl")
        .with(KeyCode::Char('x'), KeyModifiers::CONTROL);
    let Some(incidex::tui::app::Overlay::Export(dialog)) = &h.app.overlay else {
        panic!("Ctrl-X from the picker")
    };
    assert_eq!(dialog.checklist.component, "NCCL");
    h.key(KeyCode::Char('p'));
    assert!(h.printed.as_deref().is_some_and(|t| t.starts_with("# Checklist: NCCL\n")));
}

#[test]
fn every_size_renders_the_graph_and_the_dialog_without_panicking() {
    let mut h = Harness::new(80, 24);
    h.graph_of("zeta fine-tune");
    for with_dialog in [false, true] {
        if with_dialog {
            h.resize(80, 24);
            h.highlight(NodeKind::Facet(incidex::taxonomy::FacetKind::Component), "NCCL")
                .key(KeyCode::Char('x'));
        }
        for (w, height) in (0..=170).step_by(7).flat_map(|w| (0..=50).step_by(3).map(move |h| (w, h))) {
            h.resize(w, height);
            assert_eq!(h.buffer().area.width, w);
            if !with_dialog {
                h.key(KeyCode::Tab).key(KeyCode::Right);
            }
        }
    }
}

impl Harness {
    fn resize(&mut self, width: u16, height: u16) -> &mut Self {
        let effects = self.app.update(Msg::Resize(width, height));
        self.run(effects);
        self
    }
}

#[test]
fn without_colour_kinds_differ_by_marker_and_the_highlight_is_reversed() {
    let mut h = Harness::with_theme(80, 24, "mono");
    h.graph_of("zeta fine-tune");
    h.highlight(NodeKind::Facet(incidex::taxonomy::FacetKind::Component), "NCCL");
    let canvas = h.app.graph_canvas().unwrap();
    let layout = h.app.graph_view.layout(h.app.graph(), canvas).unwrap();
    let buf = h.buffer();
    let placed = layout.get(h.app.graph_view.highlight).unwrap();
    let cell = &buf[(canvas.x + placed.label.x, canvas.y + placed.label.y)];
    assert!(cell.modifier.contains(ratatui::style::Modifier::REVERSED), "{cell:?}");
    assert_eq!(buf[(canvas.x + placed.x, canvas.y + placed.y)].symbol(), "●", "a value's marker");
    let case = &layout.outer[0];
    assert_eq!(buf[(canvas.x + case.x, canvas.y + case.y)].symbol(), "■", "a case's marker");
    assert!(buf.content().iter().all(|c| c.fg == ratatui::style::Color::Reset), "mono draws no colour");
}

#[test]
fn a_click_highlights_the_node_under_it() {
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let mut h = Harness::new(80, 24);
    h.graph_of("zeta fine-tune");
    h.app.mouse = true;
    let canvas = h.app.graph_canvas().unwrap();
    let layout = h.app.graph_view.layout(h.app.graph(), canvas).unwrap();
    let target = &layout.outer[1];
    let click = Msg::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: canvas.x + target.label.x + 1,
        row: canvas.y + target.label.y,
        modifiers: KeyModifiers::NONE,
    });
    let effects = h.app.update(click);
    h.run(effects);
    assert_eq!(h.app.graph_view.highlight, incidex::graph::layout::Slot::Outer(1));
}
