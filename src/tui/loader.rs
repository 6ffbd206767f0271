//! Opening the library on a thread while the UI runs (issue 11): a large user library on a cold
//! cache takes minutes to read and index, and the UI must be usable meanwhile.
//!
//! `event::spawn_loader` runs the opening function the binary hands over (the cache, the files,
//! the user's diagnostics: none of that is the UI's business) on the `incidex-load` thread; this
//! module holds what it hands back. Its progress reaches the UI's one channel throttled by a
//! [`Throttle`] to [`PROGRESS_EVERY`] (the last step of each stage always gets through), and its
//! result as one [`Loaded`]. When the UI
//! is already running on the interim library by then, the search engine over the new library
//! is built here too, so the switch costs the UI nothing; when the UI is still waiting to
//! start, the search worker builds it, so the first frame does not wait for it.
//!
//! Nothing here waits on the UI: when the UI quits first, the thread is abandoned with the
//! process.

use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use super::worker::{Search, Searcher};
use crate::{corpus::Library, search::Prebuilt, support::progress::Progress};

/// The least time between two progress messages: about ten a second reach the main loop.
pub const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// What went wrong while the library was opened, one line each: cache warnings, and problems
/// in the user's own files. Shown as a note in the UI and printed on stderr once the terminal
/// is given back, so nothing is lost behind the alternate screen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Problems {
    /// Why the cache could not be used as it should have been.
    pub warnings: Vec<String>,
    /// Problems in the user's library files (`path:line:column: severity: message`).
    pub diagnostics: Vec<String>,
    /// The user library directories in use (config, `$INCIDEX_DATA`, `--data`), so the note
    /// names the exact `incidex check` that reads them.
    pub dirs: Vec<std::path::PathBuf>,
}

impl Problems {
    /// Whether there is nothing to report.
    pub fn is_empty(&self) -> bool {
        self.warnings.is_empty() && self.diagnostics.is_empty()
    }

    /// The one line the UI shows: the problem itself when there is one, else how many there
    /// are and what to run.
    pub fn summary(&self) -> Option<String> {
        let line = match (self.warnings.as_slice(), self.diagnostics.as_slice()) {
            ([], []) => None,
            ([one], []) => Some(format!("warning: {one}")),
            ([], [one]) => Some(one.clone()),
            (warnings, []) => {
                Some(format!("{} cache warnings: they are printed when you quit", warnings.len()))
            }
            (warnings, diagnostics) => {
                let files = match diagnostics.len() {
                    1 => "1 problem in your library files".to_string(),
                    n => format!("{n} problems in your library files"),
                };
                let cache = match warnings.len() {
                    0 => String::new(),
                    1 => " and a cache warning".to_string(),
                    n => format!(" and {n} cache warnings"),
                };
                Some(format!("{files}{cache}: run `{}`", self.check_command()))
            }
        };
        // A path or a message may hold anything a file name can.
        line.map(|l| crate::text::one_line(&l))
    }

    /// The command that checks the libraries in use, each directory quoted for a POSIX shell
    /// when it needs it (so it can be pasted as it is).
    pub fn check_command(&self) -> String {
        let mut command = String::from("incidex check");
        for dir in &self.dirs {
            command.push(' ');
            command.push_str(&shell_word(&dir.to_string_lossy()));
        }
        command
    }
}

/// `word` as one POSIX shell word: as it is when it holds only safe characters, else in single
/// quotes (a quote inside becomes `'\\''`).
fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "/._-+=:,@%~".contains(c);
    if !word.is_empty() && word.chars().all(safe) && !word.starts_with('~') {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// What the opening function gives back.
pub struct Opened {
    /// The whole library.
    pub library: Library,
    /// Its search index and catalog, when the cache had them or built them.
    pub prebuilt: Prebuilt,
    /// What to tell the user.
    pub problems: Problems,
}

/// A library opened in the background, ready to switch to.
#[derive(Debug)]
pub struct Loaded {
    /// The whole library.
    pub library: Arc<Library>,
    /// Its search engine. The main loop takes it out for the search worker before the message
    /// reaches `App::update`.
    pub search: Option<Search>,
    /// What to tell the user.
    pub problems: Problems,
}

impl Loaded {
    /// Wrap `opened` up, building its search engine now (on the calling thread) when `build`.
    pub fn new(opened: Opened, build: bool) -> Loaded {
        let library = Arc::new(opened.library);
        let search = if build {
            Search::Built(Box::new(Searcher::with_prebuilt(library.clone(), opened.prebuilt)))
        } else {
            Search::Unbuilt(Box::new(opened.prebuilt))
        };
        Loaded { library, search: Some(search), problems: opened.problems }
    }
}

/// Passes progress on at most every [`PROGRESS_EVERY`], and always the last step of a stage.
pub struct Throttle {
    last: Mutex<Option<Instant>>,
    send: Box<dyn Fn(Progress) + Send + Sync>,
}

impl Throttle {
    /// A throttle in front of `send`.
    pub fn new(send: impl Fn(Progress) + Send + Sync + 'static) -> Throttle {
        Throttle { last: Mutex::new(None), send: Box::new(send) }
    }

    /// Report `p` at `now`: passed on when it is due or finishes its stage.
    pub fn report_at(&self, p: Progress, now: Instant) {
        let Ok(mut last) = self.last.lock() else { return };
        let due = last.is_none_or(|t| now.saturating_duration_since(t) >= PROGRESS_EVERY);
        if due || p.done >= p.total {
            *last = Some(now);
            (self.send)(p);
        }
    }

    /// Report `p` now.
    pub fn report(&self, p: Progress) {
        self.report_at(p, Instant::now());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::progress::Stage;

    #[test]
    fn progress_is_throttled_but_the_end_of_a_stage_always_passes() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let throttle = Throttle::new(move |p: Progress| sink.lock().unwrap().push(p.done));
        let start = Instant::now();
        let ms = |n| start + Duration::from_millis(n);
        let p = |done| Progress { stage: Stage::Reading, done, total: 10 };
        for (done, at) in [(1, 0), (2, 10), (3, 99), (4, 100), (5, 150), (6, 250), (10, 260)] {
            throttle.report_at(p(done), ms(at));
        }
        assert_eq!(*seen.lock().unwrap(), [1, 4, 6, 10]);
    }

    #[test]
    fn the_summary_names_one_problem_or_counts_them() {
        let lines = |n: usize, what: &str| (0..n).map(|i| format!("{what} {i}")).collect::<Vec<_>>();
        for (warnings, diagnostics, want) in [
            (0, 0, None),
            (1, 0, Some("warning: w 0")),
            (0, 1, Some("d 0")),
            (2, 0, Some("2 cache warnings: they are printed when you quit")),
            (0, 3, Some("3 problems in your library files: run `incidex check`")),
            (1, 1, Some("1 problem in your library files and a cache warning: run `incidex check`")),
            (2, 2, Some("2 problems in your library files and 2 cache warnings: run `incidex check`")),
        ] {
            let problems = Problems {
                warnings: lines(warnings, "w"),
                diagnostics: lines(diagnostics, "d"),
                dirs: Vec::new(),
            };
            assert_eq!(problems.summary().as_deref(), want, "{warnings} warnings, {diagnostics} diagnostics");
            assert_eq!(problems.is_empty(), want.is_none());
        }
    }

    #[test]
    fn the_note_names_the_check_of_the_libraries_in_use() {
        let problems = Problems {
            warnings: Vec::new(),
            diagnostics: vec!["a.toml:1:1: error: x".into(), "b.toml:1:1: error: y".into()],
            dirs: vec!["/srv/team-lib".into(), "/home/a b/it's".into()],
        };
        assert_eq!(
            problems.summary().as_deref(),
            Some("2 problems in your library files: run `incidex check /srv/team-lib '/home/a b/it'\\''s'`")
        );
    }
}
