//! The triage budgets on the release binary (DESIGN.md §8): `incidex triage FILE` on a generated
//! 20,000-line job log (≤ 150 ms) and on a 1 GB log with the failure in its middle (≤ 5 s, peak
//! RSS ≤ 100 MB), each run several times; prints the median and best wall time and the peak RSS.
//!
//! Run: `cargo build --release && cargo run --release --example triage_budget` (the logs are
//! written under the system's temporary directory and removed afterwards). With `--write DIR`
//! it only writes the two logs into `DIR` (to profile or time them by hand) and ends.

#[path = "../tests/eval_support/logs.rs"]
mod logs;

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

fn main() {
    let binary = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/incidex");
    if !binary.exists() {
        eprintln!("build the release binary first: cargo build --release");
        std::process::exit(2);
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let keep = args.iter().position(|a| a == "--write").and_then(|i| args.get(i + 1)).map(PathBuf::from);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let into = keep.clone().unwrap_or_else(|| dir.path().to_path_buf());
    let small = into.join("slurm-20k.out");
    std::fs::write(&small, logs::generate(1, 20_000)).expect("write the 20k-line log");
    let large = into.join("slurm-1g.out");
    write_large(&large, 1 << 30);
    if keep.is_some() {
        println!("wrote {} and {}", small.display(), large.display());
        return;
    }
    println!("{:<34} {:>10} {:>10} {:>12}  budget", "input", "median", "best", "peak RSS");
    report("20,000-line log", &binary, &small, 7, "≤ 150 ms");
    report("1 GB log, failure in the middle", &binary, &large, 3, "≤ 5 s, ≤ 100 MB");
}

/// A quiet log of `bytes` bytes with one failing job's log in its middle.
fn write_large(path: &PathBuf, bytes: u64) {
    let quiet = logs::generate_quiet(50_000, 7);
    let failing = logs::generate(0, 20_000);
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).expect("create the 1 GB log"));
    let mut written = 0u64;
    let mut placed = false;
    while written < bytes {
        if !placed && written >= bytes / 2 {
            file.write_all(failing.as_bytes()).expect("write");
            written += failing.len() as u64;
            placed = true;
        }
        file.write_all(quiet.as_bytes()).expect("write");
        written += quiet.len() as u64;
    }
    file.flush().expect("flush");
}

/// Run `incidex triage path` `runs` times and print the times and the peak RSS.
fn report(label: &str, binary: &Path, path: &Path, runs: usize, budget: &str) {
    let mut times: Vec<Duration> = Vec::new();
    let mut peak_kb: i64 = 0;
    let mut first_case = String::new();
    for _ in 0..runs {
        let start = Instant::now();
        let child = Command::new(binary)
            .args(["--no-bundled", "triage"])
            .arg(path)
            .args(["--limit", "1", "--json"])
            .env("INCIDEX_CACHE", "off")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run incidex");
        let pid = child.id() as libc::pid_t;
        let output = child.wait_with_output_rusage(pid);
        times.push(start.elapsed());
        peak_kb = peak_kb.max(output.1);
        first_case = output.0;
    }
    times.sort();
    let median = times[times.len() / 2];
    println!(
        "{label:<34} {:>8.1}ms {:>8.1}ms {:>9.1} MB  {budget}   (evidence: {first_case})",
        median.as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3,
        peak_kb as f64 / 1024.0
    );
}

/// Waiting for a child while keeping its resource usage.
trait WaitRusage {
    /// The first evidence line printed, and the child's peak RSS in KiB.
    fn wait_with_output_rusage(self, pid: libc::pid_t) -> (String, i64);
}

impl WaitRusage for std::process::Child {
    fn wait_with_output_rusage(mut self, pid: libc::pid_t) -> (String, i64) {
        let mut out = String::new();
        if let Some(mut stdout) = self.stdout.take() {
            use std::io::Read;
            let _ = stdout.read_to_string(&mut out);
        }
        let mut status = 0;
        // SAFETY: `rusage` is plain data that wait4 fills in; `pid` is our own child, not yet
        // reaped (std's `wait` is never called on it).
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        let json: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
        let line = json["evidence"][0]["line"].as_u64().unwrap_or(0);
        let text = json["evidence"][0]["text"].as_str().unwrap_or("").chars().take(40).collect::<String>();
        (format!("L{line} {text}"), usage.ru_maxrss)
    }
}
