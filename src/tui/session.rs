//! `--resume`: the query, filters, selection and pane, kept in
//! `$XDG_STATE_HOME/incidex/session.json` as they change, so a dropped SSH session loses
//! nothing, and read back by `incidex --resume`.
//!
//! The file is written whole to a temporary file and renamed into place, so a crash mid-write
//! leaves the previous session. Values are saved by name and resolved again on load: a filter
//! whose value is no longer in the taxonomy is dropped (and named), never a failure.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{
    corpus::filter::{FacetFilter, Filters},
    support::error::{Error, Result},
    taxonomy::FacetKind,
    taxonomy::Taxonomy,
};

/// The file's format version.
const VERSION: u32 = 1;

/// One saved facet filter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedFilter {
    /// The kind's machine name (`component`).
    pub kind: String,
    /// The value's name.
    pub value: String,
    /// "Must not have".
    #[serde(default)]
    pub negated: bool,
}

/// What `--resume` brings back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Session {
    /// The format version.
    pub version: u32,
    /// The text in the search box.
    pub query: String,
    /// The applied facet filters, in order.
    pub filters: Vec<SavedFilter>,
    /// The organization filters.
    pub organizations: Vec<String>,
    /// The `after:` bound.
    pub after: Option<String>,
    /// The `before:` bound.
    pub before: Option<String>,
    /// The id of the selected case.
    pub selected: Option<String>,
    /// The right pane (`case`, `breakdown`, ...).
    pub pane: String,
    /// The breakdown's dimension (`root_cause`, ..., `year`).
    pub breakdown: String,
}

impl Default for Session {
    fn default() -> Self {
        Session {
            version: VERSION,
            query: String::new(),
            filters: Vec::new(),
            organizations: Vec::new(),
            after: None,
            before: None,
            selected: None,
            pane: String::new(),
            breakdown: String::new(),
        }
    }
}

impl Session {
    /// Save `filters` into the session.
    pub fn set_filters(&mut self, filters: &Filters) {
        self.filters = filters
            .facets
            .iter()
            .map(|f| SavedFilter { kind: f.kind.key().into(), value: f.value.clone(), negated: f.negated })
            .collect();
        self.organizations = filters.organizations.clone();
        self.after = filters.after.map(|d| d.to_string());
        self.before = filters.before.map(|d| d.to_string());
    }

    /// The saved filters, resolved against `taxonomy`, and a description of each one that no
    /// longer resolves (it is left out).
    pub fn filters(&self, taxonomy: &Taxonomy) -> (Filters, Vec<String>) {
        let mut filters = Filters::default();
        let mut dropped = Vec::new();
        for saved in &self.filters {
            let resolved = saved
                .kind
                .parse::<FacetKind>()
                .ok()
                .and_then(|kind| taxonomy.get(kind, &saved.value).map(|v| (kind, v)));
            match resolved {
                Some((kind, value)) => {
                    filters.set_facet(FacetFilter { kind, value: value.name.clone(), negated: saved.negated })
                }
                None => dropped.push(format!("{}:{}", saved.kind, saved.value)),
            }
        }
        filters.organizations = self.organizations.clone();
        let date = |d: &Option<String>, dropped: &mut Vec<String>| {
            d.as_deref().and_then(|s| match s.parse() {
                Ok(date) => Some(date),
                Err(_) => {
                    dropped.push(s.to_string());
                    None
                }
            })
        };
        filters.after = date(&self.after, &mut dropped);
        filters.before = date(&self.before, &mut dropped);
        (filters, dropped)
    }
}

/// Where the session is kept: `$XDG_STATE_HOME/incidex/session.json`.
pub fn default_path() -> Option<PathBuf> {
    crate::settings::config::state_dir().map(|d| d.join("session.json"))
}

/// Read the session at `path`; `Ok(None)` when there is none yet.
pub fn load(path: &Path) -> Result<Option<Session>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path, e)),
    };
    let session: Session = serde_json::from_str(&text)
        .map_err(|e| Error::Failed(format!("{}: not a saved session ({e})", path.display())))?;
    if session.version != VERSION {
        return Err(Error::Failed(format!("{}: saved by another version of incidex", path.display())));
    }
    Ok(Some(session))
}

/// Write `session` to `path`, creating its directory: a temporary file renamed into place.
pub fn save(path: &Path, session: &Session) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io(dir, e))?;
    serde_json::to_writer_pretty(&mut file, session)
        .map_err(|e| Error::Failed(format!("{}: cannot write the session: {e}", path.display())))?;
    file.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taxonomy() -> Taxonomy {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tui/taxonomy.toml");
        Taxonomy::parse("taxonomy.toml", &std::fs::read_to_string(path).unwrap()).0
    }

    #[test]
    fn sessions_round_trip_through_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/incidex/session.json");
        assert_eq!(load(&path).unwrap(), None);
        let mut filters = Filters::default();
        filters.add_facet(&taxonomy(), FacetKind::Component, "nccl", false).unwrap();
        filters.add_facet(&taxonomy(), FacetKind::Symptom, "hang", true).unwrap();
        filters.after = Some("2024-06".parse().unwrap());
        let mut session =
            Session { query: "job hung".into(), selected: Some("x".into()), ..Session::default() };
        session.set_filters(&filters);
        save(&path, &session).unwrap();
        let back = load(&path).unwrap().unwrap();
        assert_eq!(back, session);
        assert_eq!(back.filters(&taxonomy()), (filters, vec![]));
    }

    #[test]
    fn values_gone_from_the_taxonomy_are_dropped_by_name() {
        let session = Session {
            filters: vec![
                SavedFilter { kind: "component".into(), value: "Flux capacitor".into(), negated: false },
                SavedFilter { kind: "colour".into(), value: "NCCL".into(), negated: false },
                SavedFilter { kind: "component".into(), value: "NCCL".into(), negated: true },
            ],
            before: Some("soon".into()),
            ..Session::default()
        };
        let (filters, dropped) = session.filters(&taxonomy());
        assert_eq!(filters.facets.len(), 1);
        assert!(filters.facets[0].negated);
        assert_eq!(dropped, ["component:Flux capacitor", "colour:NCCL", "soon"]);
    }

    #[test]
    fn broken_files_and_unwritable_directories_are_errors_not_panics() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.json");
        std::fs::write(&path, "{ not json").unwrap();
        assert!(load(&path).unwrap_err().to_string().contains("not a saved session"));
        std::fs::write(&path, "{\"version\": 99}").unwrap();
        assert!(load(&path).is_err());
        // A file where the directory should be.
        let blocked = dir.path().join("file");
        std::fs::write(&blocked, "").unwrap();
        assert!(save(&blocked.join("session.json"), &Session::default()).is_err());
    }
}
