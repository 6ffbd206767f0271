//! `y`: copy the highlighted case's id, or the highlighted source's address, to the clipboard
//! with OSC 52 (over SSH too), or into tmux's buffer inside tmux (`tui::clipboard`). The main
//! loop does the copy and reports back with [`App::copy_finished`], which says in the status line
//! where the text went, as the checklist copy does.

use super::{App, Effect, Focus, Note, RightPane};
use crate::graph::NodeKey;

/// Something to put on the clipboard, and how to name it in the confirmation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clip {
    /// The text copied.
    pub text: String,
    /// What it is, for the note: `the id 2024-03-...`, or the address itself.
    pub what: String,
}

impl App {
    /// What `y` copies where the focus is: in the case pane the highlighted source's address,
    /// in the graph the highlighted case, else the id of the case shown or selected.
    pub fn clip(&self) -> Option<Clip> {
        if self.focus == Focus::Detail {
            match self.right {
                RightPane::Case => {
                    let url = self
                        .case_view
                        .source()
                        .and_then(|i| self.case_doc()?.sources.get(i))
                        .map(|s| s.url.clone());
                    if let Some(url) = url {
                        return Some(Clip { what: url.clone(), text: url });
                    }
                }
                RightPane::Graph => {
                    let graph = self.graph();
                    let case = self.graph_view.highlighted().and_then(|n| match &graph.node(n).key {
                        NodeKey::Case(id) => Some(id.clone()),
                        NodeKey::Facet(..) => None,
                    });
                    if let Some(id) = case {
                        return Some(Clip { what: format!("the id {id}"), text: id });
                    }
                }
                RightPane::Breakdown => {}
            }
        }
        let id = self.shown_case()?.id.clone();
        Some(Clip { what: format!("the id {id}"), text: id })
    }

    /// `y`: ask the main loop to copy [`App::clip`].
    pub(super) fn copy(&mut self) -> Vec<Effect> {
        self.dirty = true;
        match self.clip() {
            Some(clip) => vec![Effect::Copy(clip)],
            None => {
                self.note = Some(Note { text: "no case to copy".into(), error: false });
                Vec::new()
            }
        }
    }

    /// The main loop wrote the copy (or could not: `Err` says why).
    pub fn copy_finished(&mut self, clip: &Clip, written: Result<crate::tui::clipboard::Copied, String>) {
        self.dirty = true;
        self.note = Some(match written {
            Ok(copied) => Note { text: format!("copied {}{}", clip.what, copied.said()), error: false },
            Err(why) => Note { text: format!("cannot copy: {}", crate::text::one_line(&why)), error: true },
        });
    }
}
