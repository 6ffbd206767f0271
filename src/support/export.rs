//! Writing an export (a checklist) to a file atomically: the content goes to a temporary file
//! in the target's own directory, is flushed to disk, and then renamed over the target in one
//! step. A reader never sees half a file, and a failed write leaves nothing behind — neither a
//! partial target nor the temporary file. An existing file is replaced only when the caller says
//! so; without that the rename itself refuses (no check-then-write race). Only a regular file
//! (or a link, which is replaced by the file) is ever replaced: a FIFO, a device or a socket at
//! the path is refused, even when replacing is allowed.
//!
//! The new file gets the mode of the file it replaces (for a link, of the file it points to);
//! a file where there was none is created as `0666` less the umask, as any program would.
//!
//! This is the only place incidex writes a user-named file.

use std::{
    fmt,
    fs::File,
    io::{self, Write},
    path::{Path, PathBuf},
};

/// Why an export could not be written.
#[derive(Debug)]
pub enum ExportError {
    /// The file exists and overwriting was not allowed.
    Exists(PathBuf),
    /// The system refused (no such directory, no permission, disk full, ...).
    Io {
        /// The file being written.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::Exists(path) => write!(f, "{}: file exists; not overwritten", path.display()),
            ExportError::Io { path, source } => write!(f, "{}: cannot write: {source}", path.display()),
        }
    }
}

impl std::error::Error for ExportError {}

/// Whether something (a file, a directory, a link, even a dangling one) is at `path`.
pub fn exists(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}

/// Write `bytes` to `path` atomically (see the module docs); replace an existing file only when
/// `overwrite` is true.
pub fn write_file(path: &Path, bytes: &[u8], overwrite: bool) -> Result<(), ExportError> {
    write_with(path, overwrite, |w| w.write_all(bytes))
}

/// Write what `fill` writes to `path` atomically; if `fill` fails, nothing is left behind.
pub fn write_with(
    path: &Path,
    overwrite: bool,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), ExportError> {
    let io_error = |source: io::Error| ExportError::Io { path: path.to_path_buf(), source };
    if path.is_dir() {
        return Err(io_error(io::Error::new(io::ErrorKind::IsADirectory, "is a directory")));
    }
    let existing = path.symlink_metadata().ok();
    if let Some(meta) = &existing {
        let kind = meta.file_type();
        if !kind.is_file() && !kind.is_symlink() {
            return Err(io_error(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("is {}, not a regular file; not replaced", special_kind(&kind)),
            )));
        }
        if !overwrite {
            return Err(ExportError::Exists(path.to_path_buf()));
        }
    }
    // The mode to keep: the replaced file's (through a link, its target's).
    let keep_mode =
        existing.and_then(|_| std::fs::metadata(path).ok()).filter(|m| m.is_file()).map(|m| m.permissions());
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // Dropping `tmp` on any early return deletes the temporary file.
    let mut tmp = tempfile::Builder::new()
        .prefix(".incidex-")
        .suffix(".tmp")
        .permissions(new_file_permissions())
        .tempfile_in(dir)
        .map_err(|e| io_error(without_temporary_name(e)))?;
    {
        let mut writer = io::BufWriter::new(tmp.as_file_mut());
        fill(&mut writer).map_err(io_error)?;
        writer.flush().map_err(io_error)?;
    }
    if let Some(mode) = keep_mode {
        tmp.as_file().set_permissions(mode).map_err(io_error)?;
    }
    tmp.as_file().sync_all().map_err(io_error)?;
    let persisted = if overwrite { tmp.persist(path) } else { tmp.persist_noclobber(path) };
    persisted.map_err(|e| match e.error.kind() {
        io::ErrorKind::AlreadyExists => ExportError::Exists(path.to_path_buf()),
        _ => io_error(e.error),
    })?;
    // The rename is durable once the directory is; a failure here loses nothing already done.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// `e` without the `at path ".../.incidex-XXXX.tmp"` tempfile adds: the user named the target,
/// which the message already leads with, and never saw the temporary file.
fn without_temporary_name(e: io::Error) -> io::Error {
    match e.to_string().rsplit_once(" at path ") {
        Some((what, _)) => io::Error::new(e.kind(), what.to_string()),
        None => e,
    }
}

/// What a special file is, in words.
fn special_kind(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() { "a directory" } else { "a special file" }
}

/// The mode a new file is created with: `0666`, less the umask (the system applies it).
fn new_file_permissions() -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    std::fs::Permissions::from_mode(0o666)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn writes_a_new_file_with_the_umask_applied() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("list.md");
        write_file(&path, b"- [ ] one\n", false).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "- [ ] one\n");
        assert_eq!(entries(dir.path()), ["list.md"], "no temporary file is left");
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            use std::os::unix::fs::PermissionsExt;
            // What the system gives a new file under the umask of the moment.
            let probe = dir.path().join("probe");
            std::fs::OpenOptions::new().write(true).create_new(true).mode(0o666).open(&probe).unwrap();
            let expected = std::fs::metadata(&probe).unwrap().permissions().mode() & 0o777;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, expected);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("list.md");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_file(&path, b"new", true).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777, 0o640);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_never_replaced_even_with_force() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pipe.md");
        let c_path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string for the duration of the call.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0);
        let err = write_file(&path, b"x", true).unwrap_err();
        assert!(err.to_string().contains("is a FIFO, not a regular file; not replaced"), "{err}");
        assert!(std::fs::symlink_metadata(&path).unwrap().file_type().is_fifo(), "still a FIFO");
        assert_eq!(entries(dir.path()), ["pipe.md"], "no temporary file is left");
    }

    #[test]
    fn never_overwrites_without_force() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("list.md");
        std::fs::write(&path, "precious").unwrap();
        let err = write_file(&path, b"new", false).unwrap_err();
        assert!(matches!(err, ExportError::Exists(_)), "{err}");
        assert!(err.to_string().ends_with("list.md: file exists; not overwritten"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "precious");
        assert_eq!(entries(dir.path()), ["list.md"]);
        write_file(&path, b"new", true).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(entries(dir.path()), ["list.md"]);
    }

    #[test]
    fn a_dangling_link_counts_as_existing() {
        #[cfg(unix)]
        {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("link.md");
            std::os::unix::fs::symlink(dir.path().join("nowhere"), &path).unwrap();
            assert!(matches!(write_file(&path, b"x", false), Err(ExportError::Exists(_))));
            assert!(!dir.path().join("nowhere").exists(), "nothing was written through the link");
        }
    }

    #[test]
    fn a_failed_write_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("list.md");
        let failing = |w: &mut dyn Write| -> io::Result<()> {
            w.write_all(&[b'x'; 100_000])?;
            Err(io::Error::other("disk full"))
        };
        let err = write_with(&path, false, failing).unwrap_err();
        assert!(err.to_string().ends_with("list.md: cannot write: disk full"), "{err}");
        assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
        // Over an existing file, the old content survives whole.
        std::fs::write(&path, "old").unwrap();
        assert!(write_with(&path, true, failing).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(entries(dir.path()), ["list.md"]);
    }

    #[test]
    fn bad_targets_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_file(dir.path(), b"x", true).unwrap_err();
        assert!(err.to_string().contains("is a directory"), "{err}");
        let missing = dir.path().join("no/such/dir/list.md");
        let err = write_file(&missing, b"x", false).unwrap_err();
        assert!(err.to_string().starts_with(&missing.display().to_string()), "{err}");
        assert!(!err.to_string().contains(".incidex-"), "the temporary file is not named: {err}");
    }
}
