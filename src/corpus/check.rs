//! `incidex check`: every problem in a library, one per line, as `path:line:column` (errors,
//! warnings, and hints such as facets inferred from a postmortem's text).
//!
//! Per-file problems come from `parse`; this module adds what needs the whole library: ids
//! unique across files, and taxonomy values that no case uses (a warning: a value no case uses
//! should not stay). The bundled library is checked strictly (a facet value not in the taxonomy
//! is an error); user libraries leniently (a warning) unless `strict` is asked for.

use std::{collections::BTreeSet, path::PathBuf};

use crate::{
    corpus::{
        load::{Library, LoadOptions},
        model::FacetKind,
    },
    diag::{Diagnostic, Severity},
};

/// What to check.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// User library directories; empty means the bundled library.
    pub dirs: Vec<PathBuf>,
    /// Treat warnings as errors.
    pub strict: bool,
}

/// The outcome of a check.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CheckReport {
    /// Number of cases that loaded.
    pub cases: usize,
    /// Every problem, errors and warnings, in file order.
    pub diagnostics: Vec<Diagnostic>,
}

impl CheckReport {
    /// Number of errors.
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// Number of warnings.
    pub fn warnings(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count()
    }

    /// Number of hints (remarks such as facets inferred from a postmortem's text).
    pub fn hints(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Hint).count()
    }

    /// Whether the library passes.
    pub fn passed(&self) -> bool {
        self.errors() == 0
    }
}

/// Check the libraries `options` names.
pub fn check(options: &CheckOptions) -> CheckReport {
    let bundled = options.dirs.is_empty();
    let library = Library::load(&LoadOptions { bundled, dirs: options.dirs.clone() });
    let mut diagnostics = library.diagnostics.clone();

    // A taxonomy value no case uses should not stay: checked for the taxonomy being checked
    // (the bundled one, or the values a user directory's own taxonomy defines).
    let used: BTreeSet<(FacetKind, &str)> = library.cases.iter().flat_map(|c| c.facets.iter()).collect();
    for value in library.taxonomy.values() {
        let ours = if bundled {
            value.defined_in == crate::corpus::bundled::TAXONOMY_PATH
        } else {
            value.defined_in != crate::corpus::bundled::TAXONOMY_PATH
        };
        if ours && !used.contains(&(value.kind, value.name.as_str())) {
            diagnostics.push(Diagnostic::new(
                value.defined_in.clone(),
                (0, 0),
                Severity::Warning,
                format!("{} '{}' is used by no case", value.kind.label(), value.name),
            ));
        }
    }
    if options.strict {
        for d in &mut diagnostics {
            if d.severity == Severity::Warning {
                d.severity = Severity::Error;
            }
        }
    }
    CheckReport { cases: library.cases.len(), diagnostics }
}
