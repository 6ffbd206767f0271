//! The library opened in the background (issue 11): what the gauge shows while it loads, and
//! the switch to it when it is in.
//!
//! Until then the UI runs on an interim library (the bundled one, or none with
//! `--no-bundled`). The switch replaces the library, forgets everything that pointed into the
//! old one (results, the case pane, the graph and its walk), searches the current query again
//! under a new generation (so answers from the old engine are dropped) and keeps the selection
//! by case id. A session restored by `--resume` is applied again over the whole library, unless
//! the user changed the query or the selection meanwhile.

use std::sync::{Arc, OnceLock};

use super::{App, CaseView, DROPPED_FILTERS, Effect, Note, Overlay, Picker, Results};
use crate::{
    corpus::Library,
    support::progress::{Progress, Stage},
    text::numbers::thousands,
    tui::{graph_view::GraphView, loader::Loaded},
};

/// What the UI searches until the library is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interim {
    /// The bundled library alone.
    Bundled,
    /// Nothing (`--no-bundled`).
    Empty,
}

/// The gauge's state while the library loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loading {
    /// What is searched meanwhile.
    pub interim: Interim,
    /// The latest progress, once there is any.
    pub progress: Option<Progress>,
}

impl Loading {
    /// What the loader is doing: "reading 41,203 of 100,000 files".
    pub fn label(&self) -> String {
        match self.progress {
            None => "opening your library".to_string(),
            Some(p) => match p.stage {
                Stage::Reading => format!("reading {} of {} files", thousands(p.done), thousands(p.total)),
                Stage::Indexing => format!("indexing {} of {} cases", thousands(p.done), thousands(p.total)),
                Stage::Saving => "saving the cache".to_string(),
            },
        }
    }

    /// How much of the current stage is done, from 0 to 1 (0 before any progress).
    pub fn ratio(&self) -> f64 {
        match self.progress {
            None => 0.0,
            Some(p) if p.total == 0 => 1.0,
            Some(p) => (p.done.min(p.total) as f64) / (p.total as f64),
        }
    }

    /// What the results are until the library is in.
    pub fn hint(&self) -> &'static str {
        match self.interim {
            Interim::Bundled => "bundled cases only for now",
            Interim::Empty => "your cases show when loaded",
        }
    }
}

impl App {
    /// The loader got this far: move the gauge.
    pub(super) fn load_progress(&mut self, progress: Progress) -> Vec<Effect> {
        if let Some(loading) = &mut self.loading
            && loading.progress != Some(progress)
        {
            loading.progress = Some(progress);
            self.dirty = true;
        }
        Vec::new()
    }

    /// The library is in: switch to it and search again.
    pub(super) fn load_finished(&mut self, loaded: Loaded) -> Vec<Effect> {
        let Loaded { library, problems, .. } = loaded;
        let resumed = self.pending_resume.take();
        let keep = match &resumed {
            Some(session) => {
                // The interim taxonomy may have lacked values of the user's own taxonomy.
                let (filters, dropped) = session.filters(&library.taxonomy);
                self.filters = filters;
                if self.note.as_ref().is_some_and(|n| n.text.starts_with(DROPPED_FILTERS)) {
                    self.note = None;
                }
                if !dropped.is_empty() {
                    let text = format!("{DROPPED_FILTERS}{}", dropped.join(", "));
                    self.note = Some(Note { text, error: true });
                }
                session.selected.clone()
            }
            None => self.selected_case().map(|c| c.id.clone()).or_else(|| self.restore_selection.take()),
        };
        self.switch_library(library);
        self.restore_selection = keep;
        self.loading = None;
        // An error (a dropped filter, a session that cannot be saved) stays until it is read.
        if self.note.as_ref().is_none_or(|n| !n.error) {
            let cases = thousands(self.library.cases.len());
            // What to act on first: a narrow status line cuts the end.
            let text = match problems.summary() {
                Some(summary) => format!("{summary} · library loaded: {cases} cases"),
                None => format!("Library loaded: {cases} cases"),
            };
            self.note = Some(Note { text, error: !problems.is_empty() });
        }
        self.query_changed()
    }

    /// Replace the library and forget everything that pointed into the old one.
    fn switch_library(&mut self, library: Arc<Library>) {
        self.library = library;
        self.results = Results::default();
        self.case_view = CaseView::default();
        self.graph = OnceLock::new();
        self.graph_view = GraphView::default();
        self.opened = None;
        // The picker's counts come with the answer to the query on the new library (asked for
        // since the picker is open).
        if let Some(Overlay::Picker(picker)) = &mut self.overlay {
            let mut fresh = Picker::new(&self.library, picker.kind, None);
            fresh.filter = picker.filter.clone();
            fresh.refilter();
            *picker = fresh;
        }
        self.dirty = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_label_names_the_stage_and_the_count() {
        let at = |stage, done, total| Loading {
            interim: Interim::Bundled,
            progress: Some(Progress { stage, done, total }),
        };
        assert_eq!(Loading { interim: Interim::Empty, progress: None }.label(), "opening your library");
        assert_eq!(at(Stage::Reading, 41203, 100000).label(), "reading 41,203 of 100,000 files");
        assert_eq!(at(Stage::Indexing, 5000, 100228).label(), "indexing 5,000 of 100,228 cases");
        assert_eq!(at(Stage::Saving, 0, 1).label(), "saving the cache");
        assert_eq!(at(Stage::Reading, 1, 4).ratio(), 0.25);
        assert_eq!(at(Stage::Reading, 0, 0).ratio(), 1.0);
    }
}
