//! The bundled library as `build.rs` baked it: the cases' heads, their catalog and diagnostics,
//! their bodies and the search index, compiled into the binary and opened from memory.
//!
//! Opening decodes nothing but the catalog: each case's head is decoded when first used, each
//! body when first read, and the index is read in place through [`static_dir::StaticDir`]. So
//! the bundled library costs the same to open whether it holds two hundred cases or two
//! thousand. The result is exactly what parsing `data/` and building the engine at run time
//! gives (the test `embedded_and_run_time_engines_agree` holds it to that); a user library given
//! with `--data` is merged with the bundled one at run time as before (`crate::store::cache`).
//!
//! This module must not parse case files nor build an index: that is [`bake`]'s job, at build
//! time.

pub mod bake;
pub mod static_dir;

use std::sync::Arc;

use tantivy::Index;

use crate::{
    corpus::{CaseBody, Library, body::BodySource, load::load_taxonomy},
    search::{Engine, Prebuilt, index::CaseIndex},
    store::cache::codec::{self, RECORD_HEADER},
    support::error::{Error, Result},
};

/// What `build.rs` wrote: `LIBRARY`, `BODIES` and `INDEX_FILES`.
mod baked {
    include!(concat!(env!("OUT_DIR"), "/baked.rs"));
}

/// The bodies compiled in, one record read (and checked) when a case's body is first used.
struct StaticBodies(&'static [u8]);

impl BodySource for StaticBodies {
    fn read(&self, at: u64, len: u32) -> std::result::Result<CaseBody, String> {
        let start = usize::try_from(at).map_err(|e| e.to_string())?;
        let record = start
            .checked_add(RECORD_HEADER + len as usize)
            .and_then(|end| self.0.get(start..end))
            .ok_or_else(|| format!("body at {at} ({len} bytes) is outside the bundled bodies"))?;
        codec::decode_body(record).map_err(|e| e.to_string())
    }

    /// Nothing to do: the bytes are part of the binary, and the test suite reads every body.
    fn damaged(&self, _why: &str) {}
}

/// The bundled library and what its engine needs ready-made (the index and the catalog).
pub fn open() -> Result<(Library, Prebuilt)> {
    let failed = |what: &str, e: String| Error::Failed(format!("the bundled {what}: {e}"));
    codec::check_bodies_header(baked::BODIES).map_err(|e| failed("bodies", e.0))?;
    let bodies: Arc<dyn BodySource> = Arc::new(StaticBodies(baked::BODIES));
    let codec::Decoded { cases, catalog, diagnostics } =
        codec::decode(baked::LIBRARY.to_vec(), &bodies, baked::BODIES.len() as u64, &[])
            .map_err(|e| failed("library", e.0))?;
    let index = Index::open(static_dir::StaticDir::new(baked::INDEX_FILES))
        .map_err(|e| failed("index", e.to_string()))?;
    let index = CaseIndex::from_index(&index)?;
    if !index.covers(cases.len()) {
        return Err(failed("index", format!("{} documents for {} cases", index.num_docs(), cases.len())));
    }
    // The taxonomy's problems are among the baked diagnostics already.
    let (taxonomy, _) = load_taxonomy(&[]);
    let library = Library { cases, taxonomy, diagnostics };
    Ok((library, Prebuilt { index: Some(index), catalog: Some(catalog) }))
}

/// The engine over the bundled library alone, on the baked index and catalog.
pub fn engine() -> Result<Engine> {
    let (library, prebuilt) = open()?;
    Engine::with_prebuilt(Arc::new(library), prebuilt)
}
