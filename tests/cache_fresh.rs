//! The on-disk cache never serves a stale case: in a library of 10,000 files, one file edited
//! after the cache entry was written (to the same size, so only its modification time tells)
//! is seen by the next start, which then stores a new entry that the start after it uses.

use std::{fs, path::Path};

use incidex::{
    corpus::LoadOptions,
    store::cache::{self, CacheOptions, CacheUse, Mode},
};

const FILES: usize = 10_000;

fn postmortem(i: usize, title: &str) -> String {
    format!(
        "+++\norganization = \"Us\"\ncomponents = [\"NCCL\"]\nroot_causes = [\"Deadlock\"]\nsymptom_tags = [\"Hang\"]\n+++\n\
# {title} {i:05}\n\n## Summary\n\nStuck.\n\n## Detection\n\nPager.\n\n## Resolution\n\n- Restarted.\n\n## Action items\n\n- Add a watchdog.\n"
    )
}

fn write_library(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    for i in 0..FILES {
        // Spread over directories, as large libraries are.
        let sub = dir.join(format!("team-{:02}", i % 20));
        if i < 20 {
            fs::create_dir_all(&sub).unwrap();
        }
        fs::write(sub.join(format!("2024-01-01-case-{i:05}.md")), postmortem(i, "Ring hang")).unwrap();
    }
}

#[test]
fn editing_one_file_among_10000_is_seen_at_the_next_start() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("library");
    write_library(&data);
    let load = LoadOptions { bundled: false, dirs: vec![data.clone()] };
    let options = CacheOptions { dir: Some(tmp.path().join("cache")), mode: Mode::Always };
    let open = || cache::open(&load, &options, &incidex::support::progress::silent);

    let first = open();
    assert_eq!(first.cache, CacheUse::Stored, "{:?}", first.warnings);
    assert_eq!(first.library.cases.len(), FILES);
    assert_eq!(open().cache, CacheUse::Hit);

    // The same number of bytes, other words: only the modification time differs.
    let edited = data.join("team-07").join("2024-01-01-case-04567.md");
    let before = fs::read_to_string(&edited).unwrap();
    let after = postmortem(4567, "Ring HANG");
    assert_eq!(before.len(), after.len());
    fs::write(&edited, &after).unwrap();

    let next = open();
    assert_eq!(next.cache, CacheUse::Stored, "the edit must not be served from the old entry");
    let titles: Vec<&str> =
        next.library.cases.iter().map(|c| c.title.as_str()).filter(|t| t.ends_with("04567")).collect();
    assert_eq!(titles, ["Ring HANG 04567"]);
    assert_eq!(open().cache, CacheUse::Hit, "the new entry serves the start after");
}
