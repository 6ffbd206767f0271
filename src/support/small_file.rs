//! Reading a small text file that someone else may have pointed anywhere: a settings file (the
//! config, a theme). Only a regular file is read, and only up to a limit: `/dev/zero`, a FIFO,
//! a terminal or a file of gigabytes is refused with a message that says what it is, at once
//! (the file is opened without blocking, so a FIFO with no writer cannot hang the open).
//!
//! May use: std and libc. Writes nothing.

use std::{
    fs::File,
    io::{self, Read},
    os::unix::fs::{FileTypeExt, OpenOptionsExt},
    path::Path,
};

/// The most a settings file may hold.
pub const MAX_SETTINGS_BYTES: u64 = 1 << 20;

/// The text of the regular file at `path`, at most `limit` bytes of UTF-8. A missing file keeps
/// its [`io::ErrorKind::NotFound`]; anything that is not a regular file, or is larger than
/// `limit`, is an [`io::ErrorKind::InvalidInput`] error saying so.
pub fn read(path: &Path, limit: u64) -> io::Result<String> {
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    let metadata = file.metadata()?;
    let kind = metadata.file_type();
    let not_regular = if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("a device")
    } else if kind.is_socket() {
        Some("a socket")
    } else if kind.is_dir() {
        Some("a directory")
    } else {
        None
    };
    if let Some(what) = not_regular {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("it is {what}, not a regular file")));
    }
    if metadata.len() > limit {
        return Err(too_large(limit));
    }
    read_at_most(file, limit)
}

fn too_large(limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("it is larger than {} KiB, the most it may be", limit >> 10),
    )
}

/// Read `file` to its end, refusing more than `limit` bytes (a file that grew since it was
/// looked at is not read on for ever).
fn read_at_most(file: File, limit: u64) -> io::Result<String> {
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(limit));
    }
    String::from_utf8(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "it is not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_small_regular_file_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let ok = dir.path().join("ok.toml");
        std::fs::write(&ok, "theme = \"mono\"\n").unwrap();
        assert_eq!(read(&ok, 100).unwrap(), "theme = \"mono\"\n");
        let big = dir.path().join("big.toml");
        std::fs::write(&big, vec![b'#'; 101]).unwrap();
        assert!(read(&big, 100).unwrap_err().to_string().contains("larger than"));
        let missing = read(&dir.path().join("none.toml"), 100).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        let zero = read(Path::new("/dev/zero"), 100).unwrap_err();
        assert_eq!(zero.to_string(), "it is a device, not a regular file");
        assert!(read(dir.path(), 100).unwrap_err().to_string().contains("a directory"));
        let fifo = dir.path().join("fifo.toml");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string naming a path in a fresh temporary directory.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(read(&fifo, 100).unwrap_err().to_string(), "it is a FIFO, not a regular file");
    }
}
