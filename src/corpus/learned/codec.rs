//! The facet model as bytes: what the build script bakes into the binary and the program reads
//! back at its first prediction. Little-endian, with a magic and a version; decoding checks
//! every length and index, and gives `None` for anything it did not write (the program then
//! runs on aliases alone, as before the model).

use super::{Entry, FacetModel, ModelValue};
use crate::taxonomy::FacetKind;

const MAGIC: &[u8; 4] = b"IXFM";
const VERSION: u32 = 1;

/// The bytes of `model`.
pub fn encode(model: &FacetModel) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + model.keys.len() * 32 + model.pairs.len() * 6);
    out.extend_from_slice(MAGIC);
    put(&mut out, VERSION);
    put(&mut out, model.cases);
    put(&mut out, model.values.len() as u32);
    for v in &model.values {
        out.push(v.kind.index() as u8);
        put(&mut out, v.cases);
        put(&mut out, v.name.len() as u32);
        out.extend_from_slice(v.name.as_bytes());
    }
    put(&mut out, model.keys.len() as u32);
    for (key, entry) in model.keys.iter().zip(&model.entries) {
        out.extend_from_slice(&key.to_le_bytes());
        for d in entry.doc_freq {
            put(&mut out, d);
        }
        put(&mut out, entry.end - entry.start);
    }
    for &(v, a) in &model.pairs {
        out.extend_from_slice(&v.to_le_bytes());
        put(&mut out, a);
    }
    out
}

fn put(out: &mut Vec<u8>, n: u32) {
    out.extend_from_slice(&n.to_le_bytes());
}

/// Reads bytes front to back; every read checks what is left.
struct Bytes<'a>(&'a [u8]);

impl<'a> Bytes<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

/// The model in `bytes`, or `None` when they are not one [`encode`] wrote.
pub fn decode(bytes: &[u8]) -> Option<FacetModel> {
    let mut b = Bytes(bytes);
    if b.take(4)? != MAGIC || b.u32()? != VERSION {
        return None;
    }
    let cases = b.u32()?;
    let count = b.u32()? as usize;
    let mut values = Vec::with_capacity(count.min(bytes.len()));
    for _ in 0..count {
        let kind = *FacetKind::ALL.get(usize::from(b.take(1)?[0]))?;
        let cases = b.u32()?;
        let len = b.u32()? as usize;
        let name = std::str::from_utf8(b.take(len)?).ok()?.to_string();
        values.push(ModelValue { kind, name, cases });
    }
    let features = b.u32()? as usize;
    let mut keys = Vec::with_capacity(features.min(bytes.len() / 8));
    let mut entries = Vec::with_capacity(features.min(bytes.len() / 8));
    let mut total: u32 = 0;
    for _ in 0..features {
        let key = b.u64()?;
        if keys.last().is_some_and(|&last| last >= key) {
            return None;
        }
        let doc_freq = [b.u32()?, b.u32()?, b.u32()?, b.u32()?];
        let len = b.u32()?;
        let start = total;
        total = total.checked_add(len)?;
        keys.push(key);
        entries.push(Entry { doc_freq, start, end: total });
    }
    let mut pairs = Vec::with_capacity((total as usize).min(bytes.len() / 6));
    for _ in 0..total {
        let v = b.u16()?;
        if usize::from(v) >= values.len() {
            return None;
        }
        pairs.push((v, b.u32()?));
    }
    if !b.0.is_empty() {
        return None;
    }
    Some(FacetModel { cases, values, keys, entries, pairs })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{learned::train::train, model::test_case};

    fn model() -> FacetModel {
        let cases: Vec<_> = (0..16)
            .map(|i| {
                let mut c = test_case(
                    &format!("c{i}"),
                    &[(FacetKind::Component, if i % 2 == 0 { "NCCL" } else { "GPU" })],
                );
                c.title =
                    if i % 2 == 0 { "NCCL watchdog timeout".into() } else { "GPU fell off the bus".into() };
                c
            })
            .collect();
        train(&cases)
    }

    #[test]
    fn what_is_encoded_decodes_the_same() {
        let m = model();
        assert!(m.features() > 0);
        assert_eq!(decode(&encode(&m)), Some(m));
        assert_eq!(decode(&encode(&FacetModel::default())), Some(FacetModel::default()));
    }

    #[test]
    fn damaged_bytes_decode_to_nothing_and_never_panic() {
        let bytes = encode(&model());
        assert_eq!(decode(&[]), None);
        assert_eq!(decode(b"IXFM\x02\0\0\0"), None);
        for cut in 0..bytes.len() {
            assert_eq!(decode(&bytes[..cut]), None, "cut at {cut}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert_eq!(decode(&extra), None);
        for i in (0..bytes.len()).step_by(7) {
            let mut flipped = bytes.clone();
            flipped[i] ^= 0xff;
            let _ = decode(&flipped);
        }
    }
}
