//! "Check your cluster for this": what the node audit found on this machine for the cases the
//! list shows, as one line under the result set, the checks overlay (`D`), and the lines the
//! case pane shows for a case that a check cites.

use super::App;
use crate::doctor::{CheckResult, Outcome, State};

/// The one-line account of a check's result.
fn result_line(r: &CheckResult) -> String {
    match &r.outcome {
        Outcome::Checked { findings, checked } => match findings.first() {
            Some(f) => crate::text::one_line(&f.message),
            None => crate::text::one_line(checked),
        },
        Outcome::Unknown { why, .. } => format!("could not look: {}", crate::text::one_line(why)),
        Outcome::NotApplicable(why) => format!("does not apply: {}", crate::text::one_line(why)),
    }
}

impl App {
    /// The ids of the cases the list has loaded (looked up once per check and case, on every
    /// frame that draws the line: a set, not a scan).
    fn listed_ids(&self) -> rustc_hash::FxHashSet<&str> {
        self.results.hits.iter().filter_map(|&i| self.library.cases.get(i)).map(|c| c.id.as_str()).collect()
    }

    /// The checks that cite one of the listed cases, worst first, with how many listed cases
    /// each cites.
    fn checks_for_list(&self) -> Vec<(&CheckResult, usize)> {
        let Some(report) = &self.audit else { return Vec::new() };
        let ids = self.listed_ids();
        let mut out: Vec<(&CheckResult, usize)> = report
            .results
            .iter()
            .map(|r| (r, r.cases.iter().filter(|c| ids.contains(c.as_str())).count()))
            .filter(|(_, n)| *n > 0)
            .collect();
        // Gaps found first, then what was checked and is fine, then what could not be looked at,
        // then what does not apply here.
        let rank = |s: State| match s {
            State::Crit => 0,
            State::Warn => 1,
            State::Info => 2,
            State::Pass => 3,
            State::Unknown => 4,
            State::NotApplicable => 5,
        };
        out.sort_by_key(|(r, n)| (rank(r.state()), std::cmp::Reverse(*n)));
        out
    }

    /// "On this node: …" for the result set: the worst gap found among the checks that cite
    /// the listed cases, or that none was found; none before the audit has run or when no
    /// check cites these cases.
    pub fn node_line(&self) -> Option<String> {
        let checks = self.checks_for_list();
        let (worst, n) = checks.first()?;
        if worst.state().is_finding() {
            let shown = self.results.hits.len().min(self.results.total);
            return Some(format!(
                "On this node: {}, as in {n} of these {shown} cases (D shows the checks)",
                result_line(worst)
            ));
        }
        let looked = checks.iter().filter(|(r, _)| r.state() == State::Pass).count();
        if looked > 0 {
            Some(format!(
                "On this node: checked {looked}, nothing of these cases found here (D shows the checks)"
            ))
        } else {
            Some(
                "On this node: the checks for these cases could not look or do not apply (D shows them)"
                    .into(),
            )
        }
    }

    /// The checks overlay's lines: each check that cites a listed case, with its result and the
    /// cases it cites among those listed.
    pub fn checks_lines(&self) -> Vec<String> {
        let Some(report) = &self.audit else {
            return vec!["The node audit has not finished yet.".into()];
        };
        let ids = self.listed_ids();
        let mut lines = Vec::new();
        for (r, _) in self.checks_for_list() {
            lines.push(format!("{:<7} {}  {}", r.state().key().to_uppercase(), r.id, result_line(r)));
            for c in r.cases.iter().filter(|c| ids.contains(c.as_str())) {
                lines.push(format!("          {c}"));
            }
        }
        if lines.is_empty() {
            let ran = report.results.len();
            lines.push(format!("None of the {ran} checks that ran here cites a case of this list."));
        }
        lines.push(String::new());
        lines.push("`incidex doctor --all` prints every check with its evidence.".into());
        lines
    }

    /// The checks that cite `case`: (state, line) for the case pane.
    pub fn checks_for_case(&self, case: &str) -> Vec<(State, String)> {
        let Some(report) = &self.audit else { return Vec::new() };
        report
            .citing(case)
            .map(|r| (r.state(), format!("{} {}: {}", r.state().key(), r.id, result_line(r))))
            .collect()
    }
}
