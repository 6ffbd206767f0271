//! Loading a library: the bundled cases and taxonomy, then each user directory's taxonomy, team
//! defaults (`incidex.toml`, for the postmortems below it), case files (`*.toml`) and Markdown
//! postmortems (`*.md`), into one [`Library`].
//!
//! Loading never fails as a whole. A file that cannot be read as a case is reported and skipped;
//! every good file loads; ids stay unique (a clash names both files and keeps the first). The
//! order of everything is deterministic: bundled files first, then each directory in the order
//! given, files sorted by path.

use std::{
    fs,
    path::{Path, PathBuf},
    sync::atomic::{AtomicUsize, Ordering},
};

pub use super::listing::{FoundFile, is_library_file, is_markdown, list_files};

use crate::{
    corpus::infer::Inferrer,
    corpus::{
        bundled,
        cases::Cases,
        markdown::parse_postmortem,
        model::Case,
        parse::{FacetPolicy, parse_case},
        team::{TeamDefaults, is_team_file, parse_team},
    },
    support::diag::{Diagnostic, Severity},
    support::progress::{Progress, ProgressFn, Stage},
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
    /// The cases, newest first, ties by id (decoded when used, for a library from the cache).
    pub cases: Cases,
    /// The bundled taxonomy extended by every user taxonomy.
    pub taxonomy: Taxonomy,
    /// Problems found while loading, in load order.
    pub diagnostics: Vec<Diagnostic>,
}

/// Where a case file's text comes from.
enum Text<'a> {
    Bundled(&'static str),
    File(&'a Path),
}

/// One case file to parse: the path shown to users, its text, whether it is bundled, and the
/// team defaults that apply to it (by position in the list of team files).
struct Job<'a> {
    path: String,
    text: Text<'a>,
    bundled: bool,
    team: Option<usize>,
}

/// What parsing one file gave.
type Outcome = (Vec<Diagnostic>, Option<Case>);

/// Below this many files, parsing stays on the calling thread.
const PARALLEL_FROM: usize = 512;

impl Library {
    /// Load what `options` names.
    pub fn load(options: &LoadOptions) -> Library {
        let (files, diagnostics) = list_files(&options.dirs);
        Library::load_files(options.bundled, &files, diagnostics, &crate::support::progress::silent)
    }

    /// Load the bundled library (when `bundled`) and the user `files` found by [`list_files`]
    /// (with the `diagnostics` met listing them), reporting progress as files are parsed.
    pub fn load_files(
        bundled: bool,
        files: &[FoundFile],
        listing: Vec<Diagnostic>,
        progress: ProgressFn<'_>,
    ) -> Library {
        let bundled_cases = if bundled { bundled::CASES } else { &[] };
        Library::load_with(bundled_cases, files, listing, progress)
    }

    /// The bundled library read from `cases` (each the path shown to users and the text)
    /// rather than from the texts compiled in: how the build script reads `data/cases` to index
    /// it (`crate::store::embedded::bake`). Exactly what [`Library::bundled`] gives for the same texts.
    pub fn load_bundled_texts(cases: &[(&str, &'static str)]) -> Library {
        Library::load_with(cases, &[], Vec::new(), &crate::support::progress::silent)
    }

    fn load_with(
        bundled_cases: &[(&str, &'static str)],
        files: &[FoundFile],
        listing: Vec<Diagnostic>,
        progress: ProgressFn<'_>,
    ) -> Library {
        let mut diagnostics = Vec::new();
        let (taxonomy, diags) = load_taxonomy(files);
        diagnostics.extend(diags);
        diagnostics.extend(listing);
        let (teams, diags) = load_teams(files, &taxonomy);
        diagnostics.extend(diags);

        let mut jobs: Vec<Job> = Vec::new();
        jobs.extend(bundled_cases.iter().map(|(path, text)| Job {
            path: (*path).to_string(),
            text: Text::Bundled(text),
            bundled: true,
            team: None,
        }));
        jobs.extend(files.iter().filter(|f| !is_taxonomy_file(&f.path) && !is_team_file(&f.path)).map(|f| {
            Job {
                path: crate::text::clean_name(&f.path.display().to_string()),
                text: Text::File(&f.path),
                bundled: false,
                team: team_for(&teams, &f.path),
            }
        }));

        let outcomes = parse_all(&jobs, &taxonomy, &teams, progress);
        let mut cases: Vec<Case> = Vec::with_capacity(outcomes.len());
        let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for (i, (job, (diags, case))) in jobs.iter().zip(outcomes).enumerate() {
            diagnostics.extend(diags);
            let Some(case) = case else { continue };
            if let Some(&first) = seen.get(&case.id) {
                diagnostics.push(Diagnostic::new(
                    job.path.clone(),
                    (1, 1),
                    Severity::Error,
                    format!("duplicate id '{}': also in {}; this file is skipped", case.id, jobs[first].path),
                ));
                continue;
            }
            seen.insert(case.id.clone(), i);
            cases.push(case);
        }
        cases.sort_by(Case::newest_first);
        Library { cases: cases.into(), taxonomy, diagnostics }
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

/// The bundled taxonomy extended by every `taxonomy.toml` among `files`, in order, and the
/// problems found in them.
pub fn load_taxonomy(files: &[FoundFile]) -> (Taxonomy, Vec<Diagnostic>) {
    // The bundled taxonomy is always loaded: user cases are tagged against it too. (It is the
    // first: taken as it is, not added value by value to an empty one.)
    let (mut taxonomy, mut diagnostics) = Taxonomy::parse(bundled::TAXONOMY_PATH, bundled::TAXONOMY);
    // User taxonomies come before any case: every user case is read against all of them.
    for file in files.iter().filter(|f| is_taxonomy_file(&f.path)) {
        let shown = crate::text::clean_name(&file.path.display().to_string());
        match read_text(&file.path, &shown) {
            Ok(text) => {
                let (user_taxonomy, diags) = Taxonomy::parse_extending(&shown, &text, &taxonomy);
                taxonomy.extend(user_taxonomy);
                diagnostics.extend(diags);
            }
            Err(d) => diagnostics.push(d),
        }
    }
    (taxonomy, diagnostics)
}

/// The team defaults of every `incidex.toml` among `files`, each with its directory, and the
/// problems found in them.
fn load_teams(files: &[FoundFile], taxonomy: &Taxonomy) -> (Vec<(PathBuf, TeamDefaults)>, Vec<Diagnostic>) {
    let mut teams = Vec::new();
    let mut diagnostics = Vec::new();
    for file in files.iter().filter(|f| is_team_file(&f.path)) {
        let shown = file.path.display().to_string();
        match read_text(&file.path, &shown) {
            Ok(text) => {
                let (team, diags) = parse_team(&shown, &text, taxonomy);
                diagnostics.extend(diags);
                if let (Some(team), Some(dir)) = (team, file.path.parent()) {
                    teams.push((dir.to_path_buf(), team));
                }
            }
            Err(d) => diagnostics.push(d),
        }
    }
    (teams, diagnostics)
}

/// The team defaults that apply to a postmortem at `path`: the nearest directory above it with
/// an `incidex.toml`. Case files take none.
fn team_for(teams: &[(PathBuf, TeamDefaults)], path: &Path) -> Option<usize> {
    if !is_markdown(path) {
        return None;
    }
    teams
        .iter()
        .enumerate()
        .filter(|(_, (dir, _))| path.starts_with(dir))
        .max_by_key(|(_, (dir, _))| dir.components().count())
        .map(|(i, _)| i)
}

/// Read a file as UTF-8 text, or say why it cannot be.
fn read_text(path: &Path, shown: &str) -> Result<String, Diagnostic> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|e| {
            Diagnostic::new(
                shown,
                (1, 1),
                Severity::Error,
                format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()),
            )
        }),
        Err(e) => Err(Diagnostic::new(shown, (0, 0), Severity::Error, format!("cannot read: {e}"))),
    }
}

/// Read and parse one case file or postmortem.
fn parse_one(
    job: &Job,
    taxonomy: &Taxonomy,
    teams: &[(PathBuf, TeamDefaults)],
    inferrer: Option<&Inferrer>,
) -> Outcome {
    let owned;
    let text = match job.text {
        Text::Bundled(text) => text,
        Text::File(path) => match read_text(path, &job.path) {
            Ok(text) => {
                owned = text;
                owned.as_str()
            }
            Err(d) => return (vec![d], None),
        },
    };
    let policy = if job.bundled { FacetPolicy::Strict } else { FacetPolicy::Lenient };
    let parsed = if is_markdown(Path::new(&job.path)) {
        let team = job.team.and_then(|i| teams.get(i)).map(|(_, t)| t);
        parse_postmortem(&job.path, text, taxonomy, policy, inferrer, team)
    } else {
        parse_case(&job.path, text, taxonomy, policy, job.bundled)
    };
    (parsed.diagnostics, parsed.case)
}

/// Parse every job, on several threads when there are many; outcomes in job order.
fn parse_all(
    jobs: &[Job],
    taxonomy: &Taxonomy,
    teams: &[(PathBuf, TeamDefaults)],
    progress: ProgressFn<'_>,
) -> Vec<Outcome> {
    // Postmortems without facets have them inferred; the matcher is built once, if needed.
    let inferrer = jobs.iter().any(|j| is_markdown(Path::new(&j.path))).then(|| Inferrer::new(taxonomy));
    let inferrer = inferrer.as_ref();
    let total = jobs.len();
    let done = AtomicUsize::new(0);
    let tick = || {
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        progress(Progress { stage: Stage::Reading, done: n, total });
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    if total < PARALLEL_FROM || threads < 2 {
        return jobs
            .iter()
            .map(|job| {
                let outcome = parse_one(job, taxonomy, teams, inferrer);
                tick();
                outcome
            })
            .collect();
    }
    let chunk = total.div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .chunks(chunk)
            .map(|part| {
                scope.spawn(|| {
                    part.iter()
                        .map(|job| {
                            let outcome = parse_one(job, taxonomy, teams, inferrer);
                            tick();
                            outcome
                        })
                        .collect::<Vec<Outcome>>()
                })
            })
            .collect();
        // A worker that panicked loses its files, reported, rather than the whole library.
        handles
            .into_iter()
            .zip(jobs.chunks(chunk))
            .flat_map(|(handle, part)| {
                handle.join().unwrap_or_else(|_| {
                    part.iter()
                        .map(|job| {
                            let d = Diagnostic::new(
                                job.path.clone(),
                                (0, 0),
                                Severity::Error,
                                "internal error reading this file",
                            );
                            (vec![d], None)
                        })
                        .collect()
                })
            })
            .collect()
    })
}

fn is_taxonomy_file(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "taxonomy.toml")
}
