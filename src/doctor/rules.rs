//! The audit's citations and version rules, as data: `data/doctor.toml`, next to the cases.
//!
//! Each `[[check]]` names a check and the cases whose text supports it; each `[[version]]` is a
//! release range of a package (the NVIDIA driver, NCCL, torch, the container toolkit, ...) that
//! cases show breaking, with what it breaks and the cases that say so. A new case can add a rule
//! without code. `incidex check` holds the file to the library: an unknown check id, an unknown
//! case id or a malformed range is an error with `path:line:column`.

use std::{cmp::Ordering, collections::BTreeMap};

use serde::Deserialize;

use super::finding::State;
use crate::support::diag::{Diagnostic, LineIndex, Severity};

/// The bundled rules file, as compiled in.
pub const BUNDLED: &str = include_str!("../../data/doctor.toml");
/// Its path, as shown in diagnostics.
pub const BUNDLED_PATH: &str = "data/doctor.toml";

/// The rules of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    /// Check id → the cases that support it.
    pub cases: BTreeMap<String, Vec<String>>,
    /// The known-bad version ranges.
    pub versions: Vec<VersionRule>,
}

/// A release range of a package that cases show breaking.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VersionRule {
    /// The check that applies it (`nccl.stack.version`, `pypkg.known.bad`, `driver.known.bad`).
    pub check: String,
    /// What the version is of: `driver`, `nccl`, `container-toolkit`, or a Python distribution
    /// name as its `.dist-info` spells it (`torch`, `huggingface_hub`, `safetensors`).
    pub package: String,
    /// The first bad version (inclusive); none means every version below `below`.
    #[serde(default)]
    pub from: Option<String>,
    /// The first good version (exclusive); none means every version from `from` on.
    #[serde(default)]
    pub below: Option<String>,
    /// Conditions that must also hold, named by the check (`gsp`, `cumem-not-disabled`).
    #[serde(default)]
    pub when: Vec<String>,
    /// How bad.
    pub severity: String,
    /// What it breaks, in one line, as the cases say it.
    pub message: String,
    /// The fix, in one line.
    pub action: String,
    /// The cases.
    pub cases: Vec<String>,
}

impl VersionRule {
    /// Whether `version` is in the range.
    pub fn matches(&self, version: &str) -> bool {
        let from_ok = self.from.as_deref().is_none_or(|f| compare(version, f) != Ordering::Less);
        let below_ok = self.below.as_deref().is_none_or(|b| compare(version, b) == Ordering::Less);
        from_ok && below_ok
    }

    /// The severity as a state (`warn` when the file says something else; `check` reports that).
    pub fn state(&self) -> State {
        match self.severity.parse::<State>() {
            Ok(s) if s.is_finding() => s,
            _ => State::Warn,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    check: Vec<CheckEntry>,
    #[serde(default)]
    version: Vec<VersionRule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckEntry {
    id: String,
    cases: Vec<String>,
}

/// Compare two dotted versions part by part, numerically where both parts are numbers
/// (`2.19.10` > `2.19.9`); a build suffix (`2.5.0+cu121`, `2.25.1-1`) is ignored.
pub fn compare(a: &str, b: &str) -> Ordering {
    let parts = |v: &str| -> Vec<String> {
        let v = v.trim().trim_start_matches('v');
        let v = v.split(['+', '-', ' ']).next().unwrap_or(v);
        v.split('.').map(str::to_string).collect()
    };
    let (a, b) = (parts(a), parts(b));
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (a.get(i).map_or("0", String::as_str), b.get(i).map_or("0", String::as_str));
        let o = match (x.parse::<u64>(), y.parse::<u64>()) {
            (Ok(x), Ok(y)) => x.cmp(&y),
            _ => x.cmp(y),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

impl Rules {
    /// The bundled rules (a bad bundled file is caught by `incidex check` and a test; here it
    /// gives what parsed).
    pub fn bundled() -> Rules {
        Rules::parse(BUNDLED_PATH, BUNDLED).0
    }

    /// Parse a rules file; problems with their positions.
    pub fn parse(path: &str, text: &str) -> (Rules, Vec<Diagnostic>) {
        let index = LineIndex::new(text);
        let file: File = match toml::from_str(text) {
            Ok(f) => f,
            Err(e) => {
                let at = index.position(e.span().map_or(0, |s| s.start));
                let message = e.message().trim().replace('\n', " ");
                return (Rules::default(), vec![Diagnostic::new(path, at, Severity::Error, message)]);
            }
        };
        let mut rules = Rules::default();
        for c in file.check {
            rules.cases.entry(c.id).or_default().extend(c.cases);
        }
        rules.versions = file.version;
        (rules, Vec::new())
    }

    /// The cases a check cites: its own, and those of its version rules.
    pub fn cases_of(&self, check: &str) -> Vec<String> {
        let mut out: Vec<String> = self.cases.get(check).cloned().unwrap_or_default();
        for v in self.versions.iter().filter(|v| v.check == check) {
            for c in &v.cases {
                if !out.contains(c) {
                    out.push(c.clone());
                }
            }
        }
        out
    }

    /// The version rules of `check` for `package`.
    pub fn versions_of<'a>(
        &'a self,
        check: &'a str,
        package: &'a str,
    ) -> impl Iterator<Item = &'a VersionRule> {
        self.versions.iter().filter(move |v| v.check == check && v.package == package)
    }

    /// What is wrong with the rules against the checks that exist and the cases of the library:
    /// an unknown check or case id, a check that cites nothing, a bad range or severity. Each
    /// problem points at the line of `text` that holds the name.
    pub fn validate(
        &self,
        path: &str,
        text: &str,
        checks: &[&str],
        conditions: &[(&str, &str)],
        case_exists: &dyn Fn(&str) -> bool,
    ) -> Vec<Diagnostic> {
        let index = LineIndex::new(text);
        let at = |needle: &str| index.position(text.find(&format!("\"{needle}\"")).map_or(0, |i| i + 1));
        let mut out = Vec::new();
        let mut error = |needle: &str, message: String| {
            out.push(Diagnostic::new(path, at(needle), Severity::Error, message));
        };
        for (id, cases) in &self.cases {
            if !checks.contains(&id.as_str()) {
                error(id, format!("no check is called `{id}` (`incidex doctor --list` lists them)"));
            }
            if cases.is_empty() {
                error(id, format!("check `{id}` cites no case"));
            }
            for c in cases {
                if !case_exists(c) {
                    error(c, format!("check `{id}` cites `{c}`, which is no case of the library"));
                }
            }
        }
        for id in checks {
            if !self.cases.contains_key(*id) {
                error("", format!("check `{id}` has no `[[check]]` entry: every check cites its cases"));
            }
        }
        for v in &self.versions {
            if !checks.contains(&v.check.as_str()) {
                error(&v.check, format!("a version rule names `{}`, which is no check", v.check));
            }
            if v.from.is_none() && v.below.is_none() {
                error(&v.message, "a version rule needs `from`, `below` or both".into());
            }
            if let (Some(f), Some(b)) = (&v.from, &v.below)
                && compare(f, b) != Ordering::Less
            {
                error(b, format!("an empty range: `from = \"{f}\"` is not below `below = \"{b}\"`"));
            }
            if !v.severity.parse::<State>().is_ok_and(State::is_finding) {
                error(&v.severity, format!("severity `{}`: use crit, warn or info", v.severity));
            }
            for w in &v.when {
                if !conditions.iter().any(|(check, name)| *check == v.check && name == w) {
                    error(w, format!("`{}` knows no condition `{w}`", v.check));
                }
            }
            if v.cases.is_empty() {
                error(&v.message, "a version rule cites no case".into());
            }
            for c in &v.cases {
                if !case_exists(c) {
                    error(c, format!("a version rule cites `{c}`, which is no case of the library"));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_by_number_and_ignore_build_suffixes() {
        assert_eq!(compare("2.19.10", "2.19.9"), Ordering::Greater);
        assert_eq!(compare("2.5.0+cu121", "2.5.0"), Ordering::Equal);
        assert_eq!(compare("525.105.17", "525.85.12"), Ordering::Greater);
        assert_eq!(compare("2.25.1-1", "2.25.1"), Ordering::Equal);
        let r = VersionRule {
            check: "c".into(),
            package: "nccl".into(),
            from: Some("2.19.0".into()),
            below: Some("2.20.0".into()),
            when: vec![],
            severity: "warn".into(),
            message: "m".into(),
            action: "a".into(),
            cases: vec!["x".into()],
        };
        assert!(r.matches("2.19.3") && !r.matches("2.20.3") && !r.matches("2.18.3"));
    }

    #[test]
    fn unknown_checks_and_cases_are_errors_with_their_line() {
        let text = "[[check]]\nid = \"shm.size\"\ncases = [\"2018-02-a\", \"no-such-case\"]\n\n[[check]]\nid = \"nosuch.check\"\ncases = [\"2018-02-a\"]\n";
        let (rules, problems) = Rules::parse("doctor.toml", text);
        assert!(problems.is_empty());
        let found = rules.validate("doctor.toml", text, &["shm.size", "gpu.xid"], &[], &|c| c == "2018-02-a");
        let lines: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert!(
            lines.iter().any(|l| l.starts_with("doctor.toml:3:") && l.contains("`no-such-case`")),
            "{lines:?}"
        );
        assert!(
            lines.iter().any(|l| l.starts_with("doctor.toml:6:") && l.contains("`nosuch.check`")),
            "{lines:?}"
        );
        assert!(lines.iter().any(|l| l.contains("`gpu.xid` has no `[[check]]`")), "{lines:?}");
    }

    #[test]
    fn a_malformed_file_names_where() {
        let (_, problems) =
            Rules::parse("doctor.toml", "[[check]]\nid = \"x\"\ncases = [\"a\"]\nbogus = 1\n");
        assert_eq!(problems.len(), 1);
        assert!(problems[0].to_string().starts_with("doctor.toml:4:"), "{}", problems[0]);
    }
}
