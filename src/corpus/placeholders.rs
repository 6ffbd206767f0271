//! The example text `incidex template` ships, found again in a user's file: each placeholder a
//! team left in (the organization "Example Team", an owner `name`, a bug `TICKET-1`, a section's
//! prompt) is a warning from `check`, so a postmortem nobody filled in does not pass CI quietly.
//!
//! Detection is keyed on the placeholder strings themselves, wherever they are in the file, not
//! on the template's layout: a template that gains a section keeps working, and a placeholder
//! moved elsewhere is still found. Owner and bug placeholders are table cells (`| name |`,
//! `| TICKET-3 |`), since `name` alone is an ordinary word.

use crate::support::diag::{Diagnostic, Severity};

/// A fragment of the template's example text, and what it stands in for.
struct Placeholder {
    text: &'static str,
    what: &'static str,
}

const fn placeholder(text: &'static str, what: &'static str) -> Placeholder {
    Placeholder { text, what }
}

/// The template's example text, found verbatim (each at most once per file).
const PLACEHOLDERS: &[Placeholder] = &[
    placeholder("Example Team", "the organization"),
    placeholder("Training stalled for 40 minutes at the end-of-epoch checkpoint", "the title"),
    placeholder("256 GPUs in 32 nodes", "the scale"),
    placeholder("What happened and what people saw, in two or three sentences", "the Summary prompt"),
    placeholder("Who and what was affected, and for how long", "the Impact prompt"),
    placeholder("Why it happened: the defect or condition underneath", "the Root causes prompt"),
    placeholder("What set it off: a deploy, a configuration change", "the Trigger prompt"),
    placeholder("How it was noticed, and how long that took", "the Detection prompt"),
    placeholder("What was done to stop it, one step per item", "a Resolution prompt"),
    placeholder("What was done to recover, such as resuming", "a Resolution prompt"),
    placeholder("Alert when no training step is logged for 10 minutes.", "an example action item"),
    placeholder("Time out the checkpoint write and fall back to the previous one.", "an example action item"),
    placeholder("Fix the condition that caused it.", "an example action item"),
    placeholder("Add the failure to the on-call runbook.", "an example action item"),
    placeholder("What helped: an alert that fired, a runbook that worked", "a Lessons learned prompt"),
    placeholder("What made it worse or slower to fix", "a Lessons learned prompt"),
    placeholder("What could have gone worse", "a Lessons learned prompt"),
    placeholder("The last training step is logged.", "an example timeline entry"),
    placeholder("The on-call engineer is paged.", "an example timeline entry"),
    placeholder("The job is restarted from the last checkpoint.", "an example timeline entry"),
];

/// Table cells that are placeholders: the owner `name`, and bugs `TICKET-` and a number.
fn placeholder_cell(cell: &str) -> Option<&'static str> {
    if cell == "name" {
        return Some("an owner");
    }
    let number = cell.strip_prefix("TICKET-")?;
    (!number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())).then_some("a bug")
}

/// A warning for each placeholder of `incidex template` left in `text` (the file at `path`).
pub fn find(path: &str, text: &str) -> Vec<Diagnostic> {
    let warning = |line: usize, column: usize, found: &str, what: &str| {
        Diagnostic::new(
            path,
            (line, column),
            Severity::Warning,
            format!("placeholder from `incidex template` left in: \"{found}\" ({what})"),
        )
    };
    let mut found: Vec<Diagnostic> = Vec::new();
    for p in PLACEHOLDERS {
        if let Some(at) = text.find(p.text) {
            let (line, column) = line_column(text, at);
            found.push(warning(line, column, p.text, p.what));
        }
    }
    for (n, line) in text.lines().enumerate() {
        if !line.trim_start().starts_with('|') {
            continue;
        }
        let mut offset = 0;
        for cell in line.split('|') {
            if let Some(what) = placeholder_cell(cell.trim()) {
                let column = line[..offset].chars().count() + 1 + (cell.len() - cell.trim_start().len());
                found.push(warning(n + 1, column, cell.trim(), what));
            }
            offset += cell.len() + 1;
        }
    }
    found.sort_by_key(|d| (d.line, d.column));
    found
}

/// The 1-based line and column (in characters) of byte `at` in `text`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_found_where_they_are() {
        let text = "+++\norganization = \"Example Team\"\n+++\n\n| Action item | Owner | Bug |\n|---|---|---|\n\
                    | Fix the condition that caused it. | name | TICKET-12 |\n";
        let found: Vec<String> = find("pm.md", text).iter().map(ToString::to_string).collect();
        assert_eq!(
            found,
            [
                "pm.md:2:17: warning: placeholder from `incidex template` left in: \"Example Team\" (the organization)",
                "pm.md:7:3: warning: placeholder from `incidex template` left in: \"Fix the condition that caused it.\" (an example action item)",
                "pm.md:7:39: warning: placeholder from `incidex template` left in: \"name\" (an owner)",
                "pm.md:7:46: warning: placeholder from `incidex template` left in: \"TICKET-12\" (a bug)",
            ]
        );
    }

    #[test]
    fn a_filled_in_postmortem_has_none() {
        let filled = "+++\norganization = \"Infra\"\n+++\n# Loader hang\n\n## Action items\n\n\
                      | Action item | Owner | Bug |\n|---|---|---|\n| Add a name to the runbook | kim | OPS-12 |\n";
        assert!(find("pm.md", filled).is_empty(), "{:?}", find("pm.md", filled));
    }
}
