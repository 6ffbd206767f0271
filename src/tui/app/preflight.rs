//! The first view when the UI is opened on job specs (`incidex train.sbatch deploy/`): their
//! preflight findings, worst first, each with its file and line. Enter on one shows its cases:
//! the facet values its cited cases share become the filters (or, when they share none, their
//! most common component), and the first cited case is selected. `P` brings the list back.

use super::{App, Effect, Focus, Note, Overlay, add};
use crate::{
    corpus::filter::{FacetFilter, Filters},
    doctor::{State, spec::FileReport},
    taxonomy::FacetKind,
    tui::{input::Input, keymap::Action},
};

/// One line of the view: a finding, or a file that could not be checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// The finding's state; none for a file's problem.
    pub state: Option<State>,
    /// The rule's id (empty for a problem).
    pub rule: &'static str,
    /// `path:line`.
    pub at: String,
    /// What is wrong.
    pub message: String,
    /// The cases the rule cites.
    pub cases: Vec<String>,
}

/// The view's lines: every unsuppressed finding, worst first, then the files' problems.
pub fn items(reports: &[FileReport]) -> Vec<Item> {
    let mut out = Vec::new();
    for r in reports {
        for result in &r.results {
            for f in result.findings() {
                let line = f.evidence.first().and_then(|e| e.line);
                out.push(Item {
                    state: Some(f.severity),
                    rule: result.id,
                    at: line.map_or_else(|| r.path.clone(), |l| format!("{}:{l}", r.path)),
                    message: crate::text::one_line(&f.message),
                    cases: result.cases.clone(),
                });
            }
        }
    }
    out.sort_by_key(|i| i.state);
    for r in reports {
        for p in &r.problems {
            out.push(Item {
                state: None,
                rule: "",
                at: String::new(),
                message: p.to_string(),
                cases: Vec::new(),
            });
        }
    }
    out
}

impl App {
    /// The view's lines, as drawn: a header, then one line per item.
    pub fn preflight_lines(&self) -> Vec<String> {
        let findings = self.preflight.iter().filter(|i| i.state.is_some()).count();
        let mut lines = vec![if findings == 0 {
            "No findings in these job specs. Esc closes; P shows this again.".to_string()
        } else {
            format!(
                "{findings} finding(s). Enter shows the cases behind one; Esc closes; P shows this again."
            )
        }];
        for i in &self.preflight {
            lines.push(match i.state {
                Some(s) => format!("{:<5} {:<22} {}  {}", s.key().to_uppercase(), i.rule, i.at, i.message),
                None => format!("{:<5} {}", "FILE", i.message),
            });
        }
        lines
    }

    /// Keys in the view: move, open, close.
    pub(super) fn preflight_action(&mut self, action: Action) -> Vec<Effect> {
        let Some(Overlay::Preflight(selected)) = self.overlay else { return Vec::new() };
        let last = self.preflight.len().saturating_sub(1);
        let page = usize::from(self.size.1.saturating_sub(6)).max(1) as isize;
        match action {
            Action::Back => {
                self.overlay = None;
                self.dirty = true;
                return Vec::new();
            }
            Action::Open => return self.show_cases_of(selected),
            _ => {}
        }
        let Some(step) = super::update::scroll_step(action, page) else { return Vec::new() };
        self.overlay = Some(Overlay::Preflight(add(selected, step).min(last)));
        self.dirty = true;
        Vec::new()
    }

    /// Close the view and list the cases behind item `i`.
    fn show_cases_of(&mut self, i: usize) -> Vec<Effect> {
        let Some(item) = self.preflight.get(i).cloned() else { return Vec::new() };
        self.dirty = true;
        let cited: Vec<&crate::corpus::model::Case> =
            self.library.cases.iter().filter(|c| item.cases.contains(&c.id)).collect();
        if cited.is_empty() {
            self.note = Some(Note {
                text: if item.state.is_none() {
                    "a file that could not be checked: fix it and run `incidex doctor FILE` again".into()
                } else {
                    format!("none of the cases {} cites is in this library", item.rule)
                },
                error: item.state.is_none(),
            });
            return Vec::new();
        }
        let filters = shared_facets(&cited);
        self.overlay = None;
        self.input = Input::default();
        self.filters = Filters::default();
        for (kind, value) in &filters {
            self.filters.set_facet(FacetFilter { kind: *kind, value: value.clone(), negated: false });
        }
        self.restore_selection = Some(cited[0].id.clone());
        self.focus = Focus::Results;
        let shown: Vec<String> = filters.iter().map(|(k, v)| format!("{}: {v}", k.label())).collect();
        self.note = Some(Note {
            text: format!(
                "{}: {} case(s) cite it; filtered by {} (P lists the findings again)",
                item.rule,
                cited.len(),
                shown.join(", ")
            ),
            error: false,
        });
        self.query_changed()
    }
}

/// The facet values every one of `cases` has, for the kinds that narrow best (component, then
/// symptom); when they share none, the component most of them have.
fn shared_facets(cases: &[&crate::corpus::model::Case]) -> Vec<(FacetKind, String)> {
    let mut out = Vec::new();
    for kind in [FacetKind::Component, FacetKind::Symptom] {
        let first = cases[0].facets.values(kind);
        if let Some(v) = first.iter().find(|v| cases.iter().all(|c| c.facets.values(kind).contains(v))) {
            out.push((kind, v.clone()));
        }
    }
    if out.is_empty() {
        let mut counts: Vec<(&String, usize)> = Vec::new();
        for c in cases {
            for v in c.facets.values(FacetKind::Component) {
                match counts.iter_mut().find(|(x, _)| *x == v) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((v, 1)),
                }
            }
        }
        if let Some((v, _)) = counts.iter().max_by_key(|(_, n)| *n) {
            out.push((FacetKind::Component, (*v).clone()));
        }
    }
    out
}
