//! A tantivy [`Directory`] over files compiled into the binary (`&'static [u8]`): opened
//! read-only, straight from memory, nothing copied, nothing written, nothing locked.
//!
//! Segment files are handed to tantivy as the static slices themselves (tantivy's `FileHandle`
//! for `&'static [u8]`), so opening the bundled index costs no read and no allocation beyond
//! tantivy's own structures; only `meta.json` is copied, as tantivy's `atomic_read` asks for a
//! `Vec`. Every write is refused, locks are granted at once, nothing is watched.

use std::{io, path::Path, sync::Arc};

use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, WatchCallback, WatchHandle, WritePtr,
    error::{DeleteError, LockError, OpenReadError, OpenWriteError},
};

/// Files by name, each a static slice.
#[derive(Debug, Clone, Copy)]
pub struct StaticDir {
    files: &'static [(&'static str, &'static [u8])],
}

impl StaticDir {
    /// The directory holding `files` (name, contents).
    pub fn new(files: &'static [(&'static str, &'static [u8])]) -> StaticDir {
        StaticDir { files }
    }

    fn file(&self, path: &Path) -> Option<&'static [u8]> {
        let name = path.to_str()?;
        self.files.iter().find(|(n, _)| *n == name).map(|(_, bytes)| *bytes)
    }

    fn refused(path: &Path) -> io::Error {
        io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{} is part of the bundled index, compiled in and read-only", path.display()),
        )
    }
}

impl Directory for StaticDir {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        match self.file(path) {
            Some(bytes) => Ok(Arc::new(bytes)),
            None => Err(OpenReadError::FileDoesNotExist(path.to_path_buf())),
        }
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        Err(DeleteError::IoError {
            io_error: Arc::new(StaticDir::refused(path)),
            filepath: path.to_path_buf(),
        })
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        Ok(self.file(path).is_some())
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        Err(OpenWriteError::IoError {
            io_error: Arc::new(StaticDir::refused(path)),
            filepath: path.to_path_buf(),
        })
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.file(path).map(<[u8]>::to_vec).ok_or_else(|| OpenReadError::FileDoesNotExist(path.to_path_buf()))
    }

    fn atomic_write(&self, path: &Path, _data: &[u8]) -> io::Result<()> {
        Err(StaticDir::refused(path))
    }

    fn sync_directory(&self) -> io::Result<()> {
        Ok(())
    }

    /// Granted at once and held by nobody: the files never change.
    fn acquire_lock(&self, _lock: &Lock) -> Result<DirectoryLock, LockError> {
        Ok(DirectoryLock::from(Box::new(())))
    }

    fn watch(&self, _callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        Ok(WatchHandle::empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static FILES: &[(&str, &[u8])] = &[("a.bin", b"abc")];

    #[test]
    fn reads_what_it_holds_and_refuses_writes() {
        let dir = StaticDir::new(FILES);
        assert!(dir.exists(Path::new("a.bin")).unwrap());
        assert!(!dir.exists(Path::new("b.bin")).unwrap());
        let slice = dir.open_read(Path::new("a.bin")).unwrap();
        assert_eq!(slice.read_bytes().unwrap().as_slice(), b"abc");
        assert!(matches!(dir.get_file_handle(Path::new("b.bin")), Err(OpenReadError::FileDoesNotExist(_))));
        assert!(dir.open_write(Path::new("c.bin")).is_err());
        assert!(dir.atomic_write(Path::new("a.bin"), b"x").is_err());
        assert!(dir.delete(Path::new("a.bin")).is_err());
    }
}
