//! The node audit is read-only, and this test proves it the way capsize does: it reads every
//! source file of `src/doctor/` and fails on any call that could write a file, change one's
//! metadata, start a process outside the probe's one runner, signal anything but that runner's
//! own child, or open a socket. It also holds the probe's command table to commands that only
//! read. A self-test plants each kind of violation and checks that the guard sees it, and the
//! walk fails if it finds no file, so the test cannot pass by reading nothing.
//!
//! Do not delete this test. A new need for the audit to touch the node is a design change.

use std::{fs, path::Path};

/// Calls that write, remove, rename or change files.
const BANNED: &[&str] = &[
    "fs::write",
    "File::create",
    "OpenOptions",
    "create_dir",
    "remove_file",
    "remove_dir",
    "fs::rename",
    "set_permissions",
    "hard_link",
    "fs::symlink(",
    "fs::copy",
    "write_all(",
    "writeln!",
    "write!(",
    "io::Write",
    "TcpStream",
    "TcpListener",
    "UdpSocket",
    "UnixStream",
    "UnixListener",
    "set_len(",
];

/// The libc calls the probe may make (all read the system).
const LIBC_ALLOWED: &[&str] = &["libc::statvfs", "libc::getuid", "libc::major", "libc::minor"];

/// Where a process may be started and signalled: the probe's one runner.
const RUNNER_FILE: &str = "probe.rs";
const RUNNER_FN: &str = "pub fn run_command(";

/// A file's code without comments, string literals and its unit tests.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    let bytes: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == '/' && bytes.get(i + 1) == Some(&'/') {
            while i < bytes.len() && bytes[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '"' {
            // A string literal becomes "" (its words are text, not calls).
            out.push_str("\"\"");
            i += 1;
            while i < bytes.len() && bytes[i] != '"' {
                if bytes[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Every violation in one file (`name` is its path under src/doctor).
fn violations(name: &str, text: &str) -> Vec<String> {
    let code = code(text);
    let mut found = Vec::new();
    for banned in BANNED {
        if code.contains(banned) {
            found.push(format!("{name}: `{banned}` (a write or a socket)"));
        }
    }
    let mut from = 0;
    while let Some(at) = code[from..].find("libc::") {
        let start = from + at;
        let call: String =
            code[start..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
        if !LIBC_ALLOWED.contains(&call.as_str()) {
            found.push(format!("{name}: `{call}` is not a libc call the probe may make"));
        }
        from = start + call.len().max(1);
    }
    // Processes: only inside the runner, and only its own child may be killed.
    let runner = if name.ends_with(RUNNER_FILE) {
        code.find(RUNNER_FN).map(|s| (s, s + code[s..].find("\n}\n").unwrap_or(code.len() - s)))
    } else {
        None
    };
    for needle in ["Command::new", ".kill(", "libc::kill", ".exec("] {
        let mut from = 0;
        while let Some(at) = code[from..].find(needle) {
            let pos = from + at;
            from = pos + needle.len();
            let inside = runner.is_some_and(|(s, e)| pos > s && pos < e);
            if !inside {
                found.push(format!("{name}: `{needle}` outside the probe's runner"));
            }
        }
    }
    found
}

fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push((p.display().to_string(), fs::read_to_string(&p).unwrap()));
        }
    }
}

#[test]
fn the_audit_never_writes_spawns_or_connects_outside_the_probe_runner() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/doctor");
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(
        files.len() >= 5,
        "read {} files under src/doctor: the guard must not pass by reading nothing",
        files.len()
    );
    let found: Vec<String> = files.iter().flat_map(|(n, t)| violations(n, t)).collect();
    assert!(found.is_empty(), "the node audit must stay read-only:\n{}", found.join("\n"));
}

#[test]
fn the_probe_runs_only_commands_that_read() {
    let table = incidex::doctor::probe::COMMANDS;
    assert!(!table.is_empty());
    for c in table {
        let words: Vec<&str> = c.key.split(' ').collect();
        let (program, args) = (words[0], &words[1..]);
        assert!(
            ["nvidia-smi", "lspci", "systemctl", "journalctl"].contains(&program),
            "{}: not an allowed program",
            c.key
        );
        for banned in ["-pm", "-r", "--gpu-reset", "-pl", "-lgc", "-rgc", "-ac", "-e", "-c", "--write", "-i"]
        {
            assert!(!args.contains(&banned), "{}: `{banned}` changes the GPU's state", c.key);
        }
        if program == "systemctl" {
            assert_eq!(args.first(), Some(&"is-active"), "{}: systemctl may only ask", c.key);
        }
        assert!(!["setpci", "modprobe", "rmmod", "scontrol", "kubectl", "dcgmi"].contains(&program));
    }
}

#[test]
fn the_guard_catches_a_planted_write_a_spawn_a_signal_and_a_socket() {
    let planted = r#"
use std::process::Command;
pub fn sneaky() {
    std::fs::write("/proc/sysrq-trigger", "l").ok(); // write
    let _ = Command::new("setpci").spawn();
    unsafe { libc::kill(1, 9) };
    let _ = std::net::TcpStream::connect("127.0.0.1:1");
}
"#;
    let found = violations("src/doctor/planted.rs", planted);
    for want in ["fs::write", "Command::new", "libc::kill", "TcpStream"] {
        assert!(found.iter().any(|f| f.contains(want)), "the guard missed `{want}`: {found:?}");
    }
    // The same calls in a comment, a string or the unit tests are not calls.
    let quiet = "// fs::write is banned\nfn f() -> &'static str { \"Command::new\" }\n#[cfg(test)]\nmod tests {\n fn t() { std::fs::write(\"x\", \"\").unwrap(); }\n}\n";
    assert!(violations("src/doctor/quiet.rs", quiet).is_empty());
    // Inside the runner, spawning and killing its own child is allowed; elsewhere in probe.rs not.
    let runner = "pub fn run_command(k: &str) {\n    let mut c = Command::new(k).spawn().unwrap();\n    let _ = c.kill();\n}\n\nfn other() { let _ = Command::new(\"x\"); }\n";
    let found = violations("src/doctor/probe.rs", runner);
    assert_eq!(found.len(), 1, "{found:?}");
}
