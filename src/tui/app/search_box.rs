//! The search box's side of [`App`]: editing the query, pastes (a sentence goes into the box, a
//! log is read apart down to the lines that stood out), asking the search worker and taking its
//! answers, and the pause in typing that the list and the case pane wait for.

use std::sync::Arc;

use crate::taxonomy::FacetKind;
use crate::text::numbers::thousands;
use crate::tui::{
    input::Input,
    keymap::Action,
    paste::{LogJob, PastedLog},
    worker::{Request, Response, ValueCounts},
};

use super::{
    App, Effect, FilterItem, Focus, HeldList, ListView, Note, Overlay, PAGE, Picker, Results, is_log,
};

impl App {
    /// Editing keys in the search box; `None` when `action` is not one.
    pub(super) fn edit(&mut self, action: Action) -> Option<Vec<Effect>> {
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

    pub(super) fn paste(&mut self, text: &str) -> Vec<Effect> {
        self.dirty = true;
        match &mut self.overlay {
            Some(Overlay::Picker(picker)) => {
                picker.filter.insert_str(text);
                picker.refilter();
                Vec::new()
            }
            Some(Overlay::Export(dialog)) => {
                if dialog.step == crate::tui::export::Step::Path {
                    dialog.path.insert_str(text);
                }
                Vec::new()
            }
            Some(Overlay::Help(_) | Overlay::Checks(_) | Overlay::Preflight(_)) => Vec::new(),
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
    pub(super) fn read_pasted_log(&mut self, text: &str) -> Vec<Effect> {
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
    pub(super) fn log_read(&mut self, read: PastedLog) -> Vec<Effect> {
        if self.reading.as_ref().is_none_or(|job| job.id != read.id) {
            return Vec::new();
        }
        self.reading = None;
        let digest = read.digest;
        let used: Vec<&str> = digest.searched_lines().collect();
        self.input = Input::new(&used.join(" "));
        self.input_is_log = true;
        self.log_failure = Some(digest.failure_text());
        let lines: Vec<String> = digest.evidence.iter().map(|e| format!("L{}", e.line)).collect();
        let read = match digest.lines {
            1 => "1 line".to_string(),
            n => format!("{} lines", thousands(n as usize)),
        };
        let what = if digest.stood_out() {
            let before = match &digest.context {
                Some(c) => format!(" and the line before L{}", c.before),
                None => String::new(),
            };
            format!("{} stood out ({}){before}", lines.len(), lines.join(", "))
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
    pub(super) fn stop_reading(&mut self) -> bool {
        let Some(job) = self.reading.take() else { return false };
        job.cancel();
        self.dirty = true;
        if self.note.as_ref().is_some_and(|n| n.text.starts_with("reading the pasted log")) {
            self.note = None;
        }
        true
    }

    /// The query (input or filters) changed: ask for its first page.
    pub(super) fn query_changed(&mut self) -> Vec<Effect> {
        self.opened = None;
        self.pending_resume = None;
        self.generation += 1;
        self.wanted_offset = 0;
        self.awaiting = true;
        self.dirty = true;
        vec![Effect::Search(self.request())]
    }

    pub(super) fn request(&self) -> Request {
        Request {
            generation: self.generation,
            input: self.input.text().to_string(),
            filters: self.filters.clone(),
            offset: self.wanted_offset,
            limit: PAGE,
            locate: self.restore_selection.clone().filter(|_| self.wanted_offset == 0),
            all: self.show_weaker,
            log: self.input_is_log && !self.input.is_empty(),
            suggest_from: self.log_failure.clone().filter(|_| self.input_is_log && !self.input.is_empty()),
            value_counts: matches!(self.overlay, Some(Overlay::Picker(_))),
        }
    }

    /// The facet picker's counts for the query shown, when they are in.
    pub(super) fn value_counts(&self) -> Option<Arc<ValueCounts>> {
        let current = self.results.loaded && self.results.generation == self.generation;
        self.results.value_counts.clone().filter(|_| current)
    }

    /// Open the facet picker on `kind`, with the counts for the query when they are in, else
    /// asking the worker for them (the answer comes as one frame waits, see
    /// [`App::awaiting_answer`]).
    pub(super) fn open_picker(&mut self, kind: FacetKind) -> Vec<Effect> {
        self.picker_kind = kind;
        let counts = self.value_counts();
        let counted = counts.is_some();
        self.overlay = Some(Overlay::Picker(Picker::new(&self.library, kind, counts)));
        self.dirty = true;
        if counted { Vec::new() } else { vec![Effect::Search(self.request())] }
    }

    pub(super) fn receive(&mut self, response: Response) -> Vec<Effect> {
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
        // Counts come only when asked for; a later page of the same query keeps them.
        let value_counts = match response.value_counts {
            Some(counts) => Some(counts),
            None if !new_query => self.results.value_counts.take(),
            None => None,
        };
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
            value_counts,
        };
        if let Some(Overlay::Picker(picker)) = &mut self.overlay
            && !picker.counted()
            && let Some(counts) = self.results.value_counts.clone()
        {
            picker.set_counts(Some(counts));
        }
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

    /// Before the engine answers the first query, show what its answer will list when nothing
    /// is typed or filtered: every case in the library's own order, newest first (the engine's
    /// `unranked`). So the first frame needs nothing but the library in memory. The engine's
    /// answer to the same generation then adds the summary and the breakdown and keeps the
    /// selection; the test `the_first_frame_lists_what_the_engine_answers` holds the two equal.
    /// A resumed selection is left to the engine, which locates it.
    pub(super) fn show_library_order(&mut self) {
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

    /// Typing has paused (the main loop calls it [`crate::tui::TYPING_PAUSE`] after the last
    /// key): the list and the right pane catch up with the newest results.
    pub fn typing_paused(&mut self) {
        self.held_list = None;
        if std::mem::take(&mut self.held) {
            self.clamp_detail();
            self.dirty = true;
        }
    }

    /// Whether the newest query has not been answered yet.
    pub fn awaiting_results(&self) -> bool {
        self.awaiting
    }

    /// Whether the search worker owes an answer the next frame should wait for: the newest
    /// query's results, or the counts of the facet picker just opened.
    pub fn awaiting_answer(&self) -> bool {
        self.awaiting || matches!(&self.overlay, Some(Overlay::Picker(p)) if !p.counted())
    }
}
