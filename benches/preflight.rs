//! Preflight benchmarks (divan): the rules on job specs (tests/fixtures/preflight). The budgets
//! (issue 27): 100 manifests checked in ≤ 200 ms, one batch script in ≤ 20 ms end to end.
//! `check_100_manifests` reads, parses and checks a hundred manifests from disk (the fixtures'
//! eight, cycled); the end-to-end time of the command on the release binary is measured as
//! BENCHMARKS.md says (`hyperfine`, which includes start-up and loading the bundled titles).
//!
//! Run: `cargo bench --bench preflight`.

use std::path::PathBuf;

use divan::black_box;
use incidex::doctor::{Rules, Selection, spec};

fn main() {
    divan::main();
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(format!("{}/tests/fixtures/preflight/{name}", env!("CARGO_MANIFEST_DIR")))
}

/// One Slurm batch script: read, told apart, parsed and checked by every rule.
#[divan::bench]
fn check_one_batch_script(b: divan::Bencher) {
    let path = fixture("bad/train-pyxis.sbatch");
    let rules = Rules::bundled();
    b.bench(|| spec::check_file(black_box(&path), &rules, &Selection::default(), &[]));
}

/// A hundred Kubernetes manifests, written to a temporary directory, walked and checked.
#[divan::bench(sample_count = 20)]
fn check_100_manifests(b: divan::Bencher) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let sources: Vec<PathBuf> =
        ["pytorchjob.yaml", "jobset.yaml", "mpijob.yaml", "vllm-deployment.yaml", "node-agents.yaml"]
            .iter()
            .flat_map(|n| [fixture(&format!("bad/{n}")), fixture(&format!("good/{n}"))])
            .collect();
    for i in 0..100 {
        let from = &sources[i % sources.len()];
        std::fs::copy(from, dir.path().join(format!("m{i:03}.yaml"))).expect("copy");
    }
    let rules = Rules::bundled();
    let inputs = vec![dir.path().to_path_buf()];
    b.bench(|| {
        let reports = spec::check_paths(black_box(&inputs), &rules, &Selection::default(), &[]);
        assert_eq!(reports.len(), 100);
        reports
    });
}

/// The rules data, parsed (every run of the command does it once).
#[divan::bench]
fn parse_the_rules() -> Rules {
    Rules::bundled()
}
