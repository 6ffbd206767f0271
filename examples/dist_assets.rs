//! Write the files a release ships beside the binary, all generated from the clap definition
//! (`incidex::cli::Cli::command()`), so they never drift from `--help`:
//!
//! ```sh
//! cargo run --example dist_assets -- OUT_DIR [YYYY-MM-DD]
//! ```
//!
//! - `OUT_DIR/man/incidex.1`, and one page per command (`incidex-search.1`, ...) that the main
//!   page's COMMANDS section points to; the main page adds EXIT STATUS, ENVIRONMENT and FILES;
//! - `OUT_DIR/completions/incidex.bash`, `_incidex` (zsh) and `incidex.fish`, exactly what
//!   `incidex completions SHELL` prints.
//!
//! `scripts/dist` runs it. This is an example rather than a command of the binary so that
//! clap_mangen stays a dev-dependency: the release binary carries no man-page renderer. The pages
//! carry the date given (`scripts/dist` gives the last commit's), so one commit always gives the
//! same pages; none when it is left out. An argument rather than `SOURCE_DATE_EPOCH`, which
//! `cargo run` would also hand to build scripts that watch it (zstd-sys), rebuilding tantivy.

use std::{
    fs,
    io::{self, Write},
    path::{Path, PathBuf},
    process::ExitCode,
};

use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::{
    Man,
    roff::{Roff, bold, italic, roman},
};
use incidex::cli::Cli;

/// The completion files, named where each shell looks for them.
const COMPLETIONS: [(Shell, &str); 3] =
    [(Shell::Bash, "incidex.bash"), (Shell::Zsh, "_incidex"), (Shell::Fish, "incidex.fish")];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (out, date) = match args.as_slice() {
        [out] => (out, ""),
        [out, date] if is_date(date) => (out, date.as_str()),
        _ => {
            eprintln!("usage: cargo run --example dist_assets -- OUT_DIR [YYYY-MM-DD]");
            return ExitCode::from(2);
        }
    };
    match write_all(Path::new(out), date) {
        Ok(files) => {
            for file in files {
                println!("{}", file.display());
            }
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("dist_assets: {err}");
            ExitCode::FAILURE
        }
    }
}

/// `YYYY-MM-DD`, as a man page's date is written.
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() })
}

/// Write the man pages (dated `date`) and completions under `out`; return the files written.
fn write_all(out: &Path, date: &str) -> io::Result<Vec<PathBuf>> {
    let man_dir = out.join("man");
    let completions_dir = out.join("completions");
    fs::create_dir_all(&man_dir)?;
    fs::create_dir_all(&completions_dir)?;
    let mut written = man_pages(&man_dir, date)?;
    for (shell, name) in COMPLETIONS {
        let path = completions_dir.join(name);
        let mut file = io::BufWriter::new(fs::File::create(&path)?);
        incidex::commands::completions::run(shell, &mut file).map_err(|e| io::Error::other(e.to_string()))?;
        file.flush()?;
        written.push(path);
    }
    Ok(written)
}

/// `incidex.1` and one page per visible command, named as clap_mangen's COMMANDS section refers
/// to them (`incidex-search(1)`).
fn man_pages(dir: &Path, date: &str) -> io::Result<Vec<PathBuf>> {
    // `help` is clap's own command, not one of ours: no page for it, and no mention of it.
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    // The footer holds the source and the date side by side: "incidex 0.1.0", not the whole
    // --version line (which names the library too and runs into the date).
    let source = format!("incidex {}", env!("CARGO_PKG_VERSION"));
    let page = |cmd: clap::Command| Man::new(cmd).date(date).source(source.clone()).manual("incidex manual");

    let mut written = Vec::new();
    let main = page(cmd.clone());
    let mut text = Vec::new();
    main.render_title(&mut text)?;
    main.render_name_section(&mut text)?;
    main.render_synopsis_section(&mut text)?;
    main.render_description_section(&mut text)?;
    main.render_options_section(&mut text)?;
    main.render_subcommands_section(&mut text)?;
    main_page_sections().to_writer(&mut text)?;
    main.render_version_section(&mut text)?;
    let path = dir.join(main.get_filename());
    fs::write(&path, text)?;
    written.push(path);

    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        // The help's "Examples:" (its after_help) is the page's EXAMPLES section, not clap_mangen's
        // generic EXTRA; so the page is put together section by section.
        let examples = sub.get_after_help().map(|h| h.to_string());
        let man = page(sub.clone().after_help(None::<&str>));
        let mut text = Vec::new();
        man.render_title(&mut text)?;
        man.render_name_section(&mut text)?;
        man.render_synopsis_section(&mut text)?;
        man.render_description_section(&mut text)?;
        man.render_options_section(&mut text)?;
        if let Some(examples) = examples {
            examples_section(&examples).to_writer(&mut text)?;
        }
        see_also(&mut Roff::new(), &["incidex"]).to_writer(&mut text)?;
        let path = dir.join(man.get_filename());
        fs::write(&path, text)?;
        written.push(path);
    }
    Ok(written)
}

/// What the main page says beyond `--help`: exit codes, environment and files, as the README
/// documents them.
fn main_page_sections() -> Roff {
    let mut roff = Roff::new();
    let item = |roff: &mut Roff, term: &str, text: &str| {
        roff.control("TP", []).text([bold(term)]).text([roman(text)]);
    };

    roff.control("SH", ["EXIT STATUS"]);
    item(&mut roff, "0", "Success (for search and triage: something matched).");
    item(
        &mut roff,
        "1",
        "Failure at run time: an unknown id, a check that found errors, a search that matched nothing.",
    );
    item(&mut roff, "2", "Usage error: an unknown option, command or filter value.");
    roff.control("PP", []).text([
        roman("Errors are one line on standard error. A closed output pipe ("),
        bold("incidex list | head -1"),
        roman(") is not an error."),
    ]);

    roff.control("SH", ["ENVIRONMENT"]);
    item(&mut roff, "INCIDEX_DATA", "Library directories of your own cases, colon-separated, as --data.");
    item(
        &mut roff,
        "INCIDEX_CACHE",
        "always: cache any user library; off: never. By default libraries of 1,000 files or more are cached.",
    );
    item(&mut roff, "NO_COLOR", "When set, the mono theme is used (unless --theme names another).");
    item(&mut roff, "TERM", "dumb selects the mono theme; a TERM with 256color allows 256 colours.");
    item(&mut roff, "COLORTERM", "truecolor or 24bit: theme colours are drawn as they are.");
    item(&mut roff, "COLUMNS", "The width of plain output (80 when unset).");
    item(&mut roff, "XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_CACHE_HOME", "Where the files below live.");

    roff.control("SH", ["FILES"]);
    item(&mut roff, "~/.config/incidex/config.toml", "Settings: data directories, theme, mouse.");
    item(&mut roff, "~/.config/incidex/themes/NAME.toml", "Colour themes of your own.");
    item(&mut roff, "~/.local/state/incidex/session.json", "The terminal UI's last session, for --resume.");
    item(&mut roff, "~/.cache/incidex/", "Parsed and indexed large libraries, four entries at most.");

    let commands: Vec<String> = Cli::command()
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| format!("incidex-{}", s.get_name()))
        .collect();
    let commands: Vec<&str> = commands.iter().map(String::as_str).collect();
    see_also(&mut roff, &commands);
    roff
}

/// An EXAMPLES section from a command's "Examples:" help: each command in bold, then what it
/// does, one to a paragraph.
fn examples_section(help: &str) -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["EXAMPLES"]);
    for line in help.lines().skip_while(|l| l.trim_end().ends_with(':')).filter(|l| !l.trim().is_empty()) {
        let line = line.trim();
        // Two spaces or more part the command from what it does.
        let (command, what) = match line.find("   ") {
            Some(at) => (line[..at].trim_end(), line[at..].trim()),
            None => (line, ""),
        };
        roff.control("TP", []).text([bold(command)]);
        if !what.is_empty() {
            roff.text([roman(what)]);
        }
    }
    roff
}

/// A SEE ALSO section naming section-1 pages.
fn see_also<'r>(roff: &'r mut Roff, pages: &[&str]) -> &'r mut Roff {
    roff.control("SH", ["SEE ALSO"]);
    let mut line = Vec::new();
    for (i, page) in pages.iter().enumerate() {
        if i > 0 {
            line.push(roman(", "));
        }
        line.push(bold(*page));
        line.push(roman("(1)"));
    }
    roff.text(line);
    roff.control("PP", []).text([
        roman("The README, in the release tarball: "),
        italic("README.md"),
        roman("."),
    ])
}
