//! Copy inside a real tmux with its default options (issue 29, item 5): `y` puts the text in
//! tmux's own buffer (`tmux show-buffer` has it, `prefix ]` pastes it), and the status line
//! says where it went. tmux is a test dependency (`.ci/run` installs it); without it the test
//! says so and passes, unless `INCIDEX_REQUIRE_TMUX` is set.

use std::{
    path::Path,
    process::{Command, Output},
    time::{Duration, Instant},
};

use crate::support::copy_fixtures;

/// A tmux server of our own (its own socket, no config file), killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(command: &str) -> Option<Tmux> {
        let socket = format!("incidex-test-{}", std::process::id());
        let tmux = Tmux { socket };
        let started =
            tmux.run(&["-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "30", command])?;
        assert!(started.status.success(), "tmux new-session: {}", String::from_utf8_lossy(&started.stderr));
        Some(tmux)
    }

    fn run(&self, args: &[&str]) -> Option<Output> {
        Command::new("tmux").arg("-L").arg(&self.socket).args(args).env_remove("TMUX").output().ok()
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p"])
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }

    fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(15) {
            let screen = self.screen();
            if pred(&screen) {
                return screen;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("timed out waiting for {what}; the pane:\n{}", self.screen());
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend_from_slice(keys);
        self.run(&args).expect("tmux send-keys");
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

fn shell_quote(s: &Path) -> String {
    format!("'{}'", s.display().to_string().replace('\'', "'\\''"))
}

#[test]
fn y_inside_tmux_fills_tmux_s_buffer_and_the_status_line_says_so() {
    if Command::new("tmux").arg("-V").output().is_err() {
        assert!(std::env::var_os("INCIDEX_REQUIRE_TMUX").is_none(), "tmux is required and missing");
        eprintln!("note: no tmux on PATH; the tmux copy test is skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = copy_fixtures(&dir.path().join("data"));
    std::fs::remove_file(data.join("wide-text.toml")).unwrap();
    let home = dir.path();
    let command = format!(
        "env XDG_STATE_HOME={state} XDG_CONFIG_HOME={config} XDG_CACHE_HOME={cache} TERM=screen-256color \
         {bin} --no-bundled --data {data}",
        state = shell_quote(&home.join("state")),
        config = shell_quote(&home.join("config")),
        cache = shell_quote(&home.join("cache")),
        bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_incidex"))),
        data = shell_quote(&data),
    );
    let tmux = Tmux::start(&command).expect("tmux runs");
    tmux.wait_for("the case list", |s| s.contains("Cases 1 to 5 of 5"));
    // Out of the search box to the case list, then copy the selected case's id.
    tmux.keys(&["Enter"]);
    tmux.wait_for("the list's hints", |s| s.lines().last().is_some_and(|l| l.contains("copy id")));
    tmux.keys(&["y"]);
    let screen = tmux.wait_for("the copy's note", |s| s.contains("copied the id"));
    let status = screen.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default().to_string();
    let id = status
        .trim()
        .strip_prefix("copied the id ")
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("the status line: {status}"))
        .to_string();
    assert!(
        status.contains("to tmux's buffer (prefix ] pastes it) and clipboard (OSC 52)"),
        "the status line: {status}"
    );
    let buffer = tmux.run(&["show-buffer"]).expect("tmux show-buffer");
    assert!(buffer.status.success(), "tmux has no buffer: {}", String::from_utf8_lossy(&buffer.stderr));
    assert_eq!(String::from_utf8_lossy(&buffer.stdout), id, "what `prefix ]` would paste");
    eprintln!("status line: {}\ntmux show-buffer: {id}", status.trim());
    tmux.keys(&["q"]);
}
