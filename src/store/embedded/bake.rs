//! Baking the bundled library at build time: parse the case files, build the search index, the
//! catalog and the learned facet model (`corpus::learned`), and write them as the files [`super`] opens from the binary.
//!
//! `build.rs` compiles this module (and the library code it calls) into the build script, so the
//! index compiled into incidex is written by the very code that would build it at run time; the
//! test `embedded_and_run_time_engines_agree` keeps the two honest. Nothing here runs in the
//! program itself. Writing is deterministic but for tantivy's segment ids.

use std::{
    fs, io,
    path::{Path, PathBuf},
};

use tantivy::Index;

use crate::{
    corpus::Library,
    search::{catalog::Catalog, index::CaseIndex},
    store::cache::codec,
    support::diag::Diagnostic,
};

/// The name of the cases' heads (and the catalog and diagnostics) in the output directory.
pub const LIBRARY_FILE: &str = "library.bin";
/// The name of the cases' bodies in the output directory.
pub const BODIES_FILE: &str = "bodies.bin";
/// The name of the learned facet model (`corpus::learned`) in the output directory.
pub const FACET_MODEL_FILE: &str = "facets.bin";
/// The name of the index directory in the output directory.
pub const INDEX_DIR: &str = "index";

/// What went wrong baking.
#[derive(Debug)]
pub enum BakeError {
    /// The case files have errors: every one found, with its path, line and column.
    Invalid(Vec<Diagnostic>),
    /// The output could not be written.
    Io(io::Error),
}

impl std::fmt::Display for BakeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BakeError::Invalid(errors) => {
                for (i, d) in errors.iter().enumerate() {
                    if i > 0 {
                        writeln!(f)?;
                    }
                    write!(f, "{d}")?;
                }
                Ok(())
            }
            BakeError::Io(e) => write!(f, "cannot write the baked library: {e}"),
        }
    }
}

/// Parse the bundled `cases` (each the path shown to users and the text), index them, and write
/// [`LIBRARY_FILE`], [`BODIES_FILE`] and the index files under [`INDEX_DIR`] into `out`. Gives
/// the index's file names, sorted. Any error in a case file fails the bake, naming every one.
pub fn bake(cases: &[(&str, &'static str)], out: &Path) -> Result<Vec<String>, BakeError> {
    let library = Library::load_bundled_texts(cases);
    let errors: Vec<Diagnostic> = library.diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
    if !errors.is_empty() {
        return Err(BakeError::Invalid(errors));
    }
    write(&library, out).map_err(BakeError::Io)
}

fn write(library: &Library, out: &Path) -> io::Result<Vec<String>> {
    let index_dir = out.join(INDEX_DIR);
    if index_dir.exists() {
        fs::remove_dir_all(&index_dir)?;
    }
    fs::create_dir_all(&index_dir)?;
    let index = Index::create_in_dir(&index_dir, CaseIndex::schema()).map_err(io::Error::other)?;
    CaseIndex::write(&index, &library.cases, &crate::support::progress::silent)
        .map_err(|e| io::Error::other(e.to_string()))?;
    drop(index);
    let catalog = Catalog::new(library);
    // Bundled paths (`data/cases/...`) are shown as they are: no directory to rebase.
    let encoded = codec::encode(&library.cases, &catalog, &library.diagnostics, &[]);
    fs::write(out.join(LIBRARY_FILE), &encoded.library)?;
    fs::write(out.join(BODIES_FILE), &encoded.bodies)?;
    let model = crate::corpus::learned::train::train(&library.cases);
    fs::write(out.join(FACET_MODEL_FILE), crate::corpus::learned::codec::encode(&model))?;
    let mut names = Vec::new();
    for entry in fs::read_dir(&index_dir)? {
        let path: PathBuf = entry?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
        // Lock files are tantivy's, empty and meaningless in a finished index.
        if name.starts_with(".tantivy-") && name.ends_with(".lock") {
            continue;
        }
        names.push(name.to_string());
    }
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_case_file_fails_the_bake_naming_path_line_and_column() {
        let out = tempfile::tempdir().unwrap();
        let bad = "id = \"x\"\ntitle = [\n";
        let Err(BakeError::Invalid(errors)) = bake(&[("data/cases/bad.toml", bad)], out.path()) else {
            panic!("a bad case file must fail the bake");
        };
        let message = BakeError::Invalid(errors).to_string();
        let first = message.lines().next().unwrap_or_default();
        let mut parts = first.splitn(4, ':');
        assert_eq!(parts.next(), Some("data/cases/bad.toml"), "{message}");
        assert!(parts.next().is_some_and(|l| l.parse::<usize>().is_ok_and(|l| l >= 1)), "{message}");
        assert!(parts.next().is_some_and(|c| c.parse::<usize>().is_ok_and(|c| c >= 1)), "{message}");
        assert!(!out.path().join(LIBRARY_FILE).exists(), "nothing is written");
    }

    #[test]
    fn the_bake_writes_the_library_the_bodies_and_the_index() {
        let out = tempfile::tempdir().unwrap();
        let cases: Vec<(&str, &'static str)> =
            crate::corpus::bundled::CASES.iter().take(3).copied().collect();
        let files = bake(&cases, out.path()).unwrap();
        assert!(files.iter().any(|f| f == "meta.json"), "{files:?}");
        assert!(files.iter().all(|f| !f.ends_with(".lock")), "{files:?}");
        assert!(out.path().join(LIBRARY_FILE).is_file() && out.path().join(BODIES_FILE).is_file());
        let model = std::fs::read(out.path().join(FACET_MODEL_FILE)).unwrap();
        assert!(crate::corpus::learned::codec::decode(&model).is_some_and(|m| m.cases() == 3));
    }
}
