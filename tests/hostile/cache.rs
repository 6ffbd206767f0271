//! Every kind of damage (a flipped byte, a truncation, a zeroed block) to every file of a cache
//! entry: the run that meets it gives the same output as a clean run, says so in one line of
//! warning and writes the entry again; the run after it is clean and silent.

use std::path::{Path, PathBuf};

use crate::support::{copy_fixtures, incidex, output, text};

/// What a run printed and how it ended.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    code: Option<i32>,
    stdout: String,
}

/// `search` and `list` over `lib` with the cache always used; the two outcomes and stderr.
fn runs(home: &Path, lib: &Path) -> (Vec<Outcome>, String) {
    let mut stderr = String::new();
    let mut outcomes = Vec::new();
    for args in [&["search", "checkpoint hang", "--json"][..], &["list", "--json"][..]] {
        let o = output(
            incidex(home)
                .env("INCIDEX_CACHE", "always")
                .args(["--no-bundled", "--data", lib.to_str().unwrap()])
                .args(args),
        );
        stderr.push_str(&text(&o.stderr));
        outcomes.push(Outcome { code: o.status.code(), stdout: text(&o.stdout) });
    }
    (outcomes, stderr)
}

/// Every file of the one entry under `cache`, sorted.
fn entry_files(cache: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let entries: Vec<PathBuf> = std::fs::read_dir(cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("lib-")))
        .collect();
    assert_eq!(entries.len(), 1, "one entry: {entries:?}");
    let mut files = Vec::new();
    walk(&entries[0], &mut files);
    files.sort();
    files
}

/// The kinds of damage: a flipped bit in the middle, the last third cut off, a block of zeros.
fn damage(kind: &str, bytes: &mut Vec<u8>) {
    let middle = bytes.len() / 2;
    match kind {
        "flip" => bytes[middle] ^= 0x04,
        "truncate" => bytes.truncate(bytes.len() * 2 / 3),
        "zero" => {
            let end = (middle + 512).min(bytes.len());
            let start = middle.saturating_sub(512);
            bytes[start..end].fill(0);
        }
        _ => unreachable!("{kind}"),
    }
}

#[test]
fn every_kind_of_damage_to_every_file_of_an_entry_is_caught_and_mended() {
    let home = tempfile::tempdir().unwrap();
    let lib = copy_fixtures(&home.path().join("lib"));
    let cache = home.path().join("cache/incidex");
    let clean_home = tempfile::tempdir().unwrap();
    let (clean, _) = {
        let o = runs(clean_home.path(), &lib);
        let no_cache = |args: &[&str]| {
            let o = output(
                incidex(clean_home.path())
                    .env("INCIDEX_CACHE", "off")
                    .args(["--no-bundled", "--data", lib.to_str().unwrap()])
                    .args(args),
            );
            Outcome { code: o.status.code(), stdout: text(&o.stdout) }
        };
        // The cache changes nothing: the first (storing) run is a run without it.
        assert_eq!(
            o.0,
            vec![no_cache(&["search", "checkpoint hang", "--json"]), no_cache(&["list", "--json"])]
        );
        o
    };
    assert_eq!(clean[0].code, Some(0));
    // Fill the cache, then damage one file of the entry at a time.
    let (first, stderr) = runs(home.path(), &lib);
    assert_eq!(first, clean, "{stderr}");
    let count = entry_files(&cache).len();
    assert!(count >= 8, "an entry holds the library, the bodies, the checksums and the index: {count}");
    let mut checked = 0;
    for i in 0..count {
        for kind in ["flip", "truncate", "zero"] {
            // Rebuilt entries name their index segments anew: list again each time.
            let file = entry_files(&cache)[i].clone();
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            let mut bytes = std::fs::read(&file).unwrap();
            if bytes.len() < 2 {
                continue;
            }
            damage(kind, &mut bytes);
            std::fs::write(&file, &bytes).unwrap();
            let (damaged, stderr) = runs(home.path(), &lib);
            let what = format!("{kind} {name}");
            assert!(!stderr.contains("internal error"), "{what}: {stderr}");
            if name == "bodies.bin" && kind != "truncate" {
                // A body is checked when it is read: the damaged one shows as unreadable in this
                // run (README: "Large libraries and the cache"), the entry is dropped, and the
                // next run reads the library again. Every exit code is still a clean run's.
                assert_eq!(
                    damaged.iter().map(|o| o.code).collect::<Vec<_>>(),
                    clean.iter().map(|o| o.code).collect::<Vec<_>>(),
                    "{what}"
                );
            } else {
                assert_eq!(damaged, clean, "{what}: {stderr}");
                let warnings = stderr.lines().filter(|l| l.contains("warning: the cache entry")).count();
                assert_eq!(warnings, 1, "{what}: one line of warning, for the first run only:\n{stderr}");
            }
            let (mended, stderr) = runs(home.path(), &lib);
            assert_eq!(mended, clean, "{what}: the run after");
            assert!(!stderr.contains("the cache entry"), "{what}: the entry was written again:\n{stderr}");
            checked += 1;
        }
    }
    assert!(checked >= 24, "{checked}");
}
