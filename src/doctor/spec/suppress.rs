//! Suppressions: a rule silenced for one file, by a comment in the file
//! (`# incidex: ignore shm.size — the webhook mounts /dev/shm`) or by an entry of the user's
//! config or the command line (a rule id and a glob of paths). A suppressed finding is not
//! shown as a finding and does not count towards `--fail-on`, but it is counted and listed with
//! its reason, so that a gate that silences everything can be seen doing so.

use super::script::physical_lines;

/// The marker of an inline suppression.
pub const MARKER: &str = "incidex: ignore";

/// One rule silenced for one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppression {
    /// The rule's id.
    pub check: String,
    /// Why, as given.
    pub reason: Option<String>,
    /// Where it was given: `path:line` of the comment, or the config entry's pattern.
    pub by: String,
}

/// A suppression from outside the file: a rule and the paths it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct External {
    /// The rule's id.
    pub check: String,
    /// A glob of paths (`deploy/**/*.yaml`); none means every file.
    pub paths: Option<String>,
    /// Why.
    pub reason: Option<String>,
    /// Where the entry was written, for the listing (`config.toml`, `--ignore`).
    pub from: String,
}

impl External {
    /// Whether this entry covers `path`. A pattern with no `/` matches the file name anywhere,
    /// as `.gitignore` patterns do; a bad pattern matches nothing.
    pub fn covers(&self, path: &str) -> bool {
        let Some(pattern) = &self.paths else { return true };
        let pattern = if pattern.contains('/') { pattern.clone() } else { format!("**/{pattern}") };
        let path = path.strip_prefix("./").unwrap_or(path);
        globset::GlobBuilder::new(&pattern).literal_separator(true).build().is_ok_and(|g| {
            g.compile_matcher().is_match(path) || g.compile_matcher().is_match(format!("./{path}"))
        })
    }
}

/// The inline suppressions of a file: every comment line holding the marker. Each names one
/// or more rule ids (`ignore shm.size, slurm.signal`), then optionally a reason after `—`, `--`
/// or `:`.
pub fn inline(path: &str, text: &str) -> Vec<Suppression> {
    let mut out = Vec::new();
    for (line, raw) in physical_lines(text) {
        let Some(at) = raw.find(MARKER) else { continue };
        // Only in a comment: a `#` before the marker.
        if !raw[..at].contains('#') {
            continue;
        }
        let rest = raw[at + MARKER.len()..].trim_start_matches([' ', '=', ':']);
        let (ids, reason) = match ["—", " -- ", ": "].iter().find_map(|sep| rest.split_once(sep)) {
            Some((ids, reason)) => (ids, Some(reason.trim().to_string()).filter(|r| !r.is_empty())),
            None => (rest, None),
        };
        for id in ids.split([',', ' ']).map(str::trim).filter(|s| !s.is_empty()) {
            out.push(Suppression {
                check: id.to_string(),
                reason: reason.clone(),
                by: format!("{path}:{line}"),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_name_rules_and_reasons() {
        let text = "# incidex: ignore shm.size — hostIPC is set by our webhook\nkind: Pod\n  # incidex: ignore slurm.signal, slurm.wait\nvalue: \"incidex: ignore not.a.comment\"\n";
        let s = inline("pod.yaml", text);
        assert_eq!(s.len(), 3, "{s:?}");
        assert_eq!(s[0].check, "shm.size");
        assert_eq!(s[0].reason.as_deref(), Some("hostIPC is set by our webhook"));
        assert_eq!(s[0].by, "pod.yaml:1");
        assert_eq!((s[2].check.as_str(), s[2].by.as_str()), ("slurm.wait", "pod.yaml:3"));
    }

    #[test]
    fn entries_cover_paths_by_glob() {
        let e =
            |p: &str| External { check: "x".into(), paths: Some(p.into()), reason: None, from: "t".into() };
        assert!(e("deploy/*.yaml").covers("deploy/a.yaml"));
        assert!(!e("deploy/*.yaml").covers("deploy/sub/a.yaml"));
        assert!(e("deploy/**/*.yaml").covers("deploy/sub/a.yaml"));
        assert!(e("train.sbatch").covers("jobs/train.sbatch"));
        assert!(e("*.env").covers("./prod.env"));
        assert!(!e("[").covers("a"));
    }
}
