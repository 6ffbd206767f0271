//! [`App::update`], the UI's one entry point: a message in, the state changed, the effects to
//! run out. It hands a key to the area that has the focus or the overlay that is open; what each
//! area does is in its own file.

use crate::tui::{
    event::{Msg, Signal},
    keymap::{self, Action, Context},
};

use super::{App, Effect, Focus, Note, Overlay, add};

impl App {
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
            Msg::Signal(Signal::Hangup | Signal::Terminate | Signal::Interrupt | Signal::Quit)
            | Msg::InputClosed(_)
            | Msg::LoadFailed(_) => {
                vec![Effect::Quit]
            }
            Msg::Progress(progress) => self.load_progress(progress),
            Msg::Loaded(loaded) => self.load_finished(*loaded),
            Msg::GraphBuilt(library, graph) => self.graph_built(&library, *graph),
            Msg::LogRead(read) => self.log_read(*read),
            Msg::Audited(report) => {
                self.audit = Some(report);
                // The case pane lists the checks that cite its case.
                self.case_view.doc = None;
                self.sync_case_view();
                self.dirty = true;
                Vec::new()
            }
        };
        let session = self.session();
        if self.saved.as_ref() != Some(&session) && !effects.contains(&Effect::Quit) {
            self.saved = Some(session.clone());
            effects.push(Effect::Save(session));
        }
        effects
    }

    pub(super) fn act(&mut self, action: Action) -> Vec<Effect> {
        match action {
            Action::Quit => return vec![Effect::Quit],
            Action::Suspend => return vec![Effect::Suspend],
            Action::Export if !matches!(self.overlay, Some(Overlay::Export(_))) => return self.open_export(),
            Action::Help => {
                self.overlay = match self.overlay {
                    Some(Overlay::Help(_) | Overlay::Checks(_)) => None,
                    _ => Some(Overlay::Help(0)),
                };
                self.dirty = true;
                return Vec::new();
            }
            _ => {}
        }
        if action == Action::Preflight && self.overlay.is_none() {
            if self.preflight.is_empty() {
                self.note = Some(Note {
                    text: "no job specs given: `incidex FILE...` opens on their preflight findings".into(),
                    error: false,
                });
            } else {
                self.overlay = Some(Overlay::Preflight(0));
            }
            self.dirty = true;
            return Vec::new();
        }
        if action == Action::Checks && self.overlay.is_none() {
            self.overlay = Some(Overlay::Checks(0));
            self.dirty = true;
            return Vec::new();
        }
        match &self.overlay {
            Some(Overlay::Help(_) | Overlay::Checks(_)) => return self.help_action(action),
            Some(Overlay::Picker(_)) => return self.picker_action(action),
            Some(Overlay::Preflight(_)) => return self.preflight_action(action),
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
            Action::Picker(kind) => return self.open_picker(kind.unwrap_or(self.picker_kind)),
            _ => self.dirty = was_dirty,
        }
        Vec::new()
    }

    pub(super) fn help_action(&mut self, action: Action) -> Vec<Effect> {
        let Some(Overlay::Help(scroll) | Overlay::Checks(scroll)) = &mut self.overlay else {
            return Vec::new();
        };
        let page = usize::from(self.size.1.saturating_sub(3)).max(1) as isize;
        if action == Action::Back {
            self.overlay = None;
            self.dirty = true;
            return Vec::new();
        }
        let Some(step) = scroll_step(action, page) else { return Vec::new() };
        let screen = ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1);
        let (lines, visible) = crate::tui::help::extent(screen);
        *scroll = add(*scroll, step).min(lines.saturating_sub(visible));
        self.dirty = true;
        Vec::new()
    }

    pub(super) fn cycle_focus(&mut self, step: isize) {
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

    pub(super) fn back(&mut self) -> Vec<Effect> {
        if self.focus == Focus::Search && self.stop_reading() {
            self.note = Some(Note { text: "stopped reading the pasted log".into(), error: false });
            return Vec::new();
        }
        match self.focus {
            Focus::Search if !self.input.is_empty() => {
                self.input.clear();
                self.input_is_log = false;
                self.log_failure = None;
                return self.query_changed();
            }
            Focus::Search => self.focus = Focus::Results,
            Focus::Filters | Focus::Results => self.focus = Focus::Search,
            Focus::Detail => self.focus = Focus::Results,
        }
        Vec::new()
    }
}

/// How far a moving key goes in an overlay of `page` rows (a line, a page, to either end); none
/// for a key that does not move.
pub(super) fn scroll_step(action: Action, page: isize) -> Option<isize> {
    Some(match action {
        Action::Up => -1,
        Action::Down => 1,
        Action::PageUp => -page,
        Action::PageDown => page,
        Action::Top => isize::MIN / 2,
        Action::Bottom => isize::MAX / 2,
        _ => return None,
    })
}
