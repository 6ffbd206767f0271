//! The `incidex` binary: parse the command line, run a command or the terminal UI, and map the
//! outcome to an exit code (0 success, 1 failure at run time, 2 usage error; 128 + the signal
//! when SIGHUP, SIGINT or SIGTERM ended the terminal UI) with one clear line on stderr — never a
//! backtrace. A closed stdout (`incidex list | head -1`) is not an error, and neither is a
//! stderr that cannot be written (`2>/dev/full`, a terminal that went away): what cannot be said
//! is dropped, and the exit code still tells.

use std::{io::Write, process::ExitCode};

use clap::Parser;
use incidex::{
    Error,
    cli::{Cli, Command},
    commands,
    corpus::LoadOptions,
    settings::config::Settings,
    support::{
        diag::Severity,
        safe_out::{SafeWriter, escape},
    },
    tui::loader::Problems,
};

/// Write one line to stderr; a stderr that cannot be written is ignored (`eprintln!` would
/// panic, and a panic while reporting a panic aborts the process).
fn say(line: std::fmt::Arguments<'_>) {
    let line = line.to_string();
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(escape(&line).as_bytes()).and_then(|()| stderr.write_all(b"\n"));
}

/// The panic hook: one line naming the place, never a backtrace, and nothing in it that can
/// panic in turn.
fn report_panic(info: &std::panic::PanicHookInfo<'_>) {
    let payload = info.payload();
    let msg = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("unknown panic");
    match info.location() {
        Some(l) => say(format_args!(
            "incidex: internal error at {}:{}: {}",
            l.file(),
            l.line(),
            incidex::text::one_line(msg)
        )),
        None => say(format_args!("incidex: internal error: {}", incidex::text::one_line(msg))),
    }
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(report_panic));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are not errors; clap knows which is which.
            if !e.use_stderr() {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            // A usage error echoes the value it refused: plain (no colour) and escaped, so a
            // value with escape sequences in it cannot steer the terminal.
            let message = e.render().to_string();
            say(format_args!("{}", message.trim_end()));
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(status) => ExitCode::from(status),
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Error::Reported) => ExitCode::from(1),
        Err(e) => {
            say(format_args!("incidex: {e}"));
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// Whether a library directory the settings name cannot be read (the load reports it as an
/// error with its path; the rest of the library still loads and the command still runs, but it
/// must not end as if all was well).
fn a_directory_is_unreadable(settings: &Settings) -> bool {
    settings.data.iter().any(|dir| std::fs::read_dir(dir).is_err())
}

/// Run the command; the exit status when it did not fail.
fn run(cli: Cli) -> incidex::Result<u8> {
    let settings = Settings::resolve(&cli.global)?;
    if cli.command.is_some() {
        warn_unknown_theme(&settings);
    }
    let stdout = std::io::stdout();
    // Everything a command prints goes through the one writer that escapes controls.
    let mut out = SafeWriter::new(std::io::BufWriter::new(stdout.lock()));
    let result = match &cli.command {
        Some(Command::Check(args)) => commands::check::run(args, &settings.data, &mut out),
        Some(Command::Completions(args)) => commands::completions::run(args.shell, &mut out),
        Some(Command::Template) => commands::template::run(&mut out),
        Some(Command::Doctor(args)) => {
            let status = if args.files.is_empty() {
                commands::doctor::run(args, &mut out)?
            } else {
                commands::preflight::run(args, &settings.ignore, &mut out)?
            };
            out.flush().map_err(commands::stdout_error)?;
            return Ok(status);
        }
        None => return run_tui(&settings, &cli.files).map(incidex::tui::Ended::exit_status),
        Some(Command::Themes(args)) => commands::themes::run(
            args,
            args.theme.as_deref().or(settings.theme.as_deref()),
            settings.no_color,
            &mut out,
        ),
        command => {
            // A large library takes a while to free and the process is about to end, which gives
            // the memory back at once: what is loaded is not freed (ManuallyDrop, here and for the
            // search engine below).
            let opened = std::mem::ManuallyDrop::new(load(&settings));
            match command {
                Some(Command::List(args)) => commands::list::run(args, &opened.library, &mut out),
                Some(Command::Show(args)) => commands::show::run(args, &opened.library, &mut out),
                Some(Command::Facets(args)) => commands::facets::run(args, &opened.library, &mut out),
                Some(Command::Graph(args)) => commands::graph::run(args, &opened.library, &mut out),
                Some(Command::Checklist(args)) => commands::checklist::run(args, &opened.library, &mut out),
                Some(Command::Search(args)) => {
                    let engine = std::mem::ManuallyDrop::new(
                        std::mem::ManuallyDrop::into_inner(opened).into_engine()?,
                    );
                    commands::search::run(args, &engine, &mut out)
                }
                Some(Command::Triage(args)) => {
                    let engine = std::mem::ManuallyDrop::new(
                        std::mem::ManuallyDrop::into_inner(opened).into_engine()?,
                    );
                    commands::triage::run(args, &engine, &mut std::io::stdin().lock(), &mut out)
                }
                None
                | Some(
                    Command::Check(_)
                    | Command::Completions(_)
                    | Command::Themes(_)
                    | Command::Template
                    | Command::Doctor(_),
                ) => {
                    unreachable!("handled above")
                }
            }
        }
    };
    result?;
    out.flush().map_err(commands::stdout_error)?;
    let loads_library = !matches!(
        cli.command,
        Some(Command::Check(_) | Command::Completions(_) | Command::Themes(_) | Command::Template)
    );
    Ok(if loads_library && a_directory_is_unreadable(&settings) { 1 } else { 0 })
}

/// A theme that the TUI would refuse (`--theme lite`, `theme = "lite"` in the config) is worth a
/// warning from every command, not only the one that draws with it.
fn warn_unknown_theme(settings: &Settings) {
    let Some(request) = settings.theme.as_deref() else { return };
    let user_dir = incidex::settings::theme::user_dir();
    if let Err(e) = incidex::settings::theme::resolve(Some(request), settings.no_color, user_dir.as_deref()) {
        say(format_args!("incidex: warning: {e}"));
    }
}

/// The terminal UI: the library is opened on a thread while the UI starts (with a gauge when
/// that takes a while); what went wrong loading it is printed once the terminal is given back.
fn run_tui(settings: &Settings, files: &[std::path::PathBuf]) -> incidex::Result<incidex::tui::Ended> {
    // Job specs are checked before the terminal is taken, so that a path that cannot be read is
    // in the first view, not lost behind it.
    let preflight = if files.is_empty() {
        Vec::new()
    } else {
        let external = commands::preflight::config_ignores(&settings.ignore);
        let rules = incidex::doctor::Rules::bundled();
        incidex::doctor::spec::check_paths(files, &rules, &Default::default(), &external)
    };
    let options = LoadOptions { bundled: settings.bundled, dirs: settings.data.clone() };
    let (cache, cache_warning) = incidex::store::cache::CacheOptions::from_env();
    let open = move |progress: incidex::support::progress::ProgressFn<'_>| {
        let opened = incidex::store::cache::open(&options, &cache, progress);
        let problems = problems(cache_warning, &opened, &options.dirs);
        incidex::tui::loader::Opened { library: opened.library, prebuilt: opened.prebuilt, problems }
    };
    incidex::tui::run(settings, preflight, open, print_problems)
}

/// Load the library the settings name (through the cache for large libraries, with a progress
/// bar while it is first read and indexed), reporting problems in user files on stderr.
fn load(settings: &Settings) -> incidex::store::cache::Opened {
    let options = LoadOptions { bundled: settings.bundled, dirs: settings.data.clone() };
    let (cache, cache_warning) = incidex::store::cache::CacheOptions::from_env();
    let bar = incidex::support::progress::StderrBar::new();
    let opened = incidex::store::cache::open(&options, &cache, &|p| bar.report(p));
    bar.finish();
    print_problems(&problems(cache_warning, &opened, &settings.data));
    opened
}

/// What is worth telling the user about a load: why the cache could not be used, and the
/// problems in their own files (the bundled library is checked in CI; hints are for `check`).
fn problems(
    cache_warning: Option<String>,
    opened: &incidex::store::cache::Opened,
    dirs: &[std::path::PathBuf],
) -> Problems {
    // A set, not a scan of the bundled paths per diagnostic: a large library can have many.
    let bundled: std::collections::HashSet<&str> = incidex::corpus::bundled::CASES
        .iter()
        .map(|(p, _)| *p)
        .chain([incidex::corpus::bundled::TAXONOMY_PATH])
        .collect();
    let is_bundled = |path: &str| bundled.contains(path);
    Problems {
        warnings: cache_warning.into_iter().chain(opened.warnings.iter().cloned()).collect(),
        diagnostics: opened
            .library
            .diagnostics
            .iter()
            .filter(|d| d.severity != Severity::Hint && !is_bundled(&d.path))
            .map(ToString::to_string)
            .collect(),
        dirs: dirs.to_vec(),
    }
}

/// Problems in the user's files printed before a command's answer, at most: the rest are
/// counted, and `incidex check` lists them all.
const MAX_PROBLEMS_SHOWN: usize = 10;

/// Print `problems` on stderr, one line each: the warnings about the cache, then the first
/// [`MAX_PROBLEMS_SHOWN`] problems in the user's files and how many more there are.
fn print_problems(problems: &Problems) {
    for warning in &problems.warnings {
        say(format_args!("incidex: warning: {warning}"));
    }
    for diagnostic in problems.diagnostics.iter().take(MAX_PROBLEMS_SHOWN) {
        say(format_args!("incidex: {diagnostic}"));
    }
    let more = problems.diagnostics.len().saturating_sub(MAX_PROBLEMS_SHOWN);
    if more > 0 {
        let problems = if more == 1 { "problem" } else { "problems" };
        say(format_args!(
            "incidex: ... and {} more {problems} in your library files (`incidex check` lists them all)",
            incidex::text::numbers::thousands(more)
        ));
    }
}
