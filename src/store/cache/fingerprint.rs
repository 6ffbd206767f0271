//! The key of a cache entry: a fingerprint of everything a loaded library depends on — the
//! program and bundled-library versions, whether the bundled library is included, the
//! directories as the system resolves them and every file's path below its directory, size and
//! modification time.
//!
//! Any change to any of them gives another key, so an entry is never used for a library it was
//! not built from. The same library named two ways (`--data lib` and `--data /abs/lib`, or
//! through a link) has one key: the entry keeps the paths as they were spelled when it was
//! written, and the cache shows them as they are spelled now ([`display_prefixes`]). Reading the
//! files is not needed: listing them (one `stat` each) is enough.

use std::{
    hash::{DefaultHasher, Hash, Hasher},
    path::{Path, PathBuf},
    time::UNIX_EPOCH,
};

use crate::corpus::{bundled, load::FoundFile};

/// The start every file path found under `dir` has (`dir` with a trailing separator).
fn prefix_of(dir: &Path) -> PathBuf {
    dir.join("")
}

/// Each directory's path prefix as it is shown in the library (case paths, diagnostics), in
/// order: what a cache entry records, so that a hit by another spelling can show its own.
pub fn display_prefixes(dirs: &[PathBuf]) -> Vec<String> {
    dirs.iter().map(|d| crate::text::clean_name(&prefix_of(d).display().to_string())).collect()
}

/// The fingerprint of a library: 32 hex digits.
pub fn fingerprint(bundled_cases: bool, dirs: &[PathBuf], files: &[FoundFile]) -> String {
    // Each directory as given and as resolved (the same relative path from another working
    // directory is another library; two spellings of one directory are one).
    let prefixes: Vec<(PathBuf, PathBuf)> = dirs
        .iter()
        .map(|d| (prefix_of(d), prefix_of(&std::fs::canonicalize(d).unwrap_or_else(|_| d.clone()))))
        .collect();
    // Every file's path (below its resolved directory), size and modification time in one
    // buffer, hashed in one call: a hundred thousand files cost a few milliseconds rather than
    // a million small writes.
    let mut listing: Vec<u8> = Vec::with_capacity(files.len() * 64);
    for f in files {
        let path = f.path.as_os_str().as_encoded_bytes();
        let under = prefixes.iter().find(|(given, _)| path.starts_with(given.as_os_str().as_encoded_bytes()));
        match under {
            Some((given, resolved)) => {
                listing.extend_from_slice(resolved.as_os_str().as_encoded_bytes());
                listing.extend_from_slice(&path[given.as_os_str().len()..]);
            }
            None => listing.extend_from_slice(path),
        }
        listing.push(0);
        listing.extend_from_slice(&f.len.to_le_bytes());
        let since = f.modified.and_then(|m| m.duration_since(UNIX_EPOCH).ok());
        listing.extend_from_slice(&since.map_or(0, |d| d.as_secs()).to_le_bytes());
        listing.extend_from_slice(&since.map_or(u32::MAX, |d| d.subsec_nanos()).to_le_bytes());
    }
    // Two differently seeded SipHash runs make 128 bits, far past any chance collision.
    let mut hashers = [DefaultHasher::new(), DefaultHasher::new()];
    hashers[1].write_u64(0x9e37_79b9_7f4a_7c15);
    for h in &mut hashers {
        env!("CARGO_PKG_VERSION").hash(h);
        bundled::FINGERPRINT.hash(h);
        bundled_cases.hash(h);
        prefixes.len().hash(h);
        for (_, resolved) in &prefixes {
            resolved.hash(h);
        }
        files.len().hash(h);
        h.write(&listing);
    }
    format!("{:016x}{:016x}", hashers[0].finish(), hashers[1].finish())
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::*;

    fn file(path: &str, len: u64, secs: u64) -> FoundFile {
        FoundFile {
            path: path.into(),
            len,
            modified: Some(SystemTime::UNIX_EPOCH + Duration::from_secs(secs)),
        }
    }

    #[test]
    fn any_change_changes_the_key() {
        let dirs = vec![PathBuf::from("pm")];
        let base = vec![file("pm/a.md", 10, 100), file("pm/b.md", 20, 200)];
        let key = fingerprint(false, &dirs, &base);
        assert_eq!(key.len(), 32);
        assert_eq!(key, fingerprint(false, &dirs, &base), "the key is stable");
        let changed: Vec<(&str, String)> = vec![
            ("bundled", fingerprint(true, &dirs, &base)),
            ("dir", fingerprint(false, &[PathBuf::from("pm2")], &base)),
            ("size", fingerprint(false, &dirs, &[file("pm/a.md", 11, 100), file("pm/b.md", 20, 200)])),
            ("mtime", fingerprint(false, &dirs, &[file("pm/a.md", 10, 101), file("pm/b.md", 20, 200)])),
            ("path", fingerprint(false, &dirs, &[file("pm/c.md", 10, 100), file("pm/b.md", 20, 200)])),
            ("removed", fingerprint(false, &dirs, &base[..1])),
        ];
        for (what, other) in changed {
            assert_ne!(key, other, "{what}");
        }
    }

    #[test]
    fn two_spellings_of_one_directory_are_one_library() {
        let tmp = tempfile::tempdir().unwrap();
        let lib = tmp.path().join("lib");
        std::fs::create_dir(&lib).unwrap();
        let dotted = tmp.path().join("lib/../lib/.");
        let key = |dir: &Path| {
            let files = [file(&dir.join("a.md").display().to_string(), 10, 100)];
            fingerprint(false, &[dir.to_path_buf()], &files)
        };
        assert_eq!(key(&lib), key(&dotted));
        std::os::unix::fs::symlink(&lib, tmp.path().join("link")).unwrap();
        assert_eq!(key(&lib), key(&tmp.path().join("link")));
        assert_eq!(display_prefixes(std::slice::from_ref(&lib)), [format!("{}/", lib.display())]);
    }
}
