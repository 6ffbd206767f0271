//! What a check concludes: one of six states, and for a gap found, the findings — each with the
//! entity it is about, the evidence (a line of a file or of a command's output, with where it
//! came from) and the fix in one line. The cases a check cites come from the rules data
//! ([`super::rules`]), not from code.

use std::{fmt, str::FromStr};

use serde::Serialize;

/// How a check ended, from worst to best. `unknown` (could not look) and `n/a` (does not apply)
/// are never `pass`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum State {
    /// The node is unsafe for work now, or data is at risk.
    Crit,
    /// A configuration the cases show breaking jobs.
    Warn,
    /// Advice or context.
    Info,
    /// The check could not look (needs root, tool missing, timed out, not visible here).
    Unknown,
    /// It does not apply here (no GPU, a VM guest, no NVSwitch).
    NotApplicable,
    /// Checked, and the gap is not here.
    Pass,
}

impl State {
    /// Every state, worst first.
    pub const ALL: [State; 6] =
        [State::Crit, State::Warn, State::Info, State::Unknown, State::NotApplicable, State::Pass];

    /// The word people read and type: `crit`, `warn`, `info`, `unknown`, `n/a`, `pass`.
    pub fn key(self) -> &'static str {
        match self {
            State::Crit => "crit",
            State::Warn => "warn",
            State::Info => "info",
            State::Unknown => "unknown",
            State::NotApplicable => "n/a",
            State::Pass => "pass",
        }
    }

    /// Whether this is a gap found (crit, warn or info).
    pub fn is_finding(self) -> bool {
        matches!(self, State::Crit | State::Warn | State::Info)
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

impl Serialize for State {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.key())
    }
}

impl FromStr for State {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "crit" | "critical" => State::Crit,
            "warn" | "warning" => State::Warn,
            "info" => State::Info,
            "unknown" => State::Unknown,
            "n/a" | "na" => State::NotApplicable,
            "pass" => State::Pass,
            other => {
                return Err(format!(
                    "unknown level '{}' (expected crit, warn, info or unknown)",
                    crate::text::one_line(other)
                ));
            }
        })
    }
}

/// A line that a finding rests on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evidence {
    /// Where it came from: a path (`/proc/self/mountinfo`) or a command (`nvidia-smi -q`).
    pub source: String,
    /// Its line number there, from 1, when it is one line of a longer text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The field of a manifest it is (`spec.template.spec.volumes`), for a job spec's YAML.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The line itself (or the value read).
    pub text: String,
}

impl Evidence {
    /// `text`, read from `source` as a whole.
    pub fn new(source: impl Into<String>, text: impl Into<String>) -> Evidence {
        Evidence { source: source.into(), line: None, field: None, text: text.into() }
    }

    /// Line `line` (from 1) of `source`.
    pub fn at(source: impl Into<String>, line: usize, text: impl Into<String>) -> Evidence {
        Evidence { source: source.into(), line: Some(line), field: None, text: text.into() }
    }

    /// Line `line` of `source`, at manifest field `field` when there is one.
    pub fn at_field(
        source: impl Into<String>,
        line: usize,
        field: Option<String>,
        text: impl Into<String>,
    ) -> Evidence {
        Evidence { source: source.into(), line: Some(line), field, text: text.into() }
    }
}

/// One gap found on the node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// How bad: crit, warn or info.
    pub severity: State,
    /// What it is about: a mount, a GPU's bus id, a variable, a file.
    pub entity: String,
    /// What is wrong, in one line.
    pub message: String,
    /// The lines it rests on.
    pub evidence: Vec<Evidence>,
    /// The fix, in one line.
    pub action: String,
}

impl Finding {
    /// A finding with no evidence yet.
    pub fn new(severity: State, entity: impl Into<String>, message: impl Into<String>) -> Finding {
        Finding {
            severity,
            entity: entity.into(),
            message: message.into(),
            evidence: Vec::new(),
            action: String::new(),
        }
    }

    /// With this evidence.
    pub fn evidence(mut self, e: Evidence) -> Finding {
        self.evidence.push(e);
        self
    }

    /// With this fix.
    pub fn action(mut self, action: impl Into<String>) -> Finding {
        self.action = action.into();
        self
    }
}

/// How one check ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Checked: these gaps (none means `pass`). `checked` says what was looked at.
    Checked {
        /// What was found.
        findings: Vec<Finding>,
        /// What was looked at, for the `pass` line (`/dev/shm is 16 GiB`).
        checked: String,
    },
    /// Could not look.
    Unknown {
        /// Why (needs root, tool missing, timed out, not visible from a container).
        why: String,
        /// How to get the answer (`sudo incidex doctor --only gpu.xid`).
        how: String,
    },
    /// Does not apply here, and why.
    NotApplicable(String),
}

impl Outcome {
    /// Checked, nothing found.
    pub fn pass(checked: impl Into<String>) -> Outcome {
        Outcome::Checked { findings: Vec::new(), checked: checked.into() }
    }

    /// Checked, with these findings (none is a pass).
    pub fn found(findings: Vec<Finding>, checked: impl Into<String>) -> Outcome {
        Outcome::Checked { findings, checked: checked.into() }
    }

    /// Could not look.
    pub fn unknown(why: impl Into<String>, how: impl Into<String>) -> Outcome {
        Outcome::Unknown { why: why.into(), how: how.into() }
    }

    /// Does not apply.
    pub fn na(why: impl Into<String>) -> Outcome {
        Outcome::NotApplicable(why.into())
    }

    /// The one line that says what it rests on: what was looked at, why it could not look, or
    /// why it does not apply (the `--all` listings of passes and of what does not apply).
    pub fn note(&self) -> &str {
        match self {
            Outcome::Checked { checked, .. } => checked,
            Outcome::Unknown { why, .. } | Outcome::NotApplicable(why) => why,
        }
    }

    /// The state this outcome gives: its worst finding, or pass, unknown or n/a.
    pub fn state(&self) -> State {
        match self {
            Outcome::Checked { findings, .. } => {
                findings.iter().map(|f| f.severity).min().unwrap_or(State::Pass)
            }
            Outcome::Unknown { .. } => State::Unknown,
            Outcome::NotApplicable(_) => State::NotApplicable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outcome_is_as_bad_as_its_worst_finding_and_could_not_look_is_never_pass() {
        let f = |s| Finding::new(s, "x", "y");
        assert_eq!(Outcome::found(vec![f(State::Info), f(State::Crit)], "").state(), State::Crit);
        assert_eq!(Outcome::found(vec![], "fine").state(), State::Pass);
        assert_eq!(Outcome::unknown("needs root", "sudo").state(), State::Unknown);
        assert_eq!(Outcome::na("no GPU").state(), State::NotApplicable);
        assert_eq!(Outcome::na("no GPU").note(), "no GPU");
        assert_eq!(Outcome::pass("/dev/shm is 16 GiB").note(), "/dev/shm is 16 GiB");
        assert!(State::Crit < State::Warn && State::Info < State::Unknown);
    }

    #[test]
    fn levels_read_as_people_type_them() {
        assert_eq!("CRIT".parse::<State>(), Ok(State::Crit));
        assert_eq!("warning".parse::<State>(), Ok(State::Warn));
        assert!("loud".parse::<State>().is_err());
    }
}
