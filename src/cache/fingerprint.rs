//! The key of a cache entry: a fingerprint of everything a loaded library depends on — the
//! program and bundled-library versions, whether the bundled library is included, the
//! directories (as given and as resolved) and every file's path, size and modification time.
//!
//! Any change to any of them gives another key, so an entry is never used for a library it was
//! not built from. Reading the files is not needed: listing them (one `stat` each) is enough.

use std::{
    hash::{DefaultHasher, Hash, Hasher},
    path::PathBuf,
    time::UNIX_EPOCH,
};

use crate::corpus::{bundled, load::FoundFile};

/// The fingerprint of a library: 32 hex digits.
pub fn fingerprint(bundled_cases: bool, dirs: &[PathBuf], files: &[FoundFile]) -> String {
    // Every file's path, size and modification time in one buffer, hashed in one call: a
    // hundred thousand files cost a few milliseconds rather than a million small writes.
    let mut listing: Vec<u8> = Vec::with_capacity(files.len() * 64);
    for f in files {
        listing.extend_from_slice(f.path.as_os_str().as_encoded_bytes());
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
        dirs.len().hash(h);
        for dir in dirs {
            dir.hash(h);
            // The same relative path from another working directory is another library.
            std::fs::canonicalize(dir).ok().hash(h);
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
}
