//! Turning whatever bytes a log arrives as into lines of UTF-8 text, and keeping what was read
//! when the input is damaged.
//!
//! - [`Salvage`] ends a stream at its first error instead of failing it: what was read before
//!   the error is kept, and the error is remembered to be reported (a truncated gzip, a bad CRC
//!   after the whole body, trailing zeros after the last gzip member, a disk that fails half
//!   way). `gzip -d` prints what it decompressed in all those cases; so does triage.
//! - [`Utf16`] decodes UTF-16 (little or big endian, told by its BOM or, without one, by where
//!   the NULs of its ASCII fall) into UTF-8; a lone surrogate becomes U+FFFD.
//! - [`CrLines`] turns the carriage returns of a log whose lines end in CR alone (old Mac
//!   tools, some serial consoles) into newlines, so each of its lines has its own number.
//!
//! [`sniff`] looks at the first bytes of a stream and says which of them it needs. Nothing here
//! knows about templates or evidence: it only hands bytes on.

use std::io::{self, Read};

/// How the text of a stream is encoded, as [`sniff`] tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 (or anything else that is not UTF-16: invalid bytes are replaced later).
    Bytes,
    /// UTF-16, little endian when the flag is set; `bom` when it starts with a byte order mark.
    Utf16 {
        /// Little endian.
        little: bool,
        /// Whether the first two bytes are a byte order mark (skipped).
        bom: bool,
    },
}

/// Bytes looked at to tell UTF-16 without a BOM, and lines ending in CR alone.
pub const SNIFF_BYTES: usize = 4096;

/// The encoding of a stream that starts with `head`: a UTF-16 BOM, or ASCII interleaved with
/// NULs (in at least 3 of every 4 pairs, and never on the other side).
pub fn sniff(head: &[u8]) -> Encoding {
    match head {
        [0xff, 0xfe, ..] => return Encoding::Utf16 { little: true, bom: true },
        [0xfe, 0xff, ..] => return Encoding::Utf16 { little: false, bom: true },
        _ => {}
    }
    let head = &head[..head.len().min(SNIFF_BYTES) & !1];
    let pairs = head.len() / 2;
    if pairs < 2 {
        return Encoding::Bytes;
    }
    let (mut even, mut odd) = (0, 0);
    for pair in head.chunks_exact(2) {
        even += usize::from(pair[0] == 0);
        odd += usize::from(pair[1] == 0);
    }
    if odd * 4 >= pairs * 3 && even == 0 {
        Encoding::Utf16 { little: true, bom: false }
    } else if even * 4 >= pairs * 3 && odd == 0 {
        Encoding::Utf16 { little: false, bom: false }
    } else {
        Encoding::Bytes
    }
}

/// Whether `head` looks like a log whose lines end in CR alone: carriage returns, no newline.
pub fn cr_only(head: &[u8]) -> bool {
    let head = &head[..head.len().min(SNIFF_BYTES)];
    memchr::memchr(b'\n', head).is_none() && memchr::memchr_iter(b'\r', head).nth(1).is_some()
}

/// A reader that ends at the first error of the one it wraps, keeping the error; see the
/// module docs.
#[derive(Debug)]
pub struct Salvage<R> {
    inner: R,
    error: Option<io::Error>,
}

impl<R: Read> Salvage<R> {
    /// Wrap `inner`.
    pub fn new(inner: R) -> Salvage<R> {
        Salvage { inner, error: None }
    }

    /// The error that ended the stream early, if one did.
    pub fn take_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }
}

impl<R: Read> Read for Salvage<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.error.is_some() {
            return Ok(0);
        }
        loop {
            match self.inner.read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.error = Some(e);
                    return Ok(0);
                }
            }
        }
    }
}

/// UTF-16 decoded to UTF-8; see the module docs.
#[derive(Debug)]
pub struct Utf16<R> {
    inner: R,
    little: bool,
    /// Raw bytes read and not yet decoded (an odd byte, a high surrogate waiting for its pair).
    raw: Vec<u8>,
    /// UTF-8 decoded and not yet handed out.
    out: Vec<u8>,
    given: usize,
    ended: bool,
}

impl<R: Read> Utf16<R> {
    /// Decode `inner`, which is UTF-16 in the given byte order (a BOM, if any, already read
    /// past, or left: it decodes to U+FEFF, which is dropped).
    pub fn new(inner: R, little: bool) -> Utf16<R> {
        Utf16 { inner, little, raw: Vec::new(), out: Vec::new(), given: 0, ended: false }
    }

    /// Read more raw bytes and decode every whole code unit pair they complete.
    fn refill(&mut self) -> io::Result<()> {
        self.out.clear();
        self.given = 0;
        let mut chunk = [0u8; 32 << 10];
        while self.out.is_empty() && !self.ended {
            let n = match self.inner.read(&mut chunk) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                self.ended = true;
            }
            self.raw.extend_from_slice(&chunk[..n]);
            let whole = self.raw.len() & !1;
            let mut units: Vec<u16> = self.raw[..whole]
                .chunks_exact(2)
                .map(|p| {
                    if self.little {
                        u16::from_le_bytes([p[0], p[1]])
                    } else {
                        u16::from_be_bytes([p[0], p[1]])
                    }
                })
                .collect();
            let mut keep = whole;
            // A high surrogate at the end waits for its pair, unless nothing more comes.
            if !self.ended && units.last().is_some_and(|u| (0xd800..0xdc00).contains(u)) {
                units.pop();
                keep -= 2;
            }
            for c in char::decode_utf16(units) {
                let c = c.unwrap_or(char::REPLACEMENT_CHARACTER);
                if c != '\u{feff}' {
                    let mut buf = [0u8; 4];
                    self.out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
            }
            self.raw.drain(..keep);
            if self.ended && !self.raw.is_empty() {
                // An odd byte at the very end: a code unit cut in half.
                self.raw.clear();
                self.out.extend_from_slice(char::REPLACEMENT_CHARACTER.to_string().as_bytes());
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for Utf16<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.given == self.out.len() {
            self.refill()?;
        }
        let n = buf.len().min(self.out.len() - self.given);
        buf[..n].copy_from_slice(&self.out[self.given..self.given + n]);
        self.given += n;
        Ok(n)
    }
}

/// Carriage returns read as newlines; see the module docs.
#[derive(Debug)]
pub struct CrLines<R> {
    inner: R,
}

impl<R: Read> CrLines<R> {
    /// Wrap `inner`.
    pub fn new(inner: R) -> CrLines<R> {
        CrLines { inner }
    }
}

impl<R: Read> Read for CrLines<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        for b in &mut buf[..n] {
            if *b == b'\r' {
                *b = b'\n';
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(text: &str, little: bool, bom: bool) -> Vec<u8> {
        let mut bytes = Vec::new();
        if bom {
            bytes.extend_from_slice(if little { &[0xff, 0xfe] } else { &[0xfe, 0xff] });
        }
        for u in text.encode_utf16() {
            bytes.extend_from_slice(&if little { u.to_le_bytes() } else { u.to_be_bytes() });
        }
        bytes
    }

    #[test]
    fn utf16_is_told_by_its_bom_or_its_nuls_and_decoded() {
        let text = "ok\r\nNVRM: Xid 79 — GPU has fallen off the bus 🚌\r\n";
        for (little, bom) in [(true, true), (false, true), (true, false), (false, false)] {
            let bytes = utf16(text, little, bom);
            assert_eq!(sniff(&bytes), Encoding::Utf16 { little, bom }, "{little} {bom}");
            // Read through a reader that hands out one byte at a time: pairs and surrogates
            // cross reads.
            let one_by_one = bytes.chunks(1).map(|c| c.to_vec()).collect::<Vec<_>>().concat();
            let mut decoded = String::new();
            Utf16::new(io::BufReader::with_capacity(1, one_by_one.as_slice()), little)
                .read_to_string(&mut decoded)
                .unwrap();
            assert_eq!(decoded, text);
        }
        assert_eq!(sniff(b"plain ASCII log\n"), Encoding::Bytes);
        assert_eq!(sniff(b"\0\0\0\0binary\0"), Encoding::Bytes);
        assert_eq!(sniff(b""), Encoding::Bytes);
    }

    #[test]
    fn a_lone_surrogate_or_an_odd_byte_is_replaced() {
        let mut bytes = utf16("a", true, false);
        bytes.extend_from_slice(&0xd800u16.to_le_bytes());
        bytes.extend_from_slice(&utf16("b", true, false));
        bytes.push(b'c');
        let mut decoded = String::new();
        Utf16::new(bytes.as_slice(), true).read_to_string(&mut decoded).unwrap();
        assert_eq!(decoded, "a\u{fffd}b\u{fffd}");
    }

    #[test]
    fn salvage_keeps_what_came_before_the_error() {
        struct Failing(usize);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0 == 0 {
                    return Err(io::Error::other("disk on fire"));
                }
                self.0 -= 1;
                buf[0] = b'x';
                Ok(1)
            }
        }
        let mut salvage = Salvage::new(Failing(3));
        let mut read = Vec::new();
        salvage.read_to_end(&mut read).unwrap();
        assert_eq!(read, b"xxx");
        assert_eq!(salvage.take_error().unwrap().to_string(), "disk on fire");
    }

    #[test]
    fn cr_only_logs_are_told_and_split() {
        assert!(cr_only(b"one\rtwo\rthree\r"));
        assert!(!cr_only(b"one\r\ntwo\r\n"));
        assert!(!cr_only(b" 10%|#\r 20%|##\n"));
        assert!(!cr_only(b"one line\r"));
        let mut out = String::new();
        CrLines::new(&b"a\rb\r"[..]).read_to_string(&mut out).unwrap();
        assert_eq!(out, "a\nb\n");
    }
}
