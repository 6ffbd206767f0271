//! How much a log line says about a failure, before counting how often it occurs.
//!
//! A line is weighed by the strongest marker in it:
//! - the last line of a Python traceback, and any `SomethingError:` / `…Exception:` line: 4;
//! - what the kernel and the driver say when hardware or memory fails (`NVRM: Xid`, the OOM
//!   killer, `segfault`, `Bus error`, `blocked for more than`), and `ERROR` / `FATAL` levels,
//!   `NCCL WARN`, `Error:` in a message, Kubernetes failure reasons (`CrashLoopBackOff`,
//!   `OOMKilled`, `FailedScheduling`), timeouts: 3;
//! - a log signature of the taxonomy (a fragment people paste that names a value): 2.5;
//! - `failed`, `error` as a word: 2;
//! - what follows a failure rather than causing it (`exit code`, `ChildFailedError`, `srun:
//!   error: … Exited with`, `Sending process … closing signal`): 1;
//! - `WARN` / `WARNING` levels: 1.5; Python's `UserWarning` and kin, which every job prints: 0.5.
//!
//! A line logged at `INFO` or `DEBUG` weighs a quarter of that (NCCL's start-up chatter names
//! every transport, and a signature in it is not a failure); a frame inside a traceback (the code
//! lines, `raise …`) a third.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// The weight of an exception line (a traceback's last line, `FooError: …`).
pub const EXCEPTION: f32 = 4.0;

/// Markers and their weights. `true` in the third place: the marker must stand as a whole word.
const MARKERS: &[(&str, f32, bool)] = &[
    // Failure markers.
    ("ERROR", 3.0, true),
    ("FATAL", 3.0, true),
    ("Fatal", 3.0, true),
    ("CRITICAL", 3.0, true),
    ("panic", 3.0, true),
    ("panicked", 3.0, true),
    ("NCCL WARN", 3.0, false),
    ("NVRM:", 3.0, false),
    ("Xid", 3.0, true),
    ("Error:", 3.0, false),
    ("error:", 2.5, false),
    ("Exception:", 3.0, false),
    ("killed by signal", 3.0, false),
    ("Segmentation fault", 3.0, false),
    ("segfault", 3.0, false),
    ("SIGSEGV", 3.0, false),
    ("SIGBUS", 3.0, false),
    ("SIGABRT", 3.0, false),
    ("Bus error", 3.0, false),
    ("core dumped", 3.0, false),
    ("out of memory", 3.0, false),
    ("Out of memory", 3.0, false),
    ("oom-kill", 3.0, false),
    ("oom_kill", 3.0, false),
    ("oom-killer", 3.0, false),
    ("OOMKilled", 3.0, false),
    ("Killed process", 3.0, false),
    ("CrashLoopBackOff", 3.0, false),
    ("ImagePullBackOff", 3.0, false),
    ("ErrImagePull", 3.0, false),
    ("Evicted", 3.0, true),
    ("FailedScheduling", 3.0, false),
    ("FailedMount", 3.0, false),
    ("FailedCreatePodSandBox", 3.0, false),
    ("timed out", 3.0, false),
    ("Timeout", 3.0, true),
    ("timeout", 2.5, true),
    ("Watchdog caught", 3.0, false),
    ("AER:", 3.0, false),
    ("uncorrectable", 3.0, false),
    ("fallen off the bus", 3.0, false),
    ("blocked for more than", 3.0, false),
    ("soft lockup", 3.0, false),
    ("hard LOCKUP", 3.0, false),
    ("Call Trace:", 2.0, false),
    ("Stale file handle", 3.0, false),
    ("No space left on device", 3.0, false),
    ("Disk quota exceeded", 3.0, false),
    ("Input/output error", 3.0, false),
    ("Connection refused", 2.5, false),
    ("Connection reset", 2.5, false),
    ("Permission denied", 2.5, false),
    ("NaN", 2.5, true),
    ("Assertion", 2.5, true),
    ("assert", 2.0, true),
    ("Aborted", 2.5, true),
    ("failed", 2.0, true),
    ("Failed", 2.0, true),
    ("FAILED", 2.0, true),
    ("failure", 2.0, true),
    ("error", 2.0, true),
    ("errors", 2.0, true),
    ("unhandled", 2.0, true),
    ("Unhandled", 2.0, true),
    ("denied", 2.0, true),
    ("Traceback (most recent call last)", 1.0, false),
    // What follows a failure: the launcher and the scheduler reporting it.
    ("exit code", 1.0, false),
    ("exitcode", 1.0, false),
    ("exit status", 1.0, false),
    ("Exited with", 1.0, false),
    ("ChildFailedError", 1.0, false),
    ("closing signal", 1.0, false),
    ("Sending process", 1.0, false),
    ("CANCELLED", 1.0, true),
    ("DUE TO TIME LIMIT", 1.5, false),
    ("DUE TO PREEMPTION", 1.5, false),
    ("Terminated", 1.0, true),
    ("terminate called", 2.0, false),
    // Warnings.
    ("WARN", 1.5, true),
    ("WARNING", 1.5, true),
    ("Warning:", 1.5, false),
    ("warning:", 1.5, false),
    ("UserWarning", 0.5, false),
    ("FutureWarning", 0.5, false),
    ("DeprecationWarning", 0.5, false),
];

/// Level words that mark a line as chatter (unless a failure level is in it too).
const QUIET_LEVELS: &[&str] = &["INFO", "DEBUG", "TRACE", "NOTICE", "Info", "Debug"];

/// The markers of a log line, with the taxonomy's signatures among them.
pub struct Salience {
    /// `None` only if the patterns could not be compiled (a user taxonomy past the automaton's
    /// limits): then only exception lines are recognised.
    markers: Option<AhoCorasick>,
    /// Weight and whole-word flag per pattern id; the quiet levels come after the markers, then
    /// the signatures.
    weights: Vec<(f32, bool)>,
    quiet_from: usize,
    signatures_from: usize,
}

impl std::fmt::Debug for Salience {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Salience").field("patterns", &self.weights.len()).finish()
    }
}

/// The weight of a taxonomy signature found in a line.
pub const SIGNATURE: f32 = 2.5;

impl Salience {
    /// The markers above, and `signatures` (fragments of log lines that name taxonomy values).
    pub fn new<'a>(signatures: impl IntoIterator<Item = &'a str>) -> Salience {
        let mut patterns: Vec<&str> = MARKERS.iter().map(|m| m.0).collect();
        let mut weights: Vec<(f32, bool)> = MARKERS.iter().map(|m| (m.1, m.2)).collect();
        let quiet_from = patterns.len();
        for level in QUIET_LEVELS {
            patterns.push(level);
            weights.push((0.0, true));
        }
        let signatures_from = patterns.len();
        for signature in signatures {
            // A signature of two characters or fewer would be found everywhere.
            if signature.trim().len() > 2 {
                patterns.push(signature);
                weights.push((SIGNATURE, true));
            }
        }
        let markers = AhoCorasickBuilder::new().match_kind(MatchKind::Standard).build(&patterns).ok();
        Salience { markers, weights, quiet_from, signatures_from }
    }

    /// How much `message` (a line without its launcher prefix) says about a failure, before its
    /// count is known; `in_frame` when it is a frame inside a traceback.
    pub fn weigh(&self, message: &str, in_frame: bool) -> f32 {
        let mut best: f32 = 0.0;
        let mut failure_level = false;
        let mut quiet = false;
        let bytes = message.as_bytes();
        for m in self.markers.iter().flat_map(|markers| markers.find_overlapping_iter(message)) {
            let id = m.pattern().as_usize();
            let Some(&(weight, whole_word)) = self.weights.get(id) else { continue };
            if whole_word && !stands_alone(bytes, m.start(), m.end()) {
                continue;
            }
            if id >= self.quiet_from && id < self.signatures_from {
                quiet = true;
                continue;
            }
            if weight >= 3.0 && id < self.quiet_from {
                failure_level = true;
            }
            best = best.max(weight);
        }
        if is_exception_line(message) {
            best = best.max(EXCEPTION);
            failure_level = true;
        }
        if quiet && !failure_level {
            best *= 0.25;
        }
        if in_frame {
            best /= 3.0;
        }
        best
    }
}

/// Whether `bytes[start..end]` is not part of a longer word.
fn stands_alone(bytes: &[u8], start: usize, end: usize) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let before = start.checked_sub(1).and_then(|i| bytes.get(i)).is_none_or(|&b| !word(b));
    let after = bytes.get(end).is_none_or(|&b| !word(b));
    before && after
}

/// `RuntimeError: …`, `torch.OutOfMemoryError: …`, `ValueError` alone, `KeyError: 'x'`: a line
/// that starts with an exception's (dotted) name ending in Error, Exception, Exit, Interrupt or
/// Fault, followed by a colon or nothing.
pub fn is_exception_line(message: &str) -> bool {
    let name_len =
        message.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.').count();
    let name = &message[..name_len];
    let rest = &message[name_len..];
    let last = name.rsplit('.').next().unwrap_or(name);
    let ends_right = ["Error", "Exception", "Exit", "Interrupt", "Fault"].iter().any(|s| {
        last.len() > s.len() && last.ends_with(s) && last.starts_with(|c: char| c.is_ascii_uppercase())
    });
    ends_right && (rest.is_empty() || rest.starts_with(':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weigh(line: &str) -> f32 {
        Salience::new(["Stale file handle", "c10d", "ProcessGroupNCCL"]).weigh(line, false)
    }

    #[test]
    fn failures_outweigh_warnings_and_chatter() {
        let exception = weigh("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB");
        let xid = weigh("NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.");
        let warn = weigh("2024-05-01 12:00:00 WARNING something is odd");
        let user = weigh("/opt/x.py:12: UserWarning: this will change");
        let info = weigh("node-1:123:456 [0] NCCL INFO Using network IB");
        let exit = weigh("[E] failed (exitcode: 1) local_rank: 3 (pid: 999) of binary: python");
        assert_eq!(exception, EXCEPTION);
        assert!(xid >= 3.0, "{xid}");
        assert!(warn < xid && warn > user, "{warn} {user}");
        assert!(info < 0.5, "{info}");
        assert!(exit <= 2.0 && exit < xid, "{exit}");
    }

    #[test]
    fn chatter_that_names_a_signature_stays_quiet() {
        let info = weigh("I0501 [c10d] INFO The client socket has connected to host:29500");
        assert!(info < 1.0, "{info}");
        assert!(weigh("rm: cannot remove 'x': Stale file handle") >= SIGNATURE);
        assert!(weigh("ProcessGroupNCCL INFO init") < 1.0);
    }

    #[test]
    fn exception_lines_are_recognised() {
        for (line, yes) in [
            ("RuntimeError: NCCL error", true),
            ("torch.distributed.DistBackendError: x", true),
            ("KeyboardInterrupt", true),
            ("ValueError", true),
            ("Errors were found", false),
            ("MyError is a class", false),
            ("error: x", false),
        ] {
            assert_eq!(is_exception_line(line), yes, "{line}");
        }
        assert!(Salience::new([]).weigh("    raise RuntimeError(\"x\")", true) < 1.5);
        assert!(weigh("the word errorless is no error marker") >= 2.0, "but `error` alone is");
        assert_eq!(weigh("all went well"), 0.0);
    }
}
