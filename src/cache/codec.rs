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

use std::{fmt, sync::Arc};

use crate::{
    corpus::{
        body::{Body, BodySource},
        model::{
            ActionItem, ActionType, Case, CaseBody, FacetKind, Facets, Impact, ItemOrigin, PartialDate,
            Provenance, Source, SourceKind,
        },
    },
    diag::{Diagnostic, Severity},
};

const MAGIC: &[u8; 16] = b"incidex-library\n";
const BODIES_MAGIC: &[u8; 16] = b"incidex-bodies\n\n";
/// Bumped whenever the layout below changes.
const FORMAT: u32 = 3;
/// Cases are stored in this many chunks, decoded in parallel.
const CHUNKS: usize = 8;
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

type Result<T> = std::result::Result<T, Corrupt>;

/// The two files of a library: see the module docs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    /// The diagnostics and the cases' heads.
    pub library: Vec<u8>,
    /// The cases' bodies.
    pub bodies: Vec<u8>,
}

/// Encode `cases` and `diagnostics`.
pub fn encode(cases: &[Case], diagnostics: &[Diagnostic]) -> Encoded {
    let mut bodies = Writer::default();
    bodies.0.extend_from_slice(BODIES_MAGIC);
    bodies.u32(FORMAT);
    let mut record = Writer::default();
    let places: Vec<(u64, u32)> = cases
        .iter()
        .map(|case| {
            record.0.clear();
            case.body.put(&mut record);
            let at = bodies.0.len() as u64;
            bodies.u32(crc32fast::hash(&record.0));
            bodies.0.extend_from_slice(&record.0);
            (at, u32::try_from(record.0.len()).unwrap_or(u32::MAX))
        })
        .collect();

    let mut payload = Writer::default();
    payload.len(diagnostics.len());
    for d in diagnostics {
        d.put(&mut payload);
    }
    payload.u64(bodies.0.len() as u64);
    let per_chunk = cases.len().div_ceil(CHUNKS).max(1);
    let chunks: Vec<Vec<u8>> = cases
        .chunks(per_chunk)
        .zip(places.chunks(per_chunk))
        .map(|(part, places)| {
            let mut w = Writer::default();
            w.len(part.len());
            for (case, &(at, len)) in part.iter().zip(places) {
                put_head(case, at, len, &mut w);
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
    let mut library = Vec::with_capacity(payload.0.len() + 32);
    library.extend_from_slice(MAGIC);
    library.extend_from_slice(&FORMAT.to_le_bytes());
    library.extend_from_slice(&crc32fast::hash(&payload.0).to_le_bytes());
    library.extend_from_slice(&payload.0);
    Encoded { library, bodies: bodies.0 }
}

/// What [`decode`] gives: the cases (their bodies left in the bodies file) and the diagnostics.
#[derive(Debug)]
pub struct Decoded {
    /// The cases, heads decoded, bodies read on first use.
    pub cases: Vec<Case>,
    /// The diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// Decode the library file [`encode`] wrote, leaving each body in `bodies` (the bodies file,
/// `bodies_len` bytes long, its header checked with [`check_bodies_header`]).
pub fn decode(bytes: &[u8], bodies: &Arc<dyn BodySource>, bodies_len: u64) -> Result<Decoded> {
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
    let expected = r.u64()?;
    if expected != bodies_len {
        return Err(Corrupt(format!("the bodies file has {bodies_len} bytes, expected {expected}")));
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
        let handles: Vec<_> =
            chunks.iter().map(|chunk| scope.spawn(move || decode_chunk(chunk, bodies, bodies_len))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(Corrupt("a chunk could not be decoded".into()))))
            .collect()
    });
    let mut cases = Vec::new();
    for chunk in decoded {
        cases.extend(chunk?);
    }
    Ok(Decoded { cases, diagnostics })
}

fn decode_chunk(bytes: &[u8], bodies: &Arc<dyn BodySource>, bodies_len: u64) -> Result<Vec<Case>> {
    let mut r = Reader { bytes, at: 0 };
    let n = r.len()?;
    let mut cases = Vec::with_capacity(n.min(bytes.len()));
    for _ in 0..n {
        cases.push(get_head(&mut r, bodies, bodies_len)?);
    }
    if r.at != bytes.len() {
        return Err(Corrupt("trailing bytes in a chunk".into()));
    }
    Ok(cases)
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

impl Codec for CaseBody {
    fn put(&self, w: &mut Writer) {
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
    }

    fn get(r: &mut Reader) -> Result<Self> {
        let scale = r.opt_str()?;
        let symptoms = r.str()?;
        let trigger = r.opt_str()?;
        let root_cause = r.opt_str()?;
        let detection = r.str()?;
        let remediation = r.strs()?;
        let n = r.len()?;
        let action_items = (0..n).map(|_| ActionItem::get(r)).collect::<Result<Vec<_>>>()?;
        let lessons = r.opt_str()?;
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
        Ok(CaseBody {
            scale,
            symptoms,
            trigger,
            root_cause,
            detection,
            remediation,
            action_items,
            lessons,
            sources,
            impact,
            timeline,
        })
    }
}

/// A case's head, and where its body record is in the bodies file.
fn put_head(case: &Case, at: u64, len: u32, w: &mut Writer) {
    w.str(&case.id);
    w.str(&case.title);
    w.date(case.date);
    w.str(&case.organization);
    case.facets.put(w);
    w.str(&case.provenance.path);
    w.u8(u8::from(case.provenance.bundled));
    w.u64(at);
    w.u32(len);
}

/// A case read back by [`put_head`], its body left in `bodies`, which is `bodies_len` bytes long.
fn get_head(r: &mut Reader, bodies: &Arc<dyn BodySource>, bodies_len: u64) -> Result<Case> {
    let id = r.str()?;
    let title = r.str()?;
    let date = r.date()?;
    let organization = r.str()?;
    let facets = Facets::get(r)?;
    let provenance = Provenance { path: r.str()?, bundled: r.flag()? };
    let at = r.u64()?;
    let len = r.u32()?;
    let record_end = at.checked_add(u64::from(len) + RECORD_HEADER as u64);
    if at < BODIES_HEADER as u64 || record_end.is_none_or(|end| end > bodies_len) {
        return Err(Corrupt(format!("the body of '{id}' lies outside the bodies file")));
    }
    Ok(Case {
        id,
        title,
        date,
        organization,
        facets,
        provenance,
        body: Body::stored(bodies.clone(), at, len),
    })
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
        cases[0].body.root_cause = Some("Why.".into());
        cases[0].body.timeline = Some("10:00 it broke\n10:05 fixed".into());
        cases[1].date = None;
        let diagnostics = vec![
            Diagnostic::new("a.md", (3, 7), Severity::Hint, "inferred"),
            Diagnostic::new("b.md", (0, 0), Severity::Error, "cannot read"),
        ];
        (cases, diagnostics)
    }

    /// Bodies read from memory, as the cache reads them from the bodies file.
    struct InMemory(Vec<u8>);

    impl BodySource for InMemory {
        fn read(&self, at: u64, len: u32) -> std::result::Result<CaseBody, String> {
            let at = at as usize;
            let record = self.0.get(at..at + RECORD_HEADER + len as usize).ok_or("out of range")?;
            decode_body(record).map_err(|e| e.to_string())
        }
        fn damaged(&self, _why: &str) {}
    }

    fn round_trip(encoded: &Encoded) -> Result<Decoded> {
        check_bodies_header(&encoded.bodies)?;
        let bodies: Arc<dyn BodySource> = Arc::new(InMemory(encoded.bodies.clone()));
        decode(&encoded.library, &bodies, encoded.bodies.len() as u64)
    }

    #[test]
    fn a_library_round_trips_with_bodies_read_on_first_use() {
        let (cases, diagnostics) = sample();
        let encoded = encode(&cases, &diagnostics);
        let decoded = round_trip(&encoded).unwrap();
        assert!(decoded.cases.iter().all(|c| !c.body.is_read()), "no body is read at start-up");
        assert_eq!(decoded.cases, cases);
        assert_eq!(decoded.diagnostics, diagnostics);
        assert!(decoded.cases[0].facets.is_inferred(FacetKind::Component, "Inferred value"));
        assert!(
            encoded.library.len() * 4 < encoded.bodies.len(),
            "start-up reads a small part: {} of {} bytes",
            encoded.library.len(),
            encoded.bodies.len()
        );
        let empty = round_trip(&encode(&[], &[])).unwrap();
        assert!(empty.cases.is_empty() && empty.diagnostics.is_empty());
    }

    #[test]
    fn damage_anywhere_is_an_error_not_a_panic() {
        let (cases, diagnostics) = sample();
        let encoded = encode(&cases[..5], &diagnostics);
        for at in (0..encoded.library.len()).step_by(97) {
            let mut bad = encoded.clone();
            bad.library[at] ^= 0x5a;
            assert!(round_trip(&bad).is_err(), "a flipped byte at {at} went unnoticed");
        }
        for len in [0, 10, 24, encoded.library.len() / 2, encoded.library.len() - 1] {
            let mut bad = encoded.clone();
            bad.library.truncate(len);
            assert!(round_trip(&bad).is_err(), "truncated to {len}");
        }
        let mut short = encoded.clone();
        short.bodies.pop();
        assert!(round_trip(&short).is_err(), "a bodies file of another length");
        let mut other = encoded.clone();
        other.bodies[3] ^= 1;
        assert!(round_trip(&other).is_err(), "a bodies file with another header");
    }

    #[test]
    fn a_damaged_body_is_found_when_it_is_read() {
        let (cases, diagnostics) = sample();
        let encoded = encode(&cases[..3], &diagnostics);
        for at in (BODIES_HEADER..encoded.bodies.len()).step_by(31) {
            let mut bad = encoded.clone();
            bad.bodies[at] ^= 0x21;
            let decoded = round_trip(&bad).expect("the heads are intact");
            let spoiled: Vec<&Case> = decoded
                .cases
                .iter()
                .zip(&cases)
                .filter(|(got, want)| got.body != want.body)
                .map(|(g, _)| g)
                .collect();
            assert_eq!(spoiled.len(), 1, "a flipped byte at {at} spoils exactly one body");
            assert!(spoiled[0].body.symptoms.contains("checksum mismatch"), "{}", spoiled[0].body.symptoms);
        }
    }
}
