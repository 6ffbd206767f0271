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

mod copy;
mod export;
mod filter_rows;
mod loading;
mod picker;
mod walk;

pub use self::{
    copy::Clip,
    loading::{Interim, Loading},
    picker::{Picker, PickerRow},
};

use std::sync::{Arc, OnceLock};

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

use super::{
    doc::{self, CaseDoc, RelatedCase},
    event::{Msg, Signal},
    export::{ExportDialog, Job},
    graph_view::GraphView,
    input::Input,
    keymap::{self, Action, Context},
    layout::{self, Layout},
    paste::{LogJob, PastedLog},
    session::Session,
    worker::{Breakdown, Dimension, Request, Response, Suggestion},
};
use crate::taxonomy::FacetKind;
use crate::{
    corpus::filter::{FacetFilter, Filters},
    corpus::{Case, Library, model::PartialDate},
    graph::Graph,
    text::numbers::thousands,
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

/// What the main loop must do after an update.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send this request to the search worker.
    Search(Request),
    /// Save the session for `--resume`.
    Save(Session),
    /// Give the terminal back and stop until `fg`.
    Suspend,
    /// Clear the screen and draw everything again.
    Redraw,
    /// Restore the terminal and end.
    Quit,
    /// Export a checklist (write a file, copy, or print after quitting); the loop reports
    /// back with `App::export_finished`.
    Export(Job),
    /// Put a case id or a source's address on the clipboard (OSC 52); the loop reports back
    /// with `App::copy_finished`.
    Copy(Clip),
    /// Read a pasted log on a thread of its own; the loop sends back `Msg::LogRead`.
    ReadLog(LogJob),
}

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
}

/// Everything the UI shows and remembers.
#[derive(Debug)]
pub struct App {
    /// The library searched.
    pub library: Arc<Library>,
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
            reading: None,
            pasted_logs: 0,
            saved: None,
            dirty: true,
            picker_kind: FacetKind::Component,
            save_failed: false,
            graph: OnceLock::new(),
            date: options.date,
            held: false,
            held_list: None,
        };
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

    /// Before the engine answers the first query, show what its answer will list when nothing
    /// is typed or filtered: every case in the library's own order, newest first (the engine's
    /// `unranked`). So the first frame needs nothing but the library in memory. The engine's
    /// answer to the same generation then adds the summary and the breakdown and keeps the
    /// selection; the test `the_first_frame_lists_what_the_engine_answers` holds the two equal.
    /// A resumed selection is left to the engine, which locates it.
    fn show_library_order(&mut self) {
        if !self.input.is_empty() || !self.filters.is_empty() || self.restore_selection.is_some() {
            return;
        }
        let total = self.library.cases.len();
        self.results = Results {
            generation: self.generation,
            loaded: true,
            total,
            hits: (0..total.min(PAGE)).collect(),
            ..Results::default()
        };
        // Listed: nothing for the first frame to wait for.
        self.awaiting = false;
        self.clamp_detail();
    }

    /// Whether the case list and the right pane are holding on to what they showed while keys
    /// are typed into the search box: both wait for [`App::typing_paused`]. The list and the
    /// case pane are most of the screen and change wholesale when the ranking does; someone
    /// typing fast does not read the rankings of half-typed words, and the pause
    /// ([`crate::tui::TYPING_PAUSE`]) comes as soon as they stop to look. The search box, the
    /// suggested filters and the status line follow every key.
    pub fn case_held(&self) -> bool {
        self.held
    }

    /// Typing has paused (the main loop calls it [`crate::tui::TYPING_PAUSE`] after the last
    /// key): the list and the right pane catch up with the newest results.
    pub fn typing_paused(&mut self) {
        self.held_list = None;
        if std::mem::take(&mut self.held) {
            self.clamp_detail();
            self.dirty = true;
        }
    }

    /// What the case list draws: the results and the selection as they were when typing began
    /// while it is held (see [`App::case_held`]), else the newest.
    pub fn list_shown(&self) -> (&Results, &ListView) {
        match &self.held_list {
            Some(held) if self.held && Arc::ptr_eq(&held.library, &self.library) => {
                (&held.results, &held.list)
            }
            _ => (&self.results, &self.list),
        }
    }

    /// Whether something changed since the last call (and so the screen must be drawn).
    pub fn take_dirty(&mut self) -> bool {
        std::mem::take(&mut self.dirty)
    }

    /// Whether the newest query has not been answered yet.
    pub fn awaiting_results(&self) -> bool {
        self.awaiting
    }

    /// The layout for the current size, or `None` when the terminal is too small.
    pub fn layout(&self) -> Option<Layout> {
        Layout::new(self.size.0, self.size.1)
    }

    /// Where keys go now.
    pub fn context(&self) -> Context {
        match (&self.overlay, self.focus) {
            (Some(Overlay::Help(_)), _) => Context::Help,
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
    fn graph_built(&mut self, library: &Arc<Library>, graph: Graph) -> Vec<Effect> {
        if Arc::ptr_eq(library, &self.library) && self.graph.set(graph).is_ok() {
            self.case_view.related = self.case_view.case.map(|i| self.related_cases(i)).unwrap_or_default();
            self.case_view.doc = None;
            self.clamp_detail();
            self.dirty = true;
        }
        Vec::new()
    }

    /// The case pane's document for the selected case at the pane's width.
    pub fn case_doc(&self) -> Option<&CaseDoc> {
        self.case_view.doc.as_ref()
    }

    /// The applied filters as chips.
    pub fn chips(&self) -> Vec<Chip> {
        let mut chips: Vec<Chip> = (0..self.filters.facets.len()).map(Chip::Facet).collect();
        chips.extend((0..self.filters.organizations.len()).map(Chip::Org));
        match (self.filters.after, self.filters.before) {
            (Some(a), Some(b)) if a == b && a.month.is_none() => chips.push(Chip::Year(a.year)),
            (after, before) => {
                chips.extend(after.map(|_| Chip::After));
                chips.extend(before.map(|_| Chip::Before));
            }
        }
        chips
    }

    /// A chip's label and whether it excludes.
    pub fn chip_label(&self, chip: Chip) -> (String, bool) {
        match chip {
            Chip::Facet(i) => self
                .filters
                .facets
                .get(i)
                .map(|f| (format!("{}: {}", f.kind.label(), f.value), f.negated))
                .unwrap_or_default(),
            Chip::Org(i) => (
                format!("Organization: {}", self.filters.organizations.get(i).cloned().unwrap_or_default()),
                false,
            ),
            Chip::Year(y) => (format!("Year: {y}"), false),
            Chip::After => {
                (format!("After: {}", self.filters.after.map(|d| d.to_string()).unwrap_or_default()), false)
            }
            Chip::Before => {
                (format!("Before: {}", self.filters.before.map(|d| d.to_string()).unwrap_or_default()), false)
            }
        }
    }

    /// The items of the filters rows, in cursor order: chips, "Clear all", suggestions.
    pub fn filter_items(&self) -> Vec<FilterItem> {
        let chips = self.chips();
        let mut items: Vec<FilterItem> = chips.iter().map(|c| FilterItem::Chip(*c)).collect();
        if !chips.is_empty() {
            items.push(FilterItem::ClearAll);
        }
        items.extend((0..self.results.suggestions.len()).map(FilterItem::Suggestion));
        items
    }

    /// The suggestion that `+` and Alt-Enter apply.
    pub fn highlighted_suggestion(&self) -> Option<usize> {
        match self.filter_items().get(self.filter_cursor) {
            Some(FilterItem::Suggestion(i)) => Some(*i),
            _ => (!self.results.suggestions.is_empty()).then_some(0),
        }
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

    /// Change the state for `msg` and say what must happen next.
    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        let mut effects = match msg {
            Msg::Key(key) => {
                let action = keymap::action(self.context(), key);
                // A note stays while someone types (so a warning is not gone before it is
                // read) and goes with the next command key.
                let typing = matches!(
                    action,
                    Some(Action::Insert(_) | Action::Backspace | Action::Delete | Action::DeleteWord)
                );
                if !typing && self.note.take().is_some() {
                    self.dirty = true;
                }
                if !typing {
                    // Anything but typing shows the right pane as it is now.
                    self.typing_paused();
                }
                match action {
                    Some(action) => self.act(action),
                    None => Vec::new(),
                }
            }
            Msg::Paste(text) => {
                self.typing_paused();
                self.paste(&text)
            }
            Msg::Resize(w, h) => {
                self.held = false;
                self.size = (w, h);
                self.dirty = true;
                let mut effects = self.scroll_list(0);
                self.clamp_detail();
                effects.extend(self.keep_picker_cursor());
                effects
            }
            Msg::Mouse(event) if self.mouse => {
                self.typing_paused();
                self.mouse_event(event)
            }
            Msg::Mouse(_) => Vec::new(),
            Msg::Searched(response) => self.receive(*response),
            Msg::Signal(Signal::Continue) => {
                self.dirty = true;
                vec![Effect::Redraw]
            }
            // The main loop ends with the error before a failed load reaches the app.
            Msg::Signal(Signal::Hangup | Signal::Terminate | Signal::Interrupt)
            | Msg::InputClosed(_)
            | Msg::LoadFailed(_) => {
                vec![Effect::Quit]
            }
            Msg::Progress(progress) => self.load_progress(progress),
            Msg::Loaded(loaded) => self.load_finished(*loaded),
            Msg::GraphBuilt(library, graph) => self.graph_built(&library, *graph),
            Msg::LogRead(read) => self.log_read(*read),
        };
        let session = self.session();
        if self.saved.as_ref() != Some(&session) && !effects.contains(&Effect::Quit) {
            self.saved = Some(session.clone());
            effects.push(Effect::Save(session));
        }
        effects
    }

    fn act(&mut self, action: Action) -> Vec<Effect> {
        match action {
            Action::Quit => return vec![Effect::Quit],
            Action::Suspend => return vec![Effect::Suspend],
            Action::Export if !matches!(self.overlay, Some(Overlay::Export(_))) => return self.open_export(),
            Action::Help => {
                self.overlay = match self.overlay {
                    Some(Overlay::Help(_)) => None,
                    _ => Some(Overlay::Help(0)),
                };
                self.dirty = true;
                return Vec::new();
            }
            _ => {}
        }
        match &self.overlay {
            Some(Overlay::Help(_)) => return self.help_action(action),
            Some(Overlay::Picker(_)) => return self.picker_action(action),
            Some(Overlay::Export(_)) => return self.export_action(action),
            None => {}
        }
        if let Some(effects) = self.edit(action) {
            return effects;
        }
        if self.context() == Context::Graph
            && let Some(effects) = self.graph_action(action)
        {
            return effects;
        }
        let was_dirty = self.dirty;
        self.dirty = true;
        match action {
            Action::FocusNext => self.cycle_focus(1),
            Action::FocusPrev => self.cycle_focus(-1),
            Action::FocusSearch => self.focus = Focus::Search,
            Action::Back => return self.back(),
            Action::Up => return self.vertical(-1),
            Action::Down => return self.vertical(1),
            Action::PageUp => return self.vertical(-(self.page() as isize)),
            Action::PageDown => return self.vertical(self.page() as isize),
            Action::Top => return self.vertical(isize::MIN / 2),
            Action::Bottom => return self.vertical(isize::MAX / 2),
            Action::Left => self.horizontal(-1),
            Action::Right => self.horizontal(1),
            Action::Open => return self.open(),
            Action::ApplySuggestion => return self.apply_suggestion(false),
            Action::Negate => return self.negate(),
            Action::Remove => return self.remove(),
            Action::ToggleWeaker => {
                self.show_weaker = !self.show_weaker;
                return self.query_changed();
            }
            Action::Copy => return self.copy(),
            Action::CyclePane => {
                self.right = self.right.next();
                if self.layout().is_some_and(|l| l.narrow) {
                    self.focus = Focus::Detail;
                }
                self.sync_graph_view();
            }
            Action::Picker(kind) => {
                let kind = kind.unwrap_or(self.picker_kind);
                self.picker_kind = kind;
                self.overlay = Some(Overlay::Picker(Picker::new(&self.library, &self.filters, kind)));
            }
            _ => self.dirty = was_dirty,
        }
        Vec::new()
    }

    /// Editing keys in the search box; `None` when `action` is not one.
    fn edit(&mut self, action: Action) -> Option<Vec<Effect>> {
        if self.focus != Focus::Search {
            return None;
        }
        let input = &mut self.input;
        let before = input.clone();
        let changed = match action {
            Action::Insert(c) => {
                input.insert(c);
                true
            }
            Action::Backspace => input.backspace(),
            Action::Delete => input.delete(),
            Action::DeleteWord => input.delete_word(),
            Action::DeleteToStart => input.delete_to_start(),
            Action::DeleteToEnd => input.delete_to_end(),
            Action::CursorLeft => {
                input.left();
                false
            }
            Action::CursorRight => {
                input.right();
                false
            }
            Action::CursorHome => {
                input.home();
                false
            }
            Action::CursorEnd => {
                input.end();
                false
            }
            _ => return None,
        };
        if *input != before {
            self.dirty = true;
        }
        let edited = changed && input.text() != before.text();
        if edited {
            self.stop_reading();
        }
        // Only single-key edits hold the case pane: a word deleted or a line cleared shows the
        // new best match at once.
        if edited && matches!(action, Action::Insert(_) | Action::Backspace | Action::Delete) {
            if !self.held {
                let (library, results, list) = (self.library.clone(), self.results.clone(), self.list);
                self.held_list = Some(HeldList { library, results, list });
            }
            self.held = true;
        }
        Some(if edited { self.query_changed() } else { Vec::new() })
    }

    fn paste(&mut self, text: &str) -> Vec<Effect> {
        self.dirty = true;
        match &mut self.overlay {
            Some(Overlay::Picker(picker)) => {
                picker.filter.insert_str(text);
                picker.refilter();
                Vec::new()
            }
            Some(Overlay::Export(dialog)) => {
                if dialog.step == super::export::Step::Path {
                    dialog.path.insert_str(text);
                }
                Vec::new()
            }
            Some(Overlay::Help(_)) => Vec::new(),
            None => {
                self.focus = Focus::Search;
                self.stop_reading();
                if is_log(text) {
                    return self.read_pasted_log(text);
                }
                self.input.insert_str(text);
                self.query_changed()
            }
        }
    }

    /// A pasted log (several lines) is read on a thread of its own, as `incidex triage` reads
    /// one, while the UI goes on; the note says so until [`App::log_read`] has the answer.
    fn read_pasted_log(&mut self, text: &str) -> Vec<Effect> {
        self.pasted_logs += 1;
        let job = LogJob::new(self.pasted_logs, text.to_string(), self.library.clone());
        self.note = Some(Note {
            text: format!(
                "reading the pasted log ({})… Esc stops",
                crate::text::numbers::bytes(job.bytes() as u64)
            ),
            error: false,
        });
        self.reading = Some(job.clone());
        vec![Effect::ReadLog(job)]
    }

    /// The pasted log was read: the lines that stood out become the search, and the note says
    /// how many lines were read and which stood out. The answer to a paste the user has moved on
    /// from is dropped.
    fn log_read(&mut self, read: PastedLog) -> Vec<Effect> {
        if self.reading.as_ref().is_none_or(|job| job.id != read.id) {
            return Vec::new();
        }
        self.reading = None;
        let digest = read.digest;
        let used: Vec<&str> = digest.evidence.iter().map(|e| e.text.as_str()).collect();
        self.input = Input::new(&used.join(" "));
        self.input_is_log = true;
        let lines: Vec<String> = digest.evidence.iter().map(|e| format!("L{}", e.line)).collect();
        let read = match digest.lines {
            1 => "1 line".to_string(),
            n => format!("{} lines", thousands(n as usize)),
        };
        let what = if digest.stood_out() {
            format!("{} stood out ({})", lines.len(), lines.join(", "))
        } else if lines.is_empty() {
            "nothing in it to search".to_string()
        } else {
            format!("none stood out, searching the last {} ({})", lines.len(), lines.join(", "))
        };
        self.note = Some(Note { text: format!("pasted log: {read} read; {what}"), error: false });
        self.query_changed()
    }

    /// Stop reading a pasted log (the user typed, pasted again or pressed Esc); whether one was
    /// being read.
    fn stop_reading(&mut self) -> bool {
        let Some(job) = self.reading.take() else { return false };
        job.cancel();
        self.dirty = true;
        if self.note.as_ref().is_some_and(|n| n.text.starts_with("reading the pasted log")) {
            self.note = None;
        }
        true
    }

    fn cycle_focus(&mut self, step: isize) {
        let mut order = vec![Focus::Search];
        if !self.filter_items().is_empty() {
            order.push(Focus::Filters);
        }
        order.extend([Focus::Results, Focus::Detail]);
        let i = order.iter().position(|f| *f == self.focus).unwrap_or(0) as isize;
        let n = order.len() as isize;
        self.focus = order[((i + step).rem_euclid(n)) as usize];
        if self.focus == Focus::Filters {
            self.filter_cursor = self.filter_cursor.min(self.filter_items().len().saturating_sub(1));
        }
    }

    fn back(&mut self) -> Vec<Effect> {
        if self.focus == Focus::Search && self.stop_reading() {
            self.note = Some(Note { text: "stopped reading the pasted log".into(), error: false });
            return Vec::new();
        }
        match self.focus {
            Focus::Search if !self.input.is_empty() => {
                self.input.clear();
                self.input_is_log = false;
                return self.query_changed();
            }
            Focus::Search => self.focus = Focus::Results,
            Focus::Filters | Focus::Results => self.focus = Focus::Search,
            Focus::Detail => self.focus = Focus::Results,
        }
        Vec::new()
    }

    fn page(&self) -> usize {
        let rows = self.layout().map_or(1, |l| match self.focus {
            Focus::Detail => usize::from(l.right_inner().height),
            _ => l.list_items(),
        });
        rows.saturating_sub(1).max(1)
    }

    fn vertical(&mut self, step: isize) -> Vec<Effect> {
        match self.focus {
            Focus::Search | Focus::Filters if step > 0 && step.unsigned_abs() == 1 => {
                self.focus = Focus::Results;
                Vec::new()
            }
            Focus::Filters if step < 0 && step.unsigned_abs() == 1 => {
                self.focus = Focus::Search;
                Vec::new()
            }
            Focus::Search | Focus::Filters | Focus::Results => self.move_selection(step),
            Focus::Detail => {
                match self.right {
                    RightPane::Case => {
                        self.case_view.scroll = add(self.case_view.scroll, step);
                        self.case_view.highlight = None;
                    }
                    RightPane::Breakdown => self.breakdown.cursor = add(self.breakdown.cursor, step),
                    // The graph pane takes its own keys (`app/walk.rs`).
                    RightPane::Graph => {}
                }
                self.clamp_detail();
                Vec::new()
            }
        }
    }

    fn horizontal(&mut self, step: isize) {
        match self.focus {
            Focus::Filters => {
                let n = self.filter_items().len();
                self.filter_cursor = add(self.filter_cursor, step).min(n.saturating_sub(1));
            }
            Focus::Results if step > 0 => self.focus = Focus::Detail,
            Focus::Search | Focus::Results => {}
            Focus::Detail => match self.right {
                RightPane::Case => self.move_highlight(step),
                RightPane::Breakdown => {
                    let i = self.breakdown.dimension.index() as isize + step;
                    self.breakdown.dimension =
                        Dimension::ALL[i.rem_euclid(Dimension::ALL.len() as isize) as usize];
                    self.breakdown.cursor = 0;
                    self.breakdown.top = 0;
                }
                RightPane::Graph => {}
            },
        }
    }

    /// Move the case pane's highlight over its facet values and then its source addresses.
    fn move_highlight(&mut self, step: isize) {
        let height = self.layout().map_or(1, |l| usize::from(l.right_inner().height));
        let view = &mut self.case_view;
        let Some(doc) = view.doc.as_ref() else { return };
        let items = doc.items();
        let Some(last) = items.len().checked_sub(1) else { return };
        let next = match view.highlight.and_then(|h| items.iter().position(|(item, _)| *item == h)) {
            Some(i) => add(i, step).min(last),
            // The first press picks the first item in view (or the first after it).
            None => items.iter().position(|(_, line)| *line >= view.scroll).unwrap_or(last),
        };
        let (item, line) = items[next];
        view.highlight = Some(item);
        if line < view.scroll {
            view.scroll = line;
        } else if line >= view.scroll + height {
            view.scroll = line + 1 - height;
        }
    }

    fn open(&mut self) -> Vec<Effect> {
        match self.focus {
            Focus::Search => self.focus = Focus::Results,
            Focus::Results => {
                self.right = RightPane::Case;
                self.focus = Focus::Detail;
            }
            Focus::Filters => match self.filter_items().get(self.filter_cursor) {
                Some(FilterItem::Suggestion(i)) => return self.apply_suggestion_at(*i, false),
                Some(FilterItem::Chip(_) | FilterItem::ClearAll) => return self.remove(),
                None => {}
            },
            Focus::Detail => return self.apply_detail(false),
        }
        Vec::new()
    }

    fn negate(&mut self) -> Vec<Effect> {
        match (self.focus, self.filter_items().get(self.filter_cursor)) {
            (Focus::Filters, Some(FilterItem::Chip(Chip::Facet(i)))) => {
                let Some(f) = self.filters.facets.get_mut(*i) else { return Vec::new() };
                f.negated = !f.negated;
                self.query_changed()
            }
            (Focus::Filters, Some(FilterItem::Suggestion(i))) => self.apply_suggestion_at(*i, true),
            (Focus::Detail, _) => self.apply_detail(true),
            _ => self.apply_suggestion(true),
        }
    }

    fn remove(&mut self) -> Vec<Effect> {
        if self.focus != Focus::Filters {
            return Vec::new();
        }
        match self.filter_items().get(self.filter_cursor) {
            Some(FilterItem::Chip(chip)) => {
                match *chip {
                    Chip::Facet(i) if i < self.filters.facets.len() => {
                        self.filters.facets.remove(i);
                    }
                    Chip::Org(i) if i < self.filters.organizations.len() => {
                        self.filters.organizations.remove(i);
                    }
                    Chip::Year(_) => {
                        self.filters.after = None;
                        self.filters.before = None;
                    }
                    Chip::After => self.filters.after = None,
                    Chip::Before => self.filters.before = None,
                    _ => {}
                }
                self.note = Some(Note { text: "filter removed".into(), error: false });
            }
            Some(FilterItem::ClearAll) => {
                self.filters = Filters::default();
                self.note = Some(Note { text: "all filters cleared".into(), error: false });
            }
            _ => return Vec::new(),
        }
        // Focus stays in the filters rows even when they are empty now: moving it to the
        // search box would turn the next `/` or `q` into text.
        let n = self.filter_items().len();
        self.filter_cursor = self.filter_cursor.min(n.saturating_sub(1));
        self.query_changed()
    }

    fn apply_suggestion(&mut self, negated: bool) -> Vec<Effect> {
        match self.highlighted_suggestion() {
            Some(i) => self.apply_suggestion_at(i, negated),
            None => {
                self.note = Some(Note {
                    text: "no suggested filter to apply; type what you see".into(),
                    error: false,
                });
                Vec::new()
            }
        }
    }

    fn apply_suggestion_at(&mut self, i: usize, negated: bool) -> Vec<Effect> {
        let Some(s) = self.results.suggestions.get(i).cloned() else { return Vec::new() };
        self.results.suggestions.remove(i);
        self.apply(s.kind, &s.value, negated)
    }

    fn apply(&mut self, kind: FacetKind, value: &str, negated: bool) -> Vec<Effect> {
        self.filters.set_facet(FacetFilter { kind, value: value.to_string(), negated });
        let verb = if negated { "excluding" } else { "applied" };
        self.note = Some(Note { text: format!("{verb} {}: {value}", kind.label()), error: false });
        self.dirty = true;
        self.query_changed()
    }

    fn apply_detail(&mut self, negated: bool) -> Vec<Effect> {
        match self.right {
            RightPane::Graph => self.apply_node(negated),
            RightPane::Case => {
                let chosen = self.case_view.facet().and_then(|i| self.case_doc()?.facets.get(i)).cloned();
                match chosen {
                    Some(f) => self.apply(f.kind, &f.value, negated),
                    None => {
                        self.note = Some(Note {
                            text: "← → highlight a facet value; Enter applies it".into(),
                            error: false,
                        });
                        Vec::new()
                    }
                }
            }
            RightPane::Breakdown => {
                let dimension = self.breakdown.dimension;
                let Some((value, _)) =
                    self.results.breakdown.of(dimension).get(self.breakdown.cursor).cloned()
                else {
                    return Vec::new();
                };
                match dimension.kind() {
                    Some(kind) => self.apply(kind, &value, negated),
                    None if negated => {
                        self.note = Some(Note { text: "a year cannot be excluded".into(), error: true });
                        Vec::new()
                    }
                    None => match value.parse::<PartialDate>() {
                        Ok(year) => {
                            self.filters.after = Some(year);
                            self.filters.before = Some(year);
                            self.note = Some(Note { text: format!("applied Year: {value}"), error: false });
                            self.query_changed()
                        }
                        Err(_) => {
                            self.note =
                                Some(Note { text: format!("cannot filter by '{value}'"), error: true });
                            Vec::new()
                        }
                    },
                }
            }
        }
    }

    fn help_action(&mut self, action: Action) -> Vec<Effect> {
        let Some(Overlay::Help(scroll)) = &mut self.overlay else { return Vec::new() };
        let page = usize::from(self.size.1.saturating_sub(3)).max(1) as isize;
        let step = match action {
            Action::Up => -1,
            Action::Down => 1,
            Action::PageUp => -page,
            Action::PageDown => page,
            Action::Top => isize::MIN / 2,
            Action::Bottom => isize::MAX / 2,
            Action::Back => {
                self.overlay = None;
                self.dirty = true;
                return Vec::new();
            }
            _ => return Vec::new(),
        };
        let screen = ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1);
        let (lines, visible) = super::help::extent(screen);
        *scroll = add(*scroll, step).min(lines.saturating_sub(visible));
        self.dirty = true;
        Vec::new()
    }

    fn picker_action(&mut self, action: Action) -> Vec<Effect> {
        let rows = self.picker_rows();
        let Some(Overlay::Picker(picker)) = &mut self.overlay else { return Vec::new() };
        self.dirty = true;
        let before = picker.filter.text().to_string();
        match action {
            Action::Back => {
                self.overlay = None;
                return Vec::new();
            }
            Action::Open => {
                let negated = picker.negated();
                let kind = picker.kind;
                let Some(row) = picker.rows.get(picker.cursor).cloned() else { return Vec::new() };
                self.overlay = None;
                return self.apply(kind, &row.value, negated);
            }
            Action::NextKind | Action::PrevKind => {
                let step = if action == Action::NextKind { 1 } else { -1 };
                let i =
                    (picker.kind.index() as isize + step).rem_euclid(FacetKind::ALL.len() as isize) as usize;
                let filter = picker.filter.clone();
                *picker = Picker::new(&self.library, &self.filters, FacetKind::ALL[i]);
                picker.filter = filter;
                picker.refilter();
                self.picker_kind = picker.kind;
            }
            Action::Up => picker.cursor = picker.cursor.saturating_sub(1),
            Action::Down => picker.cursor += 1,
            Action::PageUp => picker.cursor = picker.cursor.saturating_sub(rows.max(1)),
            Action::PageDown => picker.cursor += rows.max(1),
            Action::Insert(c) => picker.filter.insert(c),
            Action::Backspace => {
                picker.filter.backspace();
            }
            Action::Delete => {
                picker.filter.delete();
            }
            Action::DeleteWord => {
                picker.filter.delete_word();
            }
            Action::DeleteToStart => {
                picker.filter.delete_to_start();
            }
            Action::DeleteToEnd => {
                picker.filter.delete_to_end();
            }
            Action::CursorLeft => picker.filter.left(),
            Action::CursorRight => picker.filter.right(),
            Action::CursorHome => picker.filter.home(),
            Action::CursorEnd => picker.filter.end(),
            _ => {}
        }
        if picker.filter.text() != before {
            picker.refilter();
        }
        self.keep_picker_cursor()
    }

    /// Rows of values the picker shows at the current size.
    pub fn picker_rows(&self) -> usize {
        let area = layout::picker_area(ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1));
        usize::from(layout::inner(area).height).saturating_sub(PICKER_HEADER_ROWS)
    }

    fn keep_picker_cursor(&mut self) -> Vec<Effect> {
        let rows = self.picker_rows().max(1);
        if let Some(Overlay::Picker(picker)) = &mut self.overlay {
            picker.cursor = picker.cursor.min(picker.rows.len().saturating_sub(1));
            if picker.cursor < picker.top {
                picker.top = picker.cursor;
            } else if picker.cursor >= picker.top + rows {
                picker.top = picker.cursor + 1 - rows;
            }
        }
        Vec::new()
    }

    /// Move the list selection by `step` (clamped) and keep it in view.
    fn move_selection(&mut self, step: isize) -> Vec<Effect> {
        if self.results.total == 0 {
            return Vec::new();
        }
        self.opened = None;
        self.pending_resume = None;
        self.list.selected = add(self.list.selected, step).min(self.results.total - 1);
        self.scroll_list(0)
    }

    /// Scroll the list by `step` rows, keep the selection in view, ask for the page the rows
    /// shown need, and reset the case pane when the selected case changed.
    fn scroll_list(&mut self, step: isize) -> Vec<Effect> {
        let rows = self.layout().map_or(1, |l| l.list_items()).max(1);
        let total = self.results.total;
        self.list.selected = self.list.selected.min(total.saturating_sub(1));
        self.list.top = add(self.list.top, step).min(total.saturating_sub(rows));
        if self.list.selected < self.list.top {
            self.list.top = self.list.selected;
        } else if self.list.selected >= self.list.top + rows {
            self.list.top = self.list.selected + 1 - rows;
        }
        if step != 0 {
            // Wheel scrolling moves the view; the selection follows it into view.
            self.list.selected = self
                .list
                .selected
                .clamp(self.list.top, (self.list.top + rows - 1).min(total.saturating_sub(1)));
        }
        self.sync_case_view();
        self.request_page(rows)
    }

    fn request_page(&mut self, rows: usize) -> Vec<Effect> {
        let total = self.results.total;
        if total == 0 || !self.results.loaded {
            return Vec::new();
        }
        let first = self.list.top.min(self.list.selected);
        let last = (self.list.top + rows).max(self.list.selected + 1).min(total);
        let loaded = self.results.offset..self.results.offset + self.results.hits.len();
        let wanted = self.wanted_offset..self.wanted_offset + PAGE;
        if (loaded.contains(&first) && last <= loaded.end) || (wanted.contains(&first) && last <= wanted.end)
        {
            return Vec::new();
        }
        self.wanted_offset = first.saturating_sub(PAGE / 4);
        vec![Effect::Search(self.request())]
    }

    /// Follow the selection (a new case starts at its top) and the pane's width.
    fn sync_case_view(&mut self) {
        let case = self.shown_index();
        if self.held && self.case_view.case.is_some() && case != self.case_view.case {
            // Typing: the pane keeps its case until the pause (see `App::case_held`).
            return;
        }
        let width = self.layout().map_or(0, |l| l.right_inner().width);
        if case != self.case_view.case {
            let related = case.map(|i| self.related_cases(i)).unwrap_or_default();
            self.case_view = CaseView { case, width: 0, related, ..CaseView::default() };
        }
        if self.case_view.width != width || (self.case_view.doc.is_none() && case.is_some()) {
            self.case_view.doc = self.shown_case().map(|c| doc::build(c, &self.case_view.related, width));
            self.case_view.width = width;
            let highlight = self.case_view.highlight;
            if highlight.is_some_and(|h| {
                self.case_view.doc.as_ref().is_none_or(|d| !d.items().iter().any(|(item, _)| *item == h))
            }) {
                self.case_view.highlight = None;
            }
        }
        self.sync_graph_view();
    }

    /// Keep the right pane's scroll and cursor inside what it shows.
    fn clamp_detail(&mut self) {
        let height = self.layout().map_or(1, |l| usize::from(l.right_inner().height));
        self.sync_case_view();
        let lines = self.case_doc().map_or(0, |d| d.lines.len());
        self.case_view.scroll = self.case_view.scroll.min(lines.saturating_sub(height));
        let bars = self.results.breakdown.of(self.breakdown.dimension).len();
        let rows = height.saturating_sub(BREAKDOWN_HEADER_ROWS).max(1);
        let b = &mut self.breakdown;
        b.cursor = b.cursor.min(bars.saturating_sub(1));
        if b.cursor < b.top {
            b.top = b.cursor;
        } else if b.cursor >= b.top + rows {
            b.top = b.cursor + 1 - rows;
        }
    }

    fn request(&self) -> Request {
        Request {
            generation: self.generation,
            input: self.input.text().to_string(),
            filters: self.filters.clone(),
            offset: self.wanted_offset,
            limit: PAGE,
            locate: self.restore_selection.clone().filter(|_| self.wanted_offset == 0),
            all: self.show_weaker,
            log: self.input_is_log && !self.input.is_empty(),
        }
    }

    /// The query (input or filters) changed: ask for its first page.
    fn query_changed(&mut self) -> Vec<Effect> {
        self.opened = None;
        self.pending_resume = None;
        self.generation += 1;
        self.wanted_offset = 0;
        self.awaiting = true;
        self.dirty = true;
        vec![Effect::Search(self.request())]
    }

    fn receive(&mut self, response: Response) -> Vec<Effect> {
        if response.generation != self.generation || response.offset != self.wanted_offset {
            return Vec::new();
        }
        let new_query = !self.results.loaded || self.results.generation != response.generation;
        // Say what an inline value was read as once, when it changes (not again for each page).
        if !response.notes.is_empty() && response.notes != self.results.notes {
            self.note = Some(Note { text: response.notes.join("; "), error: false });
        }
        self.awaiting = false;
        self.dirty = true;
        let filters = &self.filters;
        let suggestions = response
            .suggestions
            .into_iter()
            .filter(|s| !filters.facets.iter().any(|f| f.kind == s.kind && f.value == s.value))
            .collect();
        self.results = Results {
            generation: response.generation,
            loaded: true,
            total: response.total,
            weaker: response.weaker,
            offset: response.offset,
            hits: response.hits,
            suggestions,
            summary: response.summary,
            breakdown: response.breakdown,
            error: response.error,
            notes: response.notes,
        };
        if new_query {
            self.list = ListView::default();
            if let Some(id) = self.restore_selection.take() {
                let found = self
                    .results
                    .hits
                    .iter()
                    .position(|&i| self.library.cases.get(i).is_some_and(|c| c.id == id));
                // Beyond the first page the worker says where it is; the list then asks for
                // the page around it.
                self.list.selected = found.map(|p| p + self.results.offset).or(response.located).unwrap_or(0);
            }
            let items = self.filter_items();
            self.filter_cursor = match self.focus {
                Focus::Filters => self.filter_cursor.min(items.len().saturating_sub(1)),
                _ => items.iter().position(|i| matches!(i, FilterItem::Suggestion(_))).unwrap_or(0),
            };
            if self.focus == Focus::Filters && items.is_empty() {
                self.focus = Focus::Search;
            }
            self.breakdown.cursor = 0;
            self.breakdown.top = 0;
        }
        let effects = self.scroll_list(0);
        self.clamp_detail();
        effects
    }

    fn mouse_event(&mut self, event: MouseEvent) -> Vec<Effect> {
        let Some(l) = self.layout() else { return Vec::new() };
        let at = ratatui::layout::Position::new(event.column, event.row);
        let wheel = match event.kind {
            MouseEventKind::ScrollUp => -3,
            MouseEventKind::ScrollDown => 3,
            MouseEventKind::Down(MouseButton::Left) => 0,
            _ => return Vec::new(),
        };
        self.dirty = true;
        if let Some(overlay) = &self.overlay {
            return match (overlay, wheel) {
                (Overlay::Help(_), 0) => Vec::new(),
                (Overlay::Help(_), w) => self.help_action(if w < 0 { Action::Up } else { Action::Down }),
                (Overlay::Picker(_), 0) => Vec::new(),
                (Overlay::Picker(_), w) => self.picker_action(if w < 0 { Action::Up } else { Action::Down }),
                (Overlay::Export(_), _) => Vec::new(),
            };
        }
        let narrow_detail = (l.narrow && self.focus == Focus::Detail) || self.graph_alone();
        if l.list.contains(at) && !narrow_detail {
            if wheel != 0 {
                return self.scroll_list(wheel);
            }
            self.focus = Focus::Results;
            let row = usize::from(at.y.saturating_sub(l.list.y + 1)) / l.list_item_height();
            if at.y > l.list.y && row < l.list_items() {
                self.pending_resume = None;
                self.list.selected = (self.list.top + row).min(self.results.total.saturating_sub(1));
            }
            return self.scroll_list(0);
        }
        if l.right.contains(at) || (self.graph_alone() && l.list.contains(at)) {
            if wheel == 0 {
                self.focus = Focus::Detail;
                if self.right == RightPane::Graph {
                    self.click_node(at.x, at.y);
                }
                return Vec::new();
            }
            match self.right {
                RightPane::Case => self.case_view.scroll = add(self.case_view.scroll, wheel),
                RightPane::Breakdown => self.breakdown.cursor = add(self.breakdown.cursor, wheel),
                RightPane::Graph => {}
            }
            self.clamp_detail();
            return Vec::new();
        }
        if l.search.contains(at) && wheel == 0 {
            self.focus = Focus::Search;
        } else if (l.chips.contains(at) || l.suggestions.contains(at)) && wheel == 0 {
            let row =
                if l.chips.contains(at) { layout::FilterRow::Applied } else { layout::FilterRow::Suggested };
            if let Some(item) = self.filter_item_at(row, l.chips.width, at.x) {
                self.focus = Focus::Filters;
                self.filter_cursor = self.filter_items().iter().position(|i| *i == item).unwrap_or(0);
            }
        }
        Vec::new()
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
mod tests {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

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
            }],
            summary: "These cases involve NCCL".into(),
            breakdown,
            ..Response::default()
        }))
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
        };
        app.update(loaded(library(), problems));
        let note = app.note.clone().unwrap();
        assert!(note.error);
        assert_eq!(
            note.text,
            "2 problems in your library files: run `incidex check` · library loaded: 6 cases"
        );
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
        assert!(app.note.as_ref().is_some_and(|n| n.text == "applied Symptom: Hang"));
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
        app.filters.set_facet(FacetFilter {
            kind: FacetKind::Component,
            value: "NCCL".into(),
            negated: false,
        });
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
        app.update(key(KeyCode::Char('2')));
        let Some(Overlay::Picker(p)) = &app.overlay else { panic!("picker open") };
        assert_eq!(p.kind, FacetKind::Component);
        assert_eq!(p.rows.len(), 4);
        let order: Vec<(usize, &str)> = p.rows.iter().map(|r| (r.count, r.value.as_str())).collect();
        assert_eq!(order, [(3, "Checkpointing"), (3, "NCCL"), (3, "Training data loader"), (1, "GPU")]);
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
        app.update(key(KeyCode::Char('f')));
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
        app.update(key(KeyCode::Char('2')));
        for c in "-gpu".chars() {
            app.update(key(KeyCode::Char(c)));
        }
        let Some(Overlay::Picker(p)) = &app.overlay else { panic!("picker open") };
        assert_eq!(p.rows[0].value, "GPU", "the order is the same as when including");
        assert_eq!(p.rows[0].count, total - 1, "excluding GPU leaves the cases without it");
        for _ in 0.."-gpu".len() {
            app.update(key(KeyCode::Backspace));
        }
        for c in "nccll".chars() {
            app.update(key(KeyCode::Char(c)));
        }
        let Some(Overlay::Picker(p)) = &app.overlay else { panic!("picker open") };
        assert_eq!(p.rows.first().map(|r| (r.value.as_str(), r.count)), Some(("NCCL", 3)));
        assert_eq!(p.note.as_deref(), Some("read as 'NCCL' (the nearest spelling)"));
        let request = searches(&app.update(key(KeyCode::Enter))).pop().unwrap();
        assert_eq!(
            request.filters.facets,
            [FacetFilter { kind: FacetKind::Component, value: "NCCL".into(), negated: false }]
        );
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
        app.copy_finished(&clips[0], Ok(()));
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
                assert!(
                    app.list.selected >= app.list.top && app.list.selected < app.list.top + l.list_items()
                );
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
        assert_eq!(
            request.input,
            "RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error."
        );
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
            app.update(Msg::LogRead(Box::new(PastedLog { id: older.id, digest: Default::default() })))
                .is_empty()
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
}
