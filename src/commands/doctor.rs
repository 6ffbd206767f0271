//! `incidex doctor`: audit this node (or a saved snapshot, or an `nvidia-bug-report.log`) for the
//! gaps the library's cases show, and print each finding with its evidence and the cases it
//! cites; or all of it as JSON (a versioned envelope, documented in the README).
//!
//! Exit codes: 0 when nothing is at or above `--fail-on` (default `crit`), 1 when the audit
//! itself failed, 2 for a usage error, 3 when a finding is at or above `--fail-on`.
//!
//! Every string that came from the node (file text, a command's output, a path) is made safe
//! for a terminal with `text::one_line` before it is printed, in text and in JSON.

use std::{collections::HashMap, io::Write, path::Path, time::Duration};

use serde::Serialize;

use crate::{
    cli::DoctorArgs,
    commands::{stdout_error, write_json},
    doctor::{
        self, CheckResult, Evidence, Outcome, Report, Rules, Selection, Snapshot, State, bugreport, checks,
        probe,
    },
    support::{
        error::{Error, Result},
        export,
    },
    text::one_line,
};

/// The exit status when a finding is at or above `--fail-on`.
pub const THRESHOLD_CROSSED: u8 = 3;
/// The JSON envelope's schema version.
pub const SCHEMA_VERSION: u32 = 1;

/// Run the audit and print it; the exit status.
pub fn run(args: &DoctorArgs, out: &mut dyn Write) -> Result<u8> {
    let fail_on: State = args.fail_on.parse().map_err(|e: String| Error::Usage(format!("--fail-on: {e}")))?;
    let mut bad = doctor::unknown_ids(&args.only);
    bad.extend(doctor::unknown_ids(&args.skip));
    if let Some(first) = bad.first() {
        return Err(Error::Usage(format!("--only/--skip: {first}")));
    }
    if args.format == "sarif" {
        return Err(Error::Usage(
            "--format sarif is for job specs (incidex doctor FILE...), not for this node".into(),
        ));
    }
    if !args.ignore.is_empty() {
        return Err(Error::Usage(
            "--ignore is for job specs (incidex doctor FILE...); use --skip on a node".into(),
        ));
    }
    let json = args.json || args.format == "json";
    let rules = Rules::bundled();
    if args.list {
        list(json, &rules, out)?;
        return Ok(0);
    }
    let snap = snapshot(args)?;
    if let Some(path) = &args.save_snapshot {
        export::write_file(path, snap.to_archive().as_bytes(), args.force).map_err(|e| match e {
            export::ExportError::Exists(p) => Error::Failed(format!(
                "{} exists: give another name, or --force to replace it",
                one_line(&p.display().to_string())
            )),
            other => Error::Failed(one_line(&other.to_string())),
        })?;
        note(&format!("the snapshot is in {}", one_line(&path.display().to_string())));
    }
    let report =
        doctor::audit(&snap, &rules, &Selection { only: args.only.clone(), skip: args.skip.clone() });
    let titles = titles();
    if json {
        write_json(out, &envelope(&snap, &report, &titles))?;
    } else {
        write_text(&snap, &report, &titles, args.all, out)?;
    }
    let crossed = report.results.iter().any(|r| {
        let s = r.state();
        (s.is_finding() || s == State::Unknown) && s <= fail_on
    });
    Ok(if crossed { THRESHOLD_CROSSED } else { 0 })
}

/// The snapshot to audit: `--from FILE` (a snapshot archive or a bug report), or this node.
fn snapshot(args: &DoctorArgs) -> Result<Snapshot> {
    let Some(from) = &args.from else {
        let options =
            probe::Options { root: args.root.clone(), timeout: Duration::from_secs(args.timeout.max(1)) };
        let mut snap = probe::capture(&options, std::env::vars()).map_err(|e| Error::io(&args.root, e))?;
        snap.meta.insert("tool".into(), crate::VERSION_LINE.clone());
        return Ok(snap);
    };
    let bytes = read_bounded(from)?;
    let name = one_line(&from.display().to_string());
    if bytes.starts_with(doctor::snapshot::HEADER.as_bytes()) {
        let text = String::from_utf8_lossy(&bytes);
        let (snap, problems) = Snapshot::from_archive(&name, &text);
        for p in problems.iter().take(10) {
            note(&p.to_string());
        }
        if problems.len() > 10 {
            note(&format!("... and {} more problems in {name}", problems.len() - 10));
        }
        return Ok(snap);
    }
    if bugreport::looks_like(&bytes) {
        let (text, damage) = bugreport::text_of(&bytes);
        if let Some(n) = damage {
            note(&format!("warning: {name}: {n}"));
        }
        return Ok(bugreport::parse(&text));
    }
    Err(Error::Failed(format!(
        "{name}: neither an incidex snapshot (`{}`) nor an nvidia-bug-report log",
        doctor::snapshot::HEADER
    )))
}

/// A line on stderr; a stderr that cannot be written is not an error.
pub(crate) fn note(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "incidex: {line}");
}

fn read_bounded(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return Err(Error::Failed(format!("{}: not a regular file", one_line(&path.display().to_string()))));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(bugreport::MAX_REPORT).read_to_end(&mut bytes))
        .map_err(|e| Error::io(path, e))?;
    Ok(bytes)
}

/// The bundled cases' titles, by id.
pub(crate) fn titles() -> HashMap<String, String> {
    match crate::store::embedded::open() {
        Ok((library, _)) => library.cases.iter().map(|c| (c.id.clone(), c.title.clone())).collect(),
        Err(_) => HashMap::new(),
    }
}

fn list(json: bool, rules: &Rules, out: &mut dyn Write) -> Result<()> {
    #[derive(Serialize)]
    struct Row<'a> {
        id: &'a str,
        description: &'a str,
        needs_root: bool,
        needs_gpu: bool,
        /// A check of this node (`incidex doctor`).
        node: bool,
        /// A rule for job specs (`incidex doctor FILE...`).
        preflight: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        assumes: Option<&'a str>,
        cases: Vec<String>,
    }
    let preflight = doctor::spec::rules::all();
    let mut rows: Vec<Row<'_>> = checks::all()
        .iter()
        .map(|c| {
            let rule = preflight.iter().find(|r| r.id == c.id);
            Row {
                id: c.id,
                description: c.title,
                needs_root: c.needs_root,
                needs_gpu: c.needs_gpu,
                node: true,
                preflight: rule.is_some(),
                assumes: rule.and_then(|r| r.assumes),
                cases: rules.cases_of(c.id),
            }
        })
        .collect();
    let node_ids: Vec<&str> = checks::all().iter().map(|c| c.id).collect();
    for r in preflight.iter().filter(|r| !node_ids.contains(&r.id)) {
        rows.push(Row {
            id: r.id,
            description: r.title,
            needs_root: false,
            needs_gpu: false,
            node: false,
            preflight: true,
            assumes: r.assumes,
            cases: rules.cases_of(r.id),
        });
    }
    if json {
        return write_json(out, &rows);
    }
    writeln!(
        out,
        "Checks of this node (incidex doctor); * also checked in job specs (incidex doctor FILE...):"
    )
    .map_err(stdout_error)?;
    for r in rows.iter().filter(|r| r.node) {
        let needs = match (r.needs_root, r.needs_gpu) {
            (true, true) => "root, GPU",
            (true, false) => "root",
            (false, true) => "GPU",
            (false, false) => "-",
        };
        let star = if r.preflight { "*" } else { " " };
        writeln!(out, "{star}{:<24} {:<10} {:>2} cases  {}", r.id, needs, r.cases.len(), r.description)
            .map_err(stdout_error)?;
    }
    writeln!(out, "\nRules for job specs only (incidex doctor FILE...):").map_err(stdout_error)?;
    for r in rows.iter().filter(|r| !r.node) {
        writeln!(out, " {:<24} {:<10} {:>2} cases  {}", r.id, "-", r.cases.len(), r.description)
            .map_err(stdout_error)?;
        if let Some(a) = r.assumes {
            writeln!(out, " {:<24} {:<10}           assumes: {a}", "", "").map_err(stdout_error)?;
        }
    }
    Ok(())
}

fn context_line(snap: &Snapshot, report: &Report) -> String {
    let c = &report.context;
    let role = match c.role {
        doctor::context::Role::LoginNode => "login node",
        doctor::context::Role::ComputeNode => "compute node",
        doctor::context::Role::Pod => "Kubernetes pod",
        doctor::context::Role::Workstation => "workstation",
    };
    let mut parts = vec![role.to_string()];
    parts.push(match &c.vm {
        Some(v) => format!("VM ({v})"),
        None => "bare metal".into(),
    });
    if c.container && !c.pod {
        parts.push("in a container".into());
    }
    parts.push(match c.gpus.len() {
        0 => "no NVIDIA GPU".into(),
        1 => "1 GPU".into(),
        n => format!("{n} GPUs"),
    });
    if c.slurm {
        parts.push("Slurm".into());
    }
    if c.kubernetes && !c.pod {
        parts.push("kubelet".into());
    }
    if !c.root {
        parts.push("not root".into());
    }
    let host = snap.meta("host").map(one_line).unwrap_or_else(|| "this node".into());
    let source = match snap.meta("source") {
        Some("live") | None => String::new(),
        Some(s) => format!(", from {}", one_line(s)),
    };
    format!("{host} ({}{source})", parts.join(", "))
}

fn summary(report: &Report) -> String {
    let counts: Vec<String> = State::ALL
        .iter()
        .map(|s| (s, report.count(*s)))
        .filter(|(_, n)| *n > 0)
        .map(|(s, n)| format!("{n} {s}"))
        .collect();
    format!("{} checks: {}", report.results.len(), counts.join(", "))
}

pub(crate) fn case_line(id: &str, titles: &HashMap<String, String>) -> String {
    match titles.get(id) {
        Some(t) => format!("{id} — {}", one_line(t)),
        None => id.to_string(),
    }
}

fn write_text(
    snap: &Snapshot,
    report: &Report,
    titles: &HashMap<String, String>,
    all: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let w = |out: &mut dyn Write, s: String| writeln!(out, "{s}").map_err(stdout_error);
    w(out, format!("incidex doctor: {}", context_line(snap, report)))?;
    w(out, summary(report))?;
    for state in [State::Crit, State::Warn, State::Info] {
        for r in report.results.iter().filter(|r| r.state() == state) {
            let Outcome::Checked { findings, .. } = &r.outcome else { continue };
            for f in findings.iter().filter(|f| f.severity == state) {
                w(out, String::new())?;
                w(out, format!("{:<5} {}  {}", state.key().to_uppercase(), r.id, one_line(&f.message)))?;
                for e in &f.evidence {
                    w(out, evidence_line(e, usize::MAX))?;
                }
                if !f.action.is_empty() {
                    w(out, format!("      fix: {}", one_line(&f.action)))?;
                }
                write_cases(&r.cases, titles, out)?;
            }
        }
    }
    let unknown: Vec<&CheckResult> = report.results.iter().filter(|r| r.state() == State::Unknown).collect();
    if !unknown.is_empty() {
        w(out, String::new())?;
        w(out, format!("UNKNOWN ({}): could not look", unknown.len()))?;
        for r in unknown {
            if let Outcome::Unknown { why, how } = &r.outcome {
                let how = if how.is_empty() { String::new() } else { format!(" — {}", one_line(how)) };
                w(out, format!("  {:<24} {}{how}", r.id, one_line(why)))?;
            }
        }
    }
    let na: Vec<&CheckResult> = report.results.iter().filter(|r| r.state() == State::NotApplicable).collect();
    let pass: Vec<&CheckResult> = report.results.iter().filter(|r| r.state() == State::Pass).collect();
    if all {
        for (label, list) in [("N/A", &na), ("PASS", &pass)] {
            if list.is_empty() {
                continue;
            }
            w(out, String::new())?;
            w(out, format!("{label} ({})", list.len()))?;
            for r in list.iter() {
                let note = r.outcome.note();
                w(out, format!("  {:<24} {}", r.id, one_line(note)))?;
            }
        }
    } else if !na.is_empty() || !pass.is_empty() {
        w(out, String::new())?;
        w(out, format!("{} passed and {} do not apply here (--all lists them)", pass.len(), na.len()))?;
    }
    Ok(())
}

/// One line of evidence as the text output shows it: where it came from (`path:line`, and the
/// manifest field when there is one), then the line itself, cut at `width` columns.
pub(crate) fn evidence_line(e: &Evidence, width: usize) -> String {
    let at = e.line.map_or(String::new(), |l| format!(":{l}"));
    let field = e.field.as_deref().map_or(String::new(), |p| format!(" {}", one_line(p)));
    let text = one_line(&e.text);
    let text = if width == usize::MAX { text } else { super::truncate(&text, width) };
    format!("      {}{at}{field}: {text}", one_line(&e.source))
}

/// The first case a finding cites (with how many more), and the command that reads it.
pub(crate) fn write_cases(
    cases: &[String],
    titles: &HashMap<String, String>,
    out: &mut dyn Write,
) -> Result<()> {
    let Some(first) = cases.first() else { return Ok(()) };
    let more = if cases.len() > 1 {
        format!(" (+{} more: incidex doctor --list --json)", cases.len() - 1)
    } else {
        String::new()
    };
    writeln!(out, "      cases: {}{more}", case_line(first, titles)).map_err(stdout_error)?;
    writeln!(out, "      read: incidex show {first}").map_err(stdout_error)
}

#[derive(Serialize)]
struct Envelope<'a> {
    schema_version: u32,
    tool: String,
    host: Option<String>,
    source: String,
    context: &'a doctor::Context,
    summary: HashMap<&'static str, usize>,
    findings: Vec<JsonFinding>,
    checks: Vec<JsonCheck>,
}

/// A cited case in JSON: its id and title.
#[derive(Serialize)]
pub(crate) struct JsonCase {
    id: String,
    title: Option<String>,
}

/// The cases `ids`, with their titles.
pub(crate) fn json_cases(ids: &[String], titles: &HashMap<String, String>) -> Vec<JsonCase> {
    ids.iter().map(|id| JsonCase { id: id.clone(), title: titles.get(id).map(|t| one_line(t)) }).collect()
}

/// A line of evidence in JSON, made safe for a terminal; `field` only for a manifest's.
#[derive(Serialize)]
pub(crate) struct JsonEvidence {
    source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<String>,
    text: String,
}

impl From<&Evidence> for JsonEvidence {
    fn from(e: &Evidence) -> Self {
        JsonEvidence {
            source: one_line(&e.source),
            line: e.line,
            field: e.field.as_deref().map(one_line),
            text: one_line(&e.text),
        }
    }
}

#[derive(Serialize)]
struct JsonFinding {
    check: &'static str,
    severity: State,
    entity: String,
    message: String,
    evidence: Vec<JsonEvidence>,
    cases: Vec<JsonCase>,
    action: String,
}

#[derive(Serialize)]
struct JsonCheck {
    id: &'static str,
    description: &'static str,
    state: State,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    how: Option<String>,
    cases: Vec<String>,
}

fn envelope<'a>(snap: &Snapshot, report: &'a Report, titles: &HashMap<String, String>) -> Envelope<'a> {
    let mut findings = Vec::new();
    let mut checks = Vec::new();
    for r in &report.results {
        let (reason, how) = match &r.outcome {
            Outcome::Checked { findings: found, checked } => {
                for f in found {
                    findings.push(JsonFinding {
                        check: r.id,
                        severity: f.severity,
                        entity: one_line(&f.entity),
                        message: one_line(&f.message),
                        evidence: f.evidence.iter().map(JsonEvidence::from).collect(),
                        cases: json_cases(&r.cases, titles),
                        action: one_line(&f.action),
                    });
                }
                (found.is_empty().then(|| one_line(checked)).filter(|s| !s.is_empty()), None)
            }
            Outcome::Unknown { why, how } => (Some(one_line(why)), Some(one_line(how))),
            Outcome::NotApplicable(why) => (Some(one_line(why)), None),
        };
        checks.push(JsonCheck {
            id: r.id,
            description: r.title,
            state: r.state(),
            reason,
            how,
            cases: r.cases.clone(),
        });
    }
    findings.sort_by_key(|f| f.severity);
    Envelope {
        schema_version: SCHEMA_VERSION,
        tool: format!("incidex {}", crate::VERSION_LINE.as_str()),
        host: snap.meta("host").map(one_line),
        source: snap.meta("source").map_or_else(|| "live".into(), one_line),
        context: &report.context,
        summary: State::ALL.iter().map(|s| (s.key(), report.count(*s))).collect(),
        findings,
        checks,
    }
}
