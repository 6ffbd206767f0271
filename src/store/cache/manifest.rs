//! The checksums of a cache entry's search index: every file of `index/` with its length and
//! CRC-32, written when the entry is made and checked before the index is opened.
//!
//! tantivy trusts its files: one flipped byte in a fast field ends a search in an assertion, a
//! zeroed block of the term dictionary in an error, and a damaged field-norm file silently
//! changes scores. An entry is never changed after it is written, so any difference from the
//! recorded checksums is damage, and the entry is not used (the caller rebuilds it). The files
//! are read in small blocks; nothing is kept in memory.
//!
//! The manifest is plain text, one `crc32 length name` line per file, sorted by name, and ends
//! with a line holding the checksum of the lines above it, so a damaged manifest is noticed too.

use std::{
    fs::File,
    io::{self, Read},
    path::Path,
};

/// A file's length and CRC-32.
fn checksum(path: &Path) -> io::Result<(u64, u32)> {
    let mut file = File::open(path)?;
    let mut hasher = crc32fast::Hasher::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut len = 0u64;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        len += n as u64;
    }
    Ok((len, hasher.finalize()))
}

/// The manifest's last line: the checksum of everything before it.
fn seal(lines: &str) -> String {
    format!("end {:08x}\n", crc32fast::hash(lines.as_bytes()))
}

/// The manifest of every file in `index_dir` (which holds files only).
pub fn make(index_dir: &Path) -> io::Result<String> {
    let mut names: Vec<String> = std::fs::read_dir(index_dir)?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<io::Result<_>>()?;
    names.sort();
    let mut lines = String::new();
    for name in names {
        let (len, crc) = checksum(&index_dir.join(&name))?;
        lines.push_str(&format!("{crc:08x} {len} {name}\n"));
    }
    let sealed = seal(&lines);
    Ok(lines + &sealed)
}

/// Check every file of `index_dir` against `manifest`: the same files, lengths and checksums.
/// `Err` says what differs.
pub fn verify(index_dir: &Path, manifest: &str) -> Result<(), String> {
    let body_end = manifest.trim_end_matches('\n').rfind('\n').map_or(0, |i| i + 1);
    let (lines, last) = manifest.split_at(body_end);
    if last != seal(lines) {
        return Err("the index checksums are damaged".into());
    }
    let mut expected: Vec<&str> = Vec::new();
    for line in lines.lines() {
        let mut parts = line.splitn(3, ' ');
        let (Some(crc), Some(len), Some(name)) = (parts.next(), parts.next(), parts.next()) else {
            return Err("the index checksums are damaged".into());
        };
        let (Ok(crc), Ok(len)) = (u32::from_str_radix(crc, 16), len.parse::<u64>()) else {
            return Err("the index checksums are damaged".into());
        };
        let found = checksum(&index_dir.join(name)).map_err(|e| format!("index file {name}: {e}"))?;
        if found.0 != len {
            return Err(format!("index file {name} has {} bytes, expected {len}", found.0));
        }
        if found.1 != crc {
            return Err(format!("index file {name}: checksum mismatch"));
        }
        expected.push(name);
    }
    let present = std::fs::read_dir(index_dir).map_err(|e| format!("index: {e}"))?.count();
    if present != expected.len() {
        return Err(format!("the index holds {present} files, expected {}", expected.len()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir_with(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in files {
            std::fs::write(dir.path().join(name), bytes).unwrap();
        }
        dir
    }

    #[test]
    fn an_untouched_index_verifies() {
        let dir = dir_with(&[("a.idx", b"postings"), ("meta.json", b"{}"), ("b.fast", &[0u8; 100_000])]);
        let manifest = make(dir.path()).unwrap();
        assert_eq!(manifest.lines().count(), 4);
        assert_eq!(verify(dir.path(), &manifest), Ok(()));
    }

    #[test]
    fn every_kind_of_damage_is_named() {
        let dir = dir_with(&[("a.idx", b"postings"), ("b.fast", &[7u8; 5000])]);
        let manifest = make(dir.path()).unwrap();
        let flip = |bytes: &mut Vec<u8>| bytes[1234] ^= 0x01;
        let zero = |bytes: &mut Vec<u8>| bytes[1000..2000].fill(0);
        let cut = |bytes: &mut Vec<u8>| bytes.truncate(4000);
        for (what, damage, expected) in [
            ("flip", &flip as &dyn Fn(&mut Vec<u8>), "checksum mismatch"),
            ("zero", &zero, "checksum mismatch"),
            ("truncate", &cut, "has 4000 bytes, expected 5000"),
        ] {
            let path = dir.path().join("b.fast");
            let good = std::fs::read(&path).unwrap();
            let mut bad = good.clone();
            damage(&mut bad);
            std::fs::write(&path, &bad).unwrap();
            let err = verify(dir.path(), &manifest).unwrap_err();
            assert!(err.contains(expected), "{what}: {err}");
            std::fs::write(&path, &good).unwrap();
        }
        std::fs::remove_file(dir.path().join("a.idx")).unwrap();
        assert!(verify(dir.path(), &manifest).unwrap_err().contains("a.idx"));
    }

    #[test]
    fn a_damaged_manifest_or_an_extra_file_is_noticed() {
        let dir = dir_with(&[("a.idx", b"postings")]);
        let manifest = make(dir.path()).unwrap();
        assert!(verify(dir.path(), &manifest.replace("a.idx", "a.idy")).is_err());
        assert!(verify(dir.path(), &manifest[..manifest.len() - 3]).is_err());
        assert!(verify(dir.path(), "").is_err());
        std::fs::write(dir.path().join("extra"), b"x").unwrap();
        assert!(verify(dir.path(), &manifest).unwrap_err().contains("2 files, expected 1"));
    }
}
