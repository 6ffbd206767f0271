//! The cache files' format: magic lines, the format number, header sizes, and [`Corrupt`], the
//! error every read of damaged bytes ends in.

use std::fmt;

pub(super) const MAGIC: &[u8; 16] = b"incidex-library\n";

pub(super) const BODIES_MAGIC: &[u8; 16] = b"incidex-bodies\n\n";

/// Bumped whenever the layout below changes, or what is stored would be made differently: the
/// index holds the words' stems (`text::words`), so 7 came with the irregular verb forms.
pub(super) const FORMAT: u32 = 7;

/// Cases are decoded in this many chunks, in parallel, when all of them are needed.
pub(super) const CHUNKS: usize = 8;

/// The bodies file's magic line and format number.
pub const BODIES_HEADER: usize = BODIES_MAGIC.len() + 4;

/// A body record's checksum, before its bytes.
pub const RECORD_HEADER: usize = 4;

/// Why cached bytes could not be read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corrupt(pub String);

impl fmt::Display for Corrupt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

pub(super) type Result<T> = std::result::Result<T, Corrupt>;

/// The length of the library file's header: magic, format, checksum.
pub(super) const HEADER: usize = MAGIC.len() + 8;
