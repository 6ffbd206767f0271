//! Markdown postmortems through the built binary: they load as complete cases (`show` matches a
//! golden file), `check` names every missing field with `path:line`, a team taxonomy adds values,
//! and `incidex template` prints a postmortem that loads cleanly.
//!
//! Golden files live in `tests/golden/postmortem/`; run with `UPDATE_GOLDEN=1` to rewrite them
//! after an intended change, and read the diff.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

const FIXTURES: &str = "tests/fixtures/postmortem";
const GAPS: &str = "tests/fixtures/postmortem-gaps";

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
    assert!(text.contains("checked 3 cases in 1 directory: 0 errors"), "{text}");
}

#[test]
fn check_names_every_missing_field_with_its_line() {
    let out = incidex(&["check", GAPS]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    let file = |name: &str| format!("{GAPS}/{name}");
    for want in [
        format!("{}:1:1: error: no date", file("gpu-node-loss.md")),
        format!("{}:1:1: error: no organization", file("gpu-node-loss.md")),
        format!("{}:1:1: error: no `## Detection` section", file("gpu-node-loss.md")),
        format!("{}:1:1: error: no `## Resolution` section", file("gpu-node-loss.md")),
        format!("{}:1:1: error: no `## Action items` section", file("gpu-node-loss.md")),
        format!("{}:11:1: error: the Detection section is empty", file("2024-02-01-eval-regression.md")),
        format!("{}:17:1: warning: action item type 'verify'", file("2024-02-01-eval-regression.md")),
        format!("{}:3:8: error: bad date: month 13", file("broken-front-matter.md")),
    ] {
        assert!(text.lines().any(|l| l.starts_with(&want)), "want {want:?} in:\n{text}");
    }
    // A bad front matter skips its file; the files with gaps still load.
    assert!(text.contains("checked 2 cases in 1 directory"), "the summary on stdout too: {text}");
    assert_eq!(stderr(&out), "", "a failed check says so by its exit code alone");
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
