//! How much a log line says about a failure, before counting how often it occurs.
//!
//! A line is weighed by the strongest marker in it:
//! - the last line of a Python traceback, and any `SomethingError:` / `…Exception:` line: 4;
//! - what the kernel and the driver say when hardware or memory fails (`NVRM: Xid`, the OOM
//!   killer, `segfault`, `Bus error`, `blocked for more than`), and `ERROR` / `FATAL` levels,
//!   `NCCL WARN`, `Error:` in a message, Kubernetes failure reasons (`CrashLoopBackOff`,
//!   `OOMKilled`, `FailedScheduling`), timeouts: 3;
//! - a log signature of the taxonomy (a fragment people paste that names a value): 2.5 for one of
//!   several words (`Stale file handle`), 1 for a single token (`NVRM:`, `c10d`), which names
//!   where a line comes from more often than a failure;
//! - `failed`, `error` as a word: 2;
//! - what follows a failure rather than causing it (`exit code`, `ChildFailedError`, `srun:
//!   error: … Exited with`, `Sending process … closing signal`): 1;
//! - a Kubernetes event of type `Warning` (`  Warning  FailedMount  3m  kubelet  …`): 3;
//! - `WARN` / `WARNING` levels: 1.5; Python's `UserWarning` and kin, which every job prints: 0.5.
//!
//! A line logged at `INFO` or `DEBUG` (also glog's `I1130 …` and PyTorch's `[I …]`) weighs a
//! quarter of that (NCCL's start-up chatter names every transport, and a signature in it is not a
//! failure); a line logged as a warning (`WARNING`, `W1130 …`, `[W …]`) at most 1.5, whatever it
//! says (`[W socket.cpp] … failed to bind` is in every job's log); a line that reports a failure
//! rather than causing it (an exit code, the launcher's `ChildFailedError`) at most 1.2, even when
//! it names an exception; a frame inside a traceback (the code lines, `raise …`) a third; a
//! native stack frame (`frame #0: c10::Error::Error…`) or a bare label (`Last error:`) a fifth;
//! a training step's record that reports no trouble (`lm loss: 2.1 | … | number of nan
//! iterations: 0`, `logs::progress`) at most 0.5, unless a failure marker is in it.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};

use crate::logs::progress;

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
    // The driver's prefix: its failures say Xid, failed, error or timeout.
    ("NVRM:", 1.0, false),
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
    // What follows a failure: the launcher and the scheduler reporting it (CONSEQUENCE).
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
    ("To enable traceback see", 1.0, false),
    ("elastic/errors.html", 1.0, false),
    ("terminate called", 2.0, false),
    // Warnings.
    ("WARN", 1.5, true),
    ("WARNING", 1.5, true),
    ("Warning:", 1.5, true),
    ("warning:", 1.5, true),
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
    /// What each pattern says about the line's level.
    classes: Vec<Class>,
    quiet_from: usize,
    signatures_from: usize,
}

/// What a pattern says beyond its weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Plain,
    Consequence,
    Warning,
}

impl std::fmt::Debug for Salience {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Salience").field("patterns", &self.weights.len()).finish()
    }
}

/// The weight of a taxonomy signature of several words found in a line.
pub const SIGNATURE: f32 = 2.5;
/// The weight of a taxonomy signature of one token (`NVRM:`, `c10d`, `GSP`).
const TOKEN_SIGNATURE: f32 = 1.0;
/// A line reporting a failure rather than causing it weighs at most this.
const CONSEQUENCE_CAP: f32 = 1.2;
/// A line logged at an error level (`E1130 …`, `[E …]`) weighs at least this.
const ERROR_LEVEL: f32 = 2.0;
/// A line logged as a warning weighs at most this.
const WARNING_CAP: f32 = 1.5;
/// The weight of a Kubernetes event of type `Warning` ([`is_kubernetes_warning_event`]).
const KUBERNETES_WARNING: f32 = 3.0;
/// A training step's record of a healthy run (`logs::progress`) weighs at most this: it names
/// `loss scale`, `learning rate` and `nan iterations: 0` on every line of a run that is fine.
const ROUTINE_PROGRESS: f32 = 0.5;
/// Markers (by text) that report a failure rather than cause it.
const CONSEQUENCES: &[&str] = &[
    "exit code",
    "exitcode",
    "exit status",
    "Exited with",
    "ChildFailedError",
    "closing signal",
    "Sending process",
    "CANCELLED",
    "Terminated",
    "To enable traceback see",
    "elastic/errors.html",
];
/// Markers (by text) of a warning level.
const WARNING_LEVELS: &[&str] = &["WARN", "WARNING", "Warning:", "warning:"];

impl Salience {
    /// The markers above, and `signatures` (fragments of log lines that name taxonomy values).
    pub fn new<'a>(signatures: impl IntoIterator<Item = &'a str>) -> Salience {
        let mut patterns: Vec<&str> = MARKERS.iter().map(|m| m.0).collect();
        let mut weights: Vec<(f32, bool)> = MARKERS.iter().map(|m| (m.1, m.2)).collect();
        let mut classes: Vec<Class> = MARKERS
            .iter()
            .map(|m| {
                if CONSEQUENCES.contains(&m.0) {
                    Class::Consequence
                } else if WARNING_LEVELS.contains(&m.0) {
                    Class::Warning
                } else {
                    Class::Plain
                }
            })
            .collect();
        let quiet_from = patterns.len();
        for level in QUIET_LEVELS {
            patterns.push(level);
            weights.push((0.0, true));
            classes.push(Class::Plain);
        }
        let signatures_from = patterns.len();
        for signature in signatures {
            // A signature of two characters or fewer would be found everywhere.
            let trimmed = signature.trim();
            if trimmed.len() > 2 {
                let words = crate::text::words::word_spans(trimmed).count();
                patterns.push(signature);
                weights.push((if words >= 2 { SIGNATURE } else { TOKEN_SIGNATURE }, true));
                classes.push(Class::Plain);
            }
        }
        let markers = AhoCorasickBuilder::new()
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&patterns)
            .ok();
        Salience { markers, weights, classes, quiet_from, signatures_from }
    }

    /// How much `message` (a line without its launcher prefix) says about a failure, before its
    /// count is known; `in_frame` when it is a frame inside a traceback.
    pub fn weigh(&self, message: &str, in_frame: bool) -> f32 {
        let mut best: f32 = 0.0;
        let mut failure_level = false;
        let mut consequence = false;
        let mut warning = false;
        let mut quiet = false;
        match level_prefix(message) {
            Some(b'I') => quiet = true,
            Some(b'W') => warning = true,
            Some(_) => {
                failure_level = true;
                best = ERROR_LEVEL;
            }
            None => {}
        }
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
            match self.classes.get(id) {
                Some(Class::Consequence) => consequence = true,
                Some(Class::Warning)
                    if !message[m.start()..].starts_with("WARN") || !is_nccl_warn(bytes, m.start()) =>
                {
                    warning = true
                }
                _ => {}
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
        if is_kubernetes_warning_event(message) {
            best = best.max(KUBERNETES_WARNING);
            failure_level = true;
        }
        if quiet && !failure_level {
            best *= 0.25;
        }
        if warning {
            best = best.min(WARNING_CAP);
        }
        if !failure_level && best > ROUTINE_PROGRESS && progress::is_routine_progress(message) {
            best = best.min(ROUTINE_PROGRESS);
        }
        // torchrun's summary table: `train.py FAILED`.
        if message.trim_end().ends_with(" FAILED") && message.split_whitespace().count() <= 3 {
            consequence = true;
        }
        if consequence {
            best = best.min(CONSEQUENCE_CAP);
        }
        if in_frame {
            best /= 3.0;
        }
        // A native stack frame names a function, not what failed (`frame #0: c10::Error::Error`
        // says Error twice and nothing else); a bare label (`Last error:`) says only that the
        // next line matters.
        if is_stack_frame(message) || is_label_only(message) {
            best *= SAYS_NOTHING;
        }
        best
    }
}

/// A Kubernetes event of type `Warning`, as `kubectl describe` (`  Warning  FailedMount  3m
/// kubelet  MountVolume.SetUp failed …`) and `kubectl get events` (`14s  Warning
/// FailedScheduling  pod/x  0/8 nodes are available …`) print it: the word `Warning`, two
/// spaces, a CamelCase reason, two spaces. Kubernetes has two event types, `Normal` and
/// `Warning`; the second is how it reports that something failed, not a log level.
fn is_kubernetes_warning_event(message: &str) -> bool {
    message.match_indices("Warning").any(|(at, word)| {
        let starts_word = message[..at].chars().next_back().is_none_or(char::is_whitespace);
        let Some(rest) = message[at + word.len()..].strip_prefix("  ") else { return false };
        let rest = rest.trim_start_matches(' ');
        let reason_len = rest.bytes().take_while(u8::is_ascii_alphanumeric).count();
        let reason = &rest[..reason_len];
        starts_word
            && reason.len() > 2
            && reason.starts_with(|c: char| c.is_ascii_uppercase())
            && reason.bytes().any(|b| b.is_ascii_lowercase())
            && rest[reason_len..].starts_with("  ")
    })
}

/// What a stack-frame or label-only line keeps of its weight.
const SAYS_NOTHING: f32 = 0.2;

/// A native stack frame: PyTorch's `frame #3: c10d::…`, gdb's `#3  0x7f… in foo ()`, a JVM's
/// `at org.Foo.bar(Foo.java:12)`, Rust's and glibc's `3: 0x…` / `./a.out(+0x1234)[0x…]`.
pub fn is_stack_frame(message: &str) -> bool {
    let t = message.trim_start();
    fn after_number(rest: &str) -> Option<&str> {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        (digits > 0).then(|| &rest[digits..])
    }
    if let Some(rest) = t.strip_prefix("frame #").and_then(after_number) {
        return rest.starts_with(':');
    }
    if let Some(rest) = t.strip_prefix('#').and_then(after_number) {
        let rest = rest.trim_start();
        return rest.starts_with("0x") || rest.contains(" in ");
    }
    if let Some(rest) = t.strip_prefix("at ") {
        return rest.ends_with(')') && rest.contains('(') && !rest.contains(' ');
    }
    if let Some(rest) = after_number(t).and_then(|r| r.strip_prefix(": ")) {
        return rest.starts_with("0x");
    }
    t.ends_with(']') && t.contains("(+0x") && t.contains("[0x")
}

/// A label with nothing after it: `Last error:`, `Exception raised from:`, `Traceback:` — at
/// most three words, no digit, ending with a colon.
pub fn is_label_only(message: &str) -> bool {
    let t = message.trim();
    let Some(label) = t.strip_suffix(':') else { return false };
    !label.is_empty()
        && !is_exception_line(t)
        && label.split_whitespace().count() <= 3
        && label.chars().all(|c| c.is_alphabetic() || c == ' ' || c == '-' || c == '_')
}

/// NCCL prints its errors as `NCCL WARN`: that `WARN` is no warning level.
fn is_nccl_warn(bytes: &[u8], warn_at: usize) -> bool {
    warn_at >= 5 && &bytes[warn_at - 5..warn_at] == b"NCCL "
}

/// The level letter of a glog-style (`W1130 03:12:40.1 …`) or PyTorch C++ (`[W socket.cpp:…]`)
/// line: `I`, `W`, `E` or `F`.
fn level_prefix(message: &str) -> Option<u8> {
    let b = message.as_bytes();
    let level = |c: u8| matches!(c, b'I' | b'W' | b'E' | b'F').then_some(c);
    if b.len() > 6 && b[1..5].iter().all(u8::is_ascii_digit) && b[5] == b' ' {
        return level(b[0]);
    }
    if b.len() > 3 && b[0] == b'[' && b[2] == b' ' {
        return level(b[1]);
    }
    None
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
    fn warnings_and_what_follows_a_failure_stay_below_the_failure() {
        let bind =
            weigh("[W socket.cpp:464] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98)");
        let glog =
            weigh("W1130 03:12:40.118000 139912 api.py:858] Sending process 20331 closing signal SIGTERM");
        let child = weigh("torch.distributed.elastic.multiprocessing.errors.ChildFailedError:");
        let nccl = weigh("node:1:1 [3] include/alloc.h:124 NCCL WARN Cuda failure 'out of memory'");
        assert!(bind <= WARNING_CAP, "{bind}");
        assert!(glog <= WARNING_CAP, "{glog}");
        assert!(child <= CONSEQUENCE_CAP, "{child}");
        assert!(nccl >= 3.0, "NCCL WARN is NCCL's error level: {nccl}");
        assert!(weigh("I1130 03:12:40.1 1 x.py:1] all good, c10d ready") < 1.0);
        assert!(weigh("E1130 03:12:40.1 1 x.py:1] something broke") >= 2.0);
    }

    #[test]
    fn a_healthy_step_record_stays_quiet_and_a_troubled_one_does_not() {
        let salience = Salience::new(["number of nan iterations", "loss scale", "learning rate"]);
        let step = " iteration     1999/  500000 | learning rate: 2.999E-04 | lm loss: 2.145E+00 | loss scale: 1.0 | grad norm: 0.231 | number of skipped iterations:   0 | number of nan iterations:   0 |";
        assert!(salience.weigh(step, false) <= ROUTINE_PROGRESS, "{}", salience.weigh(step, false));
        let nan = step.replace("nan iterations:   0", "nan iterations:   2");
        assert!(salience.weigh(&nan, false) >= SIGNATURE, "{}", salience.weigh(&nan, false));
        let failing = format!("ERROR {step}");
        assert!(salience.weigh(&failing, false) >= 3.0, "a failure marker keeps its weight");
    }

    #[test]
    fn a_kubernetes_warning_event_is_a_failure_not_a_warning() {
        let describe = "  Warning  UnexpectedAdmissionError  14s  kubelet  Allocate failed due to requested number of devices unavailable for nvidia.com/gpu.";
        let events = "14s         Warning   FailedScheduling   pod/train-0   0/8 nodes are available: 8 Insufficient nvidia.com/gpu.";
        assert!(is_kubernetes_warning_event(describe) && is_kubernetes_warning_event(events));
        assert!(weigh(describe) >= 3.0 && weigh(events) >= 3.0, "{} {}", weigh(describe), weigh(events));
        assert!(
            weigh(describe)
                > weigh(
                    "[W ProcessGroupNCCL.cpp:1856] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS=1 has no effect"
                )
        );
        for not_an_event in [
            "Warning: this will change",
            "  Normal   Scheduled  14s  default-scheduler  Successfully assigned default/x to node-1",
            "UserWarning  OLD  something",
            "Warning  the disk is nearly full",
        ] {
            assert!(!is_kubernetes_warning_event(not_an_event), "{not_an_event}");
        }
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

    #[test]
    fn stack_frames_and_bare_labels_weigh_little() {
        let error = weigh("RuntimeError: CUDA error: an illegal memory access was encountered");
        for line in [
            "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (0x7f in libc10.so)",
            "frame #12: <unknown function> + 0x94ac3 (0x7f3c in /lib/x86_64-linux-gnu/libc.so.6)",
            "#3  0x00007f2a1b2c3d4e in ncclAllReduce () from /usr/lib/libnccl.so.2",
            "    at org.apache.spark.Error.run(Error.java:12)",
            "  7: 0x55d0c0ffee - std::panicking::begin_panic_handler",
            "./trainer(+0x1234)[0x55d0c0ffee]",
            "Last error:",
            "NCCL Error:",
        ] {
            let w = weigh(line);
            assert!(w < error * 0.4 && w < 0.9, "{line}: {w} against {error}");
        }
        for line in [
            "Last error: Cuda failure 'out of memory'",
            "RuntimeError:",
            "error: 3 ranks did not respond:",
            "# ERROR: the job failed",
        ] {
            assert!(weigh(line) >= 2.0, "{line}: {}", weigh(line));
        }
    }
}
