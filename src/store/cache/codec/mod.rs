//! A compact binary form of a loaded library, for the on-disk cache: written once after a large
//! library is read, read back instead of parsing every file again.
//!
//! Two files. The *library* file holds what start-up needs: the diagnostics and each case's head
//! (id, title, date, organization, facets, path) with the place of its body in the *bodies* file,
//! in chunks decoded on several threads. The bodies file holds each case's body as a record of
//! its own, read when the body is first used (see `crate::corpus::body`): start-up reads a tenth
//! of the bytes and makes a tenth of the allocations it would for whole cases.
//!
//! The format belongs to one program version (the cache key includes it): each file starts with
//! a magic line and a format number; the library file has a CRC-32 of its payload, each body
//! record a CRC-32 of its own. Checksums are verified and every length is checked against the
//! bytes left before anything is trusted, so a truncated or corrupted file is an error, never a
//! panic and never a wrong case. The taxonomy is not stored: it is cheap to read again and is read
//! by the very code that read it the first time.
//!
//! The files' layout is in [`format`], the primitives in `wire`, each record's writing and
//! reading in `records`; [`encode`] and [`decode`] put them together.

mod decode;
mod encode;
mod format;
mod records;
#[cfg(test)]
mod tests;
mod wire;

pub use self::{
    decode::{Decoded, check_bodies_header, decode, decode_body},
    encode::{Encoded, encode},
    format::{BODIES_HEADER, Corrupt, RECORD_HEADER},
};

/// Whether `bytes` begin as a library file of the cache does (its magic), whatever the format
/// version: how pruning knows an entry as the cache's own.
pub fn has_library_magic(bytes: &[u8]) -> bool {
    bytes.starts_with(format::MAGIC)
}
