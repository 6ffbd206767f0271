//! Versions the cases show breaking: NCCL (from its wheel or its library's file name) and the
//! Python packages of the active environment, read from their `.dist-info` directory names —
//! never by importing or running Python. The ranges are data (`data/doctor.toml`).

use super::{Check, Input, Look};
use crate::doctor::finding::{Evidence, Finding, Outcome};

pub(super) const CHECKS: &[Check] = &[
    Check {
        id: "nccl.stack.version",
        title: "NCCL is not a release the cases show hanging or failing",
        needs_root: false,
        needs_gpu: false,
        run: nccl,
    },
    Check {
        id: "pypkg.known.bad",
        title: "the Python environment holds no release the cases show failing",
        needs_root: false,
        needs_gpu: false,
        run: python_packages,
    },
];

fn nccl(i: &Input<'_>) -> Outcome {
    let mut found: Vec<(String, Evidence)> = Vec::new();
    for (name, version, dir) in super::dist_infos(i.snap) {
        if name.starts_with("nvidia_nccl_cu") {
            found.push((version.clone(), Evidence::new(dir, format!("{name}-{version}.dist-info"))));
        }
    }
    let mut dirs: Vec<&str> = super::ld_dirs(i.snap);
    dirs.extend(["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/local/lib"]);
    for d in dirs {
        if let Look::Found(names) = i.snap.dir(d) {
            for n in names {
                if let Some(v) = n.strip_prefix("libnccl.so.").filter(|v| v.matches('.').count() >= 2) {
                    found.push((v.to_string(), Evidence::new(d, n.clone())));
                }
            }
        }
    }
    if found.is_empty() {
        if let Some(why) = unreadable_env(i) {
            return Outcome::unknown(why, "run it as the user who owns the Python environment");
        }
        return Outcome::na(
            "no NCCL found (no nvidia-nccl wheel in the Python environments, no libnccl.so.2.x.y in the library directories)",
        );
    }
    let cumem_off = i.snap.env("NCCL_CUMEM_ENABLE") == Some("0");
    let mut findings = Vec::new();
    for (version, evidence) in &found {
        for rule in i.rules.versions_of("nccl.stack.version", "nccl") {
            if !rule.matches(version) || rule.when.iter().any(|w| w == "cumem-not-disabled" && cumem_off) {
                continue;
            }
            findings.push(
                Finding::new(
                    rule.state(),
                    format!("NCCL {version}"),
                    format!("NCCL {version}: {}", rule.message),
                )
                .evidence(evidence.clone())
                .action(rule.action.clone()),
            );
        }
    }
    let versions: Vec<&str> = found.iter().map(|(v, _)| v.as_str()).collect();
    Outcome::found(findings, format!("NCCL {} is in no known-bad range", versions.join(", ")))
}

/// A Python environment directory that could not be listed.
fn unreadable_env(i: &Input<'_>) -> Option<String> {
    i.snap.files.iter().find_map(|(path, entry)| match entry {
        crate::doctor::snapshot::Entry::Unreadable(why) if path.ends_with("/site-packages") => {
            Some(format!("{path}: {why}"))
        }
        _ => None,
    })
}

fn python_packages(i: &Input<'_>) -> Outcome {
    let dists = super::dist_infos(i.snap);
    if dists.is_empty() {
        if let Some(why) = unreadable_env(i) {
            return Outcome::unknown(why, "run it as the user who owns the Python environment");
        }
        return Outcome::na(
            "no Python environment found (activate it, or set VIRTUAL_ENV or CONDA_PREFIX, and run again)",
        );
    }
    let mut findings = Vec::new();
    for rule in i.rules.versions.iter().filter(|r| r.check == "pypkg.known.bad") {
        let want = rule.package.to_ascii_lowercase().replace('-', "_");
        for (name, version, dir) in &dists {
            if *name == want && rule.matches(version) {
                findings.push(
                    Finding::new(
                        rule.state(),
                        format!("{} {version}", rule.package),
                        format!("{} {version}: {}", rule.package, rule.message),
                    )
                    .evidence(Evidence::new(dir.clone(), format!("{name}-{version}.dist-info")))
                    .action(rule.action.clone()),
                );
            }
        }
    }
    Outcome::found(findings, format!("{} Python packages, none in a known-bad range", dists.len()))
}
