//! The ground floor's other half: what every layer needs to report and to write, with no
//! knowledge of what the program is about.
//!
//! - [`diag`]: diagnostics with `path:line:column`;
//! - [`error`]: the library's error type and the exit code each maps to;
//! - [`progress`]: progress of long work, for a bar on stderr or a gauge in the terminal UI;
//! - [`toml_fields`]: typed, positioned reading of TOML tables;
//! - [`export`]: writing a file atomically, never over one unless asked;
//! - [`safe_out`]: the one writer for what the command line prints, escaping every control;
//! - [`tty`]: the width of the terminal on stdout;
//! - [`small_file`]: reading a settings file, only a regular one and only up to a limit.
//!
//! May use: [`crate::text`] and plain crates.

pub mod diag;
pub mod error;
pub mod export;
pub mod progress;
pub mod safe_out;
pub mod small_file;
pub mod toml_fields;
pub mod tty;
