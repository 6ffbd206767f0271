//! Reading a library back from its two files ([`decode`]): the checks of the header and the
//! checksum, paths rebased to the directories' names now, case heads decoded when first used, and
//! body records read one at a time.

use std::sync::Arc;

use super::format::{
    BODIES_HEADER, BODIES_MAGIC, CHUNKS, Corrupt, FORMAT, HEADER, MAGIC, RECORD_HEADER, Result,
};
use super::records::{Codec, get_head};
use super::wire::Reader;
use crate::{
    corpus::{
        body::BodySource,
        cases::{CaseSource, Cases},
        model::{Case, CaseBody, Facets, Provenance},
    },
    search::catalog::{Catalog, CatalogParts},
    support::diag::Diagnostic,
};

/// What [`decode`] gives.
#[derive(Debug)]
pub struct Decoded {
    /// The cases: each head decoded when first used, each body read when first used.
    pub cases: Cases,
    /// Their catalog, ready to search with.
    pub catalog: Catalog,
    /// The diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// Paths as they were spelled when an entry was written, to paths as they are spelled now: the
/// same directories, named another way (`lib/` and `/abs/lib/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Rebase(pub(super) Vec<(String, String)>);

impl Rebase {
    /// `None` when nothing is spelled differently.
    pub(super) fn new(stored: Vec<String>, now: &[String]) -> Option<Rebase> {
        if stored.len() != now.len() || stored == now {
            return None;
        }
        let mut pairs: Vec<(String, String)> =
            stored.into_iter().zip(now.iter().cloned()).filter(|(from, to)| from != to).collect();
        // The longest first: a directory nested in another is matched as itself.
        pairs.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
        Some(Rebase(pairs))
    }

    /// `path` spelled as now.
    pub(super) fn path(&self, path: &str) -> String {
        for (from, to) in &self.0 {
            if let Some(rest) = path.strip_prefix(from.as_str()) {
                return format!("{to}{rest}");
            }
        }
        path.to_string()
    }

    /// `text` (a message naming paths) with each path that starts a word spelled as now.
    pub(super) fn text(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut word_start = true;
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            if word_start
                && let Some((from, to)) = self.0.iter().find(|(from, _)| rest.starts_with(from.as_str()))
            {
                out.push_str(to);
                rest = &rest[from.len()..];
                word_start = false;
                continue;
            }
            out.push(c);
            word_start = c.is_whitespace();
            rest = &rest[c.len_utf8()..];
        }
        out
    }
}

/// Decode the library file [`encode`](super::encode::encode) wrote, leaving each case's head in `bytes` and each body
/// in `bodies` (the bodies file, `bodies_len` bytes long, its header checked with
/// [`check_bodies_header`]). Everything is checked here; only the heads are decoded later.
/// Paths are shown starting with `prefixes`, the directories as named now.
pub fn decode(
    bytes: Vec<u8>,
    bodies: &Arc<dyn BodySource>,
    bodies_len: u64,
    prefixes: &[String],
) -> Result<Decoded> {
    if bytes.len() < HEADER || &bytes[..MAGIC.len()] != MAGIC {
        return Err(Corrupt("not an incidex cache file".into()));
    }
    let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let format = word(MAGIC.len());
    if format != FORMAT {
        return Err(Corrupt(format!("cache format {format}, expected {FORMAT}")));
    }
    if crc32fast::hash(&bytes[HEADER..]) != word(MAGIC.len() + 4) {
        return Err(Corrupt("checksum mismatch".into()));
    }
    let mut r = Reader { bytes: &bytes[HEADER..], at: 0 };
    let n = r.len()?;
    let stored = (0..n).map(|_| r.str()).collect::<Result<Vec<String>>>()?;
    let rebase = Rebase::new(stored, prefixes);
    let n = r.len()?;
    let mut diagnostics = Vec::with_capacity(n);
    for _ in 0..n {
        let mut d = Diagnostic::get(&mut r)?;
        if let Some(rebase) = &rebase {
            d.path = rebase.path(&d.path);
            d.message = rebase.text(&d.message);
        }
        diagnostics.push(d);
    }
    let expected = r.u64()?;
    if expected != bodies_len {
        return Err(Corrupt(format!("the bodies file has {bodies_len} bytes, expected {expected}")));
    }
    let catalog = CatalogParts::get(&mut r)?;
    let n = r.len()?;
    if n != catalog.len {
        return Err(Corrupt(format!("{n} cases, a catalog of {}", catalog.len)));
    }
    let offsets = (0..n).map(|_| r.u64()).collect::<Result<Vec<u64>>>()?;
    let heads_len = r.u64()?;
    let heads_at = HEADER + r.at;
    if heads_at as u64 + heads_len != bytes.len() as u64 {
        return Err(Corrupt("the heads do not end the file".into()));
    }
    if offsets.windows(2).any(|w| w[0] >= w[1]) || offsets.last().is_some_and(|&last| last >= heads_len) {
        return Err(Corrupt("the heads are out of order".into()));
    }
    let stored = StoredCases { bytes, heads_at, offsets, bodies: bodies.clone(), bodies_len, rebase };
    Ok(Decoded { cases: Cases::stored(Arc::new(stored)), catalog: Catalog::from_parts(catalog), diagnostics })
}

/// The cases of a library file, decoded one at a time or all at once (see `crate::corpus::cases`).
pub(super) struct StoredCases {
    /// The whole library file, checked.
    pub(super) bytes: Vec<u8>,
    /// Where the heads start in `bytes`.
    pub(super) heads_at: usize,
    /// Where each head starts, from `heads_at`.
    pub(super) offsets: Vec<u64>,
    pub(super) bodies: Arc<dyn BodySource>,
    pub(super) bodies_len: u64,
    /// How the paths are spelled now, when not as stored.
    pub(super) rebase: Option<Rebase>,
}

impl StoredCases {
    pub(super) fn head(&self, i: usize) -> Result<Case> {
        let start = self.heads_at + self.offsets[i] as usize;
        let end = self.offsets.get(i + 1).map_or(self.bytes.len(), |&o| self.heads_at + o as usize);
        let mut r = Reader { bytes: &self.bytes[start..end], at: 0 };
        let mut case = get_head(&mut r, &self.bodies, self.bodies_len)?;
        if r.at != r.bytes.len() {
            return Err(Corrupt("trailing bytes in a case".into()));
        }
        if let Some(rebase) = &self.rebase {
            case.provenance.path = rebase.path(&case.provenance.path);
        }
        Ok(case)
    }

    /// Case `i`, or, should its checked bytes not decode (a bug, not damage), a case that says
    /// so; the entry is then not trusted again.
    pub(super) fn head_or_placeholder(&self, i: usize) -> Case {
        self.head(i).unwrap_or_else(|Corrupt(why)| {
            self.bodies.damaged(&why);
            Case {
                id: format!("unreadable-case-{i}"),
                title: "(this case could not be read from the cache)".into(),
                date: None,
                organization: String::new(),
                facets: Facets::default(),
                provenance: Provenance { path: String::new(), bundled: false },
                body: CaseBody::unreadable(&why).into(),
            }
        })
    }
}

impl CaseSource for StoredCases {
    fn len(&self) -> usize {
        self.offsets.len()
    }

    fn case(&self, i: usize) -> Case {
        self.head_or_placeholder(i)
    }

    fn all(&self) -> Vec<Case> {
        let n = self.offsets.len();
        let per_chunk = n.div_ceil(CHUNKS).max(1);
        let ranges: Vec<std::ops::Range<usize>> =
            (0..n).step_by(per_chunk).map(|start| start..(start + per_chunk).min(n)).collect();
        std::thread::scope(|scope| {
            let handles: Vec<_> = ranges
                .iter()
                .map(|range| {
                    let range = range.clone();
                    scope.spawn(move || range.map(|i| self.head_or_placeholder(i)).collect::<Vec<Case>>())
                })
                .collect();
            handles
                .into_iter()
                .zip(&ranges)
                .flat_map(|(h, range)| {
                    h.join().unwrap_or_else(|_| range.clone().map(|i| self.head_or_placeholder(i)).collect())
                })
                .collect()
        })
    }
}

/// Check the first [`BODIES_HEADER`] bytes of a bodies file.
pub fn check_bodies_header(header: &[u8]) -> Result<()> {
    if header.len() < BODIES_HEADER || &header[..BODIES_MAGIC.len()] != BODIES_MAGIC {
        return Err(Corrupt("not an incidex bodies file".into()));
    }
    let b = &header[BODIES_MAGIC.len()..BODIES_HEADER];
    let format = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    if format != FORMAT {
        return Err(Corrupt(format!("bodies format {format}, expected {FORMAT}")));
    }
    Ok(())
}

/// Decode one body record: its checksum (the first [`RECORD_HEADER`] bytes), then the body.
pub fn decode_body(record: &[u8]) -> Result<CaseBody> {
    if record.len() < RECORD_HEADER {
        return Err(Corrupt("truncated body".into()));
    }
    let (sum, bytes) = record.split_at(RECORD_HEADER);
    if crc32fast::hash(bytes) != u32::from_le_bytes([sum[0], sum[1], sum[2], sum[3]]) {
        return Err(Corrupt("checksum mismatch in a case's body".into()));
    }
    let mut r = Reader { bytes, at: 0 };
    let body = CaseBody::get(&mut r)?;
    if r.at != bytes.len() {
        return Err(Corrupt("trailing bytes in a case's body".into()));
    }
    Ok(body)
}
