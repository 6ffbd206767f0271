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

use crate::taxonomy::FacetKind;
use crate::{
    corpus::{
        body::{Body, BodySource},
        cases::{CaseSource, Cases},
        model::{
            ActionItem, ActionType, Case, CaseBody, Facets, Impact, ItemOrigin, PartialDate, Provenance,
            Source, SourceKind,
        },
    },
    search::{
        caseset::CaseSet,
        catalog::{Catalog, CatalogParts, ValueEntry},
    },
    support::diag::{Diagnostic, Severity},
};

const MAGIC: &[u8; 16] = b"incidex-library\n";
const BODIES_MAGIC: &[u8; 16] = b"incidex-bodies\n\n";
/// Bumped whenever the layout below changes.
const FORMAT: u32 = 5;
/// Cases are decoded in this many chunks, in parallel, when all of them are needed.
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

/// The length of the library file's header: magic, format, checksum.
const HEADER: usize = MAGIC.len() + 8;

/// Paths as they were spelled when an entry was written, to paths as they are spelled now: the
/// same directories, named another way (`lib/` and `/abs/lib/`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rebase(Vec<(String, String)>);

impl Rebase {
    /// `None` when nothing is spelled differently.
    fn new(stored: Vec<String>, now: &[String]) -> Option<Rebase> {
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
    fn path(&self, path: &str) -> String {
        for (from, to) in &self.0 {
            if let Some(rest) = path.strip_prefix(from.as_str()) {
                return format!("{to}{rest}");
            }
        }
        path.to_string()
    }

    /// `text` (a message naming paths) with each path that starts a word spelled as now.
    fn text(&self, text: &str) -> String {
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

/// Decode the library file [`encode`] wrote, leaving each case's head in `bytes` and each body
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
struct StoredCases {
    /// The whole library file, checked.
    bytes: Vec<u8>,
    /// Where the heads start in `bytes`.
    heads_at: usize,
    /// Where each head starts, from `heads_at`.
    offsets: Vec<u64>,
    bodies: Arc<dyn BodySource>,
    bodies_len: u64,
    /// How the paths are spelled now, when not as stored.
    rebase: Option<Rebase>,
}

impl StoredCases {
    fn head(&self, i: usize) -> Result<Case> {
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
    fn head_or_placeholder(&self, i: usize) -> Case {
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
        let mut facets = Facets::with_capacity(8);
        for kind in FacetKind::ALL {
            let n = r.len()?;
            for _ in 0..n {
                let v = r.str()?;
                if r.flag()? { facets.add_inferred(kind, v) } else { facets.push(kind, v) }
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
        w.opt_str(self.owner.as_deref());
        w.opt_str(self.incident_id.as_deref());
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
        let owner = r.opt_str()?;
        let incident_id = r.opt_str()?;
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
            owner,
            incident_id,
        })
    }
}

impl CatalogParts {
    fn put(&self, w: &mut Writer) {
        w.u64(self.len as u64);
        w.len(self.values.len());
        for v in &self.values {
            w.u8(position(&FacetKind::ALL, &v.kind));
            w.str(&v.name);
            put_set(&v.cases, w);
        }
        w.len(self.orgs.len());
        for (key, cases) in &self.orgs {
            w.str(key);
            put_set(cases, w);
        }
        w.strs(&self.org_names);
        for (range, year) in self.dates.iter().zip(&self.years) {
            match range {
                Some((start, end)) => {
                    w.u8(1);
                    for (y, m, d) in [start, end] {
                        w.u32(u32::from(*y));
                        w.u8(*m);
                        w.u8(*d);
                    }
                }
                None => w.u8(0),
            }
            w.u32(year.map_or(0, u32::from));
        }
    }

    fn get(r: &mut Reader) -> Result<Self> {
        let len = usize::try_from(r.u64()?).map_err(|_| Corrupt("catalog size".into()))?;
        let n = r.len()?;
        let mut values = Vec::with_capacity(n);
        for _ in 0..n {
            let kind = r.index(&FacetKind::ALL, "facet kind")?;
            let name = r.str()?;
            values.push(ValueEntry { kind, name, cases: get_set(r, len)? });
        }
        let n = r.len()?;
        let mut orgs = Vec::with_capacity(n);
        for _ in 0..n {
            let key = r.str()?;
            orgs.push((key, get_set(r, len)?));
        }
        let org_names = r.strs()?;
        if len > r.bytes.len() - r.at {
            return Err(Corrupt("catalog size larger than the data".into()));
        }
        let (mut dates, mut years) = (Vec::with_capacity(len), Vec::with_capacity(len));
        for _ in 0..len {
            let day = |r: &mut Reader| -> Result<(u16, u8, u8)> {
                let y = u16::try_from(r.u32()?).map_err(|_| Corrupt("year".into()))?;
                Ok((y, r.u8()?, r.u8()?))
            };
            dates.push(if r.flag()? { Some((day(r)?, day(r)?)) } else { None });
            let year = r.u32()?;
            years.push(if year == 0 {
                None
            } else {
                Some(u16::try_from(year).map_err(|_| Corrupt("year".into()))?)
            });
        }
        Ok(CatalogParts { len, values, orgs, org_names, dates, years })
    }
}

/// A set of cases: as positions when that is smaller, else as bitset words.
fn put_set(set: &CaseSet, w: &mut Writer) {
    let members = set.count();
    if members * 32 < set.words().len() * 64 {
        w.u8(0);
        w.len(members);
        for i in set.iter() {
            w.u32(i as u32);
        }
    } else {
        w.u8(1);
        for &word in set.words() {
            w.u64(word);
        }
    }
}

fn get_set(r: &mut Reader, len: usize) -> Result<CaseSet> {
    if r.flag()? {
        let words = (0..len.div_ceil(64)).map(|_| r.u64()).collect::<Result<Vec<u64>>>()?;
        CaseSet::from_words(len, words).ok_or_else(|| Corrupt("case set".into()))
    } else {
        let n = r.len()?;
        let mut set = CaseSet::empty(len);
        for _ in 0..n {
            let i = r.u32()? as usize;
            if i >= len {
                return Err(Corrupt("case position out of range".into()));
            }
            set.insert(i);
        }
        Ok(set)
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
        let mut cases = library.cases.into_vec();
        // Exercise what bundled cases lack: inferred values, a root cause, a timeline, an owner and an
        // incident id, no date.
        cases[0].facets.add_inferred(FacetKind::Component, "Inferred value".into());
        cases[0].body.root_cause = Some("Why.".into());
        cases[0].body.timeline = Some("10:00 it broke\n10:05 fixed".into());
        cases[0].body.owner = Some("dana".into());
        cases[0].body.incident_id = Some("INC-2043".into());
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
        decode(encoded.library.clone(), &bodies, encoded.bodies.len() as u64, &["lib/".to_string()])
    }

    fn encode_cases(cases: &[Case], diagnostics: &[Diagnostic]) -> Encoded {
        let library = Library {
            cases: cases.to_vec().into(),
            taxonomy: Library::bundled().taxonomy,
            diagnostics: Vec::new(),
        };
        encode(cases, &Catalog::new(&library), diagnostics, &["lib/".to_string()])
    }

    #[test]
    fn paths_are_shown_as_the_directories_are_named_now() {
        let rebase = Rebase::new(
            vec!["lib/".into(), "lib/sub/".into()],
            &["/abs/lib/".into(), "/abs/lib/sub/".into()],
        )
        .unwrap();
        assert_eq!(rebase.path("lib/a.md"), "/abs/lib/a.md");
        assert_eq!(rebase.path("lib/sub/b.md"), "/abs/lib/sub/b.md");
        assert_eq!(rebase.path("other/c.md"), "other/c.md");
        assert_eq!(
            rebase.text("duplicate id 'x': also in lib/a.md; mylib/a.md stays"),
            "duplicate id 'x': also in /abs/lib/a.md; mylib/a.md stays"
        );
        assert_eq!(Rebase::new(vec!["lib/".into()], &["lib/".into()]), None);
    }

    #[test]
    fn a_library_round_trips_with_cases_decoded_when_used() {
        let (cases, diagnostics) = sample();
        let encoded = encode_cases(&cases, &diagnostics);
        let decoded = round_trip(&encoded).unwrap();
        assert_eq!(decoded.cases.len(), cases.len());
        assert_eq!(decoded.cases[3].id, cases[3].id);
        assert!(!decoded.cases[3].body.is_read(), "a head is decoded without its body");
        let library = Library {
            cases: cases.clone().into(),
            taxonomy: Library::bundled().taxonomy,
            diagnostics: Vec::new(),
        };
        assert_eq!(decoded.catalog.parts(), Catalog::new(&library).parts(), "the catalog comes back whole");
        assert!(decoded.cases.iter().all(|c| !c.body.is_read() || c.id == cases[3].id));
        assert_eq!(decoded.cases.all(), cases);
        assert_eq!(decoded.diagnostics, diagnostics);
        assert!(decoded.cases[0].facets.is_inferred(FacetKind::Component, "Inferred value"));
        assert!(
            encoded.library.len() * 2 < encoded.bodies.len(),
            "start-up reads the smaller part: {} of {} bytes",
            encoded.library.len(),
            encoded.bodies.len()
        );
        let empty = round_trip(&encode_cases(&[], &[])).unwrap();
        assert!(empty.cases.is_empty() && empty.diagnostics.is_empty());
    }

    #[test]
    fn case_sets_are_stored_either_way() {
        let mut sparse = CaseSet::empty(1000);
        sparse.insert(3);
        sparse.insert(999);
        let full = CaseSet::full(1000);
        for set in [sparse, full, CaseSet::empty(0), CaseSet::full(64)] {
            let mut w = Writer::default();
            put_set(&set, &mut w);
            let mut r = Reader { bytes: &w.0, at: 0 };
            assert_eq!(get_set(&mut r, set.capacity()).unwrap(), set);
            assert_eq!(r.at, w.0.len());
        }
    }

    #[test]
    fn damage_anywhere_is_an_error_not_a_panic() {
        let (cases, diagnostics) = sample();
        let encoded = encode_cases(&cases[..5], &diagnostics);
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
        let encoded = encode_cases(&cases[..3], &diagnostics);
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
