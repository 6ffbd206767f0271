//! Progress of long work — reading a large library, building its search index — reported to
//! whoever shows it: a bar on stderr for commands ([`StderrBar`]), a gauge in the terminal UI.
//!
//! Work calls a [`ProgressFn`] with how far it is; the callback must be cheap and may be called
//! from several threads. The bar draws only on a terminal, only once the work has taken a
//! quarter of a second (quick work shows nothing), at most every 100 ms, and wipes itself when
//! the work is done, so piped output and logs never see it.

use std::{
    io::{IsTerminal, Write},
    sync::Mutex,
    time::{Duration, Instant},
};

/// What the work is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Reading and parsing library files.
    Reading,
    /// Adding cases to the search index.
    Indexing,
    /// Writing the cache.
    Saving,
}

impl Stage {
    /// How the stage is named to users.
    pub fn label(self) -> &'static str {
        match self {
            Stage::Reading => "reading the library",
            Stage::Indexing => "building the search index",
            Stage::Saving => "saving the cache",
        }
    }
}

/// How far the work is: `done` of `total` units (files, cases) in `stage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// What is being done.
    pub stage: Stage,
    /// Units done.
    pub done: usize,
    /// Units in all.
    pub total: usize,
}

/// A progress callback: cheap, callable from any thread.
pub type ProgressFn<'a> = &'a (dyn Fn(Progress) + Sync);

/// A callback that shows nothing.
pub fn silent(_: Progress) {}

/// A one-line progress bar on stderr, drawn only when stderr is a terminal.
pub struct StderrBar {
    state: Mutex<BarState>,
    enabled: bool,
    quiet_for: Duration,
}

struct BarState {
    started: Instant,
    last: Option<Instant>,
    drawn: bool,
}

/// Work quicker than this shows no bar.
const QUIET_FOR: Duration = Duration::from_millis(250);

impl Default for StderrBar {
    fn default() -> Self {
        StderrBar::new()
    }
}

impl StderrBar {
    /// A bar that draws when stderr is a terminal.
    pub fn new() -> StderrBar {
        StderrBar {
            state: Mutex::new(BarState { started: Instant::now(), last: None, drawn: false }),
            enabled: std::io::stderr().is_terminal(),
            quiet_for: QUIET_FOR,
        }
    }

    /// The same bar, drawn only once the work has taken `quiet_for`.
    pub fn after(mut self, quiet_for: Duration) -> StderrBar {
        self.quiet_for = quiet_for;
        self
    }

    /// Show `p` (at most every 100 ms, and always the last step of a stage).
    pub fn report(&self, p: Progress) {
        self.show(p.done >= p.total, || bar_line(p, 30));
    }

    /// Show the line `line` makes (how much of a stream has been read), when it is due.
    pub fn report_line(&self, line: impl FnOnce() -> String) {
        self.show(false, line);
    }

    /// Draw the line `line` makes when it is due (`last`: always, once the bar shows at all).
    fn show(&self, last: bool, line: impl FnOnce() -> String) {
        if !self.enabled {
            return;
        }
        let Ok(mut state) = self.state.lock() else { return };
        let now = Instant::now();
        if now.duration_since(state.started) < self.quiet_for {
            return;
        }
        let due = state.last.is_none_or(|t| now.duration_since(t) >= Duration::from_millis(100));
        if !due && !last {
            return;
        }
        state.last = Some(now);
        state.drawn = true;
        let line = crate::text::one_line(&line());
        let _ = write!(std::io::stderr().lock(), "\r\x1b[2K{line}");
    }

    /// Wipe the bar (when the work is done).
    pub fn finish(&self) {
        if let Ok(mut state) = self.state.lock()
            && state.drawn
        {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
            state.drawn = false;
        }
    }
}

/// `incidex: building the search index [#########.....]  61% (61000/100000)`, the bar `width`
/// cells wide.
pub fn bar_line(p: Progress, width: usize) -> String {
    let fraction = if p.total == 0 { 1.0 } else { (p.done.min(p.total) as f64) / (p.total as f64) };
    let filled = ((fraction * width as f64).round() as usize).min(width);
    format!(
        "incidex: {} [{}{}] {:>3}% ({}/{})",
        p.stage.label(),
        "#".repeat(filled),
        ".".repeat(width - filled),
        (fraction * 100.0).floor() as usize,
        p.done,
        p.total
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_line_fills_with_the_fraction_done() {
        for (done, total, want) in [
            (0, 10, "incidex: reading the library [..........]   0% (0/10)"),
            (5, 10, "incidex: reading the library [#####.....]  50% (5/10)"),
            (10, 10, "incidex: reading the library [##########] 100% (10/10)"),
            (0, 0, "incidex: reading the library [##########] 100% (0/0)"),
            (12, 10, "incidex: reading the library [##########] 100% (12/10)"),
        ] {
            assert_eq!(bar_line(Progress { stage: Stage::Reading, done, total }, 10), want);
        }
    }
}
