//! `incidex check [DIR]...`: validate libraries, one problem per line, then a summary line, all
//! on stdout; exit 1 when there is an error. The bundled library's check also holds the node
//! audit's rules (`data/doctor.toml`) to its cases.

use std::{io::Write, path::PathBuf};

use crate::{
    cli::CheckArgs,
    commands::{stdout_error, write_json},
    corpus::check::{CheckOptions, CheckReport, check},
    support::error::{Error, Result},
};

/// Check and print every problem; fail (exit 1) when there is an error. With no directory
/// named, the libraries in use are checked (`in_use`: the config's `data`, `$INCIDEX_DATA`,
/// `--data`), and the bundled library when there are none.
pub fn run(args: &CheckArgs, in_use: &[PathBuf], out: &mut dyn Write) -> Result<()> {
    let dirs = if args.dirs.is_empty() { in_use.to_vec() } else { args.dirs.clone() };
    let mut report: CheckReport = check(&CheckOptions { dirs: dirs.clone(), strict: args.strict });
    if dirs.is_empty() {
        // The bundled library's node-audit rules cite its cases: an unknown case or check id,
        // or a malformed range, is an error like a bad case file.
        let ids: std::collections::HashSet<&str> = crate::corpus::bundled::CASES
            .iter()
            .map(|(path, _)| path.trim_start_matches("data/cases/").trim_end_matches(".toml"))
            .collect();
        report.diagnostics.extend(crate::doctor::validate_rules(
            crate::doctor::rules::BUNDLED_PATH,
            crate::doctor::rules::BUNDLED,
            &|id| ids.contains(id),
        ));
    }
    if args.json {
        write_json(out, &report)?;
    } else {
        for d in &report.diagnostics {
            writeln!(out, "{d}").map_err(stdout_error)?;
        }
    }
    let what =
        if dirs.is_empty() { "the bundled library".to_string() } else { plural(dirs.len(), "directory") };
    let mut summary = format!(
        "checked {} in {what}: {}, {}",
        plural(report.cases, "case"),
        plural(report.errors(), "error"),
        plural(report.warnings(), "warning")
    );
    if report.hints() > 0 {
        summary.push_str(&format!(", {}", plural(report.hints(), "hint")));
    }
    // The summary goes where the problems went (stdout), pass or fail; the exit code says which.
    if !args.json {
        writeln!(out, "{summary}").map_err(stdout_error)?;
    }
    if report.passed() { Ok(()) } else { Err(Error::Reported) }
}

fn plural(n: usize, word: &str) -> String {
    match (n, word) {
        (1, _) => format!("1 {word}"),
        (_, "directory") => format!("{n} directories"),
        _ => format!("{n} {word}s"),
    }
}
