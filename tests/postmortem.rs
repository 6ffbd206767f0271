//! Markdown postmortems through the built binary: they load as complete cases (`show` matches a
//! golden file) in the shapes teams write them, `check` names every missing field with
//! `path:line` and keeps errors for what makes a case unusable, a team taxonomy adds values, a
//! team's `incidex.toml` gives every postmortem its organization and default tags, inferred
//! facets keep a precision floor over the fixtures, and `incidex template` prints a postmortem
//! that loads cleanly.
//!
//! Golden files live in `tests/golden/postmortem/`; run with `UPDATE_GOLDEN=1` to rewrite them
//! after an intended change, and read the diff.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

const FIXTURES: &str = "tests/fixtures/postmortem";
const GAPS: &str = "tests/fixtures/postmortem-gaps";
/// A team's folder: its `incidex.toml` gives every postmortem in it the team's organization.
const TEAM: &str = "tests/fixtures/postmortem-team";
/// Postmortems whose root-cause sections are written in sentences that name no alias.
const SENTENCES: &str = "tests/fixtures/postmortem-sentences";
/// Which values inferred from the fixtures a person would accept.
const LABELS: &str = "tests/fixtures/postmortem-inference-labels.toml";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn incidex(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_incidex"))
        .current_dir(root())
        .args(args)
        .env("COLUMNS", "80")
        .env_remove("INCIDEX_DATA")
        .env("XDG_CONFIG_HOME", root().join("tests/fixtures/no-config"))
        .output()
        .expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("UTF-8 output")
}

/// Compare `actual` with the golden file `name`, or rewrite it when `UPDATE_GOLDEN` is set.
fn assert_golden(name: &str, actual: &str) {
    let path = root().join("tests/golden/postmortem").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().expect("golden dir")).expect("golden dir is writable");
        std::fs::write(&path, actual).expect("golden file is writable");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1 to create it)", path.display()));
    if expected != actual {
        let first = expected
            .lines()
            .zip(actual.lines())
            .position(|(e, a)| e != a)
            .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
        panic!(
            "{} differs from the output at line {}:\n--- expected\n{}\n--- actual\n{}",
            path.display(),
            first + 1,
            expected.lines().skip(first).take(5).collect::<Vec<_>>().join("\n"),
            actual.lines().skip(first).take(5).collect::<Vec<_>>().join("\n"),
        );
    }
}

#[test]
fn each_postmortem_shows_as_its_golden_file() {
    for id in ["2024-06-12-checkpoint-stall", "dataloader-shm-bus-error", "2023-11-07-feature-store-rollout"]
    {
        let out = incidex(&["--no-bundled", "--data", FIXTURES, "show", id]);
        assert!(out.status.success(), "{id}: {}", stderr(&out));
        assert_golden(&format!("{id}.txt"), &stdout(&out));
    }
}

#[test]
fn postmortems_are_complete_cases_in_json() {
    let out = incidex(&["--no-bundled", "--data", FIXTURES, "show", "2024-06-12-checkpoint-stall", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let case: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    for key in ["symptoms", "trigger", "root_cause", "detection", "lessons", "timeline"] {
        assert!(case[key].as_str().is_some_and(|s| !s.is_empty()), "{key}: {case}");
    }
    assert_eq!(case["date"], "2024-06-12");
    assert_eq!(case["remediation"].as_array().map(Vec::len), Some(3));
    let items = case["action_items"].as_array().expect("action items");
    let kinds: Vec<&str> = items.iter().filter_map(|i| i["type"].as_str()).collect();
    assert_eq!(kinds, ["detect", "mitigate", "prevent", "process"]);
    assert!(items.iter().all(|i| i["origin"] == "report"));
    assert_eq!(case["impact"]["gpu_hours_lost"], 1620.0);
    assert_eq!(case["bundled"], false);
    assert!(case["path"].as_str().is_some_and(|p| p.ends_with("2024-06-12-checkpoint-stall.md")));
}

#[test]
fn a_postmortem_without_front_matter_takes_its_id_title_and_date_from_the_file() {
    let out = incidex(&["--no-bundled", "--data", FIXTURES, "show", "dataloader-shm-bus-error", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let case: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(case["id"], "dataloader-shm-bus-error");
    assert_eq!(
        case["title"],
        "Data loader workers died with bus errors after the move to the new container runtime"
    );
    assert_eq!(case["date"], "2024-03-04");
    assert_eq!(case["organization"], "Vision Training Platform");
}

#[test]
fn facets_a_postmortem_leaves_out_are_inferred_and_marked() {
    let out = incidex(&["--no-bundled", "--data", FIXTURES, "show", "dataloader-shm-bus-error", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let case: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let components: Vec<&str> =
        case["components"].as_array().expect("components").iter().filter_map(|v| v.as_str()).collect();
    assert!(components.contains(&"Training data loader"), "{components:?}");
    let inferred = case["inferred_facets"].as_array().expect("inferred facets");
    assert!(
        inferred.iter().any(|f| f["kind"] == "component"
            && f["value"] == "Training data loader"
            && f["inferred"] == true),
        "{inferred:?}"
    );
    // Every inferred value is on the case, and every value of this untagged case is inferred.
    let listed = ["root_causes", "components", "symptom_tags", "contributing_factors"]
        .iter()
        .map(|k| case[k].as_array().map_or(0, Vec::len))
        .sum::<usize>();
    assert_eq!(listed, inferred.len());
    // The tagged case has nothing inferred.
    let out = incidex(&["--no-bundled", "--data", FIXTURES, "show", "2024-06-12-checkpoint-stall", "--json"]);
    let tagged: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(tagged.get("inferred_facets").is_none(), "{tagged}");
    // Inferred values filter like written ones.
    let out =
        incidex(&["--no-bundled", "--data", FIXTURES, "facets", "component", "--component", "dataloader"]);
    assert!(stdout(&out).lines().any(|l| l.contains("Training data loader")), "{}", stdout(&out));
}

#[test]
fn check_passes_a_folder_of_good_postmortems_and_skips_a_readme() {
    let out = incidex(&["check", FIXTURES]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    let file = |name: &str| format!("{FIXTURES}/{name}");
    let lines: Vec<&str> = text.lines().collect();
    for want in [
        format!(
            "{}:7:48: warning: Contributing factor 'Cosmic rays' is not in the taxonomy",
            file("2023-11-07-feature-store-rollout.md")
        ),
        format!(
            "{}:36:1: hint: section 'Supporting information' is not one incidex reads",
            file("2023-11-07-feature-store-rollout.md")
        ),
        format!("{}: hint: not read as a postmortem", file("README.md")),
        format!("{}:1:1: hint: Component inferred from the text: ", file("dataloader-shm-bus-error.md")),
    ] {
        assert!(lines.iter().any(|l| l.starts_with(&want)), "want {want:?} in:\n{text}");
    }
    assert!(!lines.iter().any(|l| l.contains(": error: ")), "{text}");
    assert!(text.contains("checked 7 cases in 1 directory: 0 errors"), "{text}");
    // The team's folder checks clean too, organization and all.
    let out = incidex(&["check", TEAM]);
    let text = stdout(&out);
    assert!(out.status.success() && !text.contains("organization"), "{text}");
    assert!(text.contains("checked 4 cases in 1 directory: 0 errors"), "{text}");
}

#[test]
fn check_names_every_missing_field_with_its_line() {
    let out = incidex(&["check", GAPS]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    let file = |name: &str| format!("{GAPS}/{name}");
    for want in [
        format!("{}:1:1: warning: no date", file("gpu-node-loss.md")),
        format!("{}:1:1: warning: no organization", file("gpu-node-loss.md")),
        format!("{}:1:1: warning: no `## Detection` section", file("gpu-node-loss.md")),
        format!("{}:1:1: warning: no `## Resolution` section", file("gpu-node-loss.md")),
        format!("{}:1:1: warning: no `## Action items` section", file("gpu-node-loss.md")),
        format!("{}:11:1: warning: the Detection section is empty", file("2024-02-01-eval-regression.md")),
        format!("{}:17:1: warning: action item type 'verify'", file("2024-02-01-eval-regression.md")),
        format!("{}:3:8: error: bad date: month 13", file("broken-front-matter.md")),
    ] {
        assert!(text.lines().any(|l| l.starts_with(&want)), "want {want:?} in:\n{text}");
    }
    // A bad front matter skips its file; the files with gaps still load.
    assert!(text.contains("checked 2 cases in 1 directory"), "the summary on stdout too: {text}");
    assert_eq!(stderr(&out), "", "a failed check says so by its exit code alone");
    // Gaps are warnings: the only error is the front matter that cannot be read.
    let errors: Vec<&str> = text.lines().filter(|l| l.contains(": error: ")).collect();
    assert_eq!(errors.len(), 1, "{text}");
    assert!(errors[0].starts_with(&file("broken-front-matter.md")), "{text}");
}

/// The postmortems written for these tests, one per shape teams write them in.
const SHAPES: [&str; 8] = [
    // Setext headings; `Key: value` lines under the title; detection only in the timeline.
    "nan-loss-after-warmup",
    // A `## Metadata` list; Executive Summary; Customer / User Impact; Root Cause Analysis with
    // Primary Cause and Contributing Factors; Resolution & Recovery; an ID/Description/Owner/Due
    // table of Corrective Actions; Lessons Learned in three parts.
    "checkpoint-writes-slowed-by-metadata-server",
    // Bold labels (`**Date**: ...`); Incident Summary; Mitigations; a task list of Follow-ups.
    "inference-pods-evicted-kv-cache",
    // A summary that opens with a fact list; What happened; How it was fixed; Preventive Actions.
    "dns-timeouts-during-job-start",
    // A two-column fact table under the title; TL;DR; numbered root causes; no Detection heading.
    "2026-05-14-ib-link-flap-collective-hang",
    // Front matter giving some facets; Follow-up items; an Appendix incidex does not read.
    "2025-12-02-driver-rollout-xid",
    // A `Postmortem:` title with labelled lines; Overview; Five Whys; Response; Next steps.
    "dataloader-worker-memory-leak",
    // A `##` title and `###` sections.
    "object-store-throttling",
];

fn show_json(data: &str, id: &str) -> serde_json::Value {
    let out = incidex(&["--no-bundled", "--data", data, "--data", TEAM, "show", id, "--json"]);
    assert!(out.status.success(), "{id}: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn each_postmortem_shape_shows_as_its_golden_json() {
    for id in SHAPES {
        let out = incidex(&["--no-bundled", "--data", FIXTURES, "--data", TEAM, "show", id, "--json"]);
        assert!(out.status.success(), "{id}: {}", stderr(&out));
        assert_golden(&format!("{id}.json"), &stdout(&out));
    }
}

#[test]
fn postmortems_in_every_shape_load_with_their_date_organization_sections_and_action_items() {
    for id in SHAPES {
        let case = show_json(FIXTURES, id);
        assert!(case["date"].is_string(), "{id}: undated");
        assert!(case["organization"].as_str().is_some_and(|o| !o.is_empty()), "{id}: no organization");
        assert!(case["symptoms"].as_str().is_some_and(|s| s.len() > 100), "{id}: {}", case["symptoms"]);
        assert!(case["root_cause"].as_str().is_some_and(|s| !s.is_empty()), "{id}: no root cause");
        assert!(case["remediation"].as_array().is_some_and(|r| !r.is_empty()), "{id}: no remediation");
        assert!(case["action_items"].as_array().is_some_and(|a| a.len() >= 2), "{id}: no action items");
    }
    // The summary's fact list is read as facts, not left in the summary.
    let dns = show_json(FIXTURES, "dns-timeouts-during-job-start");
    assert!(!dns["symptoms"].as_str().unwrap_or_default().contains("Severity"), "{dns}");
    assert_eq!(dns["impact"]["duration"], "2h 15m");
    // Customer / User Impact is part of what people saw; Primary Cause and Contributing Factors
    // are the root cause's own parts.
    let checkpoint = show_json(FIXTURES, "checkpoint-writes-slowed-by-metadata-server");
    assert!(
        checkpoint["symptoms"].as_str().unwrap_or_default().contains("Impact: The pretraining team lost")
    );
    let cause = checkpoint["root_cause"].as_str().unwrap_or_default();
    assert!(
        cause.starts_with("Primary Cause: A cleanup job") && cause.contains("Contributing Factors:"),
        "{cause}"
    );
    let lessons = checkpoint["lessons"].as_str().unwrap_or_default();
    for part in ["What went well:", "What went wrong:", "Where we got lucky:"] {
        assert!(lessons.contains(part), "{part} in {lessons}");
    }
    // The action-item table's ID and Due columns do not become the text.
    let items = checkpoint["action_items"].as_array().expect("action items");
    assert!(
        items[0]["text"].as_str().is_some_and(|t| t.starts_with("Alert when a checkpoint save")),
        "{items:?}"
    );
}

#[test]
fn detection_is_read_from_the_timeline_when_there_is_no_detection_section() {
    let case = show_json(FIXTURES, "2026-05-14-ib-link-flap-collective-hang");
    assert_eq!(
        case["detection"],
        "From the timeline: 04:02 The no-progress alert fires and pages the training on-call."
    );
    let out = incidex(&["check", FIXTURES]);
    let text = stdout(&out);
    assert!(
        text.lines().any(|l| l.starts_with(&format!(
            "{FIXTURES}/2026-05-14-ib-link-flap-collective-hang.md:1:1: hint: no `## Detection` section: detection is read from the timeline"
        ))),
        "{text}"
    );
}

#[test]
fn owner_and_incident_id_are_shown_fields() {
    for (id, owner, incident) in [
        ("nan-loss-after-warmup", "Ines Marchetti", "TP-311"),
        ("checkpoint-writes-slowed-by-metadata-server", "Kofi Mensah", "INC-4471"),
        ("inference-pods-evicted-kv-cache", "Priya Raman", "SERVE-902"),
        ("dns-timeouts-during-job-start", "Mateo Ruiz", "INC-3902"),
        ("2026-05-14-ib-link-flap-collective-hang", "Yusuf Demir", "FM-77"),
    ] {
        let case = show_json(FIXTURES, id);
        assert_eq!(
            (case["owner"].as_str(), case["incident_id"].as_str()),
            (Some(owner), Some(incident)),
            "{id}"
        );
        let out = incidex(&["--no-bundled", "--data", FIXTURES, "--data", TEAM, "show", id]);
        let text = stdout(&out);
        assert!(text.contains(&format!("Incident ID: {incident} · Owner: {owner}")), "{id}:\n{text}");
    }
    // A case without them has neither key.
    let case = show_json(FIXTURES, "2024-06-12-checkpoint-stall");
    assert!(case.get("owner").is_none() && case.get("incident_id").is_none(), "{case}");
}

#[test]
fn a_team_file_gives_every_postmortem_below_it_its_organization() {
    for id in SHAPES {
        let case = show_json(FIXTURES, id);
        let below = case["path"].as_str().is_some_and(|p| p.starts_with(TEAM));
        let organization = case["organization"].as_str().unwrap_or_default();
        // Files outside the team's folder name their own; files inside take the team's.
        assert_eq!(organization == "Example Training Platform", below, "{id}: {organization}");
    }
}

#[test]
fn team_defaults_add_tags_and_the_nearest_team_file_wins() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    std::fs::write(
        root.join("incidex.toml"),
        "organization = \"Example Serving\"\ncomponents = [\"Inference engine\"]\n",
    )
    .expect("write");
    std::fs::create_dir(root.join("search")).expect("mkdir");
    std::fs::write(root.join("search/incidex.toml"), "organization = \"Example Search\"\n").expect("write");
    let report = "# Replies were cut short\n\nDate: 2026-02-03\n\n## Summary\n\nReplies stopped mid-sentence.\n\n\
## Detection\n\nUsers reported it.\n\n## Resolution\n\n- Rolled back.\n\n## Action items\n\n- Add a canary.\n";
    std::fs::write(root.join("replies-cut-short.md"), report).expect("write");
    std::fs::write(
        root.join("search/2026-03-01-index-lag.md"),
        report.replace("Replies were cut short", "Index lag"),
    )
    .expect("write");
    std::fs::write(
        root.join("own-org.md"),
        report.replace("Date: 2026-02-03", "Date: 2026-02-04\nTeam: Example Evals"),
    )
    .expect("write");
    let data = root.to_str().expect("UTF-8 temp path");
    let serving = show_json(data, "replies-cut-short");
    assert_eq!(serving["organization"], "Example Serving");
    assert_eq!(serving["components"], serde_json::json!(["Inference engine"]));
    // Team tags are written values, not inferred ones.
    assert!(serving.get("inferred_facets").is_none_or(|f| !f.to_string().contains("Inference engine")));
    let search = show_json(data, "2026-03-01-index-lag");
    assert_eq!(search["organization"], "Example Search");
    // The nearest team file is the whole of the defaults: no tags from the parent.
    assert!(!search["components"].to_string().contains("Inference engine"), "{search}");
    assert_eq!(show_json(data, "own-org")["organization"], "Example Evals");
    // `check` has nothing to say about organizations, and a team file is not a case.
    let out = incidex(&["check", data]);
    let text = stdout(&out);
    assert!(!text.contains("no organization") && !text.contains("incidex.toml"), "{text}");
    assert!(text.contains("checked 3 cases"), "{text}");
    // A team file's own mistakes are named with their line.
    std::fs::write(root.join("incidex.toml"), "organisation = \"Typo\"\n").expect("write");
    let out = incidex(&["check", data]);
    assert!(
        stdout(&out).lines().any(|l| l.contains("incidex.toml:1:1: error: unknown key `organisation`")),
        "{}",
        stdout(&out)
    );
}

#[test]
fn check_reserves_errors_for_what_makes_a_case_unusable() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    // No title, nothing else either: still an error.
    std::fs::write(root.join("untitled.md"), "Date: 2026-01-01\n\n## Summary\n\nSomething broke.\n")
        .expect("write");
    // Not UTF-8.
    std::fs::write(root.join("latin1.md"), b"# Caf\xe9 outage\n\n## Summary\n\nDown.\n").expect("write");
    // Everything missing but a title and a summary: warnings only.
    std::fs::write(root.join("sparse.md"), "# Sparse report\n\n## Summary\n\nThe job hung.\n")
        .expect("write");
    let out = incidex(&["check", root.to_str().expect("UTF-8 temp path")]);
    let text = stdout(&out);
    let errors: Vec<&str> = text.lines().filter(|l| l.contains(": error: ")).collect();
    assert_eq!(errors.len(), 2, "{text}");
    assert!(errors.iter().any(|l| l.contains("untitled.md") && l.contains("no title")), "{text}");
    assert!(errors.iter().any(|l| l.contains("latin1.md") && l.contains("not UTF-8")), "{text}");
    assert!(text.lines().filter(|l| l.contains("sparse.md")).all(|l| !l.contains(": error: ")), "{text}");
    assert!(text.lines().any(|l| l.contains("sparse.md") && l.contains("warning: no date")), "{text}");
}

#[test]
fn inferred_values_respect_negation_in_the_fixtures() {
    // "Their GPU memory was fine ... the job did not hang."
    let nan = show_json(FIXTURES, "nan-loss-after-warmup");
    let symptoms = nan["symptom_tags"].to_string();
    assert!(symptoms.contains("Loss spike or divergence"), "{symptoms}");
    assert!(!symptoms.contains("GPU out of memory") && !symptoms.contains("Hang"), "{symptoms}");
    // "It was not a GPU OOM."
    let leak = show_json(FIXTURES, "dataloader-worker-memory-leak");
    assert!(!leak["symptom_tags"].to_string().contains("GPU out of memory"), "{leak}");
    // "nothing crashed and nothing hung"; a checkpoint-write incident is not about GPUs.
    let checkpoint = show_json(FIXTURES, "checkpoint-writes-slowed-by-metadata-server");
    assert!(!checkpoint["symptom_tags"].to_string().contains("Hang"), "{checkpoint}");
    assert!(!checkpoint["components"].to_string().contains("\"GPU\""), "{checkpoint}");
    // "the GPUs, NCCL and the network fabric were ruled out early".
    let dns = show_json(FIXTURES, "dns-timeouts-during-job-start");
    let components = dns["components"].to_string();
    assert!(!components.contains("NCCL") && !components.contains("\"GPU\""), "{components}");
    // "If the retry budget had been lower, the job could have crashed; it did not."
    let throttled = show_json(FIXTURES, "object-store-throttling");
    assert!(!throttled["symptom_tags"].to_string().contains("Training job failure"), "{throttled}");
}

/// Precision of inferred values over the fixtures must stay at or above this.
const PRECISION_FLOOR: f64 = 0.9;

#[test]
fn inference_precision_over_the_fixtures_stays_above_the_floor() {
    let labels_text = std::fs::read_to_string(root().join(LABELS)).expect("labels file");
    let labels: toml::Table = toml::from_str(&labels_text).expect("labels are TOML");
    let list = |case: &toml::Value, key: &str| -> Vec<String> {
        case.get(key)
            .and_then(|v| v.as_array())
            .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
            .unwrap_or_default()
    };
    let out = incidex(&["--no-bundled", "--data", FIXTURES, "--data", TEAM, "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let (mut accepted, mut inferred) = (0usize, 0usize);
    let mut unlabelled = Vec::new();
    for case in listed["cases"].as_array().expect("cases") {
        let id = case["id"].as_str().expect("id");
        let values: Vec<&str> = case["inferred_facets"]
            .as_array()
            .map(|a| a.iter().filter_map(|f| f["value"].as_str()).collect())
            .unwrap_or_default();
        let label = labels.get(id);
        for value in values {
            let (accept, reject) = label.map(|l| (list(l, "accept"), list(l, "reject"))).unwrap_or_default();
            inferred += 1;
            if accept.iter().any(|a| a == value) {
                accepted += 1;
            } else if !reject.iter().any(|r| r == value) {
                unlabelled.push(format!("{id}: {value}"));
            }
        }
    }
    assert!(unlabelled.is_empty(), "label these inferred values in {LABELS}: {unlabelled:?}");
    assert!(inferred >= 30, "too few inferred values to measure: {inferred}");
    let precision = accepted as f64 / inferred as f64;
    println!("inference precision over the fixtures: {accepted}/{inferred} = {precision:.3}");
    assert!(precision >= PRECISION_FLOOR, "precision {precision:.3} is below the floor {PRECISION_FLOOR}");
}

#[test]
fn a_team_taxonomy_adds_values_that_filter_by_alias() {
    let out = incidex(&[
        "--no-bundled",
        "--data",
        FIXTURES,
        "facets",
        "component",
        "--component",
        "feature service",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.lines().any(|l| l.contains("Feature store") && l.contains('1')), "{text}");
}

#[test]
fn unknown_facet_values_stay_on_the_case_with_a_warning() {
    let out =
        incidex(&["--no-bundled", "--data", FIXTURES, "show", "2023-11-07-feature-store-rollout", "--json"]);
    assert!(out.status.success());
    let case: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(case["contributing_factors"], serde_json::json!(["Fast global rollout", "Cosmic rays"]));
    assert!(stderr(&out).contains("warning: Contributing factor 'Cosmic rays' is not in the taxonomy"));
}

#[test]
fn the_template_is_a_postmortem_that_passes_check() {
    let out = incidex(&["template"]);
    assert!(out.status.success());
    let template = stdout(&out);
    assert!(template.starts_with("+++\n"));
    let dir = tempfile::tempdir().expect("temp dir");
    let path: &Path = &dir.path().join("2025-01-15-from-the-template.md");
    std::fs::write(path, &template).expect("write");
    let dir_arg = dir.path().to_str().expect("UTF-8 temp path");
    let out = incidex(&["check", dir_arg]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("checked 1 case in 1 directory: 0 errors"), "{}", stdout(&out));
}

#[test]
fn root_causes_written_in_sentences_are_inferred_with_their_reasons() {
    // What `check` says of each postmortem: every inferred value with what it rests on.
    let out = incidex(&["--no-bundled", "--data", SENTENCES, "check"]);
    let hints: String = stdout(&out)
        .lines()
        .chain(stderr(&out).lines())
        .filter(|l| l.contains("inferred from the text"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_golden("sentences-check.txt", &hints);
    let labels: toml::Table =
        toml::from_str(&std::fs::read_to_string(root().join(LABELS)).expect("labels")).expect("TOML");
    let (mut right, mut all) = (0, 0);
    for entry in std::fs::read_dir(root().join(SENTENCES)).expect("fixtures") {
        let path = entry.expect("entry").path();
        let id = path.file_stem().and_then(|s| s.to_str()).expect("name").to_string();
        let case = show_json(SENTENCES, &id);
        // Each names no root-cause alias; a root cause is inferred all the same, and said to
        // be learned.
        let inferred = case["inferred_facets"].as_array().cloned().unwrap_or_default();
        let causes: Vec<&serde_json::Value> =
            inferred.iter().filter(|f| f["kind"] == "root_cause" || f["kind"] == "RootCause").collect();
        assert!(!causes.is_empty(), "{id}: no root cause inferred: {inferred:?}");
        for f in &causes {
            assert!(f["reason"].as_str().is_some_and(|r| r.starts_with("learned from")), "{id}: {f}");
        }
        let show = stdout(&incidex(&["--no-bundled", "--data", SENTENCES, "show", &id]));
        assert_golden(&format!("sentences-{id}.txt"), &show);
        let accept: Vec<&str> =
            labels[&id]["accept"].as_array().expect("accept").iter().filter_map(|v| v.as_str()).collect();
        for f in &inferred {
            all += 1;
            right += usize::from(accept.contains(&f["value"].as_str().unwrap_or_default()));
        }
    }
    println!("inferred from postmortems written in sentences: {right} of {all} accepted");
}
