//! Preflight: the node audit's findings on the files that define a job, before it runs.
//!
//! A file is read by its content (a Slurm batch script, a shell script, a Kubernetes manifest,
//! an env file, a launch command line: [`detect`]) into one [`job::Job`] shape, and every rule
//! of [`rules`] reads that. Findings are the node audit's ([`super::finding`]): the same states,
//! evidence (here a file, a line and a field path), the cases each rule cites (from the same
//! rules data, `data/doctor.toml`) and a fix in one line. Suppressions ([`suppress`]) silence
//! one rule for one file and are counted.
//!
//! Like the rest of the audit, this reads text and nothing else: no file is written, nothing is
//! run, nothing reaches the network.

pub mod detect;
pub mod job;
pub mod manifest;
pub mod rules;
pub mod script;
pub mod suppress;
pub mod yaml;

use crate::{
    doctor::{Outcome, Rules, Selection, State},
    support::diag::{Diagnostic, Severity},
};

pub use self::{detect::Kind, suppress::Suppression};

/// The largest file read (a manifest bundle of tens of megabytes is already unusual).
pub const MAX_FILE: u64 = 64 << 20;

/// One rule's result on one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleResult {
    /// The rule's id.
    pub id: &'static str,
    /// What it looks for.
    pub title: &'static str,
    /// What it assumed, when it needed a judgement.
    pub assumes: Option<&'static str>,
    /// How it ended.
    pub outcome: Outcome,
    /// The cases it cites.
    pub cases: Vec<String>,
    /// The suppression that silenced it, if one did.
    pub suppressed: Option<Suppression>,
}

impl RuleResult {
    /// Its state; a suppressed rule's findings do not count (its state is `pass`).
    pub fn state(&self) -> State {
        if self.suppressed.is_some() && self.outcome.state().is_finding() {
            State::Pass
        } else {
            self.outcome.state()
        }
    }

    /// Whether a suppression silenced findings here.
    pub fn silenced(&self) -> bool {
        self.suppressed.is_some() && self.outcome.state().is_finding()
    }

    /// Its findings that count: none when a suppression silenced them.
    pub fn findings(&self) -> &[crate::doctor::Finding] {
        match &self.outcome {
            Outcome::Checked { findings, .. } if !self.silenced() => findings,
            _ => &[],
        }
    }
}

/// The preflight of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileReport {
    /// The file, as named on the command line.
    pub path: String,
    /// What it is; none when it is not a job spec (then `problems` says why).
    pub kind: Option<Kind>,
    /// What could not be read: a malformed document (path:line:column), a suppression naming
    /// no rule, a file that is no job spec.
    pub problems: Vec<Diagnostic>,
    /// Every selected rule's result.
    pub results: Vec<RuleResult>,
}

impl FileReport {
    /// The worst state among its unsuppressed findings.
    pub fn worst(&self) -> Option<State> {
        self.results.iter().map(RuleResult::state).filter(|s| s.is_finding()).min()
    }

    /// Whether a problem here is an error (a file that could not be read whole).
    pub fn has_errors(&self) -> bool {
        self.problems.iter().any(|p| p.severity == Severity::Error)
    }
}

/// A file's problem at `line:column`.
fn problem(
    path: &str,
    line: usize,
    column: usize,
    severity: Severity,
    message: impl Into<String>,
) -> Diagnostic {
    Diagnostic::new(path, (line, column), severity, message.into())
}

/// Check one file's text. `external` are the suppressions from outside the file (config,
/// command line) that cover it.
pub fn check_text(
    path: &str,
    text: &str,
    rules: &Rules,
    selection: &Selection,
    external: &[suppress::External],
) -> FileReport {
    let mut report =
        FileReport { path: path.to_string(), kind: None, problems: Vec::new(), results: Vec::new() };
    let kind = match detect::detect(path, text) {
        Ok(kind) => kind,
        Err(why) => {
            report.problems.push(problem(path, 0, 0, Severity::Error, format!("not checked: {why}")));
            return report;
        }
    };
    report.kind = Some(kind);
    let name = kind.label();
    let job = match kind {
        Kind::Manifest => {
            let (docs, err) = yaml::parse(text);
            if let Some(e) = err {
                let kept = if docs.is_empty() {
                    String::new()
                } else {
                    format!(" (the {} document(s) before it are checked)", docs.len())
                };
                report.problems.push(problem(
                    path,
                    e.line,
                    e.column,
                    Severity::Error,
                    format!("malformed YAML: {}{kept}", e.message),
                ));
            }
            manifest::read(&docs)
        }
        Kind::EnvFile => script::read_env_file(text, name),
        Kind::BatchScript | Kind::ShellScript | Kind::CommandLine => script::read_script(text, name),
    };
    let mut suppressions = suppress::inline(path, text);
    suppressions.extend(external.iter().filter(|e| e.covers(path)).map(|e| Suppression {
        check: e.check.clone(),
        reason: e.reason.clone(),
        by: e.from.clone(),
    }));
    let all = rules::all();
    for s in &suppressions {
        if !all.iter().any(|r| r.id == s.check) {
            let (line, _) = s.by.rsplit_once(':').map_or((1, ""), |(_, l)| (l.parse().unwrap_or(1), ""));
            let near = all.iter().min_by_key(|r| strsim::levenshtein(r.id, &s.check)).map_or("", |r| r.id);
            report.problems.push(problem(
                path,
                line,
                1,
                Severity::Warning,
                format!(
                    "`incidex: ignore {}` names no rule (did you mean `{near}`?)",
                    crate::text::one_line(&s.check)
                ),
            ));
        }
    }
    let input = rules::Input { path, job: &job, rules };
    for rule in all.iter().filter(|r| selection.runs(r.id)) {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (rule.run)(&input)))
            .unwrap_or_else(|_| {
                Outcome::unknown("the rule failed on this file (a bug in incidex)", "report it with the file")
            });
        report.results.push(RuleResult {
            id: rule.id,
            title: rule.title,
            assumes: rule.assumes,
            outcome,
            cases: rules.cases_of(rule.id),
            suppressed: suppressions.iter().find(|s| s.check == rule.id).cloned(),
        });
    }
    report
}

/// Read and check one file (`-` is standard input). A file that cannot be read is a report
/// with one problem, so that the other files are still checked.
pub fn check_file(
    path: &std::path::Path,
    rules: &Rules,
    selection: &Selection,
    external: &[suppress::External],
) -> FileReport {
    let name = crate::text::one_line(&path.display().to_string());
    let fail = |message: String| FileReport {
        path: name.clone(),
        kind: None,
        problems: vec![problem(&name, 0, 0, Severity::Error, message)],
        results: Vec::new(),
    };
    let bytes = match read_bounded(path) {
        Ok(b) => b,
        Err(why) => return fail(why),
    };
    let text = match decode(&bytes) {
        Ok(t) => t,
        Err(why) => return fail(why),
    };
    check_text(&name, &text, rules, selection, external)
}

fn read_bounded(path: &std::path::Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .take(MAX_FILE + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
    } else {
        let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
        if meta.is_dir() {
            return Err("a directory (give it as a directory to walk it)".into());
        }
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_FILE + 1).read_to_end(&mut bytes))
            .map_err(|e| format!("cannot read: {e}"))?;
    }
    if bytes.len() as u64 > MAX_FILE {
        return Err(format!("larger than {} MiB: not checked", MAX_FILE >> 20));
    }
    Ok(bytes)
}

/// The text of a file: UTF-8 (a BOM dropped), or UTF-16 with a BOM.
fn decode(bytes: &[u8]) -> Result<String, String> {
    let utf16 = |le: bool| -> String {
        let units: Vec<u16> = bytes[2..]
            .chunks_exact(2)
            .map(|c| if le { u16::from_le_bytes([c[0], c[1]]) } else { u16::from_be_bytes([c[0], c[1]]) })
            .collect();
        String::from_utf16_lossy(&units)
    };
    match bytes {
        [0xFF, 0xFE, ..] => Ok(utf16(true)),
        [0xFE, 0xFF, ..] => Ok(utf16(false)),
        _ => {
            let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
            String::from_utf8(b.to_vec()).map_err(|e| {
                format!(
                    "not UTF-8 text (invalid byte at offset {}): not checked",
                    e.utf8_error().valid_up_to()
                )
            })
        }
    }
}

/// The files under `dir` that may be job specs, by name (`.yaml`, `.yml`, `.json`, `.sh`,
/// `.sbatch`, `.slurm`, `.env`), sorted; hidden directories and symbolic links to directories
/// are not followed.
pub fn walk(dir: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    const EXTENSIONS: &[&str] = &["yaml", "yml", "json", "sh", "bash", "sbatch", "slurm", "env"];
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), 0usize)];
    while let Some((d, depth)) = stack.pop() {
        let entries = match std::fs::read_dir(&d) {
            Ok(e) => e,
            Err(e) if depth == 0 => return Err(e),
            Err(_) => continue,
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                if !name.starts_with('.') && depth < 32 {
                    stack.push((path, depth + 1));
                }
            } else if kind.is_file() || (kind.is_symlink() && path.is_file()) {
                let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
                if ext.is_some_and(|e| EXTENSIONS.contains(&e.as_str())) || name == ".env" {
                    out.push(path);
                }
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Check every path: the files named, and the job-spec files under the directories named. A
/// file found by walking that is no job spec (a Helm values file, another tool's config) is
/// skipped; one named on the command line is reported.
pub fn check_paths(
    inputs: &[std::path::PathBuf],
    rules: &Rules,
    selection: &Selection,
    external: &[suppress::External],
) -> Vec<FileReport> {
    let mut reports = Vec::new();
    for input in inputs {
        if !input.is_dir() {
            reports.push(check_file(input, rules, selection, external));
            continue;
        }
        match walk(input) {
            Ok(files) => {
                for f in files {
                    let report = check_file(&f, rules, selection, external);
                    let not_a_spec = report.kind.is_none()
                        && report
                            .problems
                            .iter()
                            .any(|p| p.message.starts_with("not checked: no Kubernetes object"));
                    if !not_a_spec {
                        reports.push(report);
                    }
                }
            }
            Err(e) => {
                let name = crate::text::one_line(&input.display().to_string());
                reports.push(FileReport {
                    path: name.clone(),
                    kind: None,
                    problems: vec![problem(
                        &name,
                        0,
                        0,
                        Severity::Error,
                        format!("cannot read the directory: {e}"),
                    )],
                    results: Vec::new(),
                });
            }
        }
    }
    reports
}
