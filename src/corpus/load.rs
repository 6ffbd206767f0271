//! Loading a library: the bundled cases and taxonomy, then each user directory's taxonomy, case
//! files (`*.toml`) and Markdown postmortems (`*.md`), into one [`Library`].
//!
//! Loading never fails as a whole. A file that cannot be read as a case is reported and skipped;
//! every good file loads; ids stay unique (a clash names both files and keeps the first). The
//! order of everything is deterministic: bundled files first, then each directory in the order
//! given, files sorted by path.

use std::{
    fs,
    path::{Path, PathBuf},
};

use crate::{
    corpus::{
        bundled,
        markdown::parse_postmortem,
        model::Case,
        parse::{FacetPolicy, parse_case},
    },
    diag::{Diagnostic, Severity},
    taxonomy::Taxonomy,
};

/// Where to load from.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Include the bundled library.
    pub bundled: bool,
    /// User library directories, in order.
    pub dirs: Vec<PathBuf>,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions { bundled: true, dirs: Vec::new() }
    }
}

/// Everything loaded: cases (newest first), the merged taxonomy, and the problems found.
#[derive(Debug, Clone)]
pub struct Library {
    /// The cases, newest first, ties by id.
    pub cases: Vec<Case>,
    /// The bundled taxonomy extended by every user taxonomy.
    pub taxonomy: Taxonomy,
    /// Problems found while loading, in load order.
    pub diagnostics: Vec<Diagnostic>,
}

/// A file to read, by the path shown to users, with its contents.
struct SourceFile {
    path: String,
    text: String,
    bundled: bool,
}

impl Library {
    /// Load what `options` names.
    pub fn load(options: &LoadOptions) -> Library {
        let mut diagnostics = Vec::new();
        let mut taxonomy = Taxonomy::default();
        let mut case_files: Vec<SourceFile> = Vec::new();

        // The bundled taxonomy is always loaded: user cases are tagged against it too.
        let (bundled_taxonomy, diags) = Taxonomy::parse(bundled::TAXONOMY_PATH, bundled::TAXONOMY);
        taxonomy.extend(bundled_taxonomy);
        diagnostics.extend(diags);
        if options.bundled {
            case_files.extend(bundled::CASES.iter().map(|(path, text)| SourceFile {
                path: (*path).to_string(),
                text: (*text).to_string(),
                bundled: true,
            }));
        }

        for dir in &options.dirs {
            let mut files = Vec::new();
            collect_files(dir, 0, &mut files, &mut diagnostics);
            files.sort();
            for path in files {
                let shown = path.display().to_string();
                let text = match fs::read(&path) {
                    Ok(bytes) => match String::from_utf8(bytes) {
                        Ok(text) => text,
                        Err(e) => {
                            diagnostics.push(Diagnostic::new(
                                shown,
                                (1, 1),
                                Severity::Error,
                                format!(
                                    "not UTF-8 text (invalid byte at offset {})",
                                    e.utf8_error().valid_up_to()
                                ),
                            ));
                            continue;
                        }
                    },
                    Err(e) => {
                        diagnostics.push(Diagnostic::new(
                            shown,
                            (0, 0),
                            Severity::Error,
                            format!("cannot read: {e}"),
                        ));
                        continue;
                    }
                };
                if is_taxonomy_file(&path) {
                    let (user_taxonomy, diags) = Taxonomy::parse_extending(&shown, &text, &taxonomy);
                    taxonomy.extend(user_taxonomy);
                    diagnostics.extend(diags);
                } else {
                    case_files.push(SourceFile { path: shown, text, bundled: false });
                }
            }
        }

        let mut cases: Vec<Case> = Vec::with_capacity(case_files.len());
        let mut seen: std::collections::HashMap<String, String> = std::collections::HashMap::new();
        for file in case_files {
            let policy = if file.bundled { FacetPolicy::Strict } else { FacetPolicy::Lenient };
            let parsed = if is_markdown(Path::new(&file.path)) {
                parse_postmortem(&file.path, &file.text, &taxonomy, policy)
            } else {
                parse_case(&file.path, &file.text, &taxonomy, policy, file.bundled)
            };
            diagnostics.extend(parsed.diagnostics);
            let Some(case) = parsed.case else { continue };
            if let Some(first) = seen.get(&case.id) {
                diagnostics.push(Diagnostic::new(
                    file.path.clone(),
                    (1, 1),
                    Severity::Error,
                    format!("duplicate id '{}': also in {first}; this file is skipped", case.id),
                ));
                continue;
            }
            seen.insert(case.id.clone(), file.path.clone());
            cases.push(case);
        }
        cases.sort_by(Case::newest_first);
        Library { cases, taxonomy, diagnostics }
    }

    /// The bundled library alone.
    pub fn bundled() -> Library {
        Library::load(&LoadOptions::default())
    }

    /// The case with this id.
    pub fn case(&self, id: &str) -> Option<&Case> {
        self.cases.iter().find(|c| c.id == id)
    }

    /// Whether any problem found while loading is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// The version of the bundled library: its size and a fingerprint of its files.
pub fn library_version() -> String {
    format!("library {} cases, fingerprint {}", bundled::CASES.len(), bundled::FINGERPRINT)
}

fn is_taxonomy_file(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "taxonomy.toml")
}

/// Whether a file in a user directory is one incidex reads: a case file or a postmortem.
pub fn is_library_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "toml") || is_markdown(path)
}

/// Whether a file is a Markdown postmortem (`.md` or `.markdown`).
pub fn is_markdown(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
}

const MAX_DEPTH: usize = 16;

fn collect_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>, diagnostics: &mut Vec<Diagnostic>) {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            diagnostics.push(Diagnostic::new(
                dir.display().to_string(),
                (0, 0),
                Severity::Error,
                format!("cannot read directory: {e}"),
            ));
            return;
        }
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let hidden = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        // Follow links to files and directories, but bound the depth so a loop cannot trap us.
        let Ok(meta) = fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if depth < MAX_DEPTH {
                collect_files(&path, depth + 1, out, diagnostics);
            }
        } else if meta.is_file() && is_library_file(&path) {
            out.push(path);
        }
    }
}
