//! The node audit (`incidex doctor`): is the gap the library's cases show present on this node?
//!
//! Three steps, kept apart so that every check can be tested on captured text and none can touch
//! the machine:
//! - [`probe`] reads files under a root directory and runs a fixed table of read-only commands
//!   into a [`Snapshot`] (or [`bugreport`] and [`Snapshot::from_archive`] read one that was
//!   saved);
//! - [`context`] works out where the audit runs (pod or host, VM or bare metal, GPUs, Slurm,
//!   Kubernetes);
//! - [`checks`] are pure functions of the snapshot and its context; each ends in one
//!   [`State`], and the cases each cites come from the rules data ([`rules`]).
//!
//! This engine knows the model and nothing above it. It never writes, never changes the node's
//! state and never reaches the network: `tests/doctor_readonly.rs` reads this folder's source
//! and fails on a call that could.

pub mod bugreport;
pub mod checks;
pub mod context;
pub mod environment;
pub mod finding;
pub mod probe;
pub mod rules;
pub mod snapshot;
pub mod spec;

pub use self::{
    context::Context,
    finding::{Evidence, Finding, Outcome, State},
    rules::Rules,
    snapshot::Snapshot,
};

/// Which checks run.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Only these ids (all when empty).
    pub only: Vec<String>,
    /// Not these ids.
    pub skip: Vec<String>,
}

impl Selection {
    /// Whether `id` runs.
    pub fn runs(&self, id: &str) -> bool {
        (self.only.is_empty() || self.only.iter().any(|o| o == id)) && !self.skip.iter().any(|s| s == id)
    }
}

/// One check's result on this node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckResult {
    /// The check's id.
    pub id: &'static str,
    /// What it looks for.
    pub title: &'static str,
    /// How it ended.
    pub outcome: Outcome,
    /// The cases it cites.
    pub cases: Vec<String>,
}

impl CheckResult {
    /// Its state.
    pub fn state(&self) -> State {
        self.outcome.state()
    }
}

/// A whole audit.
#[derive(Debug, Clone)]
pub struct Report {
    /// Where it ran.
    pub context: Context,
    /// Every check that ran, in the table's order.
    pub results: Vec<CheckResult>,
}

impl Report {
    /// The worst state among the findings (crit, warn, info), if any.
    pub fn worst(&self) -> Option<State> {
        self.results.iter().map(CheckResult::state).filter(|s| s.is_finding()).min()
    }

    /// How many checks ended in `state`.
    pub fn count(&self, state: State) -> usize {
        self.results.iter().filter(|r| r.state() == state).count()
    }

    /// The results that cite `case`.
    pub fn citing<'a>(&'a self, case: &'a str) -> impl Iterator<Item = &'a CheckResult> + 'a {
        self.results.iter().filter(move |r| r.cases.iter().any(|c| c == case))
    }
}

/// Unknown check ids in `ids`, with the nearest known one.
pub fn unknown_ids(ids: &[String]) -> Vec<String> {
    let mut known: Vec<&str> = checks::all().iter().map(|c| c.id).collect();
    known.extend(spec::rules::all().iter().map(|r| r.id));
    ids.iter()
        .filter(|id| !known.contains(&id.as_str()))
        .map(|id| {
            let near = known.iter().min_by_key(|k| strsim::levenshtein(k, id)).copied().unwrap_or("");
            format!("no check is called `{}` (did you mean `{near}`?)", crate::text::one_line(id))
        })
        .collect()
}

/// Audit `snap`: every selected check, each on its own (a check that panics is reported as
/// `unknown`, never stops the others).
pub fn audit(snap: &Snapshot, rules: &Rules, selection: &Selection) -> Report {
    let context = Context::of(snap);
    let input = checks::Input { snap, ctx: &context, rules };
    let mut results = Vec::new();
    for check in checks::all() {
        if !selection.runs(check.id) {
            continue;
        }
        let outcome = if check.needs_gpu && context.gpus.is_empty() {
            if snap.dir(context::PCI) == snapshot::Look::NotCaptured {
                Outcome::unknown("the PCI bus is not in the snapshot", "capture the node's /sys")
            } else if context.container {
                Outcome::na("no NVIDIA GPU is visible in this container")
            } else {
                Outcome::na("no NVIDIA GPU on the PCI bus")
            }
        } else {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (check.run)(&input))).unwrap_or_else(
                |_| {
                    Outcome::unknown(
                        "the check failed on this snapshot (a bug in incidex)",
                        "report it with the saved snapshot",
                    )
                },
            )
        };
        results.push(CheckResult {
            id: check.id,
            title: check.title,
            outcome,
            cases: rules.cases_of(check.id),
        });
    }
    Report { context, results }
}

/// Check the rules data against the checks and a library's case ids.
pub fn validate_rules(
    path: &str,
    text: &str,
    case_exists: &dyn Fn(&str) -> bool,
) -> Vec<crate::support::diag::Diagnostic> {
    let (rules, mut problems) = Rules::parse(path, text);
    let mut ids: Vec<&str> = checks::all().iter().map(|c| c.id).collect();
    ids.extend(spec::rules::all().iter().map(|r| r.id).filter(|id| !ids.contains(id)).collect::<Vec<_>>());
    problems.extend(rules.validate(path, text, &ids, checks::CONDITIONS, case_exists));
    problems
}
