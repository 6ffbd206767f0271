//! Write a synthetic library of case files, for benchmarks and load tests:
//!
//! ```sh
//! cargo run --release --example synth -- --cases 100000 --out /tmp/synth-100k
//! incidex --no-bundled --data /tmp/synth-100k search "job hung at the end of the epoch"
//! ```
//!
//! The cases are tagged with the bundled taxonomy and shaped like the bundled ones (see
//! `benches/support/synthetic.rs`); the same `--seed` writes the same files.

#[path = "../benches/support/synthetic.rs"]
mod synthetic;

use std::path::PathBuf;

use clap::Parser;

/// Write synthetic case files.
#[derive(Debug, Parser)]
struct Args {
    /// How many cases.
    #[arg(long, default_value_t = 10_000)]
    cases: usize,
    /// The directory to write into (created if missing; a thousand files per sub-directory).
    #[arg(long)]
    out: PathBuf,
    /// The random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let library = synthetic::library(args.cases, args.seed);
    match synthetic::write(&args.out, &library.cases) {
        Ok(()) => {
            println!("wrote {} cases to {}", library.cases.len(), args.out.display());
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("synth: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
