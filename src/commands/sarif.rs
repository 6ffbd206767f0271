//! SARIF 2.1.0 for the preflight's findings, so that CI systems show them on the lines of a
//! change (GitHub code scanning, GitLab, Azure DevOps read it). One run; one reporting
//! descriptor per rule (its title, what it assumes, the cases it cites); one result per finding,
//! at its file and line, with its manifest field as a logical location; a suppressed finding
//! is a result with a `suppressions` entry (SARIF's own way to keep it counted). Files that
//! could not be checked are the invocation's notifications. `tests/preflight_cli.rs` validates
//! the output against the SARIF schema.

use std::{collections::HashMap, io::Write};

use serde_json::{Value, json};

use super::write_json;
use crate::{
    doctor::{Outcome, Rules, State, spec::FileReport, spec::rules},
    support::{diag::Severity, error::Result},
    text::one_line,
};

/// The SARIF level of a state.
fn level(state: State) -> &'static str {
    match state {
        State::Crit => "error",
        State::Warn => "warning",
        _ => "note",
    }
}

/// A path as a relative URI reference (`deploy/a b.yaml` → `deploy/a%20b.yaml`).
fn uri(path: &str) -> String {
    let path = path.strip_prefix("./").unwrap_or(path);
    let mut out = String::new();
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Write the reports as one SARIF log.
pub fn write(
    reports: &[FileReport],
    data: &Rules,
    titles: &HashMap<String, String>,
    out: &mut dyn Write,
) -> Result<()> {
    let all = rules::all();
    let descriptors: Vec<Value> = all
        .iter()
        .map(|r| {
            let cases = data.cases_of(r.id);
            let mut help = String::from("The cases behind this rule (read them with `incidex show ID`):");
            for c in &cases {
                help.push_str(&format!("\n- {}", super::doctor::case_line(c, titles)));
            }
            let mut full = r.title.to_string();
            if let Some(a) = r.assumes {
                full.push_str(&format!(". Assumes: {a}."));
            }
            json!({
                "id": r.id,
                "shortDescription": { "text": r.title },
                "fullDescription": { "text": full },
                "help": { "text": help },
                "properties": { "cases": cases },
            })
        })
        .collect();
    let index = |id: &str| all.iter().position(|r| r.id == id);
    let mut results = Vec::new();
    for file in reports {
        for r in &file.results {
            let Outcome::Checked { findings, .. } = &r.outcome else { continue };
            for f in findings {
                let mut locations = Vec::new();
                for e in f.evidence.iter().filter(|e| e.source == file.path) {
                    let mut loc = json!({
                        "physicalLocation": {
                            "artifactLocation": { "uri": uri(&file.path) },
                            "region": { "startLine": e.line.unwrap_or(1).max(1), "snippet": { "text": one_line(&e.text) } },
                        }
                    });
                    if let Some(field) = &e.field {
                        loc["logicalLocations"] =
                            json!([{ "fullyQualifiedName": one_line(field), "kind": "member" }]);
                    }
                    locations.push(loc);
                }
                if locations.is_empty() {
                    locations.push(
                        json!({ "physicalLocation": { "artifactLocation": { "uri": uri(&file.path) } } }),
                    );
                }
                let mut result = json!({
                    "ruleId": r.id,
                    "level": level(f.severity),
                    "message": { "text": format!("{}: {} Fix: {}", one_line(&f.entity), one_line(&f.message), one_line(&f.action)) },
                    "locations": locations,
                    "properties": { "severity": f.severity.key(), "cases": r.cases },
                });
                if let Some(i) = index(r.id) {
                    result["ruleIndex"] = json!(i);
                }
                if let Some(s) = r.suppressed.as_ref() {
                    let kind =
                        if s.by.starts_with(&format!("{}:", file.path)) { "inSource" } else { "external" };
                    let mut sup = json!({ "kind": kind, "status": "accepted" });
                    if let Some(reason) = &s.reason {
                        sup["justification"] = json!(one_line(reason));
                    }
                    result["suppressions"] = json!([sup]);
                }
                results.push(result);
            }
        }
    }
    let notifications: Vec<Value> = reports
        .iter()
        .flat_map(|r| r.problems.iter())
        .map(|p| {
            let mut n = json!({
                "level": if p.severity == Severity::Error { "error" } else { "warning" },
                "message": { "text": one_line(&p.message) },
                "locations": [{ "physicalLocation": { "artifactLocation": { "uri": uri(&p.path) } } }],
            });
            if p.line > 0 {
                n["locations"][0]["physicalLocation"]["region"] =
                    json!({ "startLine": p.line, "startColumn": p.column.max(1) });
            }
            n
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "incidex",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": descriptors,
            }},
            "invocations": [{
                "executionSuccessful": !reports.iter().any(FileReport::has_errors),
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
        }],
    });
    write_json(out, &log)
}

#[cfg(test)]
mod tests {
    #[test]
    fn paths_become_relative_uri_references() {
        assert_eq!(super::uri("./deploy/a b.yaml"), "deploy/a%20b.yaml");
        assert_eq!(super::uri("jobs/train#1.sbatch"), "jobs/train%231.sbatch");
    }
}
