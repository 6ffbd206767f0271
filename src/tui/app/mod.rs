//! The UI's state and its one entry point, [`App::update`]: a message in, the state changed,
//! the effects to run out (search, save the session, suspend, quit). `update` does no I/O and
//! reads no clock, so every behaviour can be tested without a terminal.
//!
//! Each pane keeps its state in its own struct ([`ListView`], [`CaseView`],
//! [`BreakdownView`], [`Picker`], [`GraphView`]); the right pane is one of [`RightPane`],
//! cycled by `v`. The graph pane's keys live in `app/walk.rs` and the export dialog's in
//! `app/export.rs`, the switch to a library opened in the background in `app/loading.rs`.
//! Searches carry a generation number: a response for anything but the newest query (and the
//! page of it last asked for) is dropped.

mod case_pane;
mod checks;
mod copy;
mod effect;
mod export;
mod filter_rows;
mod filters;
mod list;
mod loading;
mod mouse;
mod picker;
pub mod preflight;
mod search_box;
mod update;
mod walk;

pub use self::{
    copy::Clip,
    effect::Effect,
    loading::{Interim, Loading},
    picker::{Picker, PickerRow},
};

use std::sync::{Arc, OnceLock};

use super::{
    doc::{self, CaseDoc, RelatedCase},
    export::ExportDialog,
    graph_view::GraphView,
    input::Input,
    keymap::Context,
    layout::Layout,
    paste::LogJob,
    session::Session,
    worker::{Breakdown, Dimension, Suggestion, ValueCounts},
};
use crate::taxonomy::FacetKind;
use crate::{
    corpus::filter::Filters,
    corpus::{Case, Library},
    graph::Graph,
};

/// How the note about saved filters that no longer resolve starts.
const DROPPED_FILTERS: &str = "left out saved filters: ";

/// How many related cases the case pane lists.
pub const RELATED_IN_CASE_PANE: usize = 5;

/// From this many cases the graph is built on a thread of its own as the UI starts (see
/// `tui::run`); until it is in, the case pane lists no related cases.
pub const GRAPH_APART_FROM: usize = 20_000;

/// Whether `library`'s graph is built apart (see [`GRAPH_APART_FROM`]): the one place the UI's
/// start and the case pane decide it.
pub fn graph_built_apart(library: &Library) -> bool {
    library.cases.len() >= GRAPH_APART_FROM
}

/// How many results are asked for at a time; the list pages through the rest.
pub const PAGE: usize = 200;
/// Rows above the bars in the breakdown pane (the dimension tabs and a heading).
pub const BREAKDOWN_HEADER_ROWS: usize = 2;
/// Rows of the picker overlay above its list (the kinds and the filter).
pub const PICKER_HEADER_ROWS: usize = 2;

/// Which part of the screen takes the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The search box.
    Search,
    /// The applied and suggested filters.
    Filters,
    /// The case list.
    Results,
    /// The right pane.
    Detail,
}

/// What the right pane shows. `v` cycles through [`RightPane::CYCLE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RightPane {
    /// The selected case.
    Case,
    /// The case's neighbourhood in the graph of cases and facet values.
    Graph,
    /// Bar charts of the results.
    Breakdown,
}

impl RightPane {
    /// The panes `v` cycles through, in order.
    pub const CYCLE: &[RightPane] = &[RightPane::Case, RightPane::Graph, RightPane::Breakdown];

    /// The pane after this one.
    pub fn next(self) -> RightPane {
        let i = RightPane::CYCLE.iter().position(|p| *p == self).unwrap_or(0);
        RightPane::CYCLE[(i + 1) % RightPane::CYCLE.len()]
    }

    /// The name shown and saved.
    pub fn key(self) -> &'static str {
        match self {
            RightPane::Case => "case",
            RightPane::Graph => "graph",
            RightPane::Breakdown => "breakdown",
        }
    }

    /// The pane with this [`RightPane::key`].
    pub fn from_key(key: &str) -> Option<RightPane> {
        RightPane::CYCLE.iter().copied().find(|p| p.key() == key)
    }

    /// The pane's title.
    pub fn title(self) -> &'static str {
        match self {
            RightPane::Case => "Case",
            RightPane::Graph => "Graph",
            RightPane::Breakdown => "Breakdown",
        }
    }
}

/// What the last response said about the current query.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Results {
    /// The generation the results belong to.
    pub generation: u64,
    /// Whether any response has arrived yet.
    pub loaded: bool,
    /// How many cases match (with `w`, the weaker matches too).
    pub total: usize,
    /// Cases that match the sentence weakly and are not listed (`w` lists them).
    pub weaker: usize,
    /// The result number of `hits[0]`.
    pub offset: usize,
    /// The loaded window of results (indices into `Library::cases`).
    pub hits: Vec<usize>,
    /// Suggested filters not applied yet, best first.
    pub suggestions: Vec<Suggestion>,
    /// "These N cases involve A and B".
    pub summary: String,
    /// Counts by dimension.
    pub breakdown: Breakdown,
    /// What is wrong with the query.
    pub error: Option<String>,
    /// What inline filter values were read as when they were not exact.
    pub notes: Vec<String>,
    /// What applying each facet value would leave under this query (the facet picker's
    /// counts), once a response that counted them has come.
    pub value_counts: Option<Arc<ValueCounts>>,
}

impl Results {
    /// The case index of result number `n`, when it is loaded.
    pub fn hit(&self, n: usize) -> Option<usize> {
        n.checked_sub(self.offset).and_then(|i| self.hits.get(i)).copied()
    }
}

/// The case list's selection and scroll.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListView {
    /// The selected result number.
    pub selected: usize,
    /// The result number on the first row.
    pub top: usize,
}

/// The case pane's document, scroll and highlighted facet value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CaseView {
    /// The case this state belongs to (an index into `Library::cases`).
    pub case: Option<usize>,
    /// The case laid out for the pane, rebuilt when the case or the pane's width changes (so a
    /// frame does not wrap the whole case again).
    pub doc: Option<CaseDoc>,
    /// The width `doc` was laid out for.
    pub width: u16,
    /// The first line shown.
    pub scroll: usize,
    /// The highlighted facet value or source address.
    pub highlight: Option<doc::Item>,
    /// The related cases listed at the end of the document.
    pub related: Vec<RelatedCase>,
}

impl CaseView {
    /// The highlighted facet value (an index into `CaseDoc::facets`), if a value is highlighted.
    pub fn facet(&self) -> Option<usize> {
        match self.highlight {
            Some(doc::Item::Facet(i)) => Some(i),
            _ => None,
        }
    }

    /// The highlighted source (an index into `CaseDoc::sources`), if one is highlighted.
    pub fn source(&self) -> Option<usize> {
        match self.highlight {
            Some(doc::Item::Source(i)) => Some(i),
            _ => None,
        }
    }
}

/// The breakdown pane's dimension and highlighted bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakdownView {
    /// What it counts by.
    pub dimension: Dimension,
    /// The highlighted bar.
    pub cursor: usize,
    /// The bar on the first row.
    pub top: usize,
}

impl Default for BreakdownView {
    fn default() -> Self {
        BreakdownView { dimension: Dimension::RootCause, cursor: 0, top: 0 }
    }
}

/// An overlay over the whole screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    /// The key list, scrolled to this line.
    Help(usize),
    /// What the node audit found for the cases listed, scrolled to this line (`D`).
    Checks(usize),
    /// The findings of the job specs the UI was opened on, with this one selected (`P`).
    Preflight(usize),
    /// The facet picker.
    Picker(Picker),
    /// The checklist export dialog.
    Export(Box<ExportDialog>),
}

/// An applied filter as a chip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chip {
    /// `Filters::facets[i]`.
    Facet(usize),
    /// `Filters::organizations[i]`.
    Org(usize),
    /// `after:` and `before:` naming the same year.
    Year(u16),
    /// `after:`.
    After,
    /// `before:`.
    Before,
}

/// One item of the filters rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterItem {
    /// An applied filter.
    Chip(Chip),
    /// "Clear all".
    ClearAll,
    /// A suggested filter: `Results::suggestions[i]`.
    Suggestion(usize),
}

/// A one-line note in the status line until the next key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// What to say.
    pub text: String,
    /// Whether it is an error (drawn in the error style).
    pub error: bool,
}

/// How the UI starts.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Mouse support is on.
    pub mouse: bool,
    /// The session to restore (`--resume`).
    pub resume: Option<Session>,
    /// A note to show at start (a warning about the session file, say).
    pub note: Option<String>,
    /// Today's date (`YYYY-MM-DD`) for exported checklists; `update` reads no clock.
    pub date: String,
    /// The library is still being opened in the background; this is searched meanwhile.
    pub loading: Option<Interim>,
    /// The preflight of the job specs the UI was opened on (`incidex FILE...`): the first view.
    pub preflight: Vec<crate::doctor::spec::FileReport>,
}

/// Everything the UI shows and remembers.
#[derive(Debug)]
pub struct App {
    /// The library searched.
    pub library: Arc<Library>,
    /// This node's audit (`incidex doctor`), once it has run.
    pub audit: Option<Arc<crate::doctor::Report>>,
    /// The findings of the job specs the UI was opened on (`incidex FILE...`).
    pub preflight: Vec<preflight::Item>,
    /// The search box.
    pub input: Input,
    /// The applied filters.
    pub filters: Filters,
    /// Which part takes the keys.
    pub focus: Focus,
    /// The overlay shown over everything, if any.
    pub overlay: Option<Overlay>,
    /// What the right pane shows.
    pub right: RightPane,
    /// The newest results.
    pub results: Results,
    /// The case list's selection and scroll.
    pub list: ListView,
    /// The case pane's state.
    pub case_view: CaseView,
    /// The breakdown pane's state.
    pub breakdown: BreakdownView,
    /// The graph pane's walk.
    pub graph_view: GraphView,
    /// A case opened from the graph (`o`), shown in the case pane until the selection moves.
    pub opened: Option<usize>,
    /// The highlighted item of the filters rows (an index into [`App::filter_items`]).
    pub filter_cursor: usize,
    /// A note in the status line.
    pub note: Option<Note>,
    /// Whether mouse support is on.
    pub mouse: bool,
    /// The terminal's size.
    pub size: (u16, u16),
    /// The gauge's state while the library is opened in the background.
    pub loading: Option<Loading>,
    /// A `--resume` session to apply again once the whole library is in (its selection and
    /// filters may name cases and values the interim library lacks); dropped when the user
    /// changes the query or moves the selection first.
    pending_resume: Option<Session>,
    generation: u64,
    wanted_offset: usize,
    awaiting: bool,
    restore_selection: Option<String>,
    /// List the weaker matches after the real ones (`w`).
    show_weaker: bool,
    /// The search box holds the lines a pasted log was read down to: searched as a log (no
    /// inline syntax, no typo corrections) until it is cleared.
    input_is_log: bool,
    /// The pasted log's failure lines, where its filters are suggested from.
    log_failure: Option<String>,
    /// The pasted log being read, if any; its answer replaces the search box.
    reading: Option<LogJob>,
    /// Pastes read as logs so far (each job's id).
    pasted_logs: u64,
    saved: Option<Session>,
    dirty: bool,
    picker_kind: FacetKind,
    save_failed: bool,
    graph: OnceLock<Graph>,
    date: String,
    /// Whether the right pane keeps the case it shows while the search box is typed into (see
    /// [`App::typing_paused`]).
    held: bool,
    /// The case list as it was when the hold began: drawn instead of the newest results while
    /// `held` (see [`App::list_shown`]).
    held_list: Option<HeldList>,
}

/// The case list as shown when typing began, kept for [`App::list_shown`].
#[derive(Debug)]
struct HeldList {
    /// The library its hits index into (a library switched to meanwhile is not drawn with it).
    library: Arc<Library>,
    results: Results,
    list: ListView,
}

impl App {
    /// A new UI over `library` on a `size` terminal, and the effects that start it (the first
    /// search).
    pub fn new(library: Arc<Library>, size: (u16, u16), options: Options) -> (App, Vec<Effect>) {
        let mut app = App {
            library,
            input: Input::default(),
            filters: Filters::default(),
            focus: Focus::Search,
            overlay: None,
            right: RightPane::Case,
            results: Results::default(),
            list: ListView::default(),
            case_view: CaseView::default(),
            breakdown: BreakdownView::default(),
            graph_view: GraphView::default(),
            opened: None,
            filter_cursor: 0,
            note: options.note.map(|text| Note { text, error: true }),
            mouse: options.mouse,
            size,
            loading: options.loading.map(|interim| Loading { interim, progress: None }),
            pending_resume: None,
            generation: 0,
            wanted_offset: 0,
            awaiting: false,
            restore_selection: None,
            show_weaker: false,
            input_is_log: false,
            log_failure: None,
            reading: None,
            pasted_logs: 0,
            saved: None,
            dirty: true,
            picker_kind: FacetKind::Component,
            save_failed: false,
            graph: OnceLock::new(),
            audit: None,
            preflight: Vec::new(),
            date: options.date,
            held: false,
            held_list: None,
        };
        if !options.preflight.is_empty() {
            app.preflight = preflight::items(&options.preflight);
            app.overlay = Some(Overlay::Preflight(0));
        }
        if let Some(session) = options.resume {
            app.input = Input::new(&session.query);
            let (filters, dropped) = session.filters(&app.library.taxonomy);
            app.filters = filters;
            if !dropped.is_empty() {
                app.note =
                    Some(Note { text: format!("{DROPPED_FILTERS}{}", dropped.join(", ")), error: true });
            }
            app.right = RightPane::from_key(&session.pane).unwrap_or(RightPane::Case);
            app.breakdown.dimension = Dimension::from_key(&session.breakdown).unwrap_or(Dimension::RootCause);
            app.restore_selection = session.selected.clone();
            if session.selected.is_some() {
                app.focus = Focus::Results;
            }
            // What was restored is already saved.
            app.saved = Some(session);
        }
        let effects = app.query_changed();
        if app.loading.is_some() {
            app.pending_resume = app.saved.clone();
        }
        app.show_library_order();
        (app, effects)
    }

    /// Whether something changed since the last call (and so the screen must be drawn).
    pub fn take_dirty(&mut self) -> bool {
        std::mem::take(&mut self.dirty)
    }

    /// The layout for the current size, or `None` when the terminal is too small.
    pub fn layout(&self) -> Option<Layout> {
        Layout::new(self.size.0, self.size.1)
    }

    /// Where keys go now.
    pub fn context(&self) -> Context {
        match (&self.overlay, self.focus) {
            (Some(Overlay::Help(_) | Overlay::Checks(_)), _) => Context::Help,
            (Some(Overlay::Preflight(_)), _) => Context::Preflight,
            (Some(Overlay::Picker(_)), _) => Context::Picker,
            (Some(Overlay::Export(dialog)), _) => export::context(dialog),
            (None, Focus::Search) => Context::Search,
            (None, Focus::Filters) => Context::Filters,
            (None, Focus::Results) => Context::Results,
            (None, Focus::Detail) if self.right == RightPane::Graph => Context::Graph,
            (None, Focus::Detail) => Context::Detail,
        }
    }

    /// The index (into `Library::cases`) of the selected case, when it is loaded.
    pub fn selected_index(&self) -> Option<usize> {
        self.results.hit(self.list.selected)
    }

    /// The selected case.
    pub fn selected_case(&self) -> Option<&Case> {
        self.selected_index().and_then(|i| self.library.cases.get(i))
    }

    /// The case the case pane shows: one opened from the graph, else the selected one.
    pub fn shown_index(&self) -> Option<usize> {
        self.opened.or_else(|| self.selected_index())
    }

    /// The case the case pane shows.
    pub fn shown_case(&self) -> Option<&Case> {
        self.shown_index().and_then(|i| self.library.cases.get(i))
    }

    /// The graph of the library's cases and facet values, built the first time it is needed
    /// (under a millisecond for the bundled library, a few hundred for 100,000 cases; from
    /// [`GRAPH_APART_FROM`] cases it is built on a thread of its own as the UI starts).
    pub fn graph(&self) -> &Graph {
        self.graph.get_or_init(|| Graph::build(&self.library.cases))
    }

    /// Take the graph built apart for `library` (a library since switched from is ignored), and
    /// show the selected case's related cases, which waited for it.
    pub(super) fn graph_built(&mut self, library: &Arc<Library>, graph: Graph) -> Vec<Effect> {
        if Arc::ptr_eq(library, &self.library) && self.graph.set(graph).is_ok() {
            self.case_view.related = self.case_view.case.map(|i| self.related_cases(i)).unwrap_or_default();
            self.case_view.doc = None;
            self.clamp_detail();
            self.dirty = true;
        }
        Vec::new()
    }

    /// What `--resume` would restore now.
    pub fn session(&self) -> Session {
        let mut session = Session {
            query: self.input.text().to_string(),
            selected: self.selected_case().map(|c| c.id.clone()).or_else(|| self.restore_selection.clone()),
            pane: self.right.key().to_string(),
            breakdown: self.breakdown.dimension.key().to_string(),
            ..Session::default()
        };
        session.set_filters(&self.filters);
        // Until the whole library is in, what was restored is still what is wanted.
        if let Some(resumed) = &self.pending_resume {
            session = Session { pane: session.pane, breakdown: session.breakdown, ..resumed.clone() };
        }
        session
    }

    /// Tell the app that saving the session failed: one note, then silence.
    pub fn save_failed(&mut self, error: &str) {
        if !std::mem::replace(&mut self.save_failed, true) {
            self.note =
                Some(Note { text: format!("cannot keep the session for --resume: {error}"), error: true });
            self.dirty = true;
        }
    }
}

/// `base + step`, saturating at 0 and `usize::MAX`.
fn add(base: usize, step: isize) -> usize {
    if step < 0 { base.saturating_sub(step.unsigned_abs()) } else { base.saturating_add(step.unsigned_abs()) }
}

/// Whether a paste is a log rather than a sentence: two lines or more with words on them.
fn is_log(text: &str) -> bool {
    text.split(['\n', '\r']).filter(|line| line.chars().any(char::is_alphanumeric)).nth(1).is_some()
}

#[cfg(test)]
mod tests;
