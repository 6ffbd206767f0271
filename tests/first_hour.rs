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

/// `incidex check` with no directory checks the libraries in use, from `--data`,
/// `$INCIDEX_DATA` and the config alike, as the TUI's note says to run it.
#[test]
fn check_with_no_directory_checks_the_libraries_in_use() {
    let defects = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/defects");
    let config = tempfile::tempdir().unwrap();
    let run = |args: &[&str], env_data: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_incidex"));
        c.args(args)
            .env_remove("INCIDEX_DATA")
            .env("XDG_CONFIG_HOME", config.path())
            .env("XDG_STATE_HOME", env!("CARGO_TARGET_TMPDIR"))
            .env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"));
        if let Some(data) = env_data {
            c.env("INCIDEX_DATA", data);
        }
        c.output().unwrap()
    };
    let by_flag = run(&["--data", defects, "check"], None);
    let by_env = run(&["check"], Some(defects));
    std::fs::create_dir_all(config.path().join("incidex")).unwrap();
    std::fs::write(config.path().join("incidex/config.toml"), format!("data = [{defects:?}]\n")).unwrap();
    let by_config = run(&["check"], None);
    for (how, o) in [("--data", by_flag), ("INCIDEX_DATA", by_env), ("the config", by_config)] {
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{how}: the defects fail the check:\n{out}");
        assert!(out.contains(&format!("{defects}/bad-date.toml:3:8: error: bad date")), "{how}:\n{out}");
        assert!(out.lines().last().is_some_and(|l| l.contains("in 1 directory")), "{how}:\n{out}");
    }
}

fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_incidex")).args(args).arg("--help").output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// `--mouse`, `--resume`, `--hyperlinks` and `--theme` are the TUI's: each command's `--help` lists only its own
/// options (and `themes` its `--theme`), while `incidex --help` keeps all four.
#[test]
fn tui_only_options_are_listed_only_where_they_apply() {
    let top = help(&[]);
    for flag in ["--mouse", "--resume", "--hyperlinks", "--theme"] {
        assert!(top.contains(flag), "incidex --help lists {flag}:\n{top}");
    }
    for command in [
        "list",
        "show",
        "facets",
        "graph",
        "checklist",
        "search",
        "triage",
        "check",
        "doctor",
        "completions",
        "template",
    ] {
        let text = help(&[command]);
        assert!(text.contains("--data"), "{command} keeps --data:\n{text}");
        for flag in ["--mouse", "--resume", "--hyperlinks", "--theme"] {
            assert!(!text.contains(flag), "{command} --help lists the TUI's {flag}:\n{text}");
        }
    }
    let themes = help(&["themes"]);
    assert!(themes.contains("--theme") && !themes.contains("--mouse"), "{themes}");
}

/// A torchrun log of 64 ranks: every rank warns once, rank 3 dies with a C++ backtrace.
fn torchrun_log() -> String {
    let mut log = String::new();
    for step in 0..200 {
        log.push_str(&format!("[rank0]: step {step} loss 1.{step:03}\n"));
    }
    for rank in 0..64 {
        log.push_str(&format!(
            "[rank{rank}]: gpu-node-{}:{}:{} [{}] NCCL WARN NET/IB : Got completion from peer 10.0.0.{} \
with status=12 opcode=0 len=0 vendor err 129\n",
            rank / 8,
            1000 + rank,
            2000 + rank,
            rank % 8,
            rank / 8
        ));
    }
    log.push_str("[rank3]: Last error:\n");
    log.push_str("[rank3]: RuntimeError: NCCL communicator was aborted on rank 3.\n");
    log.push_str(
        "[rank3]: Exception raised from run at ProcessGroupNCCL.cpp:1523 (most recent call first):\n",
    );
    for frame in 0..6 {
        log.push_str(&format!(
            "[rank3]: frame #{frame}: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (0x7f{frame} in libc10.so)\n"
        ));
    }
    log
}

/// Triage evidence says which ranks printed a line and how many lines it stands for, whatever
/// the width, and stack frames and bare labels do not stand out (issue 29, item 4).
#[test]
fn triage_evidence_shows_ranks_and_counts_and_leaves_stack_frames_out() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("torchrun.log");
    std::fs::write(&path, torchrun_log()).unwrap();
    let run = |json: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_incidex"));
        c.arg("triage").arg(&path).env("COLUMNS", "80").env_remove("INCIDEX_DATA");
        c.env("XDG_CONFIG_HOME", dir.path())
            .env("XDG_STATE_HOME", dir.path())
            .env("XDG_CACHE_HOME", dir.path());
        if json {
            c.arg("--json");
        }
        let o = c.output().unwrap();
        String::from_utf8(o.stdout).unwrap()
    };
    let out = run(false);
    let evidence: Vec<&str> = out.lines().skip(1).take_while(|l| !l.is_empty()).collect();
    let warn = evidence.iter().find(|l| l.contains("NCCL WARN")).unwrap_or_else(|| panic!("{out}"));
    assert!(warn.contains("×64") && warn.contains("[ranks 0-63]"), "count and ranks at 80 columns: {warn}");
    let error = evidence.iter().find(|l| l.contains("RuntimeError")).unwrap_or_else(|| panic!("{out}"));
    assert!(error.contains("[rank 3] RuntimeError: NCCL communicator was aborted"), "{error}");
    for line in &evidence {
        assert!(
            !line.contains("frame #") && !line.trim_end().ends_with("Last error:"),
            "says nothing: {line}\n{out}"
        );
    }
    let json: serde_json::Value = serde_json::from_str(&run(true)).unwrap();
    let warn = json["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["text"].as_str().unwrap().contains("NCCL WARN"));
    let ranks: Vec<u64> =
        warn.unwrap()["ranks"].as_array().unwrap().iter().map(|r| r.as_u64().unwrap()).collect();
    assert_eq!(ranks, (0..64).collect::<Vec<u64>>());
}

/// `words` split as a shell would split this simple form: spaces, and double quotes around a
/// word with spaces.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    words.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        words.push(word);
    }
    words
}

/// Every command's `--help` ends with the commands an on-call engineer types (issue 29, item
/// 9), and every one of them runs as written: none is a usage error.
#[test]
fn every_command_s_help_has_examples_that_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("postmortems")).unwrap();
    std::fs::write(dir.path().join("slurm-1234.out"), torchrun_log()).unwrap();
    for command in [
        "list",
        "show",
        "facets",
        "graph",
        "checklist",
        "search",
        "triage",
        "check",
        "completions",
        "template",
        "themes",
    ] {
        let text = help(&[command]);
        let examples = text
            .split_once("\nExamples:\n")
            .map(|(_, e)| e)
            .unwrap_or_else(|| panic!("{command}: no examples:\n{text}"));
        let (mut ran, mut own) = (0, 0);
        for line in examples.lines().filter(|l| !l.trim().is_empty()) {
            // The command is what comes before the comment (three spaces or more); from a pipe,
            // its incidex part; a redirection is left out.
            let line = line.trim();
            let shown = line.split("   ").next().unwrap();
            let part = shown.split('|').map(str::trim).find(|p| p.starts_with("incidex ") || *p == "incidex");
            let part = part.unwrap_or_else(|| panic!("{command}: {line:?} runs no incidex"));
            let part = part.split(" > ").next().unwrap();
            let words = shell_words(part);
            own += usize::from(words.get(1).map(String::as_str) == Some(command));
            let o = Command::new(env!("CARGO_BIN_EXE_incidex"))
                .args(&words[1..])
                .current_dir(dir.path())
                .env_remove("INCIDEX_DATA")
                .env("XDG_CONFIG_HOME", dir.path().join("config"))
                .env("XDG_STATE_HOME", dir.path().join("state"))
                .env("XDG_CACHE_HOME", dir.path().join("cache"))
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            // doctor's 3 is a finding at or above --fail-on, which the machine running the tests
            // may well have; it is not a usage error.
            let ok =
                matches!(o.status.code(), Some(0 | 1)) || (command == "doctor" && o.status.code() == Some(3));
            assert!(
                ok,
                "{command}: {line:?} exits {:?}: {}",
                o.status.code(),
                String::from_utf8_lossy(&o.stderr)
            );
            ran += 1;
        }
        assert!((2..=5).contains(&ran) && own > 0, "{command}: {ran} examples, {own} of its own");
    }
}

/// Shell completion offers the bundled library's case ids (for `show` and `graph`) and facet
/// values (for the filter flags and `graph kind:value`), as words that need no quotes and that
/// resolve (issue 29, item 9).
#[test]
fn completions_offer_case_ids_and_facet_values_that_resolve() {
    let run = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_incidex"))
            .args(args)
            .env_remove("INCIDEX_DATA")
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8(o.stdout).unwrap(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (_, list, _) = run(&["list", "--json"]);
    let list: serde_json::Value = serde_json::from_str(&list).unwrap();
    let ids: Vec<String> =
        list["cases"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap().to_string()).collect();
    let (_, facets, _) = run(&["facets", "--all", "--json"]);
    let facets: serde_json::Value = serde_json::from_str(&facets).unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let (code, script, _) = run(&["completions", shell]);
        assert_eq!(code, Some(0));
        for id in &ids {
            assert!(script.contains(id.as_str()), "{shell}: no {id}");
        }
        assert!(script.contains("Training-data-loader"), "{shell}: no component value");
        // zsh's value lists escape the colon.
        assert!(
            script.contains("symptom:Hang") || script.contains("symptom\\:Hang"),
            "{shell}: no graph node for a value"
        );
    }
    // Every value, in the form offered, resolves to itself.
    let (_, bash, _) = run(&["completions", "bash"]);
    let mut checked = 0;
    for (key, flag) in [
        ("component", "--component"),
        ("symptom", "--symptom"),
        ("root_cause", "--root-cause"),
        ("contributing_factor", "--factor"),
    ] {
        for v in facets[key].as_array().unwrap() {
            let name = v["value"].as_str().unwrap();
            let word: String = name
                .split_whitespace()
                .map(|w| w.chars().filter(|c| c.is_alphanumeric() || "-_.".contains(*c)).collect::<String>())
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join("-");
            assert!(bash.contains(&word), "bash does not offer {word:?} for {name:?}");
            let (code, out, err) =
                run(&["checklist", "--component", "NCCL", flag, &word, "--format", "json"]);
            assert!(matches!(code, Some(0 | 1)), "{flag} {word}: {code:?} {err}");
            if code == Some(0) {
                assert!(
                    out.contains(&format!("{name:?}")) || out.contains(name),
                    "{flag} {word} read as something else: {err}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 50, "{checked} values");
}
