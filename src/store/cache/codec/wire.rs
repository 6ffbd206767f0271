//! The wire's primitives: a [`Writer`] of integers, lengths, strings and dates, and a [`Reader`]
//! that checks every length against the bytes left before it trusts it.

use super::format::{Corrupt, Result};
use crate::corpus::model::PartialDate;

#[derive(Default)]
pub(super) struct Writer(pub(super) Vec<u8>);

impl Writer {
    pub(super) fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub(super) fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }
    pub(super) fn str(&mut self, s: &str) {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
    pub(super) fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
            None => self.u8(0),
        }
    }
    pub(super) fn strs(&mut self, list: &[String]) {
        self.len(list.len());
        for s in list {
            self.str(s);
        }
    }
    pub(super) fn date(&mut self, d: Option<PartialDate>) {
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

pub(super) struct Reader<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) at: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| Corrupt("truncated".into()))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }
    pub(super) fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    pub(super) fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub(super) fn u64(&mut self) -> Result<u64> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    pub(super) fn len(&mut self) -> Result<usize> {
        let n = self.u32()? as usize;
        // Every counted thing takes at least a byte: a larger count is corruption, and checking
        // it here keeps a bad count from reserving gigabytes.
        if n > self.bytes.len() - self.at {
            return Err(Corrupt("count larger than the data".into()));
        }
        Ok(n)
    }
    pub(super) fn flag(&mut self) -> Result<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(Corrupt(format!("bad flag {b}"))),
        }
    }
    pub(super) fn str(&mut self) -> Result<String> {
        let n = self.len()?;
        let bytes = self.take(n)?;
        std::str::from_utf8(bytes).map(str::to_string).map_err(|_| Corrupt("text is not UTF-8".into()))
    }
    pub(super) fn opt_str(&mut self) -> Result<Option<String>> {
        if self.flag()? { self.str().map(Some) } else { Ok(None) }
    }
    pub(super) fn strs(&mut self) -> Result<Vec<String>> {
        let n = self.len()?;
        (0..n).map(|_| self.str()).collect()
    }
    pub(super) fn date(&mut self) -> Result<Option<PartialDate>> {
        if !self.flag()? {
            return Ok(None);
        }
        let year = u16::try_from(self.u32()?).map_err(|_| Corrupt("year".into()))?;
        let month = Some(self.u8()?).filter(|&m| m != 0);
        let day = Some(self.u8()?).filter(|&d| d != 0);
        Ok(Some(PartialDate { year, month, day }))
    }
    pub(super) fn index<T: Copy>(&mut self, all: &[T], what: &str) -> Result<T> {
        let i = self.u8()? as usize;
        all.get(i).copied().ok_or_else(|| Corrupt(format!("bad {what} {i}")))
    }
}
