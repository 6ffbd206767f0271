//! Writing a library into its two files ([`encode`]).

use super::format::{BODIES_MAGIC, FORMAT, MAGIC};
use super::records::{Codec, put_head};
use super::wire::Writer;
use crate::{corpus::model::Case, search::catalog::Catalog, support::diag::Diagnostic};

/// The two files of a library: see the module docs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    /// The diagnostics and the cases' heads.
    pub library: Vec<u8>,
    /// The cases' bodies.
    pub bodies: Vec<u8>,
}

/// Encode `cases`, their `catalog` and `diagnostics`, read from the directories whose paths
/// start with `prefixes` (as shown: see `cache::fingerprint::display_prefixes`).
pub fn encode(cases: &[Case], catalog: &Catalog, diagnostics: &[Diagnostic], prefixes: &[String]) -> Encoded {
    let mut bodies = Writer::default();
    bodies.0.extend_from_slice(BODIES_MAGIC);
    bodies.u32(FORMAT);
    let mut record = Writer::default();
    let mut heads = Writer::default();
    let mut offsets = Vec::with_capacity(cases.len());
    for case in cases {
        record.0.clear();
        case.body.put(&mut record);
        let at = bodies.0.len() as u64;
        bodies.u32(crc32fast::hash(&record.0));
        bodies.0.extend_from_slice(&record.0);
        offsets.push(heads.0.len() as u64);
        put_head(case, at, u32::try_from(record.0.len()).unwrap_or(u32::MAX), &mut heads);
    }

    let mut payload = Writer::default();
    payload.len(prefixes.len());
    for prefix in prefixes {
        payload.str(prefix);
    }
    payload.len(diagnostics.len());
    for d in diagnostics {
        d.put(&mut payload);
    }
    payload.u64(bodies.0.len() as u64);
    catalog.parts().put(&mut payload);
    payload.len(cases.len());
    for offset in offsets {
        payload.u64(offset);
    }
    payload.u64(heads.0.len() as u64);
    payload.0.extend_from_slice(&heads.0);

    let mut library = Vec::with_capacity(payload.0.len() + 32);
    library.extend_from_slice(MAGIC);
    library.extend_from_slice(&FORMAT.to_le_bytes());
    library.extend_from_slice(&crc32fast::hash(&payload.0).to_le_bytes());
    library.extend_from_slice(&payload.0);
    Encoded { library, bodies: bodies.0 }
}
