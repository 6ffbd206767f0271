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

/// The values suggested in a JSON answer, in order.
fn suggested(v: &Value) -> Vec<String> {
    v["suggestions"].as_array().unwrap().iter().map(|s| s["value"].as_str().unwrap().to_string()).collect()
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

/// A phrase may step over a linking verb or a number (`gpu got lost`, `training 20% slower`),
/// and the word stepped over names nothing: before, `got` counted as a naming word there, and the
/// one case with `got` in its title (GPU overheating, "training got slower") came first for
/// "gpu got lost".
#[test]
fn a_word_a_phrase_steps_over_suggests_and_weighs_nothing() {
    let slow = json(&run(&["search", "training 20% slower", "--json", "--limit", "3"], None));
    assert!(suggested(&slow).contains(&"Slow training".to_string()), "{}", slow["suggestions"]);
    let lost = json(&run(&["search", "gpu got lost", "--json", "--limit", "3"], None));
    assert!(suggested(&lost).contains(&"Lost GPU or node".to_string()), "{}", lost["suggestions"]);
    let top: Vec<&str> =
        lost["results"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert!(!top.contains(&"2020-06-tensorflow-training-slower-and-slower-gpu-overheating"), "{top:?}");
}

/// A log whose failure is on line 2.
const XID_LOG: &str =
    "ok\nNVRM: Xid (PCI:0000:b3:00): 79, pid=1, name=python, GPU has fallen off the bus.\nstep 3\n";

fn run_os(args: &[&std::ffi::OsStr]) -> Output {
    command(&[])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_mistyped_log_name_or_a_directory_is_an_error_naming_it_not_text() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let missing = dir.path().join("slurm-81234.out");
    for arg in ["slurm-81234.out", "logs/rank0", "dmesg.txt", "job.log.gz"] {
        let o = run(&["triage", arg], None);
        assert_eq!(o.status.code(), Some(1), "{arg}: {}", stdout(&o));
        assert!(o.stdout.is_empty(), "{arg}: nothing searched: {}", stdout(&o));
        assert!(stderr(&o).contains(&format!("{arg}: no such file")), "{arg}: {}", stderr(&o));
        assert!(stderr(&o).contains("--text"), "the way to mean text: {}", stderr(&o));
    }
    let o = run(&["triage", dir.path().to_str().expect("path")], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty(), "{}", stdout(&o));
    assert!(stderr(&o).contains("is a directory"), "{}", stderr(&o));
    // With --text the same words are text.
    let o = run(&["triage", "--text", missing.to_str().expect("path")], None);
    assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!stderr(&o).contains("no such file"), "{}", stderr(&o));
}

#[test]
fn an_unreadable_log_beside_readable_ones_is_named_and_the_rest_is_triaged() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let good = dir.path().join("rank0.log");
    std::fs::write(&good, XID_LOG).expect("write");
    let missing = dir.path().join("rank1.log");
    let o = run(
        &[
            "triage",
            missing.to_str().expect("path"),
            good.to_str().expect("path"),
            dir.path().to_str().expect("path"),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "the exit status says not all was read");
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(out.contains(&format!("{}:2 ", good.display())), "the readable log is triaged: {out}");
    assert!(out.contains("Best cases"), "{out}");
    assert!(err.contains(&format!("warning: {}: no such file", missing.display())), "{err}");
    assert!(err.contains("is a directory"), "{err}");
    assert!(err.contains("2 inputs could not be read"), "{err}");
}

#[test]
fn a_log_whose_name_is_not_utf8_is_read_and_so_are_its_neighbours() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let odd = dir.path().join(std::ffi::OsStr::from_bytes(b"rank\xff.log"));
    std::fs::write(&odd, XID_LOG).expect("write");
    let plain = dir.path().join("rank0.log");
    std::fs::write(&plain, "step 1\nstep 2\n").expect("write");
    let o = run_os(&["triage".as_ref(), odd.as_os_str(), plain.as_os_str()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Read 5 lines"), "both logs read: {out}");
    assert!(out.contains("rank\\xff.log:2 "), "the name with its odd byte shown: {out}");
}

#[test]
fn dev_fd_is_read_as_a_stream() {
    let o = run(&["triage", "/dev/fd/0"], Some(XID_LOG.as_bytes()));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("Read 3 lines"), "{}", stdout(&o));
    assert!(stdout(&o).contains("L2 "), "{}", stdout(&o));
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).expect("compress");
    gz.finish().expect("compress")
}

#[test]
fn a_damaged_gzip_log_keeps_what_was_read_and_says_what_was_not() {
    // The failure early on, then 100,000 lines of noise.
    let mut log = String::from(XID_LOG);
    for i in 0..100_000 {
        log.push_str(&format!("step {i} loss 2.{i}\n"));
    }
    let whole = gzip(log.as_bytes());
    let truncated = whole[..whole.len() / 10].to_vec();
    let mut bad_crc = whole.clone();
    let at = bad_crc.len() - 8;
    bad_crc[at] ^= 0xff;
    let mut trailing_zeros = whole.clone();
    trailing_zeros.extend_from_slice(&[0; 4096]);
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, bytes, full) in [
        ("truncated.log.gz", truncated, false),
        ("crc.log.gz", bad_crc, true),
        ("zeros.log.gz", trailing_zeros, true),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        let o = run(&["triage", path.to_str().expect("path")], None);
        let (out, err) = (stdout(&o), stderr(&o));
        assert_eq!(o.status.code(), Some(1), "{name}: {out}{err}");
        assert!(out.contains("L2 ") && out.contains("GPU has fallen off the bus"), "{name}: {out}");
        assert!(out.contains("Best cases"), "{name}: {out}");
        assert!(err.contains(&format!("warning: {}: the gzip stream", path.display())), "{name}: {err}");
        if full {
            assert!(out.contains("Read 100,003 lines"), "{name}: the whole body: {out}");
        } else {
            assert!(err.contains("ends early"), "{name}: {err}");
        }
        let o = run(&["triage", "--json", path.to_str().expect("path")], None);
        let v = json(&o);
        assert_eq!(v["read"]["damaged"][0]["source"], path.to_str().expect("path"), "{name}: {v}");
    }
}

#[test]
fn utf16_logs_with_and_without_a_bom_are_decoded() {
    let text = XID_LOG.replace('\n', "\r\n");
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, little, bom) in
        [("le-bom.log", true, true), ("be-bom.log", false, true), ("le.log", true, false)]
    {
        let mut bytes: Vec<u8> = match (bom, little) {
            (false, _) => Vec::new(),
            (true, true) => vec![0xff, 0xfe],
            (true, false) => vec![0xfe, 0xff],
        };
        for u in text.encode_utf16() {
            bytes.extend_from_slice(&if little { u.to_le_bytes() } else { u.to_be_bytes() });
        }
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        let o = run(&["triage", "--json", path.to_str().expect("path")], None);
        let v = json(&o);
        assert_eq!(v["read"]["lines"], 3, "{name}: {v}");
        assert_eq!(v["evidence"][0]["line"], 2, "{name}: {v}");
        assert!(v["evidence"][0]["text"].as_str().expect("text").starts_with("NVRM: Xid"), "{name}: {v}");
    }
}

#[test]
fn a_log_whose_lines_end_in_cr_alone_has_a_number_for_each_line() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("console.log");
    std::fs::write(&path, XID_LOG.replace('\n', "\r")).expect("write");
    let o = run(&["triage", "--json", path.to_str().expect("path")], None);
    let v = json(&o);
    assert_eq!(v["read"]["lines"], 3, "{v}");
    assert_eq!(v["evidence"][0]["line"], 2, "{v}");
}

#[test]
fn every_line_names_its_file_when_several_logs_say_the_same() {
    // The same failure in every rank's log is one line of evidence: it still names its file.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut args = vec!["triage".to_string()];
    for rank in 0..4 {
        let path = dir.path().join(format!("rank{rank}.log"));
        std::fs::write(&path, XID_LOG).expect("write");
        args.push(path.to_str().expect("path").to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run(&args, None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let first = dir.path().join("rank0.log");
    assert!(out.contains(&format!("  {}:2 ", first.display())), "{out}");
    assert!(!out.contains(" L2 "), "{out}");
}

/// Issue 30: a Megatron step line of a healthy run names `loss scale`, `learning rate` and
/// `number of nan iterations` (a signature of Loss spike or divergence). Before, it stood out
/// beside the OOM killer's lines and the log was suggested Loss spike first; a step line that
/// counts NaN iterations still stands out.
#[test]
fn a_healthy_step_line_neither_stands_out_nor_suggests_a_loss_spike() {
    let step = |nan: u32| {
        format!(
            " iteration     1999/  500000 | consumed samples:      4093952 | elapsed time per iteration (ms): 8123.4 | learning rate: 2.999E-04 | global batch size:  2048 | lm loss: 2.145E+00 | loss scale: 1.0 | grad norm: 0.231 | number of skipped iterations:   0 | number of nan iterations:   {nan} |\n"
        )
    };
    let failure = "saving checkpoint at iteration    2000 to /lustre/fs1/ckpt/glm in torch_dist format\n\
        slurmstepd: error: Detected 1 oom_kill event in StepId=4471203.0. Some of the step tasks have been OOM Killed.\n\
        srun: error: nid001234: task 17: Out Of Memory\n";
    let healthy = json(&run(
        &["triage", "-", "--json", "--limit", "1"],
        Some(format!("{}{failure}", step(0)).as_bytes()),
    ));
    let lines: Vec<u64> =
        healthy["evidence"].as_array().unwrap().iter().map(|e| e["line"].as_u64().unwrap()).collect();
    assert!(!lines.contains(&1), "the step line stood out: {lines:?}");
    let values = suggested(&healthy);
    assert!(values.contains(&"CPU and host memory".to_string()), "{values:?}");
    assert!(!values.contains(&"Loss spike or divergence".to_string()), "{values:?}");
    let nan = json(&run(&["triage", "-", "--json", "--limit", "1"], Some(step(3).as_bytes())));
    assert_eq!(
        nan["read"]["stood_out"], true,
        "a step line counting NaN iterations stands out: {}",
        nan["read"]
    );
    assert!(suggested(&nan).contains(&"Loss spike or divergence".to_string()), "{}", nan["suggestions"]);
}

/// Issue 30: `kubectl describe`'s `Warning` is an event type, the way Kubernetes reports that
/// something failed. Read as a warning level, the kubelet's admission failure weighed no more
/// than the job's start-up `[W …]` lines, and NCCL was suggested from one of those.
#[test]
fn a_kubernetes_warning_event_outweighs_start_up_warnings() {
    let log = "[W socket.cpp:464] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).\n\
        [W ProcessGroupNCCL.cpp:1856] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS=1 has no effect for point-to-point collectives. (function operator())\n\
        pytorchjob-llm-worker-5   0/1     UnexpectedAdmissionError   0          14s\n  \
        Warning  UnexpectedAdmissionError  14s  kubelet  Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: 8, Available: 0, which is unexpected\n";
    let v = json(&run(&["triage", "-", "--json", "--limit", "3"], Some(log.as_bytes())));
    assert_eq!(v["evidence"][0]["line"], 4, "{}", v["evidence"]);
    let values: Vec<&str> =
        v["suggestions"].as_array().unwrap().iter().map(|s| s["value"].as_str().unwrap()).collect();
    assert!(values.contains(&"GPU operator and device plugins"), "{values:?}");
    assert!(!values.contains(&"NCCL"), "{values:?}");
    let ids: Vec<&str> = v["results"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids[0], "2025-02-kubelet-stale-device-allocation-unexpectedadmissionerror-gpu");
}

/// Issue 30: `srun: error: HOST: task N: Out Of Memory` from hosts whose rack letter differs
/// (`gpu-b05`, `gpu-c11`) was one line of evidence per host: templates folded digits, not
/// letters, and three hosts took three of the eight lines. It is one line, counted.
#[test]
fn the_same_failure_from_hosts_of_other_racks_is_one_line_of_evidence() {
    let log = "slurmstepd: error: Detected 1 oom_kill event in StepId=4471203.0. Some of the step tasks have been OOM Killed.\n\
        srun: error: gpu-b05: task 17: Out Of Memory\n\
        srun: error: gpu-c11: task 42: Out Of Memory\n\
        srun: error: gpu-h02: task 61: Out Of Memory\n";
    let v = json(&run(&["triage", "-", "--json", "--limit", "1"], Some(log.as_bytes())));
    let srun: Vec<&Value> = v["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["text"].as_str().unwrap().starts_with("srun: error:"))
        .collect();
    assert_eq!(srun.len(), 1, "{}", v["evidence"]);
    assert_eq!(srun[0]["count"], 3, "{}", srun[0]);
    assert_eq!(srun[0]["line"], 2, "the first occurrence is shown: {}", srun[0]);
}

/// Issue 30: in the torch_dist log the only line that names the situation is the checkpoint
/// save just before the OOM killer, and it has no failure words: the case that answers the log
/// ranked 18th in this short log (57th in the eval's long one). The line before the first
/// failure line is searched with the evidence, shown as such, and in the JSON as `context`.
#[test]
fn the_line_before_the_failure_is_searched_and_said() {
    let log = "saving checkpoint at iteration    2000 to /lustre/fs1/ckpt/glm in torch_dist format\n\
        slurmstepd: error: Detected 1 oom_kill event in StepId=4471203.0. Some of the step tasks have been OOM Killed.\n\
        srun: error: gpu-b05: task 17: Out Of Memory\n";
    let v = json(&run(&["triage", "-", "--json", "--limit", "3"], Some(log.as_bytes())));
    assert_eq!(v["context"]["before"], 2, "{}", v["context"]);
    assert!(v["context"]["text"].as_str().unwrap().contains("torch_dist"), "{}", v["context"]);
    assert_eq!(v["results"][0]["id"], "2026-07-megatron-glm-744b-first-torch-dist-save-host-oom-gb300");
    assert!(!suggested(&v).contains(&"Checkpointing".to_string()), "not read for suggestions: {v}");
    let o = run(&["triage", "-", "--limit", "1"], Some(log.as_bytes()));
    let out = stdout(&o);
    assert!(out.contains("Searched with them, the line just before L2: saving checkpoint"), "{out}");
}
