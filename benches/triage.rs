//! Log triage benchmarks (divan): reading a generated 20,000-line job log down to the lines that
//! stood out, and the whole of `triage` on it (reading, then searching the bundled library).
//!
//! Run: `cargo bench --bench triage`. The budgets (DESIGN.md §8) are for the whole command,
//! including a 1 GB log: `cargo run --release --example triage_budget` measures those on the
//! release binary and prints them.

#[path = "../tests/eval_support/logs.rs"]
mod logs;

use std::sync::{Arc, LazyLock};

use divan::{Bencher, black_box};
use incidex::{
    corpus::Library,
    corpus::filter::Filters,
    logs::LogReader,
    search::{Engine, Request},
};

fn main() {
    divan::main();
}

static ENGINE: LazyLock<Engine> =
    LazyLock::new(|| Engine::new(Arc::new(Library::bundled())).expect("the index builds"));
static LOG: LazyLock<String> = LazyLock::new(|| logs::generate(1, 20_000));

/// Reading 20,000 lines into a digest.
#[divan::bench]
fn read_20k_lines(bencher: Bencher) {
    let engine = &*ENGINE;
    bencher.bench(|| {
        let mut reader = LogReader::new(engine.library().taxonomy.signatures());
        reader.read_text("job.log", black_box(&LOG)).unwrap();
        reader.finish().evidence.len()
    });
}

/// The same on the calling thread only (what each core does of a large log).
#[divan::bench]
fn read_20k_lines_on_one_thread(bencher: Bencher) {
    let engine = &*ENGINE;
    bencher.bench(|| {
        let mut reader = LogReader::new(engine.library().taxonomy.signatures()).with_threads(1, usize::MAX);
        reader.read_text("job.log", black_box(&LOG)).unwrap();
        reader.finish().evidence.len()
    });
}

/// Reading 20,000 lines and searching what stood out: `incidex triage job.log` less start-up.
#[divan::bench]
fn triage_20k_lines(bencher: Bencher) {
    let engine = &*ENGINE;
    let none = Filters::default();
    bencher.bench(|| {
        let mut reader = LogReader::new(engine.library().taxonomy.signatures());
        reader.read_text("job.log", black_box(&LOG)).unwrap();
        let text = reader.finish().query_text();
        engine.search(&Request::log(&text, &none)).total
    });
}
