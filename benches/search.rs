//! Search benchmarks (divan): start-up (load the bundled library, build the index, answer the
//! first query), query and suggestion latency on the bundled library and on synthetic libraries
//! of 10,000 and 100,000 cases, and index build times.
//!
//! Run: `cargo bench --bench search` (or `-- bundled`, `-- 10k`, `-- 100k` for one size). Before
//! divan's table, a p50/p95/max table of a mixed query set per library size is printed (divan
//! reports medians, the budget is a p95), with the peak memory of the process. Budgets (DESIGN.md §8): start-up with first query < 30 ms, a query on
//! the bundled library < 1 ms, p95 < 50 ms at 100,000 cases.

use std::{
    sync::{Arc, LazyLock},
    time::{Duration, Instant},
};

#[path = "support/synthetic.rs"]
mod synthetic;

use divan::{Bencher, black_box};
use incidex::{
    corpus::Library,
    corpus::filter::Filters,
    search::{Engine, Request, index::CaseIndex},
    taxonomy::matcher::Matcher,
};

/// What on-call engineers type: sentences, pasted log lines, inline syntax.
const QUERIES: &[&str] = &[
    "job froze at the end of the epoch, GPUs at 100%",
    "NCCL WARN Timeout",
    "DataLoader worker (pid 1234) is killed by signal: Bus error",
    "component:nccl hang after checkpoint",
    "loss spikes after resume from checkpoint",
    "pods stuck pending, etcdserver: request timed out",
    "checkpiont save slow on lustre",
    "",
];

/// Log lines and sentences for the suggester alone.
const SUGGEST: &[&str] = &[
    "job froze at the end of the epoch, GPUs at 100%",
    "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus",
    "[rank3]: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5) ran for 1800000 ms",
    "HTTP 429 Too Many Requests from the gateway",
];

static BUNDLED: LazyLock<Arc<Library>> = LazyLock::new(|| Arc::new(Library::bundled()));
static ENGINE: LazyLock<Engine> = LazyLock::new(|| engine(BUNDLED.clone()));
static LIB_10K: LazyLock<Arc<Library>> = LazyLock::new(|| Arc::new(synthetic::library(10_000, 1)));
static ENGINE_10K: LazyLock<Engine> = LazyLock::new(|| engine(LIB_10K.clone()));
static ENGINE_100K: LazyLock<Engine> = LazyLock::new(|| engine(Arc::new(synthetic::library(100_000, 1))));

fn engine(library: Arc<Library>) -> Engine {
    Engine::new(library).expect("the index builds")
}

fn search(engine: &Engine, input: &str) -> usize {
    let none = Filters::default();
    engine.search(&Request::new(input, &none)).total
}

fn main() {
    latency_table();
    divan::main();
}

/// p50/p95/max over every query, many rounds, per library; then the peak memory.
fn latency_table() {
    println!("query latency over {} queries (sentences, logs, inline syntax, empty):", QUERIES.len());
    println!("{:<12} {:>12} {:>10} {:>10} {:>10}", "library", "load+index", "p50", "p95", "max");
    for (name, engine, rounds) in
        [("bundled", &ENGINE, 200), ("10,000", &ENGINE_10K, 20), ("100,000", &ENGINE_100K, 5)]
    {
        let start = Instant::now();
        let engine: &Engine = engine;
        let build = start.elapsed();
        let mut times: Vec<Duration> = Vec::new();
        for _ in 0..rounds {
            for q in QUERIES {
                let t = Instant::now();
                black_box(search(engine, q));
                times.push(t.elapsed());
            }
        }
        times.sort();
        let at = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
        println!(
            "{name:<12} {:>11.2}s {:>10.3?} {:>10.3?} {:>10.3?}",
            build.as_secs_f64(),
            at(0.5),
            at(0.95),
            times[times.len() - 1]
        );
    }
    if let Some(peak) = peak_memory() {
        println!("peak memory (VmHWM) with these libraries loaded: {peak}");
    }
    println!();
}

fn peak_memory() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l["VmHWM:".len()..].trim().to_string())
}

/// Start-up as the CLI does it: parse the bundled case files, build the index, answer a query.
#[divan::bench(sample_count = 20)]
fn startup_bundled_first_query() -> usize {
    let engine = engine(Arc::new(Library::bundled()));
    search(&engine, QUERIES[0])
}

/// The index, catalog and suggester alone, from an already loaded bundled library.
#[divan::bench(sample_count = 20)]
fn index_build_bundled() -> Engine {
    engine(BUNDLED.clone())
}

/// Building for 10,000 cases.
#[divan::bench(sample_count = 3)]
fn index_build_10k() -> Engine {
    engine(LIB_10K.clone())
}

#[divan::bench(args = QUERIES)]
fn query_bundled(bencher: Bencher, input: &str) {
    let engine: &Engine = &ENGINE;
    bencher.bench(|| search(engine, input));
}

#[divan::bench(args = QUERIES, sample_count = 30)]
fn query_10k(bencher: Bencher, input: &str) {
    let engine: &Engine = &ENGINE_10K;
    bencher.bench(|| search(engine, input));
}

#[divan::bench(args = QUERIES, sample_count = 10)]
fn query_100k(bencher: Bencher, input: &str) {
    let engine: &Engine = &ENGINE_100K;
    bencher.bench(|| search(engine, input));
}

/// Suggested filters alone (nucleo, phrase matching), on the bundled taxonomy.
#[divan::bench(args = SUGGEST)]
fn suggest_bundled(bencher: Bencher, input: &str) {
    let index = CaseIndex::build(&BUNDLED.cases).expect("the index builds");
    let matcher = Matcher::new(&BUNDLED.taxonomy);
    bencher.bench(|| matcher.find(input, &|w| index.is_known(w)).len());
}
