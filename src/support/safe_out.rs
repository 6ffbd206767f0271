//! The one way out for everything the command line prints: a writer that lets no character that
//! could steer a terminal through, whatever it came from (case text, a path, an echoed value, a
//! cache entry someone else wrote).
//!
//! Text is sanitised where it enters ([`crate::text::hygiene`]); this is the second line, at
//! output. Every C0 control but newline and tab, DEL, every C1 control and every bidirectional
//! control (the set of [`crate::text::hygiene::is_unsafe_char`]) is written as a `\uXXXX` escape.
//! That is the JSON spelling of the same character, and serde only ever leaves such characters
//! raw inside a JSON string, so JSON stays valid and means the same text; in plain text the
//! escape is visible and says which character it was. Bytes that are not UTF-8 become U+FFFD.
//!
//! May use: [`crate::text`] and std. Writes nothing of its own.

use std::{borrow::Cow, io};

use crate::text::hygiene::is_unsafe_char;

/// Whether `c` is escaped on output: an unsafe character other than newline and tab.
fn escaped(c: char) -> bool {
    c != '\t' && c != '\n' && is_unsafe_char(c)
}

/// `text` with every character that could steer a terminal written as `\uXXXX`.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if escaped(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A writer that passes everything through [`escape`] on its way to `inner`. A UTF-8 character
/// split across two writes is held until its end arrives.
pub struct SafeWriter<W: io::Write> {
    inner: W,
    /// The start of a character whose end has not been written yet (at most three bytes).
    carry: Vec<u8>,
}

impl<W: io::Write> SafeWriter<W> {
    /// Wrap `inner`.
    pub fn new(inner: W) -> SafeWriter<W> {
        SafeWriter { inner, carry: Vec::new() }
    }

    fn emit(&mut self, text: &str) -> io::Result<()> {
        // Most output is plain: one pass to check, one write.
        let plain = text.bytes().all(|b| b == b'\n' || b == b'\t' || (0x20..0x7f).contains(&b));
        if plain {
            return self.inner.write_all(text.as_bytes());
        }
        self.inner.write_all(escape(text).as_bytes())
    }
}

impl<W: io::Write> io::Write for SafeWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let joined: Cow<[u8]> = if self.carry.is_empty() {
            Cow::Borrowed(buf)
        } else {
            let mut joined = std::mem::take(&mut self.carry);
            joined.extend_from_slice(buf);
            Cow::Owned(joined)
        };
        let mut rest: &[u8] = &joined;
        loop {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    self.emit(text)?;
                    break;
                }
                Err(e) => {
                    let (good, bad) = rest.split_at(e.valid_up_to());
                    // SAFETY-free: `good` is valid UTF-8 by `valid_up_to`.
                    self.emit(std::str::from_utf8(good).unwrap_or_default())?;
                    match e.error_len() {
                        None => {
                            self.carry = bad.to_vec();
                            break;
                        }
                        Some(n) => {
                            self.inner.write_all("\u{FFFD}".as_bytes())?;
                            rest = &bad[n..];
                        }
                    }
                }
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: io::Write> Drop for SafeWriter<W> {
    fn drop(&mut self) {
        if !self.carry.is_empty() {
            let _ = self.inner.write_all("\u{FFFD}".as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn controls_and_bidi_are_escaped_and_the_rest_passes() {
        for (input, shown) in [
            ("plain\ttext\n", "plain\ttext\n"),
            ("wrote 3 items to \u{1b}]0;PWNED\u{7}", "wrote 3 items to \\u001b]0;PWNED\\u0007"),
            ("csi \u{9b}2J osc \u{9d}", "csi \\u009b2J osc \\u009d"),
            ("rlo \u{202e}txt.exe lri \u{2066}", "rlo \\u202etxt.exe lri \\u2066"),
            ("cr\rdel\u{7f}", "cr\\u000ddel\\u007f"),
            ("naïve — ✓ 日本", "naïve — ✓ 日本"),
        ] {
            assert_eq!(escape(input), shown, "{input:?}");
            let mut out = Vec::new();
            SafeWriter::new(&mut out).write_all(input.as_bytes()).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), shown, "{input:?}");
        }
    }

    #[test]
    fn a_character_split_across_writes_is_checked_whole() {
        let text = "a\u{9b}b\u{202e}c";
        for cut in 0..=text.len() {
            let mut out = Vec::new();
            {
                let mut w = SafeWriter::new(&mut out);
                w.write_all(&text.as_bytes()[..cut]).unwrap();
                w.write_all(&text.as_bytes()[cut..]).unwrap();
            }
            assert_eq!(String::from_utf8(out).unwrap(), "a\\u009bb\\u202ec", "cut at {cut}");
        }
    }

    #[test]
    fn json_through_the_writer_stays_json_and_means_the_same() {
        let value = serde_json::json!({ "source": "x\u{202e}\u{2066}\u{9b}\u{9d}\u{1b}y" });
        let mut out = Vec::new();
        SafeWriter::new(&mut out).write_all(serde_json::to_string(&value).unwrap().as_bytes()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.chars().all(|c| !is_unsafe_char(c)), "{text:?}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn bytes_that_are_not_utf8_become_replacement_characters() {
        let mut out = Vec::new();
        SafeWriter::new(&mut out).write_all(b"a\x9b\xffb").unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "a\u{FFFD}\u{FFFD}b");
    }
}
