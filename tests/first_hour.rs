//! What a new on-call user trips on in the first hour (issue 29): the README's set-up says what
//! a fresh machine needs and takes, and `--help` says what `triage` reads.

use std::process::Command;

fn readme_setup() -> String {
    let readme = include_str!("../README.md");
    let start = readme.find("## Two commands").expect("the README's set-up");
    let end = readme[start..].find("\n## Install").map_or(readme.len(), |e| start + e);
    readme[start..end].to_string()
}

#[test]
fn the_readme_set_up_says_what_a_fresh_machine_needs_and_takes() {
    let setup = readme_setup();
    for (what, needle) in [
        ("a C compiler", "C compiler"),
        ("the linker's cc", "`cc`"),
        ("why: zstd-sys", "zstd-sys"),
        ("network for the first build", "crate registry"),
        ("the release build's time", "6 minutes for the release build"),
        ("the test build's time", "15 for the test build"),
        ("a real terminal", "real terminal"),
        ("quitting from the search box", "Esc"),
        ("Ctrl-C", "Ctrl-C"),
        ("the man pages from a clone", "man -l target/assets/man/incidex.1"),
    ] {
        assert!(setup.contains(needle), "the set-up does not say {what} ({needle:?}):\n{setup}");
    }
    // The command it gives for the man pages is the one the example takes.
    let example = include_str!("../examples/dist_assets.rs");
    assert!(example.contains("cargo run --example dist_assets -- OUT_DIR"));
    assert!(setup.contains("cargo run --example dist_assets -- target/assets"));
}

#[test]
fn triage_says_in_one_line_what_it_reads() {
    let out = Command::new(env!("CARGO_BIN_EXE_incidex")).arg("--help").output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let line = help.lines().find(|l| l.trim_start().starts_with("triage")).expect("triage in --help");
    assert!(
        line.contains("a job log file, a dmesg, kubectl output, or pasted lines"),
        "triage's summary: {line}"
    );
}
