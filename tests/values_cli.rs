//! What a new user meets first, through the built binary over the small search fixture library:
//! a typed value resolves the same way at every entry point (flags, inline syntax, `--org`,
//! `graph NODE`, `facets`, `checklist`) and says on stderr what it was read as when it was not
//! exact; and the messages and exit codes of the rough edges (an `--offset` past the end,
//! `triage` with nothing to read).

use std::process::{Command, Output, Stdio};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/search");

fn incidex(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_incidex"))
        .args(["--no-bundled", "--data", FIXTURE])
        .args(args)
        .env_remove("INCIDEX_DATA")
        .env_remove("COLUMNS")
        .env("XDG_CONFIG_HOME", env!("CARGO_TARGET_TMPDIR"))
        .env("XDG_STATE_HOME", env!("CARGO_TARGET_TMPDIR"))
        .env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"))
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const NCCLL: &str = "incidex: note: read component 'nccll' as 'NCCL' (the nearest spelling)\n";

#[test]
fn a_near_spelling_resolves_at_every_entry_point_and_says_so() {
    for args in [
        &["search", "--component", "nccll"][..],
        &["search", "component:nccll"],
        &["search", "--component", "-nccll"],
        &["facets", "symptom", "--component", "nccll"],
        &["checklist", "--component", "nccll"],
        &["graph", "nccll"],
        &["graph", "component:nccll"],
        &["triage", "hang", "--component", "nccll"],
    ] {
        let o = incidex(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), NCCLL, "{args:?}");
        assert!(!stdout(&o).contains("note:"), "{args:?}: the note is not part of the answer");
    }
    let graph = stdout(&incidex(&["graph", "nccll"]));
    let exact = stdout(&incidex(&["graph", "component:NCCL"]));
    assert_eq!(graph, exact, "the same node");
}

#[test]
fn an_exact_name_or_alias_resolves_without_a_note() {
    for args in [
        &["search", "--component", "NCCL"][..],
        &["search", "component:nccl"],
        &["search", "--org", "meta"],
        &["graph", "nccl"],
    ] {
        let o = incidex(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?}");
    }
}

#[test]
fn organizations_resolve_like_facet_values() {
    for args in [&["search", "--org", "metaa"][..], &["search", "org:metaa"], &["facets", "--org", "metaa"]] {
        let o = incidex(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "incidex: note: read organization 'metaa' as 'Meta' (the nearest spelling)\n");
    }
    let o = incidex(&["search", "--org", "metaa", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["query"]["filters"]["organizations"], serde_json::json!(["Meta"]));
    let o = incidex(&["checklist", "--component", "nccl", "--org", "zzyzx"]);
    assert_eq!(o.status.code(), Some(2), "--org resolves in every command that takes it");
    assert!(stderr(&o).starts_with("incidex: --org: unknown organization 'zzyzx'"), "{}", stderr(&o));
}

#[test]
fn an_unknown_graph_node_names_the_nearest_values_too() {
    let o = incidex(&["graph", "ncclx-hang"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nearest values: component:NCCL"), "{}", stderr(&o));
}

#[test]
fn an_offset_past_the_last_result_says_so() {
    let total = {
        let o = incidex(&["search", "--json"]);
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
        v["total"].as_u64().expect("a total")
    };
    let o = incidex(&["search", "--offset", "500"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), format!("incidex: --offset 500 is past the last result: {total} cases match\n"));
    assert_eq!(stdout(&o), "", "no '0 of N' header");
}

#[test]
fn triage_with_nothing_to_read_is_a_usage_error() {
    let o = incidex(&["triage"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("usage: incidex triage"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn metaa_is_meta_in_the_bundled_library_where_several_organizations_start_with_meta() {
    let o = Command::new(env!("CARGO_BIN_EXE_incidex"))
        .args(["search", "--org", "metaa", "--json"])
        .env_remove("INCIDEX_DATA")
        .env("XDG_CONFIG_HOME", env!("CARGO_TARGET_TMPDIR"))
        .env("XDG_STATE_HOME", env!("CARGO_TARGET_TMPDIR"))
        .env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"))
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "incidex: note: read organization 'metaa' as 'Meta' (the nearest spelling)\n");
}
