//! `incidex doctor` through the built binary: golden text and JSON for a healthy GPU node, a
//! broken one, a login node and a pod (snapshots in tests/fixtures/doctor, written in the
//! formats of real captures), the exit codes, `--list`, `--save-snapshot` (which never replaces a
//! file without `--force`) read back by `--from`, a gzipped nvidia-bug-report, and a live audit
//! of the machine the tests run on, where no GPU check may say `pass` without a GPU.

mod golden_support;

use std::process::Command;

use golden_support::{golden, stable_json, stable_text};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/doctor");
const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/doctor");
const NODES: &[&str] = &["healthy-gpu-node", "broken-gpu-node", "login-node", "pod"];

fn doctor(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_incidex"))
        .arg("doctor")
        .args(args)
        .env("NO_COLOR", "1")
        .env("XDG_CACHE_HOME", std::env::temp_dir().join("incidex-doctor-cli-cache"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_four_nodes_match_their_golden_text_and_json() {
    for node in NODES {
        let snap = format!("{FIXTURES}/{node}.snap");
        let (_, text, err) = doctor(&["--from", &snap, "--all"]);
        assert!(err.is_empty(), "{node}: {err}");
        golden(GOLDEN, &format!("{node}.txt"), &stable_text(&text));
        let (_, json, _) = doctor(&["--from", &snap, "--json"]);
        golden(GOLDEN, &format!("{node}.json"), &stable_json(&json));
    }
}

#[test]
fn exit_codes_follow_fail_on() {
    let snap = |n: &str| format!("{FIXTURES}/{n}.snap");
    assert_eq!(doctor(&["--from", &snap("healthy-gpu-node")]).0, 0);
    assert_eq!(doctor(&["--from", &snap("broken-gpu-node")]).0, 3, "a crit finding crosses the default");
    assert_eq!(doctor(&["--from", &snap("login-node")]).0, 0, "warnings do not cross crit");
    assert_eq!(doctor(&["--from", &snap("login-node"), "--fail-on", "warn"]).0, 3);
    assert_eq!(
        doctor(&["--from", &snap("pod"), "--fail-on", "unknown"]).0,
        3,
        "the pod could not see its kernel log"
    );
    let (code, _, err) = doctor(&["--from", &snap("pod"), "--fail-on", "loud"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = doctor(&["--only", "gpu.xdi"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `gpu.xid`"), "{err}");
    let (code, _, err) = doctor(&["--from", "/no/such/file"]);
    assert_eq!(code, 1, "{err}");
}

#[test]
fn the_json_holds_every_check_that_ran_and_each_finding_cites_cases_with_titles() {
    let (_, json, _) = doctor(&["--from", &format!("{FIXTURES}/broken-gpu-node.snap"), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["host"], "gpu017");
    let checks = v["checks"].as_array().unwrap();
    assert!(checks.len() >= 30);
    for state in ["crit", "warn", "pass", "n/a"] {
        assert!(checks.iter().any(|c| c["state"] == state), "no check ended {state}");
    }
    for f in v["findings"].as_array().unwrap() {
        assert!(!f["cases"].as_array().unwrap().is_empty(), "{f}");
        assert!(f["cases"][0]["title"].is_string(), "{f}");
        assert!(!f["evidence"].as_array().unwrap().is_empty(), "{f}");
    }
    let (code, list, _) = doctor(&["--list", "--json"]);
    assert_eq!(code, 0);
    let list: serde_json::Value = serde_json::from_str(&list).unwrap();
    assert!(list.as_array().unwrap().len() >= 30);
    assert!(list.as_array().unwrap().iter().all(|c| !c["cases"].as_array().unwrap().is_empty()));
}

#[test]
fn a_saved_snapshot_reads_back_to_the_same_audit_and_is_never_replaced_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("node.snap");
    let p = path.to_str().unwrap();
    let (code, live, err) = doctor(&["--save-snapshot", p, "--json"]);
    assert!(code == 0 || code == 3, "{err}");
    assert!(err.contains("the snapshot is in"), "{err}");
    let (_, replayed, _) = doctor(&["--from", p, "--json"]);
    let strip = |s: &str| {
        let mut v: serde_json::Value = serde_json::from_str(s).unwrap();
        v["source"] = serde_json::Value::Null;
        v["checks"].clone()
    };
    assert_eq!(strip(&live), strip(&replayed), "the replay audits what the live run saw");
    std::fs::write(&path, "mine\n").unwrap();
    let (code, _, err) = doctor(&["--save-snapshot", p]);
    assert_eq!(code, 1);
    assert!(err.contains("--force"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine\n", "nothing was lost");
    let (code, _, _) = doctor(&["--save-snapshot", p, "--force"]);
    assert!(code == 0 || code == 3);
    assert!(std::fs::read_to_string(&path).unwrap().starts_with("incidex-snapshot 1"));
}

#[test]
fn a_gzipped_nvidia_bug_report_is_audited_and_what_it_lacks_is_unknown() {
    use std::io::Write;
    let report = r#"nvidia-bug-report.sh will now collect information about your system
____________________________________________

*** /proc/driver/nvidia/version
*** ls: -r--r--r-- 1 root root 0 2026-11-30 10:00:00 /proc/driver/nvidia/version
NVRM version: NVIDIA UNIX x86_64 Kernel Module  525.85.12  Sat Jan 28 02:10:06 UTC 2023
____________________________________________

/usr/bin/nvidia-smi --query

==============NVSMI LOG==============
Driver Version                            : 525.85.12
GPU 00000000:3B:00.0
    GSP Firmware Version                  : 525.85.12
    Remapped Rows
        Pending                           : Yes
        Remapping Failure Occurred        : No
____________________________________________

journalctl -b -0
Nov 30 09:00:00 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 119, pid=1, name=python3, Timeout after 6s of waiting for RPC response from GPU0 GSP!
____________________________________________
"#;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nvidia-bug-report.log.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(report.as_bytes()).unwrap();
    std::fs::write(&path, gz.finish().unwrap()).unwrap();
    let (code, json, err) = doctor(&["--from", path.to_str().unwrap(), "--json"]);
    assert_eq!(code, 3, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["source"], "nvidia-bug-report");
    let state =
        |id: &str| v["checks"].as_array().unwrap().iter().find(|c| c["id"] == id).unwrap()["state"].clone();
    assert_eq!(state("gpu.xid"), "crit");
    assert_eq!(state("gpu.memory.errors"), "warn");
    assert_eq!(state("driver.known.bad"), "warn", "525.85.12 with GSP on");
    assert_eq!(state("shm.size"), "unknown", "a bug report has no mount table");
}

#[test]
fn on_a_machine_without_gpus_no_gpu_check_says_pass() {
    let has_nvidia = std::fs::read_dir("/sys/bus/pci/devices")
        .map(|d| {
            d.flatten()
                .any(|e| std::fs::read_to_string(e.path().join("vendor")).is_ok_and(|v| v.trim() == "0x10de"))
        })
        .unwrap_or(false);
    if has_nvidia {
        return;
    }
    let (code, json, err) = doctor(&["--json"]);
    assert!(code == 0 || code == 3, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let (_, list, _) = doctor(&["--list", "--json"]);
    let list: serde_json::Value = serde_json::from_str(&list).unwrap();
    for c in list.as_array().unwrap().iter().filter(|c| c["needs_gpu"] == true) {
        let got = v["checks"].as_array().unwrap().iter().find(|r| r["id"] == c["id"]).unwrap();
        assert!(got["state"] == "n/a" || got["state"] == "unknown", "{got}");
        assert!(got["reason"].is_string(), "{got}");
    }
}
