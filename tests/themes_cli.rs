//! `incidex themes`, `--theme` and plain `incidex` without a terminal, through the built binary.

use std::process::Command;

fn incidex(config_home: &std::path::Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_incidex"));
    cmd.env("XDG_CONFIG_HOME", config_home).env("XDG_STATE_HOME", config_home.join("state"));
    cmd.env_remove("NO_COLOR").env("TERM", "xterm-256color");
    cmd
}

#[test]
fn themes_lists_the_bundled_and_the_users_marking_the_one_in_use() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("incidex/themes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("ocean.toml"), "description = \"Deep blue\"\n[roles]\ntext = \"#0000aa\"\n")
        .unwrap();
    let out = incidex(home.path()).arg("themes").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    for name in ["default", "light", "high-contrast", "mono", "ocean"] {
        assert!(text.lines().any(|l| l[2..].starts_with(name)), "{name} missing:\n{text}");
    }
    assert!(text.lines().any(|l| l.starts_with("* default")), "{text}");
    assert!(text.contains("Deep blue") && text.contains("ocean.toml"), "{text}");

    let out = incidex(home.path()).args(["themes", "--theme", "ocean"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).lines().any(|l| l.starts_with("* ocean")));
    let out = incidex(home.path()).arg("themes").env("NO_COLOR", "1").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).lines().any(|l| l.starts_with("* mono")));
    let out = incidex(home.path()).args(["themes", "--json"]).output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["themes"].as_array().unwrap().len(), 5);
}

#[test]
fn a_broken_user_theme_is_named_with_its_line_and_column() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("incidex/themes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bad.toml"), "[roles]\ntext = \"#12\"\n").unwrap();
    let out = incidex(home.path()).arg("themes").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.toml:2:8: error: role `text`: not a colour"), "{stderr}");
    // Choosing it is the same error, never a silent fallback to another theme.
    let out = incidex(home.path()).args(["--theme", "bad"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.toml:2:8"));
}

#[test]
fn an_unknown_theme_is_a_usage_error() {
    let home = tempfile::tempdir().unwrap();
    let out = incidex(home.path()).args(["--theme", "solarised"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("incidex: no theme named 'solarised' (themes: default"), "{stderr}");
}

#[test]
fn plain_incidex_without_a_terminal_says_so() {
    let home = tempfile::tempdir().unwrap();
    let out = incidex(home.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the terminal UI needs a terminal"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn the_readme_theme_example_is_a_valid_theme() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("description = \"Solarised, roughly\"").expect("the example is in the README");
    let example = &readme[start..start + readme[start..].find("```").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("solarised.toml");
    std::fs::write(&path, example).unwrap();
    let theme = incidex::settings::theme::Theme::from_file(&path);
    assert!(theme.is_ok(), "{:?}", theme.err().map(|e| e.to_string()));
}
