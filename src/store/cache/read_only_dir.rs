//! A tantivy [`Directory`] over a finished cache entry that never writes and never locks.
//!
//! tantivy's `MmapDirectory` takes a lock file even to open a reader (`.tantivy-meta.lock`), which
//! fails in a read-only cache (a shared or read-only home) and is pointless here: an entry is
//! complete before it is renamed into place and is never changed afterwards, so there is nothing
//! to guard. Reads go to the memory-mapped directory; every write is refused; locks are granted
//! without touching the disk; nothing is watched.

use std::{
    io,
    path::{Path, PathBuf},
    sync::Arc,
};

use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, WatchCallback, WatchHandle, WritePtr,
    error::{DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError},
};

/// A read-only view of an index directory.
#[derive(Debug, Clone)]
pub struct ReadOnlyDir {
    inner: MmapDirectory,
    root: PathBuf,
}

impl ReadOnlyDir {
    /// Open `root`, which must hold a finished index.
    pub fn open(root: &Path) -> Result<ReadOnlyDir, OpenDirectoryError> {
        Ok(ReadOnlyDir { inner: MmapDirectory::open(root)?, root: root.to_path_buf() })
    }

    fn refused(&self, path: &Path) -> io::Error {
        io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{} is a read-only cache entry", self.root.join(path).display()),
        )
    }
}

impl Directory for ReadOnlyDir {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.inner.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        Err(DeleteError::IoError { io_error: Arc::new(self.refused(path)), filepath: path.to_path_buf() })
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        Err(OpenWriteError::IoError { io_error: Arc::new(self.refused(path)), filepath: path.to_path_buf() })
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.inner.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, _data: &[u8]) -> io::Result<()> {
        Err(self.refused(path))
    }

    fn sync_directory(&self) -> io::Result<()> {
        Ok(())
    }

    /// Granted at once and held by nobody: the entry never changes, so readers need no lock.
    fn acquire_lock(&self, _lock: &Lock) -> Result<DirectoryLock, LockError> {
        Ok(DirectoryLock::from(Box::new(())))
    }

    fn watch(&self, _callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        Ok(WatchHandle::empty())
    }
}
