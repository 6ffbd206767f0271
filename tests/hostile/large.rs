//! Large logs: the time to triage grows with the bytes read, not with the number of lines (a
//! log of blank, whitespace-only or one-character lines reads as fast as an ordinary one), and
//! a read that takes a while shows how far it is on a terminal.

use std::{
    io::Write,
    process::Stdio,
    time::{Duration, Instant},
};

use crate::{
    pty_support::{Launch, launch, one_at_a_time},
    support::{incidex, text},
};

/// About `size` bytes of lines made by `line(i)`.
fn lines_of(size: usize, line: impl Fn(usize) -> String) -> Vec<u8> {
    let mut out = Vec::with_capacity(size + 128);
    let mut i = 0;
    while out.len() < size {
        out.extend_from_slice(line(i).as_bytes());
        i += 1;
    }
    out
}

/// The wall time of `incidex triage -` over `log` on stdin.
fn triage_time(home: &std::path::Path, log: &[u8]) -> Duration {
    let started = Instant::now();
    let mut child = incidex(home)
        .args(["triage", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::thread::scope(|s| {
        s.spawn(move || stdin.write_all(log));
        let o = child.wait_with_output().unwrap();
        assert!(o.status.code().is_some_and(|c| c <= 1), "{}", text(&o.stderr));
    });
    started.elapsed()
}

#[test]
fn short_lines_are_triaged_as_fast_as_ordinary_ones() {
    let _serial = one_at_a_time();
    let home = tempfile::tempdir().unwrap();
    const SIZE: usize = 24 << 20;
    let ordinary = lines_of(SIZE, |i| {
        format!(
            "[rank{}]: step {i} loss 2.{} lr 3e-4 grad_norm 0.{} tokens/s {}\n",
            i % 64,
            i % 9973,
            i % 997,
            i % 99991
        )
    });
    let base = triage_time(home.path(), &ordinary);
    // Each took 5 to 28 times as long as ordinary lines before (a debug build, 20 MB: 8.4 s of
    // blank lines, 2.7 s of one character, 5.8 s of alternating characters).
    for (what, log) in [
        ("blank lines", vec![b'\n'; SIZE]),
        ("whitespace-only lines", lines_of(SIZE, |_| "   \t \n".to_string())),
        ("one-character lines", lines_of(SIZE, |_| "x\n".to_string())),
        (
            "alternating one-character lines",
            lines_of(SIZE, |i| format!("{}\n", (b'a' + (i % 26) as u8) as char)),
        ),
    ] {
        let took = triage_time(home.path(), &log);
        assert!(
            took <= base * 4 + Duration::from_millis(1500),
            "{what}: {took:?}, against {base:?} for ordinary lines of the same size"
        );
    }
}

#[test]
fn a_read_that_takes_over_a_second_shows_its_progress_on_a_terminal() {
    let _serial = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("job.log");
    crate::support::mkfifo(&fifo);
    let path = fifo.to_str().unwrap().to_string();
    let mut s = launch(Launch { size: (120, 30), args: &["triage", &path], ..Launch::default() });
    // Eight megabytes over about two seconds, then the failure.
    let writer = std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
        let chunk = lines_of(1 << 20, |i| format!("step {i} loss 2.{}\n", i % 1000));
        for _ in 0..8 {
            f.write_all(&chunk).unwrap();
            std::thread::sleep(Duration::from_millis(250));
        }
        f.write_all(b"NVRM: Xid (PCI:0000:b3:00): 79, GPU has fallen off the bus.\n").unwrap();
    });
    let ended = s.wait_exit(Duration::from_secs(30));
    writer.join().unwrap();
    assert!(ended.is_some(), "triage ended");
    let raw = String::from_utf8_lossy(&s.raw.lock().unwrap()).into_owned();
    assert!(raw.contains(&format!("incidex: reading {path}: ")), "a progress line: {raw:?}");
    assert!(raw.contains("GPU has fallen off the bus"), "{raw:?}");
    // The bar is wiped before the answer: the screen shows no progress line.
    assert!(!s.contents().contains("incidex: reading"), "{}", s.contents());
}
