//! Plain output and the width it is given (issue 29, item 1): on a terminal the commands ask it
//! for its width (shells do not export `$COLUMNS`), piped they cut nothing, and `$COLUMNS` is
//! the documented width for a pipe that wants one. Case ids are whole at every width.

use std::{collections::HashSet, process::Stdio};

use crate::{
    pty_support::{Launch, TIMEOUT, launch, one_at_a_time},
    support::{incidex, output, text},
};

/// The line a 160-column user needs to read whole: 128 columns of NCCL's warning.
const KEY_LINE: &str = "worker-3:1234:5678 [3] NCCL WARN NET/IB : Got completion from peer 10.0.0.7<35219> \
with status=12 opcode=0 len=0 vendor err 129 (Recv)";

/// A job log whose failure is [`KEY_LINE`], amid the usual start-up noise.
fn job_log(dir: &std::path::Path) -> std::path::PathBuf {
    let mut log = String::new();
    for step in 0..400 {
        log.push_str(&format!("step {step} loss 2.{step:03} lr 0.0003 throughput 1834 samples/s\n"));
    }
    log.push_str(&format!("{KEY_LINE}\n"));
    log.push_str("torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version 2.19.3\n");
    let path = dir.join("job.log");
    std::fs::write(&path, log).unwrap();
    path
}

#[test]
fn triage_on_a_wide_terminal_fits_its_width_not_80_columns() {
    let _serial = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let log = job_log(dir.path());
    let log = log.to_str().unwrap();
    // No $COLUMNS, as from bash: the width must come from the terminal itself.
    let mut s = launch(Launch {
        size: (160, 60),
        args: &["triage", log],
        env: &[("COLUMNS", "")],
        ..Launch::default()
    });
    s.wait_text("Best cases");
    s.wait_exit(TIMEOUT).expect("triage ends");
    std::thread::sleep(std::time::Duration::from_millis(100));
    let screen = s.contents();
    let shown = screen.lines().find(|l| l.contains("NCCL WARN")).expect("the NCCL line is evidence");
    assert!(shown.contains(KEY_LINE), "the NCCL line is cut on a 160-column terminal:\n{screen}");
    assert!(screen.lines().all(|l| l.chars().count() <= 160), "{screen}");
}

#[test]
fn piped_output_cuts_no_evidence_line_and_columns_is_the_width_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let log = job_log(dir.path());
    let mut piped = incidex(dir.path());
    piped.env_remove("COLUMNS").arg("triage").arg(&log).stdout(Stdio::piped());
    let o = output(&mut piped);
    let out = text(&o.stdout);
    assert!(out.lines().any(|l| l.contains(KEY_LINE)), "piped, the NCCL line is cut:\n{out}");
    assert!(!out.lines().any(|l| l.contains("NCCL") && l.ends_with('…')), "{out}");

    let mut narrow = incidex(dir.path());
    narrow.env("COLUMNS", "100").arg("triage").arg(&log);
    let o = output(&mut narrow);
    let out = text(&o.stdout);
    assert!(out.lines().all(|l| l.chars().count() <= 100), "COLUMNS=100 is not kept:\n{out}");
    assert!(out.lines().any(|l| l.contains("NCCL WARN") && l.ends_with('…')), "{out}");
}

/// The bundled library's ids, from `incidex list --json`.
fn bundled_ids(home: &std::path::Path) -> HashSet<String> {
    let o = output(incidex(home).args(["list", "--json"]));
    let list: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    list["cases"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn graph_text_never_cuts_a_case_id_at_any_width() {
    let home = tempfile::tempdir().unwrap();
    let ids = bundled_ids(home.path());
    for columns in ["40", "60", "80"] {
        let o = output(incidex(home.path()).env("COLUMNS", columns).args(["graph", "component:nccl"]));
        assert!(o.status.success(), "{}", text(&o.stderr));
        let out = text(&o.stdout);
        let mut listed = 0;
        let mut in_cases = false;
        // The nodes one hop away: a block of kinds ("  Case"), each node under its kind.
        let hop = out.split("\n\n").find(|block| block.starts_with("At 1 hop")).expect("nodes at 1 hop");
        for line in hop.lines() {
            if line.starts_with("  ") && !line.starts_with("   ") {
                in_cases = line.trim() == "Case";
                continue;
            }
            if in_cases && line.starts_with("    ") {
                let id = line.trim().split(' ').next().unwrap();
                assert!(ids.contains(id), "COLUMNS={columns}: {id:?} is not a whole case id:\n{line}");
                listed += 1;
            }
        }
        assert!(listed > 3, "COLUMNS={columns}: no cases listed:\n{out}");
    }
}
