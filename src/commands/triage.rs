//! `incidex triage [FILE | - | TEXT]...`: what a failing job left behind — its whole log, a
//! `dmesg`, one pasted line, a sentence — turned into the lines that carry the failure, the
//! filters they suggest, and the past cases that match.
//!
//! Logs (files, plain or gzip, and stdin with `-`) are read whole as a stream in bounded memory
//! by [`crate::logs::LogReader`]; what is searched is the lines that stood out, shown as the
//! evidence with their line numbers. A sentence or a single line given as arguments is searched
//! as it is; a multi-line argument is read like a log. The text is never read for inline filter
//! syntax (a log line like `after:3s` is text).

use std::{
    ffi::{OsStr, OsString},
    io::{IsTerminal, Read, Write},
    os::unix::ffi::OsStrExt,
    path::Path,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use crate::{
    cli::TriageArgs,
    commands::{
        results::{
            JsonOutput, LogJson, check_errors, outcome, resolve_filters, write_hits, write_suggestions,
            write_summary,
        },
        stdout_error, text_width, truncate, write_json,
    },
    logs::{Digest, LogReader},
    search::{Engine, Request},
    support::{
        error::{Error, Result},
        progress::StderrBar,
    },
    text::numbers::{bytes, thousands},
};

/// What `triage` was given.
enum Input {
    /// Logs read into a digest: the evidence is what gets searched.
    Log(Digest),
    /// One line of text (a sentence, a log line): searched as it is.
    Line(String),
}

/// Triage the arguments (or stdin) and print what they suggest.
pub fn run(args: &TriageArgs, engine: &Engine, stdin: &mut dyn Read, out: &mut dyn Write) -> Result<()> {
    let (input, trouble) = read_input(args, engine, stdin)?;
    let status = answer(args, engine, &input, trouble.named > 1, out);
    if trouble.unreadable.is_empty() && trouble.damaged == 0 {
        return status;
    }
    // What was read is answered; the exit status still says that not everything was.
    let (unreadable, damaged) = (trouble.unreadable.len(), trouble.damaged);
    let mut parts = Vec::new();
    if unreadable > 0 {
        parts.push(format!(
            "{unreadable} {} could not be read",
            if unreadable == 1 { "input" } else { "inputs" }
        ));
    }
    if damaged > 0 {
        parts.push(format!("{damaged} {} damaged", if damaged == 1 { "was" } else { "were" }));
    }
    status?;
    Err(Error::Failed(format!("{} (see the warnings above)", parts.join(" and "))))
}

/// Search what was read and print it.
fn answer(
    args: &TriageArgs,
    engine: &Engine,
    input: &Input,
    several: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let (text, failure) = match input {
        Input::Log(digest) => (digest.query_text(), Some(digest.failure_text())),
        Input::Line(text) => (text.clone(), None),
    };
    let filters = resolve_filters(&args.filters, engine)?;
    let request = Request {
        input: &text,
        filters: &filters,
        offset: 0,
        limit: args.limit,
        inline_syntax: false,
        // Typed words may be misspelt; a program's log lines are not.
        typos: matches!(input, Input::Line(_)),
        all: args.all,
        // Filters are suggested from the lines that carry the failure.
        suggest_from: failure.as_deref(),
    };
    let response = engine.search(&request);
    check_errors(&response)?;
    let digest = match input {
        Input::Log(digest) => Some(digest),
        Input::Line(_) => None,
    };
    if args.json {
        let mut json = JsonOutput::new(engine, &text, &request, &response);
        if let Some(digest) = digest {
            json = json.with_log(LogJson::new(digest, engine));
        }
        write_json(out, &json)?;
        if !response.ranked {
            return Err(Error::NotFound("no words to triage in the text".into()));
        }
        return outcome(&response);
    }
    let width = text_width();
    if let Some(digest) = digest {
        write_evidence(out, digest, several, width)?;
    }
    if !response.ranked {
        writeln!(out, "No taxonomy value found in the text.").map_err(stdout_error)?;
        return Err(Error::NotFound("no words to triage in the text".into()));
    }
    if response.suggestions.is_empty() {
        writeln!(out, "No taxonomy value found in the text.").map_err(stdout_error)?;
    } else {
        writeln!(out, "Suggested filters (each narrows to the count shown):").map_err(stdout_error)?;
        write_suggestions(out, &response.suggestions, width)?;
    }
    if response.total > 0 {
        let head = format!("\nBest cases ({}):", response.range());
        writeln!(out, "{}", truncate(&head, width)).map_err(stdout_error)?;
        write_hits(out, engine, &response, width)?;
        writeln!(out).map_err(stdout_error)?;
        write_summary(out, &response, width)?;
    }
    outcome(&response)
}

/// Extensions that make a one-word argument a log file's name, whether or not it exists.
const LOG_EXTENSIONS: [&str; 5] = [".log", ".out", ".err", ".txt", ".gz"];

/// Whether `arg` names a file: `-`, anything that exists, or one word that looks like a path
/// (with a `/`, or ending in a log's extension). A multi-line argument or one with spaces is a
/// pasted log line or a sentence unless it exists.
fn names_a_file(arg: &OsStr) -> bool {
    let path = Path::new(arg);
    if arg == "-" || path.symlink_metadata().is_ok() {
        return true;
    }
    let bytes = arg.as_bytes();
    if bytes.is_empty() || bytes.iter().any(u8::is_ascii_whitespace) {
        return false;
    }
    let lower = bytes.to_ascii_lowercase();
    bytes.contains(&b'/') || LOG_EXTENSIONS.iter().any(|ext| lower.ends_with(ext.as_bytes()))
}

/// `name` as it is shown: UTF-8 as it is, any other byte as `\xNN` (so two names that differ
/// only in bytes that are not text still differ on the screen).
pub fn shown_name(name: &OsStr) -> String {
    let mut shown = String::new();
    for chunk in name.as_bytes().utf8_chunks() {
        shown.push_str(chunk.valid());
        for b in chunk.invalid() {
            shown.push_str(&format!("\\x{b:02x}"));
        }
    }
    shown
}

/// The inputs that could not be read, or were read only in part.
#[derive(Default)]
struct Trouble {
    /// Named inputs that could not be opened or read at all, with why.
    unreadable: Vec<String>,
    /// Inputs read only up to damage.
    damaged: usize,
    /// Logs named (readable or not): with more than one, every line names its file.
    named: usize,
}

/// Decide what the arguments are and read it; say on stderr what could not be read.
fn read_input(args: &TriageArgs, engine: &Engine, stdin: &mut dyn Read) -> Result<(Input, Trouble)> {
    let signatures = || engine.library().taxonomy.signatures();
    let no_text = || {
        Error::Usage(
            "give a log file, - to read a log from stdin, or a sentence or log line \
             (usage: incidex triage [FILE | - | TEXT]... [filters])"
                .into(),
        )
    };
    let files = !args.text && args.inputs.iter().any(|a| names_a_file(a));
    let implicit_stdin = args.inputs.is_empty() && !args.text && !std::io::stdin().is_terminal();
    if files || implicit_stdin {
        return read_logs(args, signatures(), stdin, implicit_stdin).map_err(|e| match e {
            Error::NotFound(_) => no_text(),
            e => e,
        });
    }
    if args.inputs.is_empty() {
        return Err(no_text());
    }
    let words: Vec<String> = args.inputs.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let text = words.join(" ");
    if text.trim_end().contains('\n') {
        let mut reader = LogReader::new(signatures());
        reader.read_text("<text>", &text).map_err(|e| Error::io("<text>", e))?;
        return Ok((Input::Log(reader.finish()), Trouble::default()));
    }
    Ok((Input::Line(text), Trouble::default()))
}

/// Read every argument (or stdin when there is none) as a log. One that cannot be read is a
/// warning while another can; when none can, the first failure is the error.
fn read_logs<'a>(
    args: &TriageArgs,
    signatures: impl IntoIterator<Item = &'a str>,
    stdin: &mut dyn Read,
    implicit_stdin: bool,
) -> Result<(Input, Trouble)> {
    // A read that takes over a second shows how far it is on stderr (a terminal only).
    let bar = Arc::new(StderrBar::new().after(Duration::from_secs(1)));
    let at = Arc::new(Reading::default());
    let mut reader = LogReader::new(signatures).on_block({
        let (bar, at) = (bar.clone(), at.clone());
        move || bar.report_line(|| at.line())
    });
    let mut trouble = Trouble { named: args.inputs.len(), ..Trouble::default() };
    let mut first_error = None;
    let mut read_any = false;
    let dash = OsString::from("-");
    let names: Vec<&OsStr> = if args.inputs.is_empty() {
        vec![dash.as_os_str()]
    } else {
        args.inputs.iter().map(OsString::as_os_str).collect()
    };
    for name in names {
        let result = if name == "-" {
            at.start("<stdin>", 0);
            reader
                .read("<stdin>", Counted { inner: &mut *stdin, at: &at })
                .map_err(|e| Error::io("<stdin>", e))
        } else {
            let shown = shown_name(name);
            open_log(Path::new(name))
                .and_then(|file| {
                    let size = file.metadata().ok().filter(|m| m.is_file()).map_or(0, |m| m.len());
                    at.start(&shown, size);
                    reader.read(&shown, Counted { inner: file, at: &at })
                })
                .map_err(|e| Error::io(&shown, e))
        };
        bar.finish();
        match result {
            Ok(()) => read_any = true,
            Err(e) => {
                trouble.unreadable.push(e.to_string());
                first_error.get_or_insert(e);
            }
        }
    }
    let digest = reader.finish();
    for damage in &digest.damaged {
        warn(&damage.to_string());
    }
    trouble.damaged = digest.damaged.len();
    if !read_any {
        return Err(first_error.unwrap_or_else(|| Error::NotFound("nothing to read".into())));
    }
    for problem in &trouble.unreadable {
        warn(problem);
    }
    // Nothing given and nothing piped (stdin empty or closed) is a usage error, as in clap.
    if implicit_stdin && digest.bytes == 0 {
        return Err(Error::NotFound("nothing piped".into()));
    }
    Ok((Input::Log(digest), trouble))
}

/// How far the read of the current input is, for the progress line.
#[derive(Default)]
struct Reading {
    name: Mutex<String>,
    done: AtomicU64,
    /// Its size (0: not known, a stream).
    total: AtomicU64,
}

impl Reading {
    fn start(&self, name: &str, total: u64) {
        if let Ok(mut n) = self.name.lock() {
            *n = name.to_string();
        }
        self.done.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
    }

    /// `incidex: reading job.log: 1.2 GB of 4.0 GB (30%)`, or for a stream `incidex: reading
    /// <stdin>: 1.2 GB`.
    fn line(&self) -> String {
        let name = self.name.lock().map(|n| n.clone()).unwrap_or_default();
        let (done, total) = (self.done.load(Ordering::Relaxed), self.total.load(Ordering::Relaxed));
        progress_line(&name, done, total)
    }
}

/// See [`Reading::line`].
fn progress_line(name: &str, done: u64, total: u64) -> String {
    if total == 0 || done > total {
        return format!("incidex: reading {name}: {}", bytes(done));
    }
    let percent = done.saturating_mul(100) / total;
    format!("incidex: reading {name}: {} of {} ({percent}%)", bytes(done), bytes(total))
}

/// A reader that counts the bytes read from it (before any decompression).
struct Counted<'a, R> {
    inner: R,
    at: &'a Reading,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.at.done.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Open `path` to read as a log: a file, a FIFO, a device, `/dev/fd/N`; not a directory.
fn open_log(path: &Path) -> std::io::Result<std::fs::File> {
    let metadata = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            std::io::Error::new(e.kind(), "no such file (to triage the words as text, give --text)")
        }
        _ => e,
    })?;
    if metadata.is_dir() {
        return Err(std::io::Error::new(std::io::ErrorKind::IsADirectory, "it is a directory"));
    }
    std::fs::File::open(path)
}

/// A warning on stderr; a stderr that cannot be written is not an error.
fn warn(line: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "incidex: warning: {}", crate::support::safe_out::escape(line));
}

/// "Read 20,412 lines (2.1 MB); these 4 lines stood out:", then each line with its number (and
/// its file, when several were read), how many lines shared its template (`×63`) and the ranks
/// that printed it (`[ranks 0-63]`).
fn write_evidence(out: &mut dyn Write, digest: &Digest, several: bool, width: usize) -> Result<()> {
    let size = bytes(digest.bytes);
    let lines = match digest.lines {
        1 => "1 line".to_string(),
        n => format!("{} lines", thousands(n as usize)),
    };
    let n = digest.evidence.len();
    let head = if digest.evidence.is_empty() {
        format!("Read {lines} ({size}): nothing in them to triage.")
    } else if digest.stood_out() {
        let these =
            if n == 1 { "this line stood out".to_string() } else { format!("these {n} lines stood out") };
        format!("Read {lines} ({size}); {these}:")
    } else {
        format!("Read {lines} ({size}); no line stood out as a failure, so the last ones are used:")
    };
    for line in textwrap::wrap(&head, crate::commands::wrap_at(width)) {
        writeln!(out, "{line}").map_err(stdout_error)?;
    }
    // With several inputs every line names its own, even when they all came from one.
    let several = several || digest.sources > 1;
    // The count and the ranks come before the text, so that no width cuts them off.
    let times = |e: &crate::logs::Evidence| {
        if e.count > 1 { format!("×{}", thousands(e.count as usize)) } else { String::new() }
    };
    let times_width = digest.evidence.iter().map(|e| times(e).chars().count()).max().unwrap_or(0);
    let place =
        |source: &str, line: u64| if several { format!("{source}:{line}") } else { format!("L{line}") };
    for e in &digest.evidence {
        let at = place(&e.source, e.line);
        let count = if times_width == 0 { String::new() } else { format!("{:>times_width$}  ", times(e)) };
        let ranks = if e.ranks.is_empty() { String::new() } else { format!("[{}] ", e.ranks.label()) };
        let line = format!("  {at:<7} {count}{ranks}{}", e.text);
        writeln!(out, "{}", truncate(&line, width)).map_err(stdout_error)?;
    }
    if let Some(c) = &digest.context {
        let line =
            format!("Searched with them, the line just before {}: {}", place(&c.source, c.before), c.text);
        writeln!(out, "{}", truncate(&line, width)).map_err(stdout_error)?;
    }
    writeln!(out).map_err(stdout_error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_line_says_how_much_of_what_was_read() {
        assert_eq!(
            progress_line("job.log", 1_200_000_000, 4_000_000_000),
            "incidex: reading job.log: 1.2 GB of 4.0 GB (30%)"
        );
        assert_eq!(progress_line("<stdin>", 12_300_000, 0), "incidex: reading <stdin>: 12.3 MB");
    }

    #[test]
    fn a_name_names_a_file_when_it_looks_like_one() {
        for (arg, file) in [
            ("-", true),
            ("slurm-81234.out", true),
            ("JOB.LOG", true),
            ("logs/rank0", true),
            ("dmesg.txt", true),
            ("NCCL", false),
            ("NVRM:", false),
            ("timeout after /x/y.py", false),
            ("", false),
        ] {
            assert_eq!(names_a_file(OsStr::new(arg)), file, "{arg:?}");
        }
        assert_eq!(shown_name(OsStr::from_bytes(b"rank\xff.log")), "rank\\xff.log");
    }
}
