//! Running the binary with a clean environment of its own, and building hostile inputs: TOML
//! strings carrying control sequences, case files, special files.

use std::{
    ffi::CString,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
};

/// Control sequences a hostile case file carries: a window title, a clipboard write (OSC 52), a
/// screen clear, a C1 CSI, a bell, a bidi override, a zero-width space.
pub const PAYLOAD: &str = "\u{1b}]0;pwned\u{7}\u{1b}]52;c;aGFja2Vk\u{7}\u{1b}[2J\u{9b}31m\u{202e}\u{200b}";

/// The binary, with its own home, config, state and cache directories under `home` and nothing
/// from the environment that would change what it does.
pub fn incidex(home: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_incidex"));
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("COLUMNS", "80")
        .env_remove("INCIDEX_DATA")
        .env_remove("INCIDEX_CACHE")
        .env_remove("NO_COLOR")
        .stdin(Stdio::null());
    cmd
}

/// Run `cmd` to the end.
pub fn output(cmd: &mut Command) -> Output {
    cmd.output().expect("incidex runs")
}

/// `bytes` as text, for messages.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Panic when `bytes` carry anything that steers a terminal: ESC, BEL, a C1 control, a bidi
/// override or isolate.
pub fn assert_inert(bytes: &[u8], what: &str) {
    let s = String::from_utf8_lossy(bytes);
    let bad = s.char_indices().find(|(_, c)| {
        matches!(c, '\u{1b}' | '\u{7}' | '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    });
    if let Some((at, c)) = bad {
        let from = s[..at].char_indices().rev().nth(40).map_or(0, |(i, _)| i);
        panic!("{what}: {c:?} at byte {at}, after {:?}", &s[from..at]);
    }
}

/// `s` as a TOML basic string, every control character escaped.
pub fn toml_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A valid case file for `id`, with `extra` in every free-text field.
pub fn case_toml(id: &str, title: &str, extra: &str, component: &str) -> String {
    let t = |s: &str| toml_str(&format!("{s}{extra}"));
    format!(
        "id = \"{id}\"\ntitle = {}\ndate = \"2024-03\"\norganization = {}\nscale = {}\nsymptoms = {}\n\
trigger = {}\ndetection = {}\nremediation = [{}]\nlessons = {}\nroot_causes = [\"Resource exhaustion\"]\n\
components = [{}]\nsymptom_tags = [\"Hang\"]\ncontributing_factors = []\n\n[impact]\nduration = {}\n\
users_affected = {}\n\n[[action_items]]\ntext = {}\ntype = \"prevent\"\norigin = \"report\"\n\n\
[[sources]]\ntitle = {}\nurl = \"https://example.org/{id}\"\nkind = \"blog\"\n",
        t(title),
        t("Org "),
        t("8 GPUs "),
        t("The job hung at the checkpoint. "),
        t("A deploy. "),
        t("An alert. "),
        t("Restarted the job. "),
        t("Watch the checkpoint. "),
        toml_str(component),
        t("3h "),
        t("everyone "),
        t("Alert on a stuck checkpoint. "),
        t("The report "),
    )
}

/// Make a FIFO at `path`.
pub fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid C string for the duration of the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo {}", path.display());
}

/// Make a character device node (the null device's numbers) at `path`; `false`, with a note on
/// stderr, when the system does not allow it (mknod needs root; CI runs as root).
pub fn mknod_or_note(path: &Path) -> bool {
    let c = CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid C string for the duration of the call.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) } == 0;
    if !made {
        eprintln!(
            "note: cannot make a device node here ({}); the device-node case is skipped",
            std::io::Error::last_os_error()
        );
    }
    made
}

/// The fixture library the terminal tests use, copied into `dir` (so a test can add to it).
pub fn copy_fixtures(dir: &Path) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tui");
    std::fs::create_dir_all(dir).unwrap();
    for entry in std::fs::read_dir(&from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
    dir.to_path_buf()
}
