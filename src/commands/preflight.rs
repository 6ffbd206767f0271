//! `incidex doctor FILE...`: check job specs before they run (Slurm batch scripts, Kubernetes
//! manifests, env files, launch command lines) with the preflight rules, and print each finding
//! with the file, line and field it rests on, its fix and the cases it cites; as JSON (the node
//! audit's envelope, with the files) or as SARIF 2.1.0 for code scanning ([`super::sarif`]).
//!
//! Exit codes as on the node: 3 when an unsuppressed finding is at or above `--fail-on`
//! (default `crit`); else 1 when a file could not be checked (unreadable, malformed, not a job
//! spec); else 0. 2 for a usage error.

use std::{collections::HashMap, io::Write};

use serde::Serialize;

use super::{
    doctor::{
        JsonCase, JsonEvidence, SCHEMA_VERSION, THRESHOLD_CROSSED, evidence_line, json_cases, note, titles,
        write_cases,
    },
    stdout_error, write_json,
};
use crate::{
    cli::DoctorArgs,
    doctor::{
        self, Outcome, Rules, Selection, State,
        spec::{self, FileReport, RuleResult, suppress::External},
    },
    settings::config::Ignore,
    support::error::{Error, Result},
    text::one_line,
};

/// The widest evidence line of the text output (a joined multi-line command can be long; JSON
/// and SARIF keep it whole).
const EVIDENCE_WIDTH: usize = 160;

/// Check the files and print the findings; the exit status.
pub fn run(args: &DoctorArgs, config: &[Ignore], out: &mut dyn Write) -> Result<u8> {
    let fail_on: State = args.fail_on.parse().map_err(|e: String| Error::Usage(format!("--fail-on: {e}")))?;
    if args.from.is_some() || args.save_snapshot.is_some() || args.root.as_os_str() != "/" {
        return Err(Error::Usage(
            "--from, --root and --save-snapshot are for the node audit, not for job specs".into(),
        ));
    }
    let format = match (args.json, args.format.as_str()) {
        (true, "sarif") => return Err(Error::Usage("--json and --format sarif: choose one".into())),
        (true, _) => "json",
        (false, f) => f,
    };
    let mut bad = doctor::unknown_ids(&args.only);
    bad.extend(doctor::unknown_ids(&args.skip));
    if let Some(first) = bad.first() {
        return Err(Error::Usage(format!("--only/--skip: {first}")));
    }
    let external = externals(&args.ignore, config)?;
    let rules = Rules::bundled();
    let selection = Selection { only: args.only.clone(), skip: args.skip.clone() };
    let reports = spec::check_paths(&args.files, &rules, &selection, &external);
    let titles = titles();
    if format != "text" {
        note_problems(&reports);
    }
    match format {
        "json" => write_json(out, &envelope(&reports, &titles))?,
        "sarif" => super::sarif::write(&reports, &rules, &titles, out)?,
        _ => write_text(&reports, &titles, args.all, out)?,
    }
    let crossed = reports.iter().flat_map(|r| &r.results).any(|r| {
        let s = r.state();
        (s.is_finding() || s == State::Unknown) && s <= fail_on
    });
    let failed = reports.iter().any(FileReport::has_errors);
    Ok(if crossed {
        THRESHOLD_CROSSED
    } else if failed {
        1
    } else {
        0
    })
}

/// The config file's `[[ignore]]` entries as suppressions (for this command and for the TUI
/// opened on job specs).
pub fn config_ignores(config: &[Ignore]) -> Vec<External> {
    config
        .iter()
        .map(|c| External {
            check: c.rule.clone(),
            paths: c.paths.clone(),
            reason: c.reason.clone(),
            from: "config.toml [[ignore]]".into(),
        })
        .collect()
}

/// The suppressions from outside the files: `--ignore RULE[:GLOB]` and the config's
/// `[[ignore]]` entries; an unknown rule is a usage error.
fn externals(flags: &[String], config: &[Ignore]) -> Result<Vec<External>> {
    let mut out = Vec::new();
    for f in flags {
        let (rule, paths) = match f.split_once(':') {
            Some((r, g)) => (r.to_string(), Some(g.to_string()).filter(|g| !g.is_empty())),
            None => (f.clone(), None),
        };
        out.push(External { check: rule, paths, reason: None, from: format!("--ignore {}", one_line(f)) });
    }
    out.extend(config_ignores(config));
    let ids: Vec<String> = out.iter().map(|e| e.check.clone()).collect();
    if let Some(first) = doctor::unknown_ids(&ids).first() {
        return Err(Error::Usage(format!("--ignore or [[ignore]]: {first}")));
    }
    Ok(out)
}

fn kinds(reports: &[FileReport]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for r in reports {
        if let Some(k) = r.kind
            && !seen.contains(&k.label())
        {
            seen.push(k.label());
        }
    }
    seen.join(", ")
}

fn count(reports: &[FileReport], state: State) -> usize {
    reports
        .iter()
        .flat_map(|r| &r.results)
        .map(|r| r.findings().iter().filter(|f| f.severity == state).count())
        .sum::<usize>()
}

fn write_text(
    reports: &[FileReport],
    titles: &HashMap<String, String>,
    all: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let w = |out: &mut dyn Write, s: String| writeln!(out, "{s}").map_err(stdout_error);
    let checked = reports.iter().filter(|r| r.kind.is_some()).count();
    let rules = reports.iter().map(|r| r.results.len()).max().unwrap_or(0);
    let what = if checked == 0 { String::new() } else { format!(" ({})", kinds(reports)) };
    w(out, format!("incidex doctor: {checked} of {} file(s) checked{what}, {rules} rules", reports.len()))?;
    let mut counts: Vec<String> = [State::Crit, State::Warn, State::Info]
        .iter()
        .map(|s| (s, count(reports, *s)))
        .filter(|(_, n)| *n > 0)
        .map(|(s, n)| format!("{n} {s}"))
        .collect();
    let silenced: Vec<(&FileReport, &RuleResult)> =
        reports.iter().flat_map(|f| f.results.iter().filter(|r| r.silenced()).map(move |r| (f, r))).collect();
    if !silenced.is_empty() {
        counts.push(format!("{} suppressed", silenced.len()));
    }
    w(out, if counts.is_empty() { "no findings".into() } else { counts.join(", ") })?;
    for state in [State::Crit, State::Warn, State::Info] {
        for file in reports {
            for r in &file.results {
                for f in r.findings().iter().filter(|f| f.severity == state) {
                    w(out, String::new())?;
                    w(
                        out,
                        format!(
                            "{:<5} {}  {}: {}",
                            state.key().to_uppercase(),
                            r.id,
                            one_line(&f.entity),
                            one_line(&f.message)
                        ),
                    )?;
                    for e in &f.evidence {
                        w(out, evidence_line(e, EVIDENCE_WIDTH))?;
                    }
                    if !f.action.is_empty() {
                        w(out, format!("      fix: {}", one_line(&f.action)))?;
                    }
                    if let Some(a) = r.assumes {
                        w(
                            out,
                            format!("      assumes: {a} (if not, `# incidex: ignore {}` in the file)", r.id),
                        )?;
                    }
                    write_cases(&r.cases, titles, out)?;
                }
            }
        }
    }
    if !silenced.is_empty() {
        w(out, String::new())?;
        w(out, format!("SUPPRESSED ({})", silenced.len()))?;
        for (file, r) in &silenced {
            let s = r.suppressed.as_ref().expect("silenced");
            let n = findings_count(r);
            let reason = s.reason.as_deref().map_or("no reason given".to_string(), one_line);
            w(
                out,
                format!(
                    "  {:<24} {} ({n} finding(s)) — {reason} [{}]",
                    r.id,
                    one_line(&file.path),
                    one_line(&s.by)
                ),
            )?;
        }
    }
    let problems: Vec<_> = reports.iter().flat_map(|r| &r.problems).collect();
    if !problems.is_empty() {
        w(out, String::new())?;
        w(out, format!("PROBLEMS ({})", problems.len()))?;
        for p in problems {
            w(out, format!("  {p}"))?;
        }
    }
    let (mut na, mut pass) = (Vec::new(), Vec::new());
    for file in reports {
        for r in &file.results {
            match r.outcome.state() {
                State::NotApplicable => na.push((file, r)),
                State::Pass => pass.push((file, r)),
                _ => {}
            }
        }
    }
    if all {
        for (label, list) in [("PASS", &pass), ("N/A", &na)] {
            if list.is_empty() {
                continue;
            }
            w(out, String::new())?;
            w(out, format!("{label} ({})", list.len()))?;
            for (file, r) in list.iter() {
                let why = r.outcome.note();
                w(out, format!("  {:<24} {}: {}", r.id, one_line(&file.path), one_line(why)))?;
            }
        }
    } else if !na.is_empty() || !pass.is_empty() {
        w(out, String::new())?;
        w(
            out,
            format!("{} rule results passed and {} do not apply (--all lists them)", pass.len(), na.len()),
        )?;
    }
    Ok(())
}

fn findings_count(r: &RuleResult) -> usize {
    match &r.outcome {
        Outcome::Checked { findings, .. } => findings.len(),
        _ => 0,
    }
}

#[derive(Serialize)]
struct Envelope<'a> {
    schema_version: u32,
    tool: String,
    source: &'static str,
    summary: HashMap<&'static str, usize>,
    files: Vec<JsonFile<'a>>,
    findings: Vec<JsonFinding>,
    suppressed: Vec<JsonSuppressed<'a>>,
    checks: Vec<JsonCheck<'a>>,
}

#[derive(Serialize)]
struct JsonFile<'a> {
    path: String,
    kind: Option<&'static str>,
    problems: Vec<&'a crate::support::diag::Diagnostic>,
}

#[derive(Serialize)]
struct JsonFinding {
    check: &'static str,
    file: String,
    severity: State,
    entity: String,
    message: String,
    evidence: Vec<JsonEvidence>,
    cases: Vec<JsonCase>,
    action: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    assumes: Option<&'static str>,
}

#[derive(Serialize)]
struct JsonSuppressed<'a> {
    check: &'static str,
    file: String,
    findings: usize,
    reason: Option<&'a str>,
    by: &'a str,
}

#[derive(Serialize)]
struct JsonCheck<'a> {
    id: &'static str,
    file: String,
    description: &'static str,
    state: State,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    suppressed: bool,
    cases: &'a [String],
}

fn envelope<'a>(reports: &'a [FileReport], titles: &HashMap<String, String>) -> Envelope<'a> {
    let mut findings = Vec::new();
    let mut suppressed = Vec::new();
    let mut checks = Vec::new();
    let mut summary: HashMap<&'static str, usize> = State::ALL.iter().map(|s| (s.key(), 0)).collect();
    for file in reports {
        for r in &file.results {
            *summary.entry(r.state().key()).or_default() += 1;
            if let (true, Some(s)) = (r.silenced(), &r.suppressed) {
                suppressed.push(JsonSuppressed {
                    check: r.id,
                    file: one_line(&file.path),
                    findings: findings_count(r),
                    reason: s.reason.as_deref(),
                    by: &s.by,
                });
            }
            for f in r.findings() {
                findings.push(JsonFinding {
                    check: r.id,
                    file: one_line(&file.path),
                    severity: f.severity,
                    entity: one_line(&f.entity),
                    message: one_line(&f.message),
                    evidence: f.evidence.iter().map(JsonEvidence::from).collect(),
                    cases: json_cases(&r.cases, titles),
                    action: one_line(&f.action),
                    assumes: r.assumes,
                });
            }
            let reason = match &r.outcome {
                Outcome::NotApplicable(why) | Outcome::Unknown { why, .. } => Some(one_line(why)),
                Outcome::Checked { findings, checked } => {
                    findings.is_empty().then(|| one_line(checked)).filter(|s| !s.is_empty())
                }
            };
            checks.push(JsonCheck {
                id: r.id,
                file: one_line(&file.path),
                description: r.title,
                state: r.state(),
                reason,
                suppressed: r.silenced(),
                cases: &r.cases,
            });
        }
    }
    summary.insert("suppressed", suppressed.len());
    findings.sort_by_key(|f| f.severity);
    Envelope {
        schema_version: SCHEMA_VERSION,
        tool: format!("incidex {}", crate::VERSION_LINE.as_str()),
        source: "job specs",
        summary,
        files: reports
            .iter()
            .map(|r| JsonFile {
                path: one_line(&r.path),
                kind: r.kind.map(spec::Kind::key),
                problems: r.problems.iter().collect(),
            })
            .collect(),
        findings,
        suppressed,
        checks,
    }
}

/// Print the problems of files that could not be checked on stderr too, for a reader of SARIF
/// or JSON on stdout.
pub(crate) fn note_problems(reports: &[FileReport]) {
    for p in reports.iter().flat_map(|r| &r.problems) {
        note(&p.to_string());
    }
}
