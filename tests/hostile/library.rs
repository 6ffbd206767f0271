//! Hostile libraries: escape payloads in every field, file name and taxonomy value, reaching
//! every command; link loops, FIFOs, device nodes and dangling links in a data directory.

use std::{
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use crate::support::{
    PAYLOAD, assert_inert, case_toml, copy_fixtures, incidex, mkfifo, mknod_or_note, output, text, toml_str,
};

/// A library where everything a user can write carries [`PAYLOAD`]: a taxonomy value, every
/// field of a case, a postmortem, and file names.
fn hostile_library(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let evil_component = format!("Evil{PAYLOAD} component");
    let taxonomy = format!(
        "[[component]]\nname = {}\ndescription = {}\naliases = [{}]\n",
        toml_str(&evil_component),
        toml_str(&format!("Described {PAYLOAD}")),
        toml_str(&format!("evilalias{PAYLOAD}")),
    );
    std::fs::write(dir.join("taxonomy.toml"), taxonomy).unwrap();
    std::fs::write(
        dir.join("hostile-every-field.toml"),
        case_toml("hostile-every-field", "Checkpoint hang ", PAYLOAD, &evil_component),
    )
    .unwrap();
    // A file name that carries the payload: its id cannot match, so it is reported by path.
    std::fs::write(
        dir.join(format!("name{PAYLOAD}.toml")),
        case_toml("name-payload", "Named ", PAYLOAD, "NCCL"),
    )
    .unwrap();
    let postmortem = format!(
        "+++\norganization = {org}\ncomponents = [{comp}]\nroot_causes = [\"Deadlock\"]\nsymptom_tags = [\"Hang\"]\n+++\n\
# Hang {p}\n\n## Summary\n\nStuck {p}.\n\n## Detection\n\nPager {p}.\n\n## Resolution\n\n- Restarted {p}.\n\n\
## Action items\n\n- [prevent] Add a watchdog {p}.\n",
        org = toml_str(&format!("Us {PAYLOAD}")),
        comp = toml_str(&evil_component),
        p = PAYLOAD,
    );
    std::fs::write(dir.join(format!("2024-01-02-\u{202e}{}.md", "pm")), postmortem).unwrap();
}

#[test]
fn escape_payloads_in_every_field_file_name_and_taxonomy_value_reach_no_output() {
    let home = tempfile::tempdir().unwrap();
    let lib = home.path().join("lib");
    hostile_library(&lib);
    let lib_s = lib.to_str().unwrap();
    let evil = format!("component:evil{PAYLOAD}");
    let runs: Vec<Vec<&str>> = vec![
        vec!["list"],
        vec!["list", "--json"],
        vec!["show", "hostile-every-field"],
        vec!["show", "hostile-every-field", "--json"],
        vec!["show", "hostile-every-field", "--markdown"],
        vec!["search", "checkpoint hang"],
        vec!["search", "checkpoint hang", "--json"],
        vec!["search", &evil],
        vec!["facets"],
        vec!["facets", "--json"],
        vec!["graph", "hostile-every-field"],
        vec!["graph", "hostile-every-field", "--format", "dot"],
        vec!["graph", "hostile-every-field", "--format", "mermaid"],
        vec!["graph", "hostile-every-field", "--format", "json"],
        vec!["checklist", "--component", "evil"],
        vec!["checklist", "--component", "evil", "--format", "json"],
        vec!["triage", PAYLOAD],
        vec!["triage", "--json", PAYLOAD],
    ];
    for args in &runs {
        let o = output(incidex(home.path()).args(["--no-bundled", "--data", lib_s]).args(args));
        let what = format!("incidex {args:?}");
        assert!(o.status.code().is_some_and(|c| c <= 2), "{what}: {:?} {}", o.status, text(&o.stderr));
        assert_inert(&o.stdout, &format!("{what}: stdout"));
        assert_inert(&o.stderr, &format!("{what}: stderr"));
    }
    // The case really is there (the payload did not make it vanish), and the file name with a
    // payload is named, inertly, in the problems.
    let o =
        output(incidex(home.path()).args(["--no-bundled", "--data", lib_s, "show", "hostile-every-field"]));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("Checkpoint hang"), "{}", text(&o.stdout));
    for check in [vec!["check", lib_s], vec!["check", "--json", lib_s]] {
        let o = output(incidex(home.path()).args(&check));
        assert_eq!(o.status.code(), Some(1), "{check:?}: errors are found");
        assert_inert(&o.stdout, "check: stdout");
        assert_inert(&o.stderr, "check: stderr");
        assert!(text(&o.stdout).contains("name\u{241b}]0;pwned"), "{check:?}:\n{}", text(&o.stdout));
    }
}

#[test]
fn json_paths_carry_no_bidi_or_zero_width_character() {
    let home = tempfile::tempdir().unwrap();
    let lib = home.path().join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    let name = "2024-05-06-\u{202e}gpj.\u{200b}\u{2066}x.md";
    let postmortem = "+++\norganization = \"Us\"\ncomponents = [\"NCCL\"]\nroot_causes = [\"Deadlock\"]\n\
symptom_tags = [\"Hang\"]\n+++\n# A hang\n\n## Summary\n\nStuck.\n\n## Detection\n\nPager.\n\n## Resolution\n\n\
- Restarted.\n\n## Action items\n\n- Add a watchdog.\n";
    std::fs::write(lib.join(name), postmortem).unwrap();
    let o = output(incidex(home.path()).args([
        "--no-bundled",
        "--data",
        lib.to_str().unwrap(),
        "list",
        "--json",
    ]));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let path = v["cases"][0]["path"].as_str().expect("a path");
    assert!(path.ends_with("2024-05-06-\u{fffd}gpj.\u{fffd}\u{fffd}x.md"), "{path:?}");
    assert_inert(&o.stdout, "list --json");
}

/// `list --json` of the library in `lib`, its exit code and stderr.
fn list_json(home: &Path, lib: &Path) -> (Option<i32>, String, String) {
    let o = output(incidex(home).args(["--no-bundled", "--data", lib.to_str().unwrap(), "list", "--json"]));
    (o.status.code(), text(&o.stdout), text(&o.stderr))
}

#[test]
fn link_loops_are_walked_once_and_lists_match_a_clean_run() {
    let home = tempfile::tempdir().unwrap();
    let clean = copy_fixtures(&home.path().join("clean"));
    let looped = copy_fixtures(&home.path().join("looped"));
    // k = 4 links to the directory itself, and one from below it: walked once each.
    std::fs::create_dir(looped.join("sub")).unwrap();
    for i in 0..4 {
        std::os::unix::fs::symlink(&looped, looped.join(format!("self{i}"))).unwrap();
    }
    std::os::unix::fs::symlink("..", looped.join("sub/up")).unwrap();
    let (code, expected, _) = list_json(home.path(), &clean);
    assert_eq!(code, Some(0));
    let started = Instant::now();
    let (code, got, stderr) = list_json(home.path(), &looped);
    let took = started.elapsed();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(took < Duration::from_secs(10), "listing a looped library took {took:?}");
    assert_eq!(got.replace("/looped/", "/clean/"), expected, "the same cases as the clean library");
    assert!(!stderr.contains("duplicate id"), "{stderr}");
    let loops = stderr.lines().filter(|l| l.contains("a link to a directory already read")).count();
    assert_eq!(loops, 5, "each link named once:\n{stderr}");
}

#[test]
fn fifos_device_nodes_and_dangling_links_are_named_and_skipped() {
    let home = tempfile::tempdir().unwrap();
    let clean = copy_fixtures(&home.path().join("clean"));
    let special = copy_fixtures(&home.path().join("special"));
    // A FIFO named like a case file would block the reader for ever if it were opened.
    mkfifo(&special.join("blocked.toml"));
    std::os::unix::fs::symlink(special.join("gone.toml"), special.join("dangling.toml")).unwrap();
    let device = mknod_or_note(&special.join("device.md"));
    let (_, expected, _) = list_json(home.path(), &clean);
    let started = Instant::now();
    let (code, got, stderr) = list_json(home.path(), &special);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(got.replace("/special/", "/clean/"), expected);
    let named = |file: &str, what: &str| {
        assert!(
            stderr.lines().any(|l| l.contains(&format!("/special/{file}: warning: skipped: {what}"))),
            "{file} not named as {what}:\n{stderr}"
        );
    };
    named("blocked.toml", "a FIFO");
    named("dangling.toml", "a link to ");
    if device {
        named("device.md", "a device node");
    }
}

/// The peak resident memory (KiB) of `incidex ARGS list --json` once the library is loaded.
///
/// Read from /proc while the process waits on a full pipe, after its first byte of output: a
/// child's `ru_maxrss` (wait4) also counts the test process it was spawned from, which a
/// parallel test can make large. The output must outgrow the pipe, so the process is still
/// there to be read.
fn peak_rss_once_loaded(cmd: &mut Command) -> i64 {
    use std::io::Read;
    let mut child =
        cmd.args(["list", "--json"]).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    assert_eq!(out.read(&mut first).unwrap(), 1, "some output");
    std::thread::sleep(Duration::from_millis(200));
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let peak = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<i64>().ok())
        .expect("VmHWM in /proc/PID/status");
    std::io::copy(&mut out, &mut std::io::sink()).unwrap();
    assert!(child.wait().unwrap().success());
    peak
}

/// A postmortem whose Summary is `bytes` long: lines of log words.
fn postmortem_with_summary_of(bytes: usize) -> String {
    let line = "worker 17 stuck in allreduce after the checkpoint write, retrying on ring 3\n";
    format!(
        "+++\norganization = \"Us\"\ncomponents = [\"NCCL\"]\nroot_causes = [\"Deadlock\"]\nsymptom_tags = [\"Hang\"]\n+++\n\
# A big hang\n\n## Summary\n\n{}\n## Detection\n\nPager.\n\n## Resolution\n\n- Restarted.\n\n## Action items\n\n- Add a watchdog.\n",
        line.repeat(bytes / line.len())
    )
}

#[test]
fn a_huge_markdown_field_costs_a_few_times_its_size_in_memory() {
    let home = tempfile::tempdir().unwrap();
    let lib = home.path().join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    let size = 6 << 20;
    std::fs::write(lib.join("2024-01-01-big.md"), postmortem_with_summary_of(size)).unwrap();
    let peak =
        peak_rss_once_loaded(incidex(home.path()).args(["--no-bundled", "--data", lib.to_str().unwrap()]));
    // What the program needs with a small library, generously (about 10 MB in a debug build).
    let baseline = 16 << 10;
    let ratio = (peak - baseline) as f64 * 1024.0 / size as f64;
    eprintln!("a {} MB field: peak RSS {} MB, {ratio:.1} times the field over 16 MB", size >> 20, peak >> 10);
    // It was 13 times the field: the facet matcher over the whole text, four copies per paragraph.
    assert!(ratio < 6.0, "a {} MB field added {ratio:.1} times its size to the peak RSS", size >> 20);
}

/// A postmortem whose front matter lists `components`.
fn postmortem_listing(dir: &Path, components: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let pm = format!(
        "+++\ntitle = \"Lost GPUs\"\ndate = \"2026-01-02\"\norganization = \"Example\"\ncomponents = [{components}]\n\
         root_causes = [\"Hardware fault\"]\nsymptom_tags = [\"Hang\"]\n+++\n\n# Lost GPUs\n\n\
         ## Summary\n\nThe GPU fell off the bus.\n"
    );
    std::fs::write(dir.join("many.md"), pm).unwrap();
}

/// `incidex --data DIR list` (a fresh cache): its time and its stderr.
fn list_time(home: &Path, dir: &Path) -> (Duration, String) {
    let started = Instant::now();
    let o = output(incidex(home).args(["--data", dir.to_str().unwrap(), "list"]));
    let took = started.elapsed();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    (took, text(&o.stderr))
}

#[test]
fn a_front_matter_listing_one_value_200000_times_loads_in_linear_time_with_one_warning() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("lib");
    postmortem_listing(&dir, &vec!["\"GPU\""; 200_000].join(", "));
    // Before: 11 s (a release build) and 200,000 warnings, one per repeat.
    let (took, err) = list_time(home.path(), &dir);
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert!(err.contains("Component 'GPU' is listed 200000 times"), "{err}");
    assert_eq!(err.lines().filter(|l| l.contains("is listed")).count(), 1, "{err}");
    assert!(err.lines().count() <= 11, "{err}");
}

#[test]
fn fifty_thousand_unknown_values_load_quickly_and_warnings_are_capped_with_a_count() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("lib");
    let unknown: Vec<String> = (0..50_000).map(|i| format!("\"Widget {i}\"")).collect();
    postmortem_listing(&dir, &format!("\"GPU\", {}", unknown.join(", ")));
    // Before: 26 s (a release build) and 50,000 warnings before every command's answer.
    let (took, err) = list_time(home.path(), &dir);
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert!(err.lines().count() <= 11, "{err}");
    assert!(err.contains("Component 'Widget 0' is not in the taxonomy; nearest"), "{err}");
    assert!(err.contains("more problems in your library files (`incidex check` lists them all)"), "{err}");
    // `check` lists every problem: the first twenty values, then one line with the count.
    let o = output(incidex(home.path()).args(["check", dir.to_str().unwrap()]));
    let out = format!("{}{}", text(&o.stdout), text(&o.stderr));
    assert!(out.contains("Component 'Widget 19' is not in the taxonomy"), "{out}");
    assert!(!out.contains("Component 'Widget 20' is not"), "{out}");
    assert!(out.contains("... and 49980 more values not in the taxonomy (the first 20 are listed)"), "{out}");
}
