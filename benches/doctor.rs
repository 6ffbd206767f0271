//! Node audit benchmarks (divan): the checks alone on the saved snapshots of a healthy GPU node
//! and a login node (tests/fixtures/doctor), and a whole live capture and audit of the machine
//! the benchmark runs on.
//!
//! Run: `cargo bench --bench doctor`. The budgets (issue 26) are for the whole command on the
//! release binary: `incidex doctor` on a healthy GPU node in ≤ 2 s and on a login node without
//! GPUs in ≤ 300 ms; BENCHMARKS.md gives the command that measures them.

use std::time::Duration;

use divan::black_box;
use incidex::doctor::{self, Rules, Selection, Snapshot, probe};

fn main() {
    divan::main();
}

fn fixture(name: &str) -> Snapshot {
    let path = format!("{}/tests/fixtures/doctor/{name}.snap", env!("CARGO_MANIFEST_DIR"));
    Snapshot::from_archive(&path, &std::fs::read_to_string(&path).expect("the fixture")).0
}

/// Every check on a healthy 4-GPU node's snapshot.
#[divan::bench]
fn audit_healthy_gpu_node(b: divan::Bencher) {
    let snap = fixture("healthy-gpu-node");
    let rules = Rules::bundled();
    b.bench(|| doctor::audit(black_box(&snap), &rules, &Selection::default()));
}

/// Every check on a login node's snapshot.
#[divan::bench]
fn audit_login_node(b: divan::Bencher) {
    let snap = fixture("login-node");
    let rules = Rules::bundled();
    b.bench(|| doctor::audit(black_box(&snap), &rules, &Selection::default()));
}

/// Capture this machine (files, listings and the command table) and audit it.
#[divan::bench(sample_count = 20)]
fn capture_and_audit_this_machine() {
    let options = probe::Options { timeout: Duration::from_secs(10), ..probe::Options::default() };
    let snap = probe::capture(&options, std::env::vars()).expect("the root can be read");
    black_box(doctor::audit(&snap, &Rules::bundled(), &Selection::default()));
}
