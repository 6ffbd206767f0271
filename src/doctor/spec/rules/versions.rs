//! Known-bad releases, read from what a job spec shows of its versions: image tags
//! (`pytorch/pytorch:2.5.1-...`, `vllm/vllm-openai:v0.6.0`, the container toolkit's image),
//! the version variables images set (`NCCL_VERSION`), and `pip install name==version` pins. The
//! ranges are the node audit's own `[[version]]` rules; a rule whose condition a file cannot
//! show (the GSP firmware, containerd's config) is left to the node.

use super::{Input, Rule, launch};
use crate::doctor::{
    finding::{Finding, Outcome},
    spec::job::{Loc, Unit},
};

pub(super) const RULES: &[Rule] = &[
    Rule {
        id: "nccl.stack.version",
        title: "the NCCL release is not one the cases show breaking",
        assumes: None,
        run: nccl,
    },
    Rule {
        id: "pypkg.known.bad",
        title: "pinned Python packages are not releases the cases show breaking",
        assumes: None,
        run: pypkg,
    },
    Rule {
        id: "ctr.runtime",
        title: "the NVIDIA container toolkit deployed is not a release the cases show breaking",
        assumes: None,
        run: toolkit,
    },
];

/// A version a file shows: of what, which, where.
struct Shown<'a> {
    package: String,
    version: String,
    loc: &'a Loc,
    text: &'a str,
    /// The unit it belongs to, for the rules' conditions.
    unit: Option<&'a Unit>,
}

/// Image repositories whose tag is a package's version.
const IMAGE_PACKAGES: &[(&str, &str)] = &[
    ("pytorch/pytorch", "torch"),
    ("vllm/vllm-openai", "vllm"),
    ("container-toolkit", "container-toolkit"),
    ("lmsysorg/sglang", "sglang"),
];

/// A Python distribution's name as the rules spell it (`huggingface-hub` → `huggingface_hub`).
fn dist_name(name: &str) -> String {
    let n = name.to_ascii_lowercase().replace(['-', '.'], "_");
    if n.starts_with("nvidia_nccl") { "nccl".into() } else { n }
}

fn shown<'a>(i: &'a Input<'_>) -> Vec<Shown<'a>> {
    let mut out = Vec::new();
    for (image, loc, text) in launch::images(i) {
        let repo = image.rsplit_once(':').map_or(image, |(r, _)| r);
        let Some(tag) = launch::tag(image) else { continue };
        if let Some((_, package)) = IMAGE_PACKAGES.iter().find(|(r, _)| repo.ends_with(r)) {
            let unit = i.job.units.iter().find(|u| u.images.iter().any(|im| &im.loc == loc));
            // `2.5.1-cuda12.4-cudnn9-runtime` → `2.5.1`: the rest of a tag names the build.
            let version = tag.trim_start_matches('v').split(['-', '+']).next().unwrap_or("").to_string();
            if version.starts_with(|c: char| c.is_ascii_digit()) {
                out.push(Shown { package: (*package).into(), version, loc, text, unit });
            }
        }
    }
    for u in &i.job.units {
        for key in ["NCCL_VERSION", "NV_LIBNCCL_PACKAGE_VERSION"] {
            if let Some(s) = u.var(key) {
                out.push(Shown {
                    package: "nccl".into(),
                    version: s.value.clone(),
                    loc: &s.loc,
                    text: &s.text,
                    unit: Some(u),
                });
            }
        }
        for c in &u.commands {
            let pip = c.program().starts_with("pip")
                || c.module() == Some("pip")
                || (c.program() == "uv" && c.words.get(1).is_some_and(|w| w == "pip"));
            if !pip || !c.words.iter().any(|w| w == "install") {
                continue;
            }
            for w in &c.words {
                if let Some((name, version)) = w.split_once("==") {
                    let name = name.split('[').next().unwrap_or(name);
                    out.push(Shown {
                        package: dist_name(name),
                        version: version.to_string(),
                        loc: &c.loc,
                        text: &c.text,
                        unit: Some(u),
                    });
                }
            }
        }
    }
    out
}

/// Whether a rule's condition holds for what the file shows; `None` when the file cannot show it.
fn condition(name: &str, unit: Option<&Unit>) -> Option<bool> {
    match name {
        "cumem-not-disabled" => {
            Some(unit.is_none_or(|u| u.var("NCCL_CUMEM_ENABLE").is_none_or(|v| v.value != "0")))
        }
        _ => None,
    }
}

fn apply(i: &Input<'_>, check: &str, packages: &[&str]) -> Outcome {
    let shown: Vec<Shown<'_>> =
        shown(i).into_iter().filter(|s| packages.contains(&s.package.as_str())).collect();
    if shown.is_empty() {
        return Outcome::na(format!(
            "no version of {} in image tags, version variables or pip pins",
            packages.join(", ")
        ));
    }
    let mut findings = Vec::new();
    for s in &shown {
        for rule in i.rules.versions_of(check, &s.package) {
            if !rule.matches(&s.version) {
                continue;
            }
            if !rule.when.iter().all(|w| condition(w, s.unit) == Some(true)) {
                continue;
            }
            findings.push(
                Finding::new(
                    rule.state(),
                    &s.package,
                    format!("{} {}: {}", s.package, s.version, rule.message),
                )
                .evidence(i.evidence(s.loc, s.text))
                .action(&rule.action),
            );
        }
    }
    let list: Vec<String> = shown.iter().map(|s| format!("{} {}", s.package, s.version)).collect();
    Outcome::found(findings, list.join(", "))
}

fn nccl(i: &Input<'_>) -> Outcome {
    apply(i, "nccl.stack.version", &["nccl"])
}

fn pypkg(i: &Input<'_>) -> Outcome {
    let packages: Vec<String> =
        i.rules.versions.iter().filter(|v| v.check == "pypkg.known.bad").map(|v| v.package.clone()).collect();
    let packages: Vec<&str> = packages.iter().map(String::as_str).collect();
    apply(i, "pypkg.known.bad", &packages)
}

fn toolkit(i: &Input<'_>) -> Outcome {
    apply(i, "ctr.runtime", &["container-toolkit"])
}
