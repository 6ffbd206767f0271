//! What the node audit looked at: file contents, directory listings and symlinks under the probe
//! root, the output of a fixed table of commands, and the audit's own environment — and its one
//! text form, the snapshot archive that `--save-snapshot` writes and `--from` reads back.
//!
//! A snapshot is plain data. The checks ([`super::checks`]) read only this, so a saved snapshot
//! (a user's node, a fixture) is audited exactly as the live node was. Every path records what
//! happened when it was read: its text, a listing, a link target, "does not exist" or "could not
//! be read, and why". A path that was never looked at is neither: [`Look::NotCaptured`], which a
//! check turns into `unknown`, never into `pass`.
//!
//! The archive is line-oriented text, easy to read, diff and attach to a ticket:
//!
//! ```text
//! incidex-snapshot 1
//! meta host node17
//! env NCCL_DEBUG=INFO
//! file /proc/cmdline
//! | BOOT_IMAGE=/vmlinuz root=/dev/sda1 iommu=pt
//! dir /dev/shm
//! | torch_1234
//! link /sys/bus/pci/devices/0000:17:00.0/iommu_group ../../../kernel/iommu_groups/3
//! missing /etc/slurm/slurm.conf
//! unreadable /dev/kmsg permission denied
//! command nvidia-smi -q
//! exit 0 130
//! | ==============NVSMI LOG==============
//! ! (a line of standard error)
//! command lspci -vvv
//! not-found
//! ```
//!
//! Content lines start with `| ` (standard error `! `), so no content can pass for a header.

use std::collections::BTreeMap;

use crate::support::diag::{Diagnostic, LineIndex, Severity};

/// The archive's first line.
pub const HEADER: &str = "incidex-snapshot 1";

/// What reading one path gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A file and its text (lossily decoded; cut at the probe's size limit).
    File(String),
    /// A directory and the names in it, sorted.
    Dir(Vec<String>),
    /// A symbolic link and its target, as written.
    Link(String),
    /// Nothing at that path.
    Missing,
    /// It is there but could not be read: the reason (permission denied, refused, ...).
    Unreadable(String),
}

/// What running one command of the probe's table gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ran {
    /// It ran and exited (`code` is -1 when a signal ended it).
    Exited {
        /// The exit status.
        code: i32,
        /// Standard output.
        stdout: String,
        /// Standard error.
        stderr: String,
        /// How long it took.
        millis: u64,
    },
    /// It did not finish within the timeout and was killed.
    TimedOut {
        /// The timeout, in seconds.
        secs: u64,
    },
    /// The program is not installed (in the fixed directories the probe looks in).
    NotFound,
    /// It was not run, and why (no GPU on the bus, a snapshot of another root, ...).
    NotRun(String),
    /// It could not be started.
    Failed(String),
}

/// A path or a command as a check sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look<'a, T> {
    /// Read: here it is.
    Found(T),
    /// Looked at, and nothing is there.
    Missing,
    /// Looked at, and it could not be read: the reason.
    Unreadable(&'a str),
    /// Not in the snapshot: nobody looked (a bug report that lacks it, another root).
    NotCaptured,
}

impl<'a, T> Look<'a, T> {
    /// The value, if it was read.
    pub fn found(self) -> Option<T> {
        match self {
            Look::Found(v) => Some(v),
            _ => None,
        }
    }
}

/// Everything one audit looked at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Facts about the capture: `host`, `kernel`, `uid`, `root`, `captured`, `source`, `tool`.
    pub meta: BTreeMap<String, String>,
    /// The environment variables the checks read (of the audit itself, or of `--env-file`).
    pub env: BTreeMap<String, String>,
    /// Paths, as seen from the root (`/proc/cmdline`), and what reading them gave.
    pub files: BTreeMap<String, Entry>,
    /// Commands, keyed by their command line (`nvidia-smi -q`), and what running them gave.
    pub commands: BTreeMap<String, Ran>,
}

impl Snapshot {
    /// A file's text.
    pub fn file(&self, path: &str) -> Look<'_, &str> {
        match self.files.get(path) {
            Some(Entry::File(text)) => Look::Found(text),
            Some(Entry::Missing) => Look::Missing,
            Some(Entry::Unreadable(why)) => Look::Unreadable(why),
            Some(Entry::Dir(_)) => Look::Unreadable("a directory, not a file"),
            Some(Entry::Link(_)) => Look::Unreadable("a link, not a file"),
            None => Look::NotCaptured,
        }
    }

    /// A file's text with surrounding white space trimmed.
    pub fn value(&self, path: &str) -> Look<'_, &str> {
        match self.file(path) {
            Look::Found(t) => Look::Found(t.trim()),
            other => other,
        }
    }

    /// A directory's names.
    pub fn dir(&self, path: &str) -> Look<'_, &[String]> {
        match self.files.get(path) {
            Some(Entry::Dir(names)) => Look::Found(names),
            Some(Entry::Missing) => Look::Missing,
            Some(Entry::Unreadable(why)) => Look::Unreadable(why),
            Some(Entry::File(_)) => Look::Unreadable("a file, not a directory"),
            Some(Entry::Link(_)) => Look::Unreadable("a link, not a directory"),
            None => Look::NotCaptured,
        }
    }

    /// A link's target.
    pub fn link(&self, path: &str) -> Look<'_, &str> {
        match self.files.get(path) {
            Some(Entry::Link(target)) => Look::Found(target),
            Some(Entry::Missing) => Look::Missing,
            Some(Entry::Unreadable(why)) => Look::Unreadable(why),
            Some(_) => Look::Unreadable("not a link"),
            None => Look::NotCaptured,
        }
    }

    /// Whether anything (file, directory or link) is at `path`.
    pub fn exists(&self, path: &str) -> Option<bool> {
        match self.files.get(path) {
            Some(Entry::Missing) => Some(false),
            Some(_) => Some(true),
            None => None,
        }
    }

    /// What running the command `key` gave, if it was in the table.
    pub fn command(&self, key: &str) -> Option<&Ran> {
        self.commands.get(key)
    }

    /// An environment variable, when set and not empty.
    pub fn env(&self, key: &str) -> Option<&str> {
        self.env.get(key).map(String::as_str).filter(|v| !v.is_empty())
    }

    /// A fact about the capture.
    pub fn meta(&self, key: &str) -> Option<&str> {
        self.meta.get(key).map(String::as_str)
    }

    /// Whether the audit ran as root (unknown in a snapshot that does not say counts as not).
    pub fn is_root(&self) -> bool {
        self.meta("uid") == Some("0")
    }

    /// The archive text of this snapshot.
    pub fn to_archive(&self) -> String {
        let mut out = String::with_capacity(64 * 1024);
        out.push_str(HEADER);
        out.push('\n');
        let lines = |out: &mut String, prefix: &str, text: &str| {
            for line in text.lines() {
                out.push_str(prefix);
                out.push_str(line);
                out.push('\n');
            }
        };
        for (k, v) in &self.meta {
            out.push_str(&format!("meta {k} {}\n", escape(v)));
        }
        for (k, v) in &self.env {
            out.push_str(&format!("env {k}={}\n", escape(v)));
        }
        for (path, entry) in &self.files {
            match entry {
                Entry::File(text) => {
                    out.push_str(&format!("file {path}\n"));
                    lines(&mut out, "| ", text);
                }
                Entry::Dir(names) => {
                    out.push_str(&format!("dir {path}\n"));
                    for n in names {
                        out.push_str(&format!("| {}\n", escape(n)));
                    }
                }
                Entry::Link(target) => out.push_str(&format!("link {path} {}\n", escape(target))),
                Entry::Missing => out.push_str(&format!("missing {path}\n")),
                Entry::Unreadable(why) => out.push_str(&format!("unreadable {path} {}\n", escape(why))),
            }
        }
        for (key, ran) in &self.commands {
            out.push_str(&format!("command {key}\n"));
            match ran {
                Ran::Exited { code, stdout, stderr, millis } => {
                    out.push_str(&format!("exit {code} {millis}\n"));
                    lines(&mut out, "| ", stdout);
                    lines(&mut out, "! ", stderr);
                }
                Ran::TimedOut { secs } => out.push_str(&format!("timeout {secs}\n")),
                Ran::NotFound => out.push_str("not-found\n"),
                Ran::NotRun(why) => out.push_str(&format!("not-run {}\n", escape(why))),
                Ran::Failed(why) => out.push_str(&format!("failed {}\n", escape(why))),
            }
        }
        out
    }

    /// Read an archive back. A line that fits nothing is a diagnostic (`name:line:column`) and is
    /// skipped; everything else still loads.
    pub fn from_archive(name: &str, text: &str) -> (Snapshot, Vec<Diagnostic>) {
        let index = LineIndex::new(text);
        let mut snap = Snapshot::default();
        let mut problems = Vec::new();
        let mut at = 0usize;
        // Where content lines go: a file's text, a listing, or a command's output.
        enum Into {
            Nothing,
            File(String),
            Dir(String),
            Command(String),
        }
        let mut into = Into::Nothing;
        let mut first = true;
        for raw in text.split_inclusive('\n') {
            let offset = at;
            at += raw.len();
            let line = raw.strip_suffix('\n').unwrap_or(raw);
            let line = line.strip_suffix('\r').unwrap_or(line);
            let mut bad = |message: String| {
                problems.push(Diagnostic::new(
                    name.to_string(),
                    index.position(offset),
                    Severity::Error,
                    message,
                ))
            };
            if first {
                first = false;
                if line != HEADER {
                    bad(format!("not an incidex snapshot: the first line should be `{HEADER}`"));
                    return (snap, problems);
                }
                continue;
            }
            if let Some(content) = line.strip_prefix("| ").or(if line == "|" { Some("") } else { None }) {
                match &into {
                    Into::File(path) => {
                        if let Some(Entry::File(t)) = snap.files.get_mut(path) {
                            t.push_str(content);
                            t.push('\n');
                        }
                    }
                    Into::Dir(path) => {
                        if let Some(Entry::Dir(names)) = snap.files.get_mut(path) {
                            names.push(unescape(content));
                        }
                    }
                    Into::Command(key) => {
                        if let Some(Ran::Exited { stdout, .. }) = snap.commands.get_mut(key) {
                            stdout.push_str(content);
                            stdout.push('\n');
                        } else {
                            bad("output for a command with no `exit` line".into());
                        }
                    }
                    Into::Nothing => bad("a content line outside any file, directory or command".into()),
                }
                continue;
            }
            if let Some(content) = line.strip_prefix("! ").or(if line == "!" { Some("") } else { None }) {
                match &into {
                    Into::Command(key) => {
                        if let Some(Ran::Exited { stderr, .. }) = snap.commands.get_mut(key) {
                            stderr.push_str(content);
                            stderr.push('\n');
                        }
                    }
                    _ => bad("standard error outside a command".into()),
                }
                continue;
            }
            let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
            match word {
                "" => {}
                "meta" => match rest.split_once(' ') {
                    Some((k, v)) => {
                        snap.meta.insert(k.to_string(), unescape(v));
                    }
                    None => {
                        snap.meta.insert(rest.to_string(), String::new());
                    }
                },
                "env" => match rest.split_once('=') {
                    Some((k, v)) => {
                        snap.env.insert(k.to_string(), unescape(v));
                    }
                    None => bad(format!("`env` wants KEY=VALUE, found `{}`", crate::text::one_line(rest))),
                },
                "file" => {
                    snap.files.insert(rest.to_string(), Entry::File(String::new()));
                    into = Into::File(rest.to_string());
                }
                "dir" => {
                    snap.files.insert(rest.to_string(), Entry::Dir(Vec::new()));
                    into = Into::Dir(rest.to_string());
                }
                "link" => match rest.split_once(' ') {
                    Some((p, t)) => {
                        snap.files.insert(p.to_string(), Entry::Link(unescape(t)));
                        into = Into::Nothing;
                    }
                    None => bad("`link` wants a path and a target".into()),
                },
                "missing" => {
                    snap.files.insert(rest.to_string(), Entry::Missing);
                    into = Into::Nothing;
                }
                "unreadable" => {
                    let (p, why) = rest.split_once(' ').unwrap_or((rest, "could not be read"));
                    snap.files.insert(p.to_string(), Entry::Unreadable(unescape(why)));
                    into = Into::Nothing;
                }
                "command" => {
                    into = Into::Command(rest.to_string());
                    snap.commands.insert(rest.to_string(), Ran::Failed("no result recorded".into()));
                }
                "exit" | "timeout" | "not-found" | "not-run" | "failed" => {
                    let Into::Command(key) = &into else {
                        bad(format!("`{word}` outside a command"));
                        continue;
                    };
                    let ran = match word {
                        "exit" => {
                            let mut parts = rest.split(' ');
                            let code = parts.next().and_then(|c| c.parse().ok());
                            let millis = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
                            match code {
                                Some(code) => {
                                    Ran::Exited { code, stdout: String::new(), stderr: String::new(), millis }
                                }
                                None => {
                                    bad("`exit` wants a status".into());
                                    continue;
                                }
                            }
                        }
                        "timeout" => Ran::TimedOut { secs: rest.parse().unwrap_or(0) },
                        "not-found" => Ran::NotFound,
                        "not-run" => Ran::NotRun(unescape(rest)),
                        _ => Ran::Failed(unescape(rest)),
                    };
                    snap.commands.insert(key.clone(), ran);
                }
                other => bad(format!("unknown line `{}`", crate::text::one_line(other))),
            }
        }
        if first {
            problems.push(Diagnostic::new(
                name.to_string(),
                index.position(0),
                Severity::Error,
                "empty snapshot",
            ));
        }
        (snap, problems)
    }
}

/// Backslash and newline escaped, for one-line fields.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\n', "\\n").replace('\r', "\\r")
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Snapshot {
        let mut s = Snapshot::default();
        s.meta.insert("host".into(), "node17".into());
        s.env.insert("ODD".into(), "a\\b\nc".into());
        s.files.insert("/proc/cmdline".into(), Entry::File("BOOT_IMAGE=/vmlinuz iommu=pt\n".into()));
        s.files.insert("/fake".into(), Entry::File("| looks like content\ncommand not a header\n\n".into()));
        s.files.insert("/dev/shm".into(), Entry::Dir(vec!["torch_1".into(), "sem.x".into()]));
        s.files.insert("/sys/x/iommu_group".into(), Entry::Link("../../kernel/iommu_groups/3".into()));
        s.files.insert("/etc/slurm/slurm.conf".into(), Entry::Missing);
        s.files.insert("/dev/kmsg".into(), Entry::Unreadable("permission denied".into()));
        s.commands.insert(
            "nvidia-smi -L".into(),
            Ran::Exited { code: 0, stdout: "GPU 0: A\n".into(), stderr: "warn\n".into(), millis: 12 },
        );
        s.commands.insert("nvidia-smi -q".into(), Ran::TimedOut { secs: 10 });
        s.commands.insert("lspci -vvv".into(), Ran::NotFound);
        s.commands.insert("journalctl -k".into(), Ran::NotRun("another root".into()));
        s
    }

    #[test]
    fn an_archive_reads_back_as_the_snapshot_it_was() {
        let s = sample();
        let text = s.to_archive();
        let (back, problems) = Snapshot::from_archive("s", &text);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(back, s);
    }

    #[test]
    fn a_bad_line_is_named_and_the_rest_still_loads() {
        let text = format!("{HEADER}\nfile /a\n| x\nbogus line\nmissing /b\n");
        let (back, problems) = Snapshot::from_archive("snap.txt", &text);
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].to_string().starts_with("snap.txt:4:1: error: unknown line `bogus`"),
            "{}",
            problems[0]
        );
        assert_eq!(back.file("/a"), Look::Found("x\n"));
        assert_eq!(back.file("/b"), Look::Missing);
        assert_eq!(back.file("/never"), Look::NotCaptured);
    }

    #[test]
    fn a_file_that_is_not_a_snapshot_says_so() {
        let (_, problems) = Snapshot::from_archive("x.log", "hello\n");
        assert!(problems[0].to_string().contains("not an incidex snapshot"));
    }
}
