//! Names and values from outside the library never reach the terminal raw: paths echoed in
//! messages, values clap refuses, and JSON fields that carry a file name. Every byte the process
//! writes, on stdout and on stderr, is checked for controls and bidirectional characters.

use crate::support::{incidex, output, text};

/// The characters that may never come out: C0 but newline and tab, DEL, C1, bidi controls.
fn steering(s: &str) -> Vec<char> {
    s.chars()
        .filter(|&c| {
            c != '\n'
                && c != '\t'
                && matches!(c, '\u{0}'..='\u{1F}' | '\u{7F}'..='\u{9F}' | '\u{61C}' | '\u{200E}' | '\u{200F}'
                    | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

const PAYLOAD: &str =
    "\u{1b}]0;PWNED\u{7}\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}[2J\u{1b}Ptmux;x\u{1b}\\\u{1b}c\u{9b}\u{202e}";

#[test]
fn a_value_clap_refuses_is_echoed_escaped() {
    let home = tempfile::tempdir().unwrap();
    let o = output(incidex(home.path()).args(["search", "x", "--limit", &format!("y{PAYLOAD}")]));
    assert_eq!(o.status.code(), Some(2));
    let stderr = text(&o.stderr);
    assert_eq!(steering(&stderr), Vec::<char>::new(), "{stderr:?}");
    assert!(stderr.contains("invalid value 'y"), "the value is still named: {stderr:?}");
}

#[test]
fn paths_in_messages_are_escaped() {
    let home = tempfile::tempdir().unwrap();
    let written = home.path().join(format!("list{PAYLOAD}.md"));
    let o = output(incidex(home.path()).args(["checklist", "--component", "NCCL", "-o"]).arg(&written));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(written.is_file(), "the file is written under its own name");
    let stdout = text(&o.stdout);
    assert!(stdout.starts_with("wrote "), "{stdout:?}");
    assert_eq!(steering(&stdout), Vec::<char>::new(), "{stdout:?}");
    let missing = home.path().join(format!("no{PAYLOAD}")).join("list.md");
    let o = output(incidex(home.path()).args(["checklist", "--component", "NCCL", "-o"]).arg(&missing));
    assert_eq!(o.status.code(), Some(1));
    let stderr = text(&o.stderr);
    assert!(stderr.contains("list.md"), "{stderr:?}");
    assert_eq!(steering(&stderr), Vec::<char>::new(), "{stderr:?}");
}

#[test]
fn json_escapes_c1_and_bidi_in_file_names() {
    let home = tempfile::tempdir().unwrap();
    let log = "step 1\nNCCL error: unhandled system error\nRuntimeError: CUDA out of memory\n";
    let odd = home.path().join("rank\u{202e}\u{2066}\u{9b}\u{9d}0.log");
    let plain = home.path().join("rank1.log");
    std::fs::write(&odd, log).unwrap();
    std::fs::write(&plain, log).unwrap();
    let o = output(incidex(home.path()).args(["triage", "--json"]).arg(&odd).arg(&plain));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert_eq!(steering(&stdout), Vec::<char>::new());
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("still JSON");
    assert!(json.to_string().contains("rank\u{202e}\u{2066}\u{9b}\u{9d}0.log"), "the name means the same");
}
