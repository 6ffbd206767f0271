//! `incidex search` and `incidex triage` through the built binary, over the small fixture
//! library in `tests/fixtures/search` (so the numbers do not move as the bundled library grows):
//! the JSON contract, ordering, inline syntax, flags, paging, exit codes, pasted logs on stdin,
//! and plain output that fits `$COLUMNS` with no control characters.

use std::{
    io::Write,
    process::{Command, Output, Stdio},
};

use serde_json::Value;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/search");

fn command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_incidex"));
    c.args(["--no-bundled", "--data", FIXTURE])
        .args(args)
        .env_remove("INCIDEX_DATA")
        .env_remove("COLUMNS")
        .env("XDG_CONFIG_HOME", env!("CARGO_TARGET_TMPDIR"))
        .env("XDG_STATE_HOME", env!("CARGO_TARGET_TMPDIR"))
        .env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"));
    c
}

fn incidex(args: &[&str]) -> Output {
    command(args).stdin(Stdio::null()).output().expect("the binary runs")
}

fn with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().expect("stdin is piped").write_all(input).expect("stdin takes the paste");
    child.wait_with_output().expect("the binary finishes")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", stdout(o), stderr(o)))
}

/// The keys of an object, sorted (serde_json's map does not keep the written order).
fn keys(v: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = v.as_object().expect("an object").keys().map(String::as_str).collect();
    keys.sort_unstable();
    keys
}

fn sorted(mut want: Vec<&str>) -> Vec<&str> {
    want.sort_unstable();
    want
}

fn ids(v: &Value) -> Vec<String> {
    v["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["id"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn the_json_contract_holds() {
    let o = incidex(&["search", "ranks hung at the end of the epoch", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(
        keys(&v),
        sorted(vec!["query", "total", "weaker", "offset", "results", "suggestions", "summary", "breakdown"])
    );
    assert_eq!(v["query"]["text"], "ranks hung at the end of the epoch");
    assert!(v["query"]["filters"]["facets"].is_array());
    assert!(v["total"].as_u64().is_some_and(|t| t >= 1));
    assert_eq!(v["offset"], 0);
    let first = &v["results"][0];
    assert_eq!(first["id"], "2025-01-nccl-epoch-end-hang");
    assert_eq!(
        keys(first),
        sorted(vec![
            "id",
            "title",
            "date",
            "organization",
            "score",
            "components",
            "symptom_tags",
            "root_causes",
            "contributing_factors",
            "sources"
        ])
    );
    assert_eq!(first["date"], "2025-01-10");
    assert_eq!(first["organization"], "Meta");
    assert!(first["score"].as_f64().is_some_and(|s| s > 0.0));
    assert_eq!(first["components"], serde_json::json!(["NCCL", "Checkpointing"]));
    assert_eq!(first["symptom_tags"], serde_json::json!(["Hang"]));
    assert_eq!(first["root_causes"], serde_json::json!(["Collective call mismatch"]));
    assert_eq!(first["contributing_factors"], serde_json::json!(["No hang or stall monitoring"]));
    assert_eq!(
        first["sources"],
        serde_json::json!([{
            "title": "Fixture source for 2025-01-nccl-epoch-end-hang",
            "url": "https://example.org/2025-01-nccl-epoch-end-hang"
        }])
    );
    let hang = v["suggestions"]
        .as_array()
        .expect("suggestions")
        .iter()
        .find(|s| s["value"] == "Hang")
        .expect("the sentence suggests Hang");
    assert_eq!(keys(hang), sorted(vec!["kind", "value", "count", "matched", "certain", "basis"]));
    assert_eq!(hang["basis"], serde_json::json!({"by": "alias", "words": ["hung"]}), "what it rests on");
    assert_eq!(hang["certain"], true, "hung is a form of hang, no guess");
    assert_eq!(hang["kind"], "symptom");
    assert_eq!(hang["count"], 1);
    assert_eq!(hang["matched"], serde_json::json!(["hung"]));
    for s in v["suggestions"].as_array().expect("suggestions") {
        let kind = s["kind"].as_str().expect("kind is a string");
        assert!(["root_cause", "component", "symptom", "contributing_factor"].contains(&kind), "{kind}");
    }
    assert_eq!(
        keys(&v["breakdown"]),
        sorted(vec!["root_cause", "component", "symptom", "contributing_factor", "year"])
    );
    assert!(v["breakdown"]["year"][0]["value"].is_string() && v["breakdown"]["year"][0]["count"].is_u64());
    assert!(v["summary"].as_str().is_some_and(|s| s.contains("involve")), "{}", v["summary"]);
}

#[test]
fn no_sentence_is_newest_first_with_ties_by_id_and_null_scores() {
    let v = json(&incidex(&["search", "--json"]));
    assert_eq!(
        ids(&v),
        [
            "2025-01-nccl-epoch-end-hang",
            "2024-07-gpu-xid-79",
            "2024-07-nccl-thermal-slow",
            "2024-03-loader-bus-error",
            "2023-05-etcd-timeouts",
            "2022-11-api-429"
        ]
    );
    assert!(v["results"].as_array().expect("results").iter().all(|r| r["score"].is_null()));
    assert_eq!(v["summary"], "These 6 cases involve NCCL and CPU and host memory.");
    assert_eq!(
        v["breakdown"]["year"],
        serde_json::json!([
            {"value": "2025", "count": 1},
            {"value": "2024", "count": 3},
            {"value": "2023", "count": 1},
            {"value": "2022", "count": 1}
        ])
    );
}

#[test]
fn inline_syntax_and_flags_filter_alike() {
    for (args, want) in [
        (vec!["component:nccl"], vec!["2025-01-nccl-epoch-end-hang", "2024-07-nccl-thermal-slow"]),
        (vec!["--component", "nccl"], vec!["2025-01-nccl-epoch-end-hang", "2024-07-nccl-thermal-slow"]),
        (vec!["component:nccl -root:overheating"], vec!["2025-01-nccl-epoch-end-hang"]),
        (vec!["--component", "NCCL", "--root-cause", "-thermal"], vec!["2025-01-nccl-epoch-end-hang"]),
        (vec!["org:meta year:2024"], vec!["2024-07-gpu-xid-79"]),
        (vec!["--org", "meta", "--after", "2024", "--before", "2024-12"], vec!["2024-07-gpu-xid-79"]),
        (
            vec!["after:2024-06 before:2025"],
            vec!["2025-01-nccl-epoch-end-hang", "2024-07-gpu-xid-79", "2024-07-nccl-thermal-slow"],
        ),
        (vec!["symptom:\"training job failure\""], vec!["2024-03-loader-bus-error"]),
        (vec!["org:\"example lab\" -component:nccl"], vec!["2024-03-loader-bus-error"]),
    ] {
        let mut full = vec!["search"];
        full.extend(&args);
        full.push("--json");
        let o = incidex(&full);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(ids(&json(&o)), want, "{args:?}");
    }
}

#[test]
fn text_that_looks_like_syntax_is_searched_not_rejected() {
    for sentence in ["10.0.0.1:8080", "error: connection refused", "don't", "foo\"", "AND", "\"", "-"] {
        let o = incidex(&["search", "--json", "--", sentence]);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{sentence:?}: {}", stderr(&o));
        let v = json(&o);
        assert!(v["query"]["filters"]["facets"].as_array().is_some_and(Vec::is_empty), "{sentence:?}");
    }
}

#[test]
fn paging_is_consistent() {
    let all = ids(&json(&incidex(&["search", "gpu", "--json", "--limit", "100", "--all"])));
    assert!(all.len() >= 3, "{all:?}");
    let page = json(&incidex(&["search", "gpu", "--json", "--limit", "2", "--offset", "1", "--all"]));
    assert_eq!(ids(&page), all[1..3]);
    assert_eq!(page["offset"], 1);
    assert_eq!(page["total"].as_u64(), Some(all.len() as u64));
    assert_eq!(page["weaker"], 0, "--all lists the weaker matches, so none is left over");
    // Without --all the real matches come first, the same ones, and the rest are counted.
    let strong = json(&incidex(&["search", "gpu", "--json", "--limit", "100"]));
    let total = strong["total"].as_u64().expect("total") as usize;
    assert_eq!(ids(&strong), all[..total]);
    assert_eq!(total + strong["weaker"].as_u64().expect("weaker") as usize, all.len());
}

#[test]
fn unknown_values_are_usage_errors_naming_the_nearest() {
    let o = incidex(&["search", "component:nccxx hang"]); // two typos from NCCL: too far
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("incidex: unknown component 'nccx"), "{}", stderr(&o));
    assert!(stderr(&o).contains("nearest: 'NCCL'"), "{}", stderr(&o));
    let o = incidex(&["search", "--org", "zzyzx"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--org: unknown organization 'zzyzx'; nearest: "), "{}", stderr(&o));
    let o = incidex(&["search", "year:20x4"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("'20x4' is not a year"), "{}", stderr(&o));
}

#[test]
fn nothing_matching_exits_1() {
    let o = incidex(&["search", "zzqqxxyy"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), "incidex: no case matches\n");
    let o = incidex(&["search", "zzqqxxyy", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(json(&o)["total"], 0);
    let o = incidex(&["search", "component:nccl org:openai"]);
    assert_eq!(o.status.code(), Some(1), "filters that exclude everything");
}

#[test]
fn plain_output_fits_columns_and_carries_no_control_characters() {
    // Piped, nothing is cut unless $COLUMNS asks for a width (tests/hostile/width.rs).
    for args in [
        vec!["search"],
        vec!["search", "ranks hung at the end of the epoch \u{1b}[31m red \u{9b}2J"],
        vec!["search", "gpu", "--component", "GPU"],
        vec!["triage", "NVRM: Xid 79, GPU has fallen off the bus \u{1b}]52;c;aGk=\u{7}"],
    ] {
        let o = command(&args).env("COLUMNS", "80").stdin(Stdio::null()).output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let out = stdout(&o);
        assert!(!out.is_empty());
        for line in out.lines() {
            assert!(unicode_width::UnicodeWidthStr::width(line) <= 80, "{args:?}: {line:?}");
            assert!(
                !line.chars().any(|c| incidex::text::is_unsafe_char(c) && c != '\t'),
                "{args:?}: {line:?}"
            );
        }
    }
}

#[test]
fn triage_reads_a_pasted_multi_line_log_from_stdin() {
    let log = b"[rank3]:[E ProcessGroupNCCL.cpp:616] Watchdog caught collective operation timeout: \
WorkNCCL(SeqNum=5, OpType=ALLREDUCE) ran for 1800000 milliseconds before timing out.\n\
NCCL WARN Timeout waiting for peers\n\
kernel: NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n\
\xff\xfe not UTF-8\n";
    let o = with_stdin(&["triage", "-", "--json"], log);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let found: Vec<(String, String)> = v["suggestions"]
        .as_array()
        .expect("suggestions")
        .iter()
        .map(|s| {
            (s["kind"].as_str().unwrap_or("").to_string(), s["value"].as_str().unwrap_or("").to_string())
        })
        .collect();
    for want in
        [("symptom", "Hang"), ("component", "NCCL"), ("component", "GPU"), ("symptom", "Lost GPU or node")]
    {
        assert!(found.iter().any(|(k, n)| k == want.0 && n == want.1), "{want:?} in {found:?}");
    }
    assert!(
        v["query"]["filters"]["facets"].as_array().is_some_and(Vec::is_empty),
        "no inline syntax in a log"
    );
    let top: Vec<String> = ids(&v).into_iter().take(3).collect();
    assert_eq!(top[0], "2024-07-gpu-xid-79", "{top:?}");
    assert!(top.contains(&"2025-01-nccl-epoch-end-hang".to_string()), "{top:?}");

    let plain =
        with_stdin(&["triage", "-"], b"DataLoader worker (pid 1234) is killed by signal: Bus error\n");
    assert!(plain.status.success(), "{}", stderr(&plain));
    let out = stdout(&plain);
    assert!(out.starts_with("Read 1 line (60 B); this line stood out:\n  L1 "), "{out}");
    assert!(out.contains("\nSuggested filters"), "{out}");
    assert!(out.contains("--component \"Training data loader\""), "{out}");
    assert!(out.contains("2024-03-loader-bus-error"), "{out}");
}

#[test]
fn triage_takes_words_too_and_says_when_nothing_is_found() {
    let o = incidex(&["triage", "429", "Too", "Many", "Requests"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("--symptom \"Requests throttled\""), "{}", stdout(&o));
    let o = incidex(&["triage", "zzqqxxyy"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("No taxonomy value found in the text."), "{}", stdout(&o));
    for empty in [&b""[..], b"  \n\n", b"!!! ... ---"] {
        let o = with_stdin(&["triage", "-"], empty);
        assert_eq!(o.status.code(), Some(1), "{empty:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "incidex: no words to triage in the text\n");
    }
}

#[test]
fn limit_zero_is_a_usage_error_about_limit_not_offset() {
    for args in [&["search", "hang", "--limit", "0"][..], &["triage", "NCCL timeout", "--limit", "0"][..]] {
        let o = incidex(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("--limit") && err.contains("at least 1"), "{args:?}: {err}");
        assert!(!err.contains("--offset"), "{args:?}: {err}");
    }
}

#[test]
fn an_offset_past_the_end_is_exit_1_in_text_and_in_json() {
    let text = incidex(&["search", "gpu", "--offset", "100000"]);
    assert_eq!(text.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&text.stderr).contains("is past the last result"));
    let json = incidex(&["search", "gpu", "--offset", "100000", "--json"]);
    assert_eq!(json.status.code(), Some(1), "the same exit code as in text");
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("the document is still printed");
    assert!(v["results"].as_array().unwrap().is_empty());
    assert!(v["total"].as_u64().unwrap() > 0);
}
