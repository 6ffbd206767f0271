//! Every start-up and terminal budget of issue 17 (DESIGN.md §8), measured side by side in one
//! run on this machine, with each budget and the ratio:
//!
//! - `incidex search nccl hang --limit 10`, end to end, against `rg -il nccl data/cases` over the
//!   same case files (median of [`RUNS`] runs each; ripgrep from Debian's `ripgrep` package);
//! - the terminal UI in a 120×40 pseudo-terminal: start to the first frame that shows results;
//! - bytes written to the terminal per keystroke while a sentence is typed at 120×40 (p50, p95,
//!   max), for a fast typist (the case pane drawn at the pauses between words) and for one who
//!   pauses after every key, and where the bytes go;
//! - the peak memory (max RSS) of the one-shot search;
//! - with `--large DIR` (a library written by the `synth` example), the start of
//!   `incidex --no-bundled --data DIR search ... --json` with a warm cache.
//!
//! ```sh
//! sudo apt-get install ripgrep        # for the comparison
//! cargo build --release
//! cargo run --release --example budgets -- [--large /tmp/synth-100k]
//! ```
//!
//! `INCIDEX_BIN` picks another binary than the `incidex` beside this example's directory.

use std::{
    io::{Read, Write},
    path::{Path, PathBuf},
    process::{Command, ExitCode, Stdio},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use incidex::{
    corpus::Library,
    settings::theme::{ColorDepth, Theme},
    tui::{
        app::{App, Effect, Options},
        event::Msg,
        layout::Layout,
        style::Styles,
        ui,
        worker::Searcher,
    },
};
use ratatui::{Terminal, TerminalOptions, Viewport, backend::CrosstermBackend, buffer::Buffer, layout::Rect};

/// Runs per command timed.
const RUNS: usize = 21;
const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;
const SENTENCE: &str = "training job hung at the end of the epoch checkpoint with gpus at 100% nccl timeout";
const LARGE_SENTENCE: &str = "job hung at the end of the epoch while writing a checkpoint";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `--max-rss PROGRAM ARGS...`: this example re-run as a small process only to start one
    // command and print its peak memory (see `max_rss_kib`).
    if args.first().map(String::as_str) == Some("--max-rss") {
        let Some((program, rest)) = args[1..].split_first() else { return ExitCode::FAILURE };
        return match child_max_rss(Command::new(program).args(rest)) {
            Some(kib) => {
                println!("{kib}");
                ExitCode::SUCCESS
            }
            None => ExitCode::FAILURE,
        };
    }
    let large = args.iter().position(|a| a == "--large").and_then(|i| args.get(i + 1)).map(PathBuf::from);
    let bin = match std::env::var_os("INCIDEX_BIN") {
        Some(bin) => PathBuf::from(bin),
        None => match std::env::current_exe() {
            Ok(exe) => exe.parent().and_then(Path::parent).map(|d| d.join("incidex")).unwrap_or_default(),
            Err(e) => {
                eprintln!("cannot find incidex: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    if !bin.is_file() {
        eprintln!("{} does not exist: build it first (cargo build --release)", bin.display());
        return ExitCode::FAILURE;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    println!("incidex: {}", bin.display());
    println!("{:<58} {:>16} {:>18} {:>8}", "what", "measured", "budget", "ratio");

    // One-shot search against ripgrep over the same files.
    let search = median(RUNS, || {
        timed(Command::new(&bin).args(["search", "nccl", "hang", "--limit", "10"]).env_remove("INCIDEX_DATA"))
    });
    let rg = median(RUNS, || timed(Command::new("rg").args(["-il", "nccl", "data/cases"]).current_dir(root)));
    match (search, rg) {
        (Some(s), Some(r)) => row(
            "incidex search nccl hang --limit 10 (median)",
            ms(s),
            format!("≤ 1.5× rg = {}", ms(r.mul_f64(1.5))),
            format!("{:.1}× rg", s.as_secs_f64() / r.as_secs_f64()),
        ),
        (Some(s), None) => row(
            "incidex search nccl hang --limit 10 (median)",
            ms(s),
            "≤ 1.5× rg".into(),
            "rg missing: apt-get install ripgrep".into(),
        ),
        _ => eprintln!("the one-shot search failed"),
    }
    if let Some(r) = rg {
        row("rg -il nccl data/cases (median)", ms(r), String::new(), String::new());
    }

    // The terminal UI's first frame with results.
    let mut firsts: Vec<Duration> = (0..5).filter_map(|_| first_frame(&bin)).collect();
    firsts.sort();
    if let Some(&first) = firsts.get(firsts.len() / 2) {
        row(
            "TUI: start to the first frame with results (median of 5)",
            ms(first),
            "≤ 15 ms".into(),
            format!("{:.1}×", first.as_secs_f64() / 0.015),
        );
    } else {
        eprintln!("the terminal UI did not show results");
    }

    // Bytes per keystroke.
    for (what, pause_every_key) in [("fast typist", false), ("a pause after every key", true)] {
        let (bytes, regions) = keystroke_bytes(pause_every_key);
        let p = |q: usize| bytes[(bytes.len() * q / 100).min(bytes.len() - 1)];
        row(
            &format!("bytes per keystroke at 120×40, {what} (p50/p95/max)"),
            format!("{}/{}/{} B", p(50), p(95), bytes[bytes.len() - 1]),
            "p95 ≤ 1,024 B".into(),
            format!("{:.2}×", p(95) as f64 / 1024.0),
        );
        let total: usize = regions.iter().map(|r| r.1).sum::<usize>().max(1);
        let shares: Vec<String> =
            regions.iter().map(|(name, cells)| format!("{name} {}%", cells * 100 / total)).collect();
        let sent: usize = bytes.iter().sum();
        let over = bytes.iter().filter(|&&b| b > 1024).count();
        println!(
            "    {} B in all for {} keys, {over} of them over 1 KiB; cells changed by region: {}; {:.1} bytes \
             written per changed cell",
            thousands(sent),
            bytes.len(),
            shares.join(", "),
            sent as f64 / total as f64
        );
    }

    // Peak memory of the one-shot search.
    match max_rss_kib(&bin, &["search", "nccl", "hang", "--limit", "10"]) {
        Some(kib) => row(
            "peak RSS, incidex search",
            format!("{:.1} MB", kib as f64 / 1024.0),
            "≤ 30 MB".into(),
            format!("{:.2}×", kib as f64 / 1024.0 / 30.0),
        ),
        None => eprintln!("cannot measure the peak memory"),
    }

    // The large library's warm start.
    if let Some(dir) = large {
        let cache = match tempfile::tempdir() {
            Ok(cache) => cache,
            Err(e) => {
                eprintln!("no temporary directory: {e}");
                return ExitCode::FAILURE;
            }
        };
        let run = || {
            timed(
                Command::new(&bin)
                    .args(["--no-bundled", "--data"])
                    .arg(&dir)
                    .args(["search", LARGE_SENTENCE, "--json", "--limit", "10"])
                    .env("XDG_CACHE_HOME", cache.path())
                    .env("INCIDEX_CACHE", "always")
                    .env_remove("INCIDEX_DATA"),
            )
        };
        let cold = run();
        let warm = median(7, run);
        if let (Some(cold), Some(warm)) = (cold, warm) {
            let files = incidex::corpus::load::list_files(std::slice::from_ref(&dir)).0.len();
            row(
                &format!("{} user cases, warm cache, start to results (median of 7)", thousands(files)),
                ms(warm),
                "≤ 150 ms".into(),
                format!("{:.2}× (cold {})", warm.as_secs_f64() / 0.150, ms(cold)),
            );
        } else {
            eprintln!("the large library's search failed");
        }
    }
    ExitCode::SUCCESS
}

fn row(what: &str, measured: String, budget: String, ratio: String) {
    println!("{what:<58} {measured:>16} {budget:>18} {ratio:>8}");
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn thousands(n: usize) -> String {
    incidex::text::numbers::thousands(n)
}

/// The wall time of `cmd`, its output discarded; `None` when it cannot run or fails.
fn timed(cmd: &mut Command) -> Option<Duration> {
    let start = Instant::now();
    let status = cmd.stdout(Stdio::null()).stderr(Stdio::null()).status().ok()?;
    let took = start.elapsed();
    // `search` exits 1 when nothing matches; that still counts as a run.
    matches!(status.code(), Some(0 | 1)).then_some(took)
}

fn median(runs: usize, mut f: impl FnMut() -> Option<Duration>) -> Option<Duration> {
    let mut times: Vec<Duration> = (0..runs).filter_map(|_| f()).collect();
    times.sort();
    times.get(times.len() / 2).copied()
}

/// The peak resident memory of `bin` run with `args`, in KiB. Measured from a small process of
/// its own (this example re-run with `--max-rss`): on Linux a child's `ru_maxrss` starts from the
/// memory of the process that forked it, and this one holds a whole library by now (it showed
/// 34 MB for a search that peaks at 13 MB).
fn max_rss_kib(bin: &Path, args: &[&str]) -> Option<i64> {
    let out =
        Command::new(std::env::current_exe().ok()?).arg("--max-rss").arg(bin).args(args).output().ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

/// The peak resident memory of `cmd`, a child of this process, in KiB.
fn child_max_rss(cmd: &mut Command) -> Option<i64> {
    let child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().ok()?;
    let pid = i32::try_from(child.id()).ok()?;
    let mut status = 0;
    // SAFETY: `rusage` is plain data that wait4 fills in; `pid` is our child, waited once.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointers to locals; the child is not waited for elsewhere (`child` is
    // dropped without `wait`).
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    (waited == pid).then_some(usage.ru_maxrss)
}

/// Start the TUI in a 120×40 pseudo-terminal and time it until the case list's title shows the
/// results ("Cases 1 to ...").
fn first_frame(bin: &Path) -> Option<Duration> {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    let pty = native_pty_system()
        .openpty(PtySize { rows: HEIGHT, cols: WIDTH, pixel_width: 0, pixel_height: 0 })
        .ok()?;
    let state = tempfile::tempdir().ok()?;
    let mut cmd = CommandBuilder::new(bin);
    cmd.env("XDG_STATE_HOME", state.path());
    cmd.env("TERM", "xterm-256color");
    cmd.env_remove("INCIDEX_DATA");
    let start = Instant::now();
    let mut child = pty.slave.spawn_command(cmd).ok()?;
    drop(pty.slave);
    let mut reader = pty.master.try_clone_reader().ok()?;
    let mut writer = pty.master.take_writer().ok()?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (Some(rows), Some(cols)) = (std::num::NonZeroU16::new(HEIGHT), std::num::NonZeroU16::new(WIDTH))
        else {
            return;
        };
        let mut parser = vt100::Parser::new(rows, cols, 0);
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            parser.process(&buf[..n]);
            if parser.screen().contents().contains("Cases 1 to") {
                let _ = tx.send(start.elapsed());
                break;
            }
        }
    });
    let shown = rx.recv_timeout(Duration::from_secs(10)).ok();
    let _ = writer.write_all(b"\x03");
    let _ = writer.flush();
    let _ = child.wait();
    shown
}

/// A terminal output that counts what is written to it.
#[derive(Clone, Default)]
struct Counter(Arc<Mutex<usize>>);

impl Counter {
    fn get(&self) -> usize {
        self.0.lock().map_or(0, |n| *n)
    }
}

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut n) = self.0.lock() {
            *n += buf.len();
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The bytes written for each keystroke of the sentence typed three times over the bundled
/// library at 120×40, sorted, and the cells changed per region of the screen. A fast typist's
/// keys within a word come less than the pause apart, so the case pane is drawn at each space;
/// `pause_every_key` draws it after every key.
fn keystroke_bytes(pause_every_key: bool) -> (Vec<usize>, Vec<(&'static str, usize)>) {
    let library = Arc::new(Library::bundled());
    let searcher = Searcher::new(library.clone());
    let (mut app, effects) = App::new(library, (WIDTH, HEIGHT), Options::default());
    let written = Counter::default();
    let Ok(mut terminal) = Terminal::with_options(
        CrosstermBackend::new(written.clone()),
        TerminalOptions { viewport: Viewport::Fixed(Rect::new(0, 0, WIDTH, HEIGHT)) },
    ) else {
        return (vec![0], Vec::new());
    };
    let Some(theme) = Theme::bundled("default") else { return (vec![0], Vec::new()) };
    let styles = Styles::new(&theme, ColorDepth::Ansi256);
    let run = |app: &mut App, mut effects: Vec<Effect>| {
        while let Some(effect) = effects.pop() {
            if let Effect::Search(request) = effect {
                let response = searcher.run(&request);
                effects.extend(app.update(Msg::Searched(Box::new(response))));
            }
        }
    };
    run(&mut app, effects);
    let mut last: Option<Buffer> = None;
    let layout = Layout::new(WIDTH, HEIGHT);
    let mut regions: Vec<(&'static str, usize)> =
        ["search box", "filters", "case list", "case pane", "status line"].map(|n| (n, 0)).to_vec();
    let mut draw = |app: &mut App, regions: &mut Vec<(&'static str, usize)>| -> usize {
        let before = written.get();
        if app.take_dirty() {
            let frame = terminal.draw(|f| ui::render(f, app, &styles));
            if let (Ok(frame), Some(old), Some(l)) = (&frame, &last, &layout) {
                let parts = [l.search, l.chips.union(l.suggestions), l.list, l.right, l.status];
                for (i, area) in parts.iter().enumerate() {
                    for y in area.top()..area.bottom() {
                        for x in area.left()..area.right() {
                            if frame.buffer[(x, y)] != old[(x, y)] {
                                regions[i].1 += 1;
                            }
                        }
                    }
                }
            }
            if let Ok(frame) = frame {
                last = Some(frame.buffer.clone());
            }
        }
        written.get() - before
    };
    draw(&mut app, &mut regions);
    let mut bytes = Vec::new();
    for _ in 0..3 {
        for c in SENTENCE.chars().chain(std::iter::once('\u{15}')) {
            let key = if c == '\u{15}' {
                KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)
            } else {
                KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
            };
            let effects = app.update(Msg::Key(key));
            run(&mut app, effects);
            let mut sent = draw(&mut app, &mut regions);
            if pause_every_key || c == ' ' || c == '\u{15}' {
                app.typing_paused();
                sent += draw(&mut app, &mut regions);
            }
            bytes.push(sent);
        }
    }
    bytes.sort_unstable();
    (bytes, regions)
}
