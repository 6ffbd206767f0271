//! The library's error type and the exit code each error maps to.
//!
//! Library code returns [`Result`]; only `main` turns an [`Error`] into a message on stderr and
//! an exit code (0 success, 1 failure at run time, 2 usage error).

use std::{fmt, io, path::PathBuf};

use crate::support::diag::Diagnostic;

/// Everything that can go wrong, with enough context for one clear line.
#[derive(Debug)]
pub enum Error {
    /// The command line asked for something that cannot be: an unknown id, a bad value.
    Usage(String),
    /// A file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// A data file is wrong, with its position.
    Data(Diagnostic),
    /// The command ran and found nothing (exit 1, no error line beyond the message).
    NotFound(String),
    /// Anything else at run time.
    Failed(String),
    /// A failure the command has reported in its own output already (`check` prints its
    /// problems and summary on stdout): exit 1 with nothing more on stderr.
    Reported,
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => 2,
            _ => 1,
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(msg) | Error::NotFound(msg) | Error::Failed(msg) => f.write_str(msg),
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Data(d) => d.fmt(f),
            Error::Reported => f.write_str("failed (see the output above)"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
