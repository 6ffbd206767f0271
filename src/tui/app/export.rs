//! The export dialog's side of [`App`]: which component `x` exports (the one under the
//! cursor, else the component filter), the dialog's keys, and what the main loop reports back.

use super::{App, Effect, Focus, Note, Overlay, RightPane};
use crate::{
    corpus::filter::Filters,
    graph::NodeKey,
    taxonomy::FacetKind,
    tui::{
        export::{Choice, ExportDialog, Outcome, Step},
        keymap::{Action, Context},
        worker::Dimension,
    },
};

/// Where keys go while the dialog is open.
pub(super) fn context(dialog: &ExportDialog) -> Context {
    match dialog.step {
        Step::Menu => Context::ExportMenu,
        Step::Path => Context::ExportPath,
        Step::Confirm => Context::ExportConfirm,
    }
}

impl App {
    /// The component `x` exports: the one highlighted in the facet picker, the case pane, the
    /// graph or the breakdown, else the first component the filters require.
    pub fn export_component(&self) -> Option<String> {
        if let Some(Overlay::Picker(p)) = &self.overlay {
            if p.kind == FacetKind::Component {
                return p.rows.get(p.cursor).map(|r| r.value.clone());
            }
        } else if self.focus == Focus::Detail {
            let under_cursor = match self.right {
                RightPane::Case => self
                    .case_view
                    .facet()
                    .and_then(|i| self.case_doc()?.facets.get(i))
                    .filter(|f| f.kind == FacetKind::Component)
                    .map(|f| f.value.clone()),
                RightPane::Graph => {
                    let graph = self.graph();
                    let component = |n| match &graph.node(n).key {
                        NodeKey::Facet(FacetKind::Component, v) => Some(v.clone()),
                        _ => None,
                    };
                    self.graph_view
                        .highlighted()
                        .and_then(component)
                        .or_else(|| self.graph_view.centre().and_then(component))
                }
                RightPane::Breakdown if self.breakdown.dimension == Dimension::Component => self
                    .results
                    .breakdown
                    .of(Dimension::Component)
                    .get(self.breakdown.cursor)
                    .map(|(v, _)| v.clone()),
                RightPane::Breakdown => None,
            };
            if under_cursor.is_some() {
                return under_cursor;
            }
        }
        self.current_filters()
            .facets
            .into_iter()
            .find(|f| f.kind == FacetKind::Component && !f.negated)
            .map(|f| f.value)
    }

    /// The filters the results are under: the applied ones and those typed inline in the
    /// search box (`component:nccl`), combined as the search combines them. An inline value
    /// that does not resolve is left out (the search box shows it as an error).
    pub fn current_filters(&self) -> Filters {
        let mut organizations: Vec<String> =
            self.library.cases.iter().map(|c| c.organization.clone()).collect();
        organizations.sort_by_key(|o| o.to_lowercase());
        organizations.dedup();
        let parsed = crate::search::query::parse(self.input.text(), &self.library.taxonomy, &organizations);
        crate::search::merge(&self.filters, &parsed.filters)
    }

    /// Open the export dialog (`x`) for [`App::export_component`] under [`App::current_filters`].
    pub(super) fn open_export(&mut self) -> Vec<Effect> {
        self.dirty = true;
        let Some(component) = self.export_component() else {
            self.note = Some(Note {
                text: "x exports a component's checklist: highlight a component (case, graph, picker) or filter by one"
                    .into(),
                error: true,
            });
            return Vec::new();
        };
        let dialog = ExportDialog::new(&self.library, &component, &self.current_filters(), &self.date);
        if dialog.checklist.cases.is_empty() {
            self.note = Some(Note {
                text: format!("no case involves component {component} under the applied filters"),
                error: true,
            });
            return Vec::new();
        }
        self.overlay = Some(Overlay::Export(Box::new(dialog)));
        Vec::new()
    }

    /// A key in the export dialog.
    pub(super) fn export_action(&mut self, action: Action) -> Vec<Effect> {
        let Some(Overlay::Export(dialog)) = &mut self.overlay else { return Vec::new() };
        self.dirty = true;
        let job = match (dialog.step, action) {
            (Step::Menu, Action::Up) => {
                dialog.cursor = dialog.cursor.saturating_sub(1);
                None
            }
            (Step::Menu, Action::Down) => {
                dialog.cursor = (dialog.cursor + 1).min(Choice::ALL.len() - 1);
                None
            }
            (Step::Menu, Action::Open) => {
                dialog.choose(Choice::ALL[dialog.cursor.min(Choice::ALL.len() - 1)])
            }
            (Step::Menu, Action::Choose(choice)) => dialog.choose(choice),
            (Step::Menu, Action::Back) => {
                self.overlay = None;
                None
            }
            (Step::Path, Action::Open) => dialog.save(false),
            (Step::Path, Action::Back) => {
                dialog.step = Step::Menu;
                dialog.error = None;
                None
            }
            (Step::Path, edit) => {
                let p = &mut dialog.path;
                match edit {
                    Action::Insert(c) => p.insert(c),
                    Action::Backspace => _ = p.backspace(),
                    Action::Delete => _ = p.delete(),
                    Action::DeleteWord => _ = p.delete_word(),
                    Action::DeleteToStart => _ = p.delete_to_start(),
                    Action::DeleteToEnd => _ = p.delete_to_end(),
                    Action::CursorLeft => p.left(),
                    Action::CursorRight => p.right(),
                    Action::CursorHome => p.home(),
                    Action::CursorEnd => p.end(),
                    _ => {}
                }
                None
            }
            (Step::Confirm, Action::Confirm(true)) => dialog.save(true),
            (Step::Confirm, Action::Confirm(false) | Action::Back) => {
                dialog.step = Step::Path;
                None
            }
            _ => None,
        };
        job.map(|j| vec![Effect::Export(j)]).unwrap_or_default()
    }

    /// What came of an export job: close the dialog with a note, ask before overwriting, or
    /// show what went wrong in the dialog.
    pub fn export_finished(&mut self, outcome: Outcome) {
        self.dirty = true;
        let Some(Overlay::Export(dialog)) = &mut self.overlay else { return };
        let items = dialog.items();
        match outcome {
            Outcome::Saved(path) => {
                self.note = Some(Note { text: format!("saved {items} to {}", path.display()), error: false });
                self.overlay = None;
            }
            Outcome::Copied(copied) => {
                self.note = Some(Note { text: format!("copied {items}{}", copied.said()), error: false });
                self.overlay = None;
            }
            Outcome::Exists(_) => dialog.step = Step::Confirm,
            Outcome::Failed(why) => dialog.error = Some(crate::text::one_line(&why)),
        }
    }
}
