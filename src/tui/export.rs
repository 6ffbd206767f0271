//! The export dialog (`x`): a component's checklist (`crate::checklist`), and where it goes —
//! a file, the clipboard over OSC 52, or stdout once the UI has closed.
//!
//! Pure state: `App::update` moves it from step to step and returns a [`Job`] for the main
//! loop to run (the loop writes the file or the escape sequence and reports back with
//! [`Outcome`]). Whether a file exists is learnt from the write itself — it refuses to replace
//! one unless told to — and the dialog then asks before overwriting, so there is no race
//! between asking and writing.

use std::path::PathBuf;

use super::input::Input;
use crate::checklist::{self, Checklist, Request};
use crate::{corpus::Library, corpus::filter::Filters};

/// Where the dialog is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Choosing what to do with the checklist.
    Menu,
    /// Editing the path to save to.
    Path,
    /// The file exists: overwrite it?
    Confirm,
}

/// What the dialog offers, in menu order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Save to a file.
    Save,
    /// Copy to the clipboard with OSC 52.
    Copy,
    /// Print to stdout after the UI closes.
    Print,
}

impl Choice {
    /// Every choice, in menu order.
    pub const ALL: [Choice; 3] = [Choice::Save, Choice::Copy, Choice::Print];

    /// The key that picks it and what it says.
    pub fn label(self) -> (&'static str, &'static str) {
        match self {
            Choice::Save => ("s", "save to a file"),
            Choice::Copy => ("c", "copy to the clipboard (OSC 52, works over SSH)"),
            Choice::Print => ("p", "close incidex now and print it to stdout"),
        }
    }
}

/// Work for the main loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    /// Write `text` to `path`, replacing a file there only when `overwrite`.
    Save {
        /// The file.
        path: PathBuf,
        /// The checklist.
        text: String,
        /// Replace an existing file.
        overwrite: bool,
    },
    /// Put `text` on the clipboard.
    Copy {
        /// The checklist.
        text: String,
    },
    /// Quit, then print `text`.
    Print {
        /// The checklist.
        text: String,
    },
}

/// How a [`Job`] went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The file was written.
    Saved(PathBuf),
    /// The file exists and was left alone.
    Exists(PathBuf),
    /// The escape sequence was written to the terminal.
    Copied(super::clipboard::Copied),
    /// It could not be done; why.
    Failed(String),
}

/// The dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportDialog {
    /// The checklist.
    pub checklist: Checklist,
    /// It as Markdown.
    pub markdown: String,
    /// Where the dialog is.
    pub step: Step,
    /// The highlighted menu choice.
    pub cursor: usize,
    /// The path to save to.
    pub path: Input,
    /// What went wrong last (shown in the dialog until the next key).
    pub error: Option<String>,
}

impl ExportDialog {
    /// The dialog for `component`'s checklist under `filters`, dated `date`.
    pub fn new(library: &Library, component: &str, filters: &Filters, date: &str) -> ExportDialog {
        let version = format!("incidex {}", *crate::VERSION_LINE);
        let checklist =
            checklist::build(&library.cases, &Request { component, filters, version: &version, date });
        let markdown = checklist::to_markdown(&checklist);
        let path = format!("./{}", checklist::default_file_name(component, date));
        ExportDialog {
            checklist,
            markdown,
            step: Step::Menu,
            cursor: 0,
            path: Input::new(&path),
            error: None,
        }
    }

    /// How many items the checklist has, in words (`14 items`).
    pub fn items(&self) -> String {
        match self.checklist.item_count {
            1 => "1 item".to_string(),
            n => format!("{n} items"),
        }
    }

    /// The job for `choice`, moving to the path step for a save.
    pub fn choose(&mut self, choice: Choice) -> Option<Job> {
        self.error = None;
        self.cursor = Choice::ALL.iter().position(|c| *c == choice).unwrap_or(0);
        match choice {
            Choice::Save => {
                self.step = Step::Path;
                None
            }
            Choice::Copy => Some(Job::Copy { text: self.markdown.clone() }),
            Choice::Print => Some(Job::Print { text: self.markdown.clone() }),
        }
    }

    /// The save job for the path typed, replacing a file only when `overwrite`.
    pub fn save(&mut self, overwrite: bool) -> Option<Job> {
        let path = self.path.text().trim();
        if path.is_empty() {
            self.error = Some("type a path to save to".into());
            return None;
        }
        self.error = None;
        Some(Job::Save { path: PathBuf::from(path), text: self.markdown.clone(), overwrite })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::LoadOptions;

    fn dialog() -> ExportDialog {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/checklist");
        let library = Library::load(&LoadOptions { bundled: false, dirs: vec![dir] });
        ExportDialog::new(&library, "NCCL", &Filters::default(), "2025-01-02")
    }

    #[test]
    fn the_checklist_and_a_default_path_are_ready() {
        let d = dialog();
        assert_eq!(d.path.text(), "./incidex-checklist-nccl-2025-01-02.md");
        assert_eq!(d.items(), "6 items");
        assert!(d.markdown.starts_with("# Checklist: NCCL\n"));
        assert_eq!(d.step, Step::Menu);
    }

    #[test]
    fn choices_lead_to_jobs() {
        let mut d = dialog();
        assert_eq!(d.choose(Choice::Save), None);
        assert_eq!(d.step, Step::Path);
        let Some(Job::Save { path, overwrite: false, .. }) = d.save(false) else { panic!("a save") };
        assert_eq!(path, PathBuf::from("./incidex-checklist-nccl-2025-01-02.md"));
        d.path = Input::new("  ");
        assert_eq!(d.save(false), None);
        assert!(d.error.is_some());
        assert!(matches!(d.choose(Choice::Copy), Some(Job::Copy { .. })));
        assert!(d.error.is_none(), "a new choice clears the error");
        assert_eq!(d.choose(Choice::Print), Some(Job::Print { text: d.markdown.clone() }));
    }
}
