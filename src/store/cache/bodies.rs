//! The bodies file of a cache entry, read one case's body at a time when it is first used
//! (`crate::corpus::body`).
//!
//! The file stays open for the life of the library, and a body is one positioned read of its
//! record: no lock, no shared cursor, any thread. An entry is never changed once written, so an
//! open file always holds what the library was opened with — even if another process prunes the
//! entry meanwhile (the open file lives on until it is closed). A record that fails its checksum
//! means the entry is damaged: it is removed, once, so the next start reads the library from its
//! files and writes a good entry.

use std::{
    fs::File,
    io,
    path::{Path, PathBuf},
    sync::atomic::{AtomicBool, Ordering},
};

use super::codec::{self, BODIES_HEADER, RECORD_HEADER};
use crate::corpus::{CaseBody, body::BodySource};

/// An open bodies file; see the module docs.
#[derive(Debug)]
pub struct BodyFile {
    file: File,
    /// The entry the file belongs to, removed when a record is found damaged.
    entry: PathBuf,
    removed: AtomicBool,
}

impl BodyFile {
    /// Open the bodies file `path` of `entry`, check its header, and give its length.
    pub fn open(path: &Path, entry: &Path) -> io::Result<(BodyFile, u64)> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        let mut header = [0u8; BODIES_HEADER];
        read_at(&file, &mut header, 0)?;
        codec::check_bodies_header(&header).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.0))?;
        Ok((BodyFile { file, entry: entry.to_path_buf(), removed: AtomicBool::new(false) }, len))
    }
}

impl BodySource for BodyFile {
    fn read(&self, at: u64, len: u32) -> Result<CaseBody, String> {
        let mut record = vec![0u8; RECORD_HEADER + len as usize];
        read_at(&self.file, &mut record, at).map_err(|e| format!("cannot read the cache: {e}"))?;
        codec::decode_body(&record).map_err(|e| e.to_string())
    }

    fn damaged(&self, _why: &str) {
        if !self.removed.swap(true, Ordering::SeqCst) {
            let _ = std::fs::remove_dir_all(&self.entry);
        }
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

#[cfg(windows)]
fn read_at(file: &File, mut buf: &mut [u8], mut at: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, at)? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                at += n as u64;
            }
        }
    }
    Ok(())
}
