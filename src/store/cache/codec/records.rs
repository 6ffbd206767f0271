//! The records, each type's writing next to its reading so the two cannot drift apart:
//! diagnostics, action items, sources, facets, case bodies, the catalog, case sets and case heads.

use std::sync::Arc;

use super::format::{BODIES_HEADER, Corrupt, RECORD_HEADER, Result};
use super::wire::{Reader, Writer};
use crate::taxonomy::FacetKind;
use crate::{
    corpus::{
        body::{Body, BodySource},
        model::{
            ActionItem, ActionType, Case, CaseBody, Facets, Impact, ItemOrigin, Provenance, Source,
            SourceKind,
        },
    },
    search::{
        caseset::CaseSet,
        catalog::{CatalogParts, ValueEntry},
    },
    support::diag::{Diagnostic, Severity},
};

/// A type with a cache encoding.
pub(super) trait Codec: Sized {
    fn put(&self, w: &mut Writer);
    fn get(r: &mut Reader) -> Result<Self>;
}

pub(super) const SEVERITIES: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Hint];

pub(super) const ORIGINS: [ItemOrigin; 2] = [ItemOrigin::Report, ItemOrigin::Editorial];

pub(super) fn position<T: PartialEq>(all: &[T], v: &T) -> u8 {
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
    /// Each kind's values in order, each with whether it was inferred (and then from what).
    /// Inferred values always follow written ones (`Facets::add_inferred` appends), so reading
    /// rebuilds the same lists.
    fn put(&self, w: &mut Writer) {
        for kind in FacetKind::ALL {
            let values = self.values(kind);
            w.len(values.len());
            for v in values {
                w.str(v);
                match self.inferred_reason(kind, v) {
                    Some(reason) => {
                        w.u8(1);
                        w.str(reason);
                    }
                    None => w.u8(0),
                }
            }
        }
    }
    fn get(r: &mut Reader) -> Result<Self> {
        let mut facets = Facets::with_capacity(8);
        for kind in FacetKind::ALL {
            let n = r.len()?;
            for _ in 0..n {
                let v = r.str()?;
                if r.flag()? {
                    let reason = r.str()?;
                    facets.add_inferred(kind, v, reason);
                } else {
                    facets.push(kind, v);
                }
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
    pub(super) fn put(&self, w: &mut Writer) {
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

    pub(super) fn get(r: &mut Reader) -> Result<Self> {
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
pub(super) fn put_set(set: &CaseSet, w: &mut Writer) {
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

pub(super) fn get_set(r: &mut Reader, len: usize) -> Result<CaseSet> {
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
pub(super) fn put_head(case: &Case, at: u64, len: u32, w: &mut Writer) {
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
pub(super) fn get_head(r: &mut Reader, bodies: &Arc<dyn BodySource>, bodies_len: u64) -> Result<Case> {
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
