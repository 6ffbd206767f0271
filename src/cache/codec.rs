//! A compact binary form of a loaded library's cases and diagnostics, for the on-disk cache:
//! written once after a large library is read, read back instead of parsing every file again.
//!
//! The format belongs to one program version (the cache key includes it): a magic line, a format
//! number, a CRC-32 of the payload, then the payload — the diagnostics, then the cases in chunks
//! that are decoded on several threads. The checksum is verified and every length is checked
//! against the bytes left before anything is trusted, so a truncated or corrupted file is an
//! error, never a panic and never a wrong case. The taxonomy is not stored: it is cheap to read
//! again and is read by the very code that read it the first time.

use std::fmt;

use crate::{
    corpus::model::{
        ActionItem, ActionType, Case, FacetKind, Facets, Impact, ItemOrigin, PartialDate, Provenance, Source,
        SourceKind,
    },
    diag::{Diagnostic, Severity},
};

const MAGIC: &[u8; 16] = b"incidex-library\n";
/// Bumped whenever the layout below changes.
const FORMAT: u32 = 2;
/// Cases are stored in this many chunks, decoded in parallel.
const CHUNKS: usize = 8;

/// Why cached bytes could not be read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corrupt(pub String);

impl fmt::Display for Corrupt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

type Result<T> = std::result::Result<T, Corrupt>;

/// Encode `cases` and `diagnostics`.
pub fn encode(cases: &[Case], diagnostics: &[Diagnostic]) -> Vec<u8> {
    let mut payload = Writer::default();
    payload.len(diagnostics.len());
    for d in diagnostics {
        d.put(&mut payload);
    }
    let per_chunk = cases.len().div_ceil(CHUNKS).max(1);
    let chunks: Vec<Vec<u8>> = cases
        .chunks(per_chunk)
        .map(|part| {
            let mut w = Writer::default();
            w.len(part.len());
            for case in part {
                case.put(&mut w);
            }
            w.0
        })
        .collect();
    payload.len(chunks.len());
    for chunk in &chunks {
        payload.u64(chunk.len() as u64);
    }
    for chunk in &chunks {
        payload.0.extend_from_slice(chunk);
    }
    let mut out = Vec::with_capacity(payload.0.len() + 32);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&payload.0).to_le_bytes());
    out.extend_from_slice(&payload.0);
    out
}

/// Decode what [`encode`] wrote: the cases and the diagnostics.
pub fn decode(bytes: &[u8]) -> Result<(Vec<Case>, Vec<Diagnostic>)> {
    let header = MAGIC.len() + 8;
    if bytes.len() < header || &bytes[..MAGIC.len()] != MAGIC {
        return Err(Corrupt("not an incidex cache file".into()));
    }
    let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let format = word(MAGIC.len());
    if format != FORMAT {
        return Err(Corrupt(format!("cache format {format}, expected {FORMAT}")));
    }
    let payload = &bytes[header..];
    if crc32fast::hash(payload) != word(MAGIC.len() + 4) {
        return Err(Corrupt("checksum mismatch".into()));
    }
    let mut r = Reader { bytes: payload, at: 0 };
    let n = r.len()?;
    let mut diagnostics = Vec::with_capacity(n);
    for _ in 0..n {
        diagnostics.push(Diagnostic::get(&mut r)?);
    }
    let n_chunks = r.len()?;
    let mut sizes = Vec::with_capacity(n_chunks);
    for _ in 0..n_chunks {
        sizes.push(usize::try_from(r.u64()?).map_err(|_| Corrupt("chunk size".into()))?);
    }
    let mut chunks: Vec<&[u8]> = Vec::with_capacity(n_chunks);
    for size in sizes {
        chunks.push(r.take(size)?);
    }
    if r.at != payload.len() {
        return Err(Corrupt("trailing bytes".into()));
    }
    let decoded: Vec<Result<Vec<Case>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks.iter().map(|chunk| scope.spawn(move || decode_chunk(chunk))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(Corrupt("a chunk could not be decoded".into()))))
            .collect()
    });
    let mut cases = Vec::new();
    for chunk in decoded {
        cases.extend(chunk?);
    }
    Ok((cases, diagnostics))
}

fn decode_chunk(bytes: &[u8]) -> Result<Vec<Case>> {
    let mut r = Reader { bytes, at: 0 };
    let n = r.len()?;
    let mut cases = Vec::with_capacity(n.min(bytes.len()));
    for _ in 0..n {
        cases.push(Case::get(&mut r)?);
    }
    if r.at != bytes.len() {
        return Err(Corrupt("trailing bytes in a chunk".into()));
    }
    Ok(cases)
}

#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }
    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
            None => self.u8(0),
        }
    }
    fn strs(&mut self, list: &[String]) {
        self.len(list.len());
        for s in list {
            self.str(s);
        }
    }
    fn date(&mut self, d: Option<PartialDate>) {
        match d {
            Some(d) => {
                self.u8(1);
                self.u32(u32::from(d.year));
                self.u8(d.month.unwrap_or(0));
                self.u8(d.day.unwrap_or(0));
            }
            None => self.u8(0),
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| Corrupt("truncated".into()))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self) -> Result<u64> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    fn len(&mut self) -> Result<usize> {
        let n = self.u32()? as usize;
        // Every counted thing takes at least a byte: a larger count is corruption, and checking
        // it here keeps a bad count from reserving gigabytes.
        if n > self.bytes.len() - self.at {
            return Err(Corrupt("count larger than the data".into()));
        }
        Ok(n)
    }
    fn flag(&mut self) -> Result<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(Corrupt(format!("bad flag {b}"))),
        }
    }
    fn str(&mut self) -> Result<String> {
        let n = self.len()?;
        let bytes = self.take(n)?;
        std::str::from_utf8(bytes).map(str::to_string).map_err(|_| Corrupt("text is not UTF-8".into()))
    }
    fn opt_str(&mut self) -> Result<Option<String>> {
        if self.flag()? { self.str().map(Some) } else { Ok(None) }
    }
    fn strs(&mut self) -> Result<Vec<String>> {
        let n = self.len()?;
        (0..n).map(|_| self.str()).collect()
    }
    fn date(&mut self) -> Result<Option<PartialDate>> {
        if !self.flag()? {
            return Ok(None);
        }
        let year = u16::try_from(self.u32()?).map_err(|_| Corrupt("year".into()))?;
        let month = Some(self.u8()?).filter(|&m| m != 0);
        let day = Some(self.u8()?).filter(|&d| d != 0);
        Ok(Some(PartialDate { year, month, day }))
    }
    fn index<T: Copy>(&mut self, all: &[T], what: &str) -> Result<T> {
        let i = self.u8()? as usize;
        all.get(i).copied().ok_or_else(|| Corrupt(format!("bad {what} {i}")))
    }
}

/// A type with a cache encoding.
trait Codec: Sized {
    fn put(&self, w: &mut Writer);
    fn get(r: &mut Reader) -> Result<Self>;
}

const SEVERITIES: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Hint];
const ORIGINS: [ItemOrigin; 2] = [ItemOrigin::Report, ItemOrigin::Editorial];

fn position<T: PartialEq>(all: &[T], v: &T) -> u8 {
    all.iter().position(|x| x == v).unwrap_or(0) as u8
}

impl Codec for Diagnostic {
    fn put(&self, w: &mut Writer) {
        w.str(&self.path);
        w.u64(self.line as u64);
        w.u64(self.column as u64);
        w.u8(position(&SEVERITIES, &self.severity));
        w.str(&self.message);
    }
    fn get(r: &mut Reader) -> Result<Self> {
        Ok(Diagnostic {
            path: r.str()?,
            line: r.u64()? as usize,
            column: r.u64()? as usize,
            severity: r.index(&SEVERITIES, "severity")?,
            message: r.str()?,
        })
    }
}

impl Codec for ActionItem {
    fn put(&self, w: &mut Writer) {
        w.str(&self.text);
        w.u8(position(&ActionType::ALL, &self.kind));
        w.u8(position(&ORIGINS, &self.origin));
        w.strs(&self.components);
    }
    fn get(r: &mut Reader) -> Result<Self> {
        Ok(ActionItem {
            text: r.str()?,
            kind: r.index(&ActionType::ALL, "action type")?,
            origin: r.index(&ORIGINS, "origin")?,
            components: r.strs()?,
        })
    }
}

impl Codec for Source {
    fn put(&self, w: &mut Writer) {
        w.str(&self.title);
        w.str(&self.url);
        w.u8(position(&SourceKind::ALL, &self.kind));
        w.date(self.published);
        w.opt_str(self.note.as_deref());
    }
    fn get(r: &mut Reader) -> Result<Self> {
        Ok(Source {
            title: r.str()?,
            url: r.str()?,
            kind: r.index(&SourceKind::ALL, "source kind")?,
            published: r.date()?,
            note: r.opt_str()?,
        })
    }
}

impl Codec for Facets {
    /// Each kind's values in order, each with whether it was inferred. Inferred values always
    /// follow written ones (`Facets::add_inferred` appends), so reading rebuilds the same lists.
    fn put(&self, w: &mut Writer) {
        for kind in FacetKind::ALL {
            let values = self.values(kind);
            w.len(values.len());
            for v in values {
                w.str(v);
                w.u8(u8::from(self.is_inferred(kind, v)));
            }
        }
    }
    fn get(r: &mut Reader) -> Result<Self> {
        let mut facets = Facets::default();
        for kind in FacetKind::ALL {
            let n = r.len()?;
            let mut written = Vec::with_capacity(n);
            let mut inferred = Vec::new();
            for _ in 0..n {
                let v = r.str()?;
                if r.flag()? { inferred.push(v) } else { written.push(v) }
            }
            facets.set(kind, written);
            for v in inferred {
                facets.add_inferred(kind, v);
            }
        }
        Ok(facets)
    }
}

impl Codec for Case {
    fn put(&self, w: &mut Writer) {
        w.str(&self.id);
        w.str(&self.title);
        w.date(self.date);
        w.str(&self.organization);
        w.opt_str(self.scale.as_deref());
        w.str(&self.symptoms);
        w.opt_str(self.trigger.as_deref());
        w.opt_str(self.root_cause.as_deref());
        w.str(&self.detection);
        w.strs(&self.remediation);
        w.len(self.action_items.len());
        for item in &self.action_items {
            item.put(w);
        }
        w.opt_str(self.lessons.as_deref());
        self.facets.put(w);
        w.len(self.sources.len());
        for source in &self.sources {
            source.put(w);
        }
        match &self.impact {
            Some(impact) => {
                w.u8(1);
                w.opt_str(impact.duration.as_deref());
                match impact.gpu_hours_lost {
                    Some(h) => {
                        w.u8(1);
                        w.u64(h.to_bits());
                    }
                    None => w.u8(0),
                }
                w.opt_str(impact.users_affected.as_deref());
            }
            None => w.u8(0),
        }
        w.opt_str(self.timeline.as_deref());
        w.str(&self.provenance.path);
        w.u8(u8::from(self.provenance.bundled));
    }

    fn get(r: &mut Reader) -> Result<Self> {
        let id = r.str()?;
        let title = r.str()?;
        let date = r.date()?;
        let organization = r.str()?;
        let scale = r.opt_str()?;
        let symptoms = r.str()?;
        let trigger = r.opt_str()?;
        let root_cause = r.opt_str()?;
        let detection = r.str()?;
        let remediation = r.strs()?;
        let n = r.len()?;
        let action_items = (0..n).map(|_| ActionItem::get(r)).collect::<Result<Vec<_>>>()?;
        let lessons = r.opt_str()?;
        let facets = Facets::get(r)?;
        let n = r.len()?;
        let sources = (0..n).map(|_| Source::get(r)).collect::<Result<Vec<_>>>()?;
        let impact = if r.flag()? {
            let duration = r.opt_str()?;
            let gpu_hours_lost = if r.flag()? { Some(f64::from_bits(r.u64()?)) } else { None };
            Some(Impact { duration, gpu_hours_lost, users_affected: r.opt_str()? })
        } else {
            None
        };
        let timeline = r.opt_str()?;
        let provenance = Provenance { path: r.str()?, bundled: r.flag()? };
        Ok(Case {
            id,
            title,
            date,
            organization,
            scale,
            symptoms,
            trigger,
            root_cause,
            detection,
            remediation,
            action_items,
            lessons,
            facets,
            sources,
            impact,
            timeline,
            provenance,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Library;

    fn sample() -> (Vec<Case>, Vec<Diagnostic>) {
        let library = Library::bundled();
        let mut cases = library.cases;
        // Exercise what bundled cases lack: inferred values, a root cause, a timeline, no date.
        cases[0].facets.add_inferred(FacetKind::Component, "Inferred value".into());
        cases[0].root_cause = Some("Why.".into());
        cases[0].timeline = Some("10:00 it broke\n10:05 fixed".into());
        cases[1].date = None;
        let diagnostics = vec![
            Diagnostic::new("a.md", (3, 7), Severity::Hint, "inferred"),
            Diagnostic::new("b.md", (0, 0), Severity::Error, "cannot read"),
        ];
        (cases, diagnostics)
    }

    #[test]
    fn a_library_round_trips() {
        let (cases, diagnostics) = sample();
        let bytes = encode(&cases, &diagnostics);
        let (c, d) = decode(&bytes).unwrap();
        assert_eq!(c, cases);
        assert_eq!(d, diagnostics);
        assert!(c[0].facets.is_inferred(FacetKind::Component, "Inferred value"));
        let (empty, none) = decode(&encode(&[], &[])).unwrap();
        assert!(empty.is_empty() && none.is_empty());
    }

    #[test]
    fn damage_anywhere_is_an_error_not_a_panic() {
        let (cases, diagnostics) = sample();
        let cases = &cases[..5];
        let bytes = encode(cases, &diagnostics);
        for at in (0..bytes.len()).step_by(97) {
            let mut bad = bytes.clone();
            bad[at] ^= 0x5a;
            assert!(decode(&bad).is_err(), "a flipped byte at {at} went unnoticed");
        }
        for len in [0, 10, 24, bytes.len() / 2, bytes.len() - 1] {
            assert!(decode(&bytes[..len]).is_err(), "truncated to {len}");
        }
    }
}
