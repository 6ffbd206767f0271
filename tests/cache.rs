//! The on-disk cache through the built binary: a second run is served from the cache with the
//! same output, a changed file is seen, and a damaged entry or an unwritable cache directory costs
//! one line of warning, never a failure or a different result.

use std::{
    fs,
    path::{Path, PathBuf},
    process::{Command, Output},
};

struct Setup {
    _tmp: tempfile::TempDir,
    data: PathBuf,
    cache_home: PathBuf,
}

fn setup() -> Setup {
    let tmp = tempfile::tempdir().expect("temp dir");
    let data = tmp.path().join("postmortems");
    fs::create_dir(&data).expect("data dir");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/postmortem");
    for entry in fs::read_dir(fixtures).expect("fixtures") {
        let path = entry.expect("entry").path();
        fs::copy(&path, data.join(path.file_name().expect("name"))).expect("copy");
    }
    Setup { cache_home: tmp.path().join("cache-home"), data, _tmp: tmp }
}

fn incidex(s: &Setup, cache_home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_incidex"))
        .arg("--no-bundled")
        .arg("--data")
        .arg(&s.data)
        .args(args)
        .env("XDG_CACHE_HOME", cache_home)
        .env("INCIDEX_CACHE", "always")
        .env("COLUMNS", "80")
        .env_remove("INCIDEX_DATA")
        .output()
        .expect("the binary runs")
}

fn warnings(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("incidex: warning: ") && !l.contains(".md:"))
        .map(str::to_string)
        .collect()
}

fn entries(cache_home: &Path) -> Vec<PathBuf> {
    let dir = cache_home.join("incidex");
    let mut found: Vec<PathBuf> =
        fs::read_dir(dir).map(|r| r.filter_map(Result::ok).map(|e| e.path()).collect()).unwrap_or_default();
    found.retain(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("lib-")));
    found
}

const SEARCH: &[&str] = &["search", "checkpoint stalled", "--json"];

#[test]
fn cache_hit_gives_the_same_output() {
    let s = setup();
    let first = incidex(&s, &s.cache_home, SEARCH);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    assert_eq!(entries(&s.cache_home).len(), 1);
    let entry_files = |home: &Path| -> Vec<(PathBuf, u64)> {
        let mut v: Vec<(PathBuf, u64)> = fs::read_dir(entries(home)[0].join("index"))
            .expect("index dir")
            .filter_map(Result::ok)
            .map(|e| (e.path(), e.metadata().map(|m| m.len()).unwrap_or(0)))
            .collect();
        v.sort();
        v
    };
    let before = entry_files(&s.cache_home);
    let second = incidex(&s, &s.cache_home, SEARCH);
    assert_eq!(second.stdout, first.stdout);
    assert!(warnings(&second).is_empty(), "{:?}", warnings(&second));
    assert_eq!(entry_files(&s.cache_home), before, "a hit writes nothing");
    let show = incidex(&s, &s.cache_home, &["show", "dataloader-shm-bus-error", "--json"]);
    assert!(String::from_utf8_lossy(&show.stdout).contains("\"inferred\": true"));
}

#[test]
fn cache_invalidation_on_a_changed_file() {
    let s = setup();
    incidex(&s, &s.cache_home, SEARCH);
    let file = s.data.join("dataloader-shm-bus-error.md");
    let text = fs::read_to_string(&file).expect("fixture");
    fs::write(&file, text.replace("died with bus errors", "died with SIGBUS errors")).expect("edit");
    let out = incidex(&s, &s.cache_home, &["show", "dataloader-shm-bus-error", "--json"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("died with SIGBUS errors"));
    assert_eq!(entries(&s.cache_home).len(), 2, "a new entry beside the old one");
}

#[test]
fn cache_corrupted_file_is_one_warning_and_the_same_result() {
    let s = setup();
    let first = incidex(&s, &s.cache_home, SEARCH);
    let library = entries(&s.cache_home)[0].join("library.bin");
    let mut bytes = fs::read(&library).expect("cache file");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    fs::write(&library, bytes).expect("damage");
    let second = incidex(&s, &s.cache_home, SEARCH);
    assert!(second.status.success());
    assert_eq!(second.stdout, first.stdout);
    let w = warnings(&second);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("cannot be read (checksum mismatch)"), "{w:?}");
    // Rebuilt: the next run is clean.
    assert!(warnings(&incidex(&s, &s.cache_home, SEARCH)).is_empty());
}

#[test]
fn cache_in_an_unwritable_directory_is_one_warning_and_the_same_result() {
    let s = setup();
    let expected = incidex(&s, &s.cache_home, SEARCH);
    // A cache home under a regular file cannot be created, whoever runs the test.
    let blocker = s.data.parent().expect("tmp").join("a-file");
    fs::write(&blocker, "").expect("file");
    let out = incidex(&s, &blocker.join("cache"), SEARCH);
    assert!(out.status.success());
    assert_eq!(out.stdout, expected.stdout);
    let w = warnings(&out);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("incidex: warning: cannot write the cache in "), "{w:?}");
}
