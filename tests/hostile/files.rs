//! The files around the process: a config path that is a file, an export over a FIFO or a
//! device node, the mode of an export.

use std::{
    os::unix::{
        fs::{FileTypeExt, PermissionsExt},
        process::CommandExt,
    },
    path::Path,
};

use crate::support::{incidex, mkfifo, mknod_or_note, output, text};

#[test]
fn home_or_config_home_naming_a_file_means_no_config_file() {
    let home = tempfile::tempdir().unwrap();
    let clean = output(incidex(home.path()).args(["list"]));
    assert_eq!(clean.status.code(), Some(0));
    let file = home.path().join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let with_config_home = output(incidex(home.path()).env("XDG_CONFIG_HOME", &file).args(["list"]));
    assert_eq!(with_config_home.status.code(), Some(0), "{}", text(&with_config_home.stderr));
    assert_eq!(with_config_home.stdout, clean.stdout);
    let with_home =
        output(incidex(home.path()).env("HOME", &file).env_remove("XDG_CONFIG_HOME").args(["list"]));
    assert_eq!(with_home.status.code(), Some(0), "{}", text(&with_home.stderr));
    assert_eq!(with_home.stdout, clean.stdout);
}

/// `checklist --component nccl -o target --force`, with `umask` for the process.
fn export(home: &Path, target: &Path, umask: libc::mode_t) -> std::process::Output {
    let mut cmd = incidex(home);
    cmd.args(["checklist", "--component", "nccl", "--force", "-o", target.to_str().unwrap()]);
    // SAFETY: umask is async-signal-safe and touches nothing else.
    unsafe {
        cmd.pre_exec(move || {
            libc::umask(umask);
            Ok(())
        })
    };
    output(&mut cmd)
}

#[test]
fn force_never_replaces_a_fifo_or_a_device_node() {
    let home = tempfile::tempdir().unwrap();
    let fifo = home.path().join("pipe.md");
    mkfifo(&fifo);
    let o = export(home.path(), &fifo, 0o022);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("is a FIFO, not a regular file; not replaced"), "{}", text(&o.stderr));
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    let device = home.path().join("device.md");
    if mknod_or_note(&device) {
        let o = export(home.path(), &device, 0o022);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
        assert!(text(&o.stderr).contains("is a device, not a regular file"), "{}", text(&o.stderr));
        assert!(std::fs::symlink_metadata(&device).unwrap().file_type().is_char_device());
    }
    let names: Vec<String> = std::fs::read_dir(home.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".tmp")), "no temporary file left: {names:?}");
}

#[test]
fn an_export_keeps_the_replaced_files_mode_and_respects_the_umask() {
    let home = tempfile::tempdir().unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    let fresh = home.path().join("fresh.md");
    let o = export(home.path(), &fresh, 0o077);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(mode(&fresh), 0o600, "a new file under umask 077");
    let kept = home.path().join("kept.md");
    std::fs::write(&kept, "old").unwrap();
    std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o640)).unwrap();
    let o = export(home.path(), &kept, 0o022);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(mode(&kept), 0o640, "the replaced file's mode");
    assert!(std::fs::read_to_string(&kept).unwrap().contains("- [ ] "));
}

#[test]
fn triage_reads_a_fifo_so_its_writer_finishes() {
    let home = tempfile::tempdir().unwrap();
    let fifo = home.path().join("job.log");
    mkfifo(&fifo);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            // Opening blocks until the reader opens it: a triage that never opens the FIFO
            // leaves this thread blocked, and the join below fails the test by the timeout.
            std::fs::write(&fifo, "ok\nNVRM: Xid (PCI:0000:b3:00): 79, GPU has fallen off the bus.\n")
        })
    };
    let o = output(incidex(home.path()).args(["triage", fifo.to_str().unwrap()]));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).starts_with("Read 2 lines"), "{}", text(&o.stdout));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !writer.is_finished() {
        assert!(std::time::Instant::now() < deadline, "the FIFO's writer is still blocked");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    writer.join().unwrap().unwrap();
}

/// `incidex list` with `config` as `$XDG_CONFIG_HOME/incidex/config.toml` (made by `make`): its
/// output and how long it took.
fn list_with_config(make: impl FnOnce(&Path)) -> (std::process::Output, std::time::Duration) {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("config/incidex");
    std::fs::create_dir_all(&dir).unwrap();
    make(&dir.join("config.toml"));
    let started = std::time::Instant::now();
    let child = incidex(home.path())
        .args(["list"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(child.wait_with_output()));
    // A read that hangs or grows without bound fails here, not by eating the machine.
    match finished.recv_timeout(std::time::Duration::from_secs(20)) {
        Ok(o) => (o.unwrap(), started.elapsed()),
        Err(_) => {
            // SAFETY: kill(2) on the child this test started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("incidex list did not finish");
        }
    }
}

#[test]
fn a_config_file_that_is_dev_zero_a_fifo_or_huge_is_refused_at_once() {
    for (what, make, says) in [
        (
            "/dev/zero",
            Box::new(|p: &Path| std::os::unix::fs::symlink("/dev/zero", p).unwrap())
                as Box<dyn FnOnce(&Path)>,
            "it is a device, not a regular file",
        ),
        ("a FIFO", Box::new(|p: &Path| mkfifo(p)), "it is a FIFO, not a regular file"),
        (
            "a 64 MB file",
            Box::new(|p: &Path| std::fs::write(p, vec![b'#'; 64 << 20]).unwrap()),
            "larger than 1024 KiB",
        ),
    ] {
        let (o, took) = list_with_config(make);
        assert_eq!(o.status.code(), Some(1), "{what}: {}", text(&o.stderr));
        assert!(text(&o.stderr).contains(says), "{what}: {}", text(&o.stderr));
        assert!(took < std::time::Duration::from_secs(10), "{what}: {took:?}");
    }
}

#[test]
fn a_theme_file_that_is_a_fifo_or_dev_zero_is_refused_with_a_warning() {
    let home = tempfile::tempdir().unwrap();
    let fifo = home.path().join("theme.toml");
    mkfifo(&fifo);
    for theme in [fifo.to_str().unwrap(), "/dev/zero"] {
        let o = output(incidex(home.path()).args(["--theme", theme, "list"]));
        assert_eq!(o.status.code(), Some(0), "{theme}: {}", text(&o.stderr));
        assert!(text(&o.stderr).contains("not a regular file"), "{theme}: {}", text(&o.stderr));
    }
}

#[test]
fn blank_values_in_the_config_and_the_team_file_are_named_not_kept() {
    for (config, says) in [
        ("theme = \"\"\n", "config.toml:1:9: error: config: `theme` is empty"),
        ("data = [\"  \"]\n", "config.toml:1:9: error: config: `data` lists an empty path"),
    ] {
        let (o, _) = list_with_config(|p| std::fs::write(p, config).unwrap());
        assert_eq!(o.status.code(), Some(1), "{config}: {}", text(&o.stderr));
        assert!(text(&o.stderr).contains(says), "{config}: {}", text(&o.stderr));
    }
    let home = tempfile::tempdir().unwrap();
    let lib = home.path().join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::write(lib.join("incidex.toml"), "components = [\"\", \"NCCL\"]\n").unwrap();
    std::fs::write(
        lib.join("2026-01-02-hang.md"),
        "+++\ntitle = \"Hang\"\norganization = \"Example\"\ncomponents = [\"GPU\", \" \"]\n+++\n\n# Hang\n\n## Summary\n\nIt hung.\n",
    )
    .unwrap();
    let o = output(incidex(home.path()).args([
        "--no-bundled",
        "--data",
        lib.to_str().unwrap(),
        "show",
        "2026-01-02-hang",
        "--json",
    ]));
    let err = text(&o.stderr);
    assert!(err.contains("incidex.toml:1:15: error: an empty component value"), "{err}");
    assert!(err.contains("2026-01-02-hang.md:4:22: error: an empty component value"), "{err}");
    let shown: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let components: Vec<&str> =
        shown["components"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    assert_eq!(components, ["GPU", "NCCL"], "no blank value kept: {shown}");
}
