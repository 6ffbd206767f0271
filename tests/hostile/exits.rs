//! Exit codes and the pipes around the process: a stderr that cannot be written, a reader that
//! stops early, a library directory that does not exist, ids read from a pipe.

use std::{
    os::fd::{FromRawFd, OwnedFd},
    process::Stdio,
};

use crate::support::{case_toml, copy_fixtures, incidex, output, text};

#[test]
fn a_stderr_that_cannot_be_written_is_not_a_crash() {
    let home = tempfile::tempdir().unwrap();
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    // An error to report: exit 1, as with a working stderr (it ended in SIGABRT, exit 134).
    let o = output(incidex(home.path()).args(["show", "nope"]).stderr(full()));
    assert_eq!(o.status.code(), Some(1), "{:?}", o.status);
    // A usage error, and warnings while the output is written: the output is a clean run's.
    let o = output(incidex(home.path()).args(["search", "--component", "no-such-thing"]).stderr(full()));
    assert_eq!(o.status.code(), Some(2), "{:?}", o.status);
    let lib = copy_fixtures(&home.path().join("lib"));
    let list = |stderr: Stdio| {
        output(
            incidex(home.path())
                .args(["--no-bundled", "--data", lib.to_str().unwrap(), "list"])
                .stderr(stderr),
        )
    };
    let clean = list(Stdio::piped());
    assert!(!clean.stderr.is_empty(), "the fixtures have problems to report");
    let broken = list(full().into());
    assert_eq!(broken.status.code(), Some(0), "{:?}", broken.status);
    assert_eq!(broken.stdout, clean.stdout);
}

#[test]
fn an_unknown_theme_warned_into_a_broken_stderr_is_not_a_crash() {
    let home = tempfile::tempdir().unwrap();
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    let clean = output(incidex(home.path()).args(["list"]));
    assert_eq!(clean.status.code(), Some(0), "{}", text(&clean.stderr));
    // From the flag, and from the config file (it exited 101, a panic in `eprintln!`).
    let flag = output(incidex(home.path()).args(["--theme", "nosuch", "list"]).stderr(full()));
    assert_eq!(flag.status.code(), Some(0), "{:?}", flag.status);
    assert_eq!(flag.stdout, clean.stdout);
    let config = home.path().join("config/incidex");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "theme = \"nosuch\"\n").unwrap();
    let o = output(incidex(home.path()).args(["list"]).stderr(full()));
    assert_eq!(o.status.code(), Some(0), "{:?}", o.status);
    assert_eq!(o.stdout, clean.stdout);
    // And the warning is still given when stderr works.
    let o = output(incidex(home.path()).args(["list"]));
    assert!(text(&o.stderr).contains("warning"), "{}", text(&o.stderr));
}

#[test]
fn completions_into_a_closed_pipe_end_quietly() {
    let home = tempfile::tempdir().unwrap();
    // The reader is gone before anything is written, as `| head -1` is once it has its line.
    let mut fds = [0i32; 2];
    // SAFETY: a fresh pipe; each end is owned by exactly one OwnedFd below.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let (read_end, write_end) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read_end);
    for shell in ["bash", "zsh", "fish"] {
        let o = output(
            incidex(home.path())
                .args(["completions", shell])
                .stdout(Stdio::from(write_end.try_clone().unwrap())),
        );
        assert_eq!(o.status.code(), Some(0), "{shell}: {:?} {}", o.status, text(&o.stderr));
        assert!(o.stderr.is_empty(), "{shell}: {}", text(&o.stderr));
    }
}

#[test]
fn a_library_directory_that_does_not_exist_is_an_error_exit() {
    let home = tempfile::tempdir().unwrap();
    let missing = home.path().join("no/such/dir");
    let missing = missing.to_str().unwrap();
    for args in [&["list"][..], &["list", "--json"], &["search", "checkpoint"], &["search", "--json", "hang"]]
    {
        let o = output(incidex(home.path()).args(["--data", missing]).args(args));
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", text(&o.stderr));
        assert!(text(&o.stderr).contains("no/such/dir: error: cannot read directory"), "{}", text(&o.stderr));
    }
    // The same commands over directories that exist succeed.
    let lib = copy_fixtures(&home.path().join("lib"));
    let o = output(incidex(home.path()).args(["--data", lib.to_str().unwrap(), "list"]));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
}

#[test]
fn ids_in_piped_output_are_whole_and_work_in_show() {
    let home = tempfile::tempdir().unwrap();
    let lib = home.path().join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    let id = "2024-03-a-very-long-identifier-for-a-checkpoint-hang-that-does-not-fit-in-eighty-columns";
    std::fs::write(lib.join(format!("{id}.toml")), case_toml(id, "Checkpoint hang", "", "NCCL")).unwrap();
    let lib = lib.to_str().unwrap();
    for args in [&["list"][..], &["search", "checkpoint hang"]] {
        let o = output(incidex(home.path()).args(["--no-bundled", "--data", lib]).args(args));
        let out = text(&o.stdout);
        let line =
            out.lines().find(|l| l.contains("2024-03-a-very")).unwrap_or_else(|| panic!("{args:?}:\n{out}"));
        let copied = line.split_whitespace().next().unwrap();
        assert_eq!(copied, id, "{args:?}: the id as printed:\n{out}");
        let shown = output(incidex(home.path()).args(["--no-bundled", "--data", lib, "show", copied]));
        assert_eq!(shown.status.code(), Some(0), "{}", text(&shown.stderr));
    }
}
