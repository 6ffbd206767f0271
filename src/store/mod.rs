//! Where a library is kept between runs: the bundled library baked into the binary at build time
//! ([`embedded`]) and the on-disk cache of large user libraries ([`cache`]). Both hand back a
//! [`crate::corpus::Library`] with the search engine's prebuilt index, so a start never waits
//! for a parse or an index build it has done before.
//!
//! The store sits above the engines (it holds what the search engine built) and below the
//! fronts; it may use settings (the cache directory) and everything beneath.

pub mod cache;
pub mod embedded;
