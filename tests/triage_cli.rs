//! `incidex triage` on whole logs through the built binary, over the bundled library: a job log
//! of 20,000 lines read from a file, from a gzip file and from stdin finds the same failure and
//! the same case; the failure is found wherever it is, also far before the last megabytes; the
//! evidence names its line numbers (and files, when there are several); JSON carries `read` and
//! `evidence`; and short queries rank what they name above generic words.

#[path = "eval_support/logs.rs"]
mod logs;

use std::{
    io::Write,
    process::{Command, Output, Stdio},
};

use serde_json::Value;

fn command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_incidex"));
    c.args(args)
        .env_remove("INCIDEX_DATA")
        .env_remove("COLUMNS")
        .env("XDG_CONFIG_HOME", env!("CARGO_TARGET_TMPDIR"))
        .env("XDG_STATE_HOME", env!("CARGO_TARGET_TMPDIR"))
        .env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"));
    c
}

fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = command(args)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    if let Some(input) = stdin {
        // A closed pipe would only mean the binary stopped reading early.
        let _ = child.stdin.take().expect("piped").write_all(input);
    }
    child.wait_with_output().expect("the binary finishes")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8")
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).expect("JSON on stdout")
}

/// The bus-error log (scenario 0): its failure, the line it is on, and its case.
fn bus_error_log() -> (String, u64) {
    let log = logs::generate(0, 20_000);
    let line =
        log.lines().position(|l| l.starts_with("RuntimeError: DataLoader worker")).expect("the failure") + 1;
    (log, line as u64)
}

const BUS_ERROR_CASE: &str = "2018-02-pytorch-dataloader-bus-error-small-docker-shm";

#[test]
fn a_whole_log_from_a_file_a_gzip_file_and_stdin_finds_the_same_case() {
    let (log, line) = bus_error_log();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let plain = dir.path().join("job.log");
    std::fs::write(&plain, &log).expect("write");
    let gz = dir.path().join("job.log.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(log.as_bytes()).expect("compress");
    std::fs::write(&gz, encoder.finish().expect("compress")).expect("write");
    let from_file = run(&["triage", plain.to_str().expect("utf-8 path"), "--json"], None);
    let from_gzip = run(&["triage", gz.to_str().expect("utf-8 path"), "--json"], None);
    let from_stdin = run(&["triage", "-", "--json"], Some(log.as_bytes()));
    for (how, o) in [("file", &from_file), ("gzip", &from_gzip), ("stdin", &from_stdin)] {
        assert!(o.status.success(), "{how}: {}", String::from_utf8_lossy(&o.stderr));
        let v = json(o);
        assert_eq!(v["read"]["lines"].as_u64(), Some(log.lines().count() as u64), "{how}");
        let first = &v["evidence"][0];
        assert_eq!(first["line"].as_u64(), Some(line), "{how}: {first}");
        assert!(
            first["text"].as_str().is_some_and(|t| t.contains("is killed by signal: Bus error")),
            "{how}"
        );
        assert!(
            first["matched"]
                .as_array()
                .is_some_and(|m| m.iter().any(|v| v == "Component: Training data loader")),
            "{how}: {first}"
        );
        assert_eq!(v["results"][0]["id"], BUS_ERROR_CASE, "{how}");
        assert_eq!(
            v["query"]["filters"]["facets"],
            serde_json::json!([]),
            "{how}: no inline syntax in a log"
        );
    }
}

#[test]
fn the_plain_output_says_what_was_read_and_which_lines_were_used() {
    let (log, line) = bus_error_log();
    let o = run(&["triage", "-"], Some(log.as_bytes()));
    assert!(o.status.success());
    let out = stdout(&o);
    let lines = log.lines().count();
    let head = out.lines().next().unwrap_or_default();
    assert!(head.starts_with(&format!("Read {} lines (", thousands(lines))), "{head}");
    assert!(head.contains("stood out:"), "{head}");
    assert!(out.contains(&format!("\n  L{line} ")), "{out}");
    assert!(out.contains(BUS_ERROR_CASE), "{out}");
    // Piped, the evidence is whole; with $COLUMNS it fits (tests/hostile/width.rs).
    assert!(out.contains("Please try to raise your shared memory limit."), "{out}");
    let mut c = command(&["triage", "-"]);
    let mut child = c.env("COLUMNS", "80").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(log.as_bytes()).unwrap();
    let out = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
    // Every line fits, but for a case id too long to fit beside its indent: ids are never cut
    // (README), so such a line holds the whole id and nothing after it.
    let fits = |l: &str| {
        unicode_width::UnicodeWidthStr::width(l) <= 80
            || l.split_whitespace()
                .next()
                .is_some_and(|id| id.len() + (l.len() - l.trim_start().len()) > 80 - 3)
    };
    assert!(out.lines().all(fits), "{out}");
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn a_failure_far_before_the_end_of_a_large_log_is_found() {
    // The failure in the first lines, then more than 8 MB of a healthy job's noise: a reader
    // that kept only the last megabytes would never see it.
    let (head, line) = {
        let mut log = String::from("starting\n");
        log.push_str("RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.\n");
        (log, 2u64)
    };
    let mut log = head;
    while log.len() < 9 << 20 {
        log.push_str(&logs::generate_quiet(20_000, log.len() as u64));
    }
    let o = run(&["triage", "-", "--json"], Some(log.as_bytes()));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&o);
    assert_eq!(v["evidence"][0]["line"].as_u64(), Some(line), "{}", v["evidence"]);
    assert_eq!(v["results"][0]["id"], BUS_ERROR_CASE);
}

#[test]
fn several_files_are_named_in_the_evidence() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let quiet = dir.path().join("rank0.log");
    std::fs::write(&quiet, logs::generate_quiet(2_000, 3)).expect("write");
    let failing = dir.path().join("rank7.log");
    std::fs::write(
        &failing,
        "ok\nNVRM: Xid (PCI:0000:b3:00): 79, pid=1, name=python, GPU has fallen off the bus.\n",
    )
    .expect("write");
    let o = run(&["triage", quiet.to_str().expect("path"), failing.to_str().expect("path")], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    assert!(out.contains(&format!("{}:2 ", failing.display())), "{out}");
    // A word that is no file is text, not a missing file.
    let o = run(&["triage", "NVRM:", "Xid", "79"], None);
    assert!(o.status.success());
    assert!(!stdout(&o).starts_with("Read "), "a line typed as words is searched as it is");
}

#[test]
fn short_queries_rank_what_they_name_above_generic_words() {
    // "timeout", "30" and "minutes" once outweighed NCCL and put an HTTP 530 outage first.
    let o = run(&["search", "NCCL timeout after 30 minutes", "--json", "--limit", "3"], None);
    let v = json(&o);
    for hit in v["results"].as_array().expect("results") {
        let components = hit["components"].as_array().expect("components");
        assert!(components.iter().any(|c| c == "NCCL" || c == "Distributed training framework"), "{hit}");
    }
    // And M counts the real matches, not every case that shares a word.
    let total = v["total"].as_u64().expect("total");
    let weaker = v["weaker"].as_u64().expect("weaker");
    assert!(weaker > total, "most cases that share a word are weaker matches: {total} and {weaker}");
    let all =
        json(&run(&["search", "NCCL timeout after 30 minutes", "--json", "--all", "--limit", "1"], None));
    assert_eq!(all["total"].as_u64(), Some(total + weaker));
}
