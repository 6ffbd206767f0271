//! Start-up time of the real binary on large user libraries, cold (empty cache: read every file,
//! build the index, write the cache) and warm (served from the cache), as a user sees it: the
//! wall time of `incidex --no-bundled --data DIR search SENTENCE --json`.
//!
//! ```sh
//! cargo build --release
//! cargo run --release --example synth -- --cases 10000 --out /tmp/synth-10k
//! cargo run --release --example synth -- --cases 100000 --out /tmp/synth-100k
//! cargo run --release --example startup -- /tmp/synth-10k /tmp/synth-100k
//! ```
//!
//! Each directory gets a fresh cache directory. Reported: the cold run, the median and best of
//! the warm runs, and one run without the cache for comparison. `INCIDEX_BIN` picks another
//! binary than `target/release/incidex`; `WARM_RUNS` the number of warm runs (default 7).
//!
//! `--phases` (first argument) instead times the steps of one start in this process, through the
//! library's API, on the cache under `$XDG_CACHE_HOME` (the first run fills it): listing,
//! fingerprint, opening the cache entry, the engine, the first search, dropping it all.
//!
//! `--tui` times, the same way, what the terminal UI does on the bundled library before its
//! first frame (what `examples/budgets.rs` times end to end in a pseudo-terminal): open the
//! baked library, parse the taxonomy (part of opening it), build the app (the graph and the
//! selected case's document), draw the first frame into a 120×40 buffer, and, for comparison,
//! build the engine and answer the empty query, which the first frame no longer waits for.

use std::{
    path::{Path, PathBuf},
    process::{Command, ExitCode},
    time::{Duration, Instant},
};

const SENTENCE: &str = "job hung at the end of the epoch while writing a checkpoint";

fn run(bin: &Path, dir: &Path, cache_home: &Path, cache: &str) -> Result<Duration, String> {
    let start = Instant::now();
    let out = Command::new(bin)
        .args(["--no-bundled", "--data"])
        .arg(dir)
        .args(["search", SENTENCE, "--json", "--limit", "10"])
        .env("XDG_CACHE_HOME", cache_home)
        .env("INCIDEX_CACHE", cache)
        .env_remove("INCIDEX_DATA")
        .output()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    let took = start.elapsed();
    // `search` exits 1 when nothing matches; anything else is a failure to report.
    if !matches!(out.status.code(), Some(0 | 1)) {
        return Err(format!("{}: {}", bin.display(), String::from_utf8_lossy(&out.stderr).trim()));
    }
    let warnings: Vec<String> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains("warning: c"))
        .map(str::to_string)
        .collect();
    if !warnings.is_empty() {
        return Err(warnings.join("\n"));
    }
    Ok(took)
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

/// Time each step of one start over `dirs`; see the module docs.
fn phases(dirs: &[PathBuf]) -> ExitCode {
    use incidex::{corpus::LoadOptions, corpus::filter::Filters, search::Request, store::cache};
    let step =
        |what: &str, start: Instant| println!("{what:<40} {:>8.1} ms", start.elapsed().as_secs_f64() * 1e3);
    let all = Instant::now();
    let t = Instant::now();
    let (files, _) = incidex::corpus::load::list_files(dirs);
    step(&format!("list {} files", files.len()), t);
    let t = Instant::now();
    let _ = cache::fingerprint::fingerprint(false, dirs, &files);
    step("fingerprint", t);
    let t = Instant::now();
    let (options, _) = cache::CacheOptions::from_env();
    let opened = cache::open(
        &LoadOptions { bundled: false, dirs: dirs.to_vec() },
        &options,
        &incidex::support::progress::silent,
    );
    step(&format!("cache::open ({:?}, listing again)", opened.cache), t);
    if let Some(entry) = &opened.entry {
        let t = Instant::now();
        let bytes = std::fs::read(entry.join("library.bin")).unwrap_or_default();
        step(&format!("  read library.bin ({} MB)", bytes.len() >> 20), t);
        let t = Instant::now();
        if let Ok((bodies, len)) = cache::bodies::BodyFile::open(&entry.join("bodies.bin"), entry) {
            let bodies: std::sync::Arc<dyn incidex::corpus::body::BodySource> = std::sync::Arc::new(bodies);
            let decoded =
                cache::codec::decode(bytes, &bodies, len, &cache::fingerprint::display_prefixes(dirs));
            step(&format!("  check and index {} cases", decoded.map_or(0, |d| d.cases.len())), t);
        }
        let t = Instant::now();
        let _ = incidex::corpus::load::load_taxonomy(&files);
        step("  taxonomy", t);
    }
    let t = Instant::now();
    let engine = match opened.into_engine() {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("startup: {e}");
            return ExitCode::FAILURE;
        }
    };
    step("engine (catalog, suggester)", t);
    let t = Instant::now();
    let none = Filters::default();
    let response = engine.search(&Request::new(SENTENCE, &none));
    step(&format!("first search ({} hits)", response.total), t);
    let t = Instant::now();
    for hit in &response.hits {
        let _ = engine.library().cases[hit.index].body.sources.len();
    }
    step(&format!("read {} bodies", response.hits.len()), t);
    step("total", all);
    let t = Instant::now();
    drop(response);
    drop(engine);
    step("drop", t);
    ExitCode::SUCCESS
}

/// The steps before the terminal UI's first frame on the bundled library, in this process.
fn tui_phases() -> ExitCode {
    use std::sync::Arc;

    use incidex::{
        corpus::{bundled, load::load_taxonomy},
        settings::theme::{ColorDepth, Theme},
        taxonomy::Taxonomy,
        tui::{
            app::{App, Options},
            style::Styles,
            ui,
        },
    };
    use ratatui::{Terminal, backend::TestBackend};
    let step =
        |what: &str, start: Instant| println!("{what:<40} {:>8.2} ms", start.elapsed().as_secs_f64() * 1e3);
    let all = Instant::now();
    let t = Instant::now();
    let Ok((library, prebuilt)) = incidex::store::embedded::open() else {
        eprintln!("startup: the bundled library does not open");
        return ExitCode::FAILURE;
    };
    step(&format!("open the baked library ({} cases)", library.cases.len()), t);
    let t = Instant::now();
    let _ = Taxonomy::parse(bundled::TAXONOMY_PATH, bundled::TAXONOMY);
    step("  of which: parse the taxonomy", t);
    let t = Instant::now();
    let _ = load_taxonomy(&[]);
    step("  load_taxonomy (the same, as opening does)", t);
    let library = Arc::new(library);
    let t = Instant::now();
    let (mut app, _) = App::new(library.clone(), (120, 40), Options::default());
    step("App::new (graph, first case's document)", t);
    let Some(theme) = Theme::bundled("default") else { return ExitCode::FAILURE };
    let styles = Styles::new(&theme, ColorDepth::Ansi256);
    let Ok(mut terminal) = Terminal::new(TestBackend::new(120, 40));
    let t = Instant::now();
    app.take_dirty();
    let _ = terminal.draw(|f| ui::render(f, &app, &styles));
    step("first frame, drawn into a buffer", t);
    step("total before the first frame", all);
    let t = Instant::now();
    let searcher = incidex::tui::worker::Search::Unbuilt(Box::new(prebuilt)).into_searcher(library);
    step("engine (not waited for)", t);
    let t = Instant::now();
    let request = incidex::tui::worker::Request {
        generation: 1,
        input: String::new(),
        filters: incidex::corpus::filter::Filters::default(),
        offset: 0,
        limit: incidex::tui::app::PAGE,
        locate: None,
        all: false,
        log: false,
        suggest_from: None,
        value_counts: false,
    };
    let _ = searcher.run(&request);
    step("the empty query (not waited for)", t);
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let mut dirs: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if dirs.first().is_some_and(|d| d.as_os_str() == "--phases") {
        return phases(&dirs.split_off(1));
    }
    if dirs.first().is_some_and(|d| d.as_os_str() == "--tui") {
        return tui_phases();
    }
    if dirs.is_empty() {
        eprintln!("usage: cargo run --release --example startup -- LIBRARY_DIR...");
        return ExitCode::from(2);
    }
    let bin = std::env::var_os("INCIDEX_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/incidex"));
    let warm_runs: usize = std::env::var("WARM_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(7).max(1);
    println!(
        "{:<28} {:>8} {:>10} {:>12} {:>10} {:>12}",
        "library", "files", "cold", "warm median", "warm best", "no cache"
    );
    for dir in &dirs {
        let files = incidex::corpus::load::list_files(std::slice::from_ref(dir)).0.len();
        let cache_home = match tempfile::tempdir() {
            Ok(t) => t,
            Err(e) => {
                eprintln!("startup: {e}");
                return ExitCode::FAILURE;
            }
        };
        let measured = (|| -> Result<_, String> {
            let cold = run(&bin, dir, cache_home.path(), "auto")?;
            let mut warm: Vec<Duration> = (0..warm_runs)
                .map(|_| run(&bin, dir, cache_home.path(), "auto"))
                .collect::<Result<_, _>>()?;
            warm.sort();
            let none = run(&bin, dir, cache_home.path(), "off")?;
            Ok((cold, warm[warm.len() / 2], warm[0], none))
        })();
        match measured {
            Ok((cold, median, best, none)) => println!(
                "{:<28} {:>8} {:>10} {:>12} {:>10} {:>12}",
                dir.display(),
                files,
                ms(cold),
                ms(median),
                ms(best),
                ms(none)
            ),
            Err(e) => {
                eprintln!("startup: {}: {e}", dir.display());
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
