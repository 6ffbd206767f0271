//! The preflight rules: each a pure function of one file's [`Job`], ending in one
//! [`Outcome`] as the node checks do. Where a rule's gap is the node audit's own (the
//! environment hazards, `/dev/shm`, caches on shared filesystems, known-bad versions) it has the
//! node check's id and words, and cites the same cases; suppressing `shm.size` means the same
//! thing on a node and in a manifest.
//!
//! Rules that need a judgement (a size "too small", a path "shared") say what they assumed in
//! [`Rule::assumes`]; `incidex doctor --list` prints it, and a suppression tells it otherwise.

mod env;
mod launch;
mod pod;
mod slurm;
mod versions;

use super::job::{Job, Loc, Unit};
use crate::doctor::{
    Rules,
    environment::EnvSource,
    finding::{Evidence, Outcome},
};

/// What a rule reads.
pub struct Input<'a> {
    /// The file, as named in evidence.
    pub path: &'a str,
    /// What it says.
    pub job: &'a Job,
    /// The rules data (version ranges).
    pub rules: &'a Rules,
}

impl Input<'_> {
    /// Evidence at `loc` of this file.
    pub fn evidence(&self, loc: &Loc, text: &str) -> Evidence {
        Evidence::at_field(self.path, loc.line.max(1), loc.field.clone(), text)
    }

    /// A unit's environment as a source for the checks shared with the node.
    pub fn env<'b>(&'b self, unit: &'b Unit) -> UnitEnv<'b> {
        UnitEnv { input: self, unit }
    }
}

/// A unit's settings, read as an environment.
pub struct UnitEnv<'a> {
    input: &'a Input<'a>,
    unit: &'a Unit,
}

impl EnvSource for UnitEnv<'_> {
    fn get(&self, key: &str) -> Option<(&str, Evidence)> {
        let s = self.unit.var(key).filter(|s| !s.value.is_empty())?;
        Some((s.value.as_str(), self.input.evidence(&s.loc, &s.text)))
    }

    fn unset(&self, key: &str) -> Evidence {
        let text = if self.unit.text.is_empty() { self.unit.name.clone() } else { self.unit.text.clone() };
        let mut e = self.input.evidence(&self.unit.loc, &text);
        e.text = format!("{key} is not set ({})", e.text);
        e
    }
}

/// One rule.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// Its id (a node check's id where the gap is the same).
    pub id: &'static str,
    /// What it looks for, in one line.
    pub title: &'static str,
    /// What it assumes, when it needs a judgement.
    pub assumes: Option<&'static str>,
    /// The rule.
    pub run: fn(&Input<'_>) -> Outcome,
}

/// Every rule, in the order they are reported.
pub fn all() -> Vec<Rule> {
    let mut rules = Vec::new();
    for table in [pod::RULES, env::RULES, slurm::RULES, launch::RULES, versions::RULES] {
        rules.extend_from_slice(table);
    }
    rules
}

/// A size as Kubernetes or Docker writes it (`64m`, `1g`, `512Mi`, `2Gi`, `1073741824`), in
/// bytes.
pub fn bytes(size: &str) -> Option<u64> {
    let s = size.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let n: f64 = n.parse().ok()?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "ki" | "kib" => 1024.0,
        "m" | "mb" => 1e6,
        "mi" | "mib" => 1024.0 * 1024.0,
        "g" | "gb" => 1e9,
        "gi" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tb" => 1e12,
        "ti" | "tib" => 1024f64.powi(4),
        _ => return None,
    };
    // Docker reads `m` and `g` as binary units; the difference does not change a verdict here.
    Some((n * mult) as u64)
}

#[cfg(test)]
mod tests;
