//! The files compiled into the binary by `build.rs`: the bundled library and the bundled themes.
//!
//! Nothing is read from disk for these, so incidex runs from any directory, on a read-only
//! install, with a read-only or NFS home.

include!(concat!(env!("OUT_DIR"), "/bundled.rs"));

/// The path the bundled taxonomy is shown under.
pub const TAXONOMY_PATH: &str = "data/taxonomy.toml";
