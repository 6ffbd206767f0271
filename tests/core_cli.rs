//! The core commands (list, show, facets, check, completions, --version) driven through the
//! built binary: outputs, exit codes, and every error path of the data checks.

use std::process::{Command, Output, Stdio};

fn incidex(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_incidex"))
        .args(args)
        .env_remove("INCIDEX_DATA")
        .env("XDG_CONFIG_HOME", env!("CARGO_TARGET_TMPDIR"))
        .env("XDG_STATE_HOME", env!("CARGO_TARGET_TMPDIR"))
        .env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"))
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

#[test]
fn the_bundled_library_passes_its_own_check() {
    let o = incidex(&["check"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("in the bundled library: 0 errors"), "{}", stdout(&o));
}

#[test]
fn check_names_every_defect_with_its_position_and_fails() {
    let dir = format!("{FIXTURES}/defects");
    let o = incidex(&["check", &dir]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    for (file, want) in [
        ("missing-field.toml", ":1:1: error: case is missing required field `detection`"),
        ("unknown-key.toml", ":5:1: error: unknown key `scael` in case (did you mean `scale`?)"),
        (
            "unknown-facet.toml",
            ":11:16: warning: Root cause 'Resource exhaustoin' is not in the taxonomy; nearest: 'Resource exhaustion'",
        ),
        ("bad-date.toml", ":3:8: error: bad date: month 13 is out of range"),
        ("sub/duplicate-id.toml", ":1:1: error: duplicate id 'duplicate-id': also in "),
        ("id-mismatch.toml", ":1:6: error: id 'not-the-file-name' differs from the file name 'id-mismatch'"),
        ("bad-url.toml", ":23:7: error: source url 'ftp://example.org/report' is not an http(s) address"),
        ("empty-list.toml", ":9:15: error: `remediation` is an empty list"),
        ("control-chars.toml", ":10:11: error: `lessons` contains control or bidi characters"),
        ("syntax-error.toml", ":2:86: error: TOML syntax:"),
    ] {
        let prefix = format!("{dir}/{file}{want}");
        assert!(out.lines().any(|l| l.starts_with(&prefix)), "missing {prefix:?} in:\n{out}");
    }
    assert!(out.contains("taxonomy.toml: warning: Component 'Feature store' is used by no case"), "{out}");
    assert!(
        out.lines().last().is_some_and(|l| l.starts_with("checked ") && l.contains(" errors")),
        "the summary is the last line on stdout, as when all is well: {out}"
    );
    assert_eq!(stderr(&o), "", "nothing on stderr: the exit code says it failed");
}

#[test]
fn check_warns_for_each_placeholder_left_from_the_template() {
    let dir = tempfile::tempdir().unwrap();
    let template = incidex(&["template"]);
    std::fs::write(dir.path().join("2025-01-15-checkpoint-stall.md"), stdout(&template)).unwrap();
    let dir = dir.path().to_str().unwrap();
    let o = incidex(&["--no-bundled", "check", dir]);
    let out = stdout(&o);
    assert!(o.status.success(), "placeholders are warnings, not errors: {out}");
    let placeholders: Vec<&str> =
        out.lines().filter(|l| l.contains("placeholder from `incidex template`")).collect();
    for want in
        ["\"Example Team\" (the organization)", "\"name\" (an owner)", "\"TICKET-1\" (a bug)", "\"TICKET-4\""]
    {
        assert!(placeholders.iter().any(|l| l.contains(want) && l.contains(": warning: ")), "{want}: {out}");
    }
    assert!(placeholders.len() >= 20, "{out}");
    assert!(!out.contains(" 0 warnings"), "{out}");
}

#[test]
fn an_unknown_theme_is_a_warning_from_every_command() {
    for args in [
        &["--theme", "lite", "list"][..],
        &["--theme", "lite", "check"],
        &["--theme", "lite", "show", "nope"],
    ] {
        let o = incidex(args);
        let err = stderr(&o);
        assert!(err.starts_with("incidex: warning: no theme named 'lite'"), "{args:?}: {err}");
    }
    let config = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(config.path().join("incidex")).unwrap();
    std::fs::write(config.path().join("incidex/config.toml"), "theme = \"lite\"\n").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_incidex"))
        .args(["list"])
        .env_remove("INCIDEX_DATA")
        .env_remove("NO_COLOR")
        .env("XDG_CONFIG_HOME", config.path())
        .env("XDG_STATE_HOME", env!("CARGO_TARGET_TMPDIR"))
        .env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"))
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(stderr(&o).starts_with("incidex: warning: no theme named 'lite'"), "{}", stderr(&o));
    let o = incidex(&["--theme", "light", "list"]);
    assert_eq!(stderr(&o), "", "a known theme says nothing");
}

#[test]
fn strict_check_turns_warnings_into_errors() {
    let dir = format!("{FIXTURES}/good");
    assert!(incidex(&["check", &dir]).status.success());
    let o = incidex(&["check", "--strict", &format!("{FIXTURES}/defects")]);
    assert!(
        stdout(&o).contains("error: Root cause 'Resource exhaustoin' is not in the taxonomy"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn check_json_lists_diagnostics() {
    let o = incidex(&["check", "--json", &format!("{FIXTURES}/defects")]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let diags = v["diagnostics"].as_array().expect("diagnostics");
    assert!(diags.iter().any(|d| d["severity"] == "error" && d["line"] == 3 && d["column"] == 8));
    assert_eq!(v["cases"], 7);
}

#[test]
fn bad_user_files_are_skipped_and_the_rest_loads() {
    let o = incidex(&["--no-bundled", "--data", &format!("{FIXTURES}/defects"), "list", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let ids: Vec<&str> = v["cases"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    // Files that cannot be read as a case are skipped; the others load, even with problems.
    for skipped in ["missing-field", "bad-date", "syntax-error"] {
        assert!(!ids.contains(&skipped), "{skipped} should be skipped: {ids:?}");
    }
    for loaded in [
        "unknown-key",
        "unknown-facet",
        "not-the-file-name",
        "bad-url",
        "empty-list",
        "control-chars",
        "duplicate-id",
    ] {
        assert!(ids.contains(&loaded), "{loaded} should load: {ids:?}");
    }
    assert_eq!(ids.iter().filter(|i| **i == "duplicate-id").count(), 1);
    let err = stderr(&o);
    assert!(
        err.contains("missing-field.toml:1:1: error: case is missing required field `detection`"),
        "{err}"
    );
}

#[test]
fn list_json_holds_both_seed_cases_with_their_fields() {
    let o = incidex(&["list", "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(v["total"].as_u64().unwrap() as usize, cases.len());
    for (id, org) in [
        ("qwen3-32b-b300-epoch-end-checkpoint-deadlock", "unnamed team"),
        ("2023-03-acme-llm-pretraining-failures-seren-kalos", "Shanghai AI Laboratory"),
    ] {
        let case = cases.iter().find(|c| c["id"] == id).unwrap_or_else(|| panic!("{id} listed"));
        assert_eq!(case["organization"], org);
        assert!(case.get("date").is_some());
        for facet in ["root_causes", "components", "symptom_tags", "contributing_factors"] {
            assert!(!case[facet].as_array().unwrap().is_empty(), "{id} {facet}");
        }
        assert!(!case["sources"].as_array().unwrap().is_empty());
    }
    let acme = cases.iter().find(|c| c["id"] == "2023-03-acme-llm-pretraining-failures-seren-kalos").unwrap();
    assert_eq!(acme["date"], "2023-03");
    assert_eq!(acme["sources"][0]["url"], "https://arxiv.org/abs/2403.07648");
}

#[test]
fn list_is_newest_first_with_undated_last() {
    let o = incidex(&["list", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let dates: Vec<Option<&str>> =
        v["cases"].as_array().unwrap().iter().map(|c| c["date"].as_str()).collect();
    let known: Vec<&str> = dates.iter().flatten().copied().collect();
    let mut sorted = known.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    // Prefix order equals date order for YYYY[-MM[-DD]] strings, except that a less precise
    // date sorts before a more precise one in the same period; compare by year-month only.
    let ym = |d: &&str| d.get(..7).unwrap_or(d).to_string();
    assert_eq!(known.iter().map(ym).collect::<Vec<_>>(), sorted.iter().map(ym).collect::<Vec<_>>());
    assert_eq!(dates.last(), Some(&None), "the undated case sorts last");
}

#[test]
fn list_into_a_closed_pipe_is_not_an_error() {
    // `list --json` is far larger than a pipe buffer, so the write really meets a closed pipe.
    let mut child = Command::new(env!("CARGO_BIN_EXE_incidex"))
        .args(["list", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read one line, then close our end, as `| head -1` does.
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(&mut out, &mut first).unwrap();
    drop(out);
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "exit {:?}", o.status);
    assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn show_prints_every_section_in_three_formats() {
    let id = "2023-03-acme-llm-pretraining-failures-seren-kalos";
    let text = stdout(&incidex(&["show", id]));
    for section in [
        "Symptoms",
        "Root cause",
        "Component",
        "Detection",
        "Remediation",
        "Action items",
        "Lessons",
        "Sources",
    ] {
        assert!(text.contains(section), "{section} in:\n{text}");
    }
    assert!(text.contains("    https://arxiv.org/abs/2403.07648\n"), "URLs are printed whole");
    assert!(text.lines().all(|l| unicode_width(l) <= 80 || l.trim_start().starts_with("http")), "{text}");

    let json: serde_json::Value = serde_json::from_slice(&incidex(&["show", id, "--json"]).stdout).unwrap();
    assert_eq!(json["id"], id);
    assert_eq!(json["action_items"][0]["type"], "process");

    let md = stdout(&incidex(&["show", id, "--markdown"]));
    assert!(md.starts_with("# LLM pretraining jobs"), "{md}");
    assert!(md.contains("## Action items"));
    assert!(md.contains("[Characterization of Large Language Model Development in the Datacenter](https://arxiv.org/abs/2403.07648)"));
}

fn unicode_width(s: &str) -> usize {
    s.chars().count()
}

#[test]
fn show_unknown_id_fails_with_the_nearest_ids() {
    let o = incidex(&["show", "2023-03-acme-llm-pretraining-failures"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.starts_with("incidex: no case with id '2023-03-acme-llm-pretraining-failures'; nearest: "),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one line: {err}");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["show"][..],
        &["frobnicate"],
        &["facets", "colour"],
        &["facets", "--component", "no such thing at all"],
    ] {
        let o = incidex(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    }
}

#[test]
fn facets_counts_cases_per_value() {
    let o = incidex(&["--no-bundled", "--data", &format!("{FIXTURES}/good"), "facets", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["component"][0]["count"], 1);
    let names: Vec<&str> =
        v["component"].as_array().unwrap().iter().map(|c| c["value"].as_str().unwrap()).collect();
    assert_eq!(names, ["CPU and host memory", "Training data loader"]);
    let plain =
        stdout(&incidex(&["--no-bundled", "--data", &format!("{FIXTURES}/good"), "facets", "symptom"]));
    assert_eq!(plain, "Symptom\n    1  Training job failure\n");
}

#[test]
fn version_names_the_program_and_the_library() {
    let out = stdout(&incidex(&["--version"]));
    assert!(out.starts_with(&format!("incidex {} (library ", env!("CARGO_PKG_VERSION"))), "{out}");
    assert!(out.contains(" cases, fingerprint "), "{out}");
}

#[test]
fn completions_are_generated() {
    let out = stdout(&incidex(&["completions", "bash"]));
    assert!(out.contains("_incidex()"), "{}", &out[..out.len().min(200)]);
}

#[test]
fn ids_clashing_across_libraries_name_both_files() {
    let good = format!("{FIXTURES}/good");
    let copy = tempfile::tempdir().unwrap();
    std::fs::copy(
        format!("{good}/2024-03-example-loader-shm.toml"),
        copy.path().join("2024-03-example-loader-shm.toml"),
    )
    .unwrap();
    let o = incidex(&["--no-bundled", "--data", &good, "--data", copy.path().to_str().unwrap(), "list"]);
    let err = stderr(&o);
    assert!(
        err.contains("duplicate id '2024-03-example-loader-shm': also in ") && err.contains(&good),
        "{err}"
    );
}

/// No output of any command may carry ESC, a C1 control or a bidi control from a case file.
#[test]
fn hostile_case_text_never_reaches_the_output() {
    let dir = format!("{FIXTURES}/hostile");
    let base = ["--no-bundled", "--data", dir.as_str()];
    let commands: &[&[&str]] = &[
        &["list"],
        &["list", "--json"],
        &["show", "2024-03-hostile"],
        &["show", "2024-03-hostile", "--json"],
        &["show", "2024-03-hostile", "--markdown"],
        &["facets"],
        &["facets", "--json"],
    ];
    for args in commands {
        let all: Vec<&str> = base.iter().chain(args.iter()).copied().collect();
        let o = incidex(&all);
        assert!(o.status.success(), "{all:?}: {}", stderr(&o));
        for (name, bytes) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
            let text = String::from_utf8_lossy(bytes);
            assert!(!bytes.contains(&0x1b), "{all:?} {name} has ESC: {text:?}");
            assert!(!bytes.contains(&0x07), "{all:?} {name} has BEL");
            assert!(!text.contains('\u{9b}'), "{all:?} {name} has U+009B");
            assert!(!text.contains('\u{202e}'), "{all:?} {name} has U+202E");
        }
    }
    let o = incidex(&["check", &dir]);
    assert!(!o.stdout.contains(&0x1b) && !o.stderr.contains(&0x1b));
}

#[test]
fn a_broken_config_file_is_one_clear_error() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("incidex")).unwrap();
    std::fs::write(home.path().join("incidex/config.toml"), "theme = 3\n").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_incidex"))
        .arg("list")
        .env("XDG_CONFIG_HOME", home.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("config.toml:1:9: error: config:"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn data_directories_come_from_the_environment_and_the_config_file() {
    let good = format!("{FIXTURES}/good");
    let o = Command::new(env!("CARGO_BIN_EXE_incidex"))
        .args(["--no-bundled", "list", "--json"])
        .env("INCIDEX_DATA", format!("/nonexistent-incidex-dir:{good}"))
        .env("XDG_CONFIG_HOME", env!("CARGO_TARGET_TMPDIR"))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["total"], 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("/nonexistent-incidex-dir: error: cannot read directory"), "{}", stderr(&o));

    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("incidex")).unwrap();
    std::fs::write(home.path().join("incidex/config.toml"), format!("data = [{good:?}]\n")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_incidex"))
        .args(["--no-bundled", "list", "--json"])
        .env_remove("INCIDEX_DATA")
        .env("XDG_CONFIG_HOME", home.path())
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["total"], 1, "{}", stderr(&o));
}

#[test]
fn runs_from_any_directory_with_a_read_only_home() {
    // The library is compiled in: no files beside the binary, nothing written at start-up.
    let home = tempfile::tempdir().unwrap();
    let mut perms = std::fs::metadata(home.path()).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o555);
    std::fs::set_permissions(home.path(), perms).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_incidex"))
        .args(["show", "2023-03-acme-llm-pretraining-failures-seren-kalos", "--json"])
        .current_dir("/")
        .env("HOME", home.path())
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("INCIDEX_DATA")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    assert_eq!(std::fs::read_dir(home.path()).unwrap().count(), 0, "nothing was written to the home");
}
