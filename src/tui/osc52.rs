//! OSC 52: asking the terminal to put text on the clipboard — the only clipboard an SSH session
//! has, since the sequence travels back to the terminal on the user's own machine.
//!
//! Pure bytes in, bytes out; writing them to the terminal is the caller's job. The sequence is
//! `ESC ] 52 ; c ; <base64> ESC \`. Inside tmux it is wrapped in a DCS passthrough
//! (`ESC P tmux; ... ESC \`, every ESC inside doubled; tmux needs `allow-passthrough on`).
//! Inside GNU screen it is cut into DCS chunks (`ESC P ... ESC \`) short enough for screen's
//! string buffer, and ends with BEL, because an inner `ESC \` would end screen's DCS early.
//! Terminals cap what they accept (often about 100 kB of base64), so larger text is refused
//! here with [`TooLarge`] rather than silently cut by the terminal.

use std::fmt;

use base64::Engine as _;

/// The most base64 bytes a sequence carries (what hterm and many terminals accept).
pub const MAX_BASE64: usize = 100_000;

/// The longest text, in bytes, whose base64 fits in [`MAX_BASE64`].
pub const MAX_TEXT: usize = MAX_BASE64 / 4 * 3;

/// Bytes of sequence per screen DCS chunk (screen's buffer is 768; the usual cut is 76).
const SCREEN_CHUNK: usize = 76;

/// The terminal multiplexer the sequence has to pass through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Passthrough {
    /// Straight to the terminal.
    None,
    /// Through tmux.
    Tmux,
    /// Through GNU screen.
    Screen,
}

impl Passthrough {
    /// The multiplexer the environment says we run in: `$TMUX` means tmux (its `TERM` is often
    /// `screen*` too, so it is asked first); `$STY` or a `TERM` starting with `screen` means
    /// screen.
    pub fn detect(var: impl Fn(&str) -> Option<String>) -> Passthrough {
        let set = |name: &str| var(name).is_some_and(|v| !v.is_empty());
        if set("TMUX") {
            Passthrough::Tmux
        } else if set("STY") || var("TERM").is_some_and(|t| t.starts_with("screen")) {
            Passthrough::Screen
        } else {
            Passthrough::None
        }
    }

    /// [`Passthrough::detect`] over this process's environment.
    pub fn from_env() -> Passthrough {
        Passthrough::detect(|name| std::env::var(name).ok())
    }
}

/// The text is larger than the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge {
    /// Its size in bytes.
    pub bytes: usize,
    /// The most that can be sent, in bytes.
    pub max: usize,
}

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "too large for the clipboard over OSC 52 ({} KB, at most {} KB); save it to a file instead",
            self.bytes.div_ceil(1024),
            self.max / 1024
        )
    }
}

impl std::error::Error for TooLarge {}

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;

/// The bytes that put `text` on the clipboard through `passthrough`.
pub fn encode(text: &[u8], passthrough: Passthrough) -> Result<Vec<u8>, TooLarge> {
    if text.len() > MAX_TEXT {
        return Err(TooLarge { bytes: text.len(), max: MAX_TEXT });
    }
    let payload = base64::engine::general_purpose::STANDARD.encode(text);
    let mut out = Vec::with_capacity(payload.len() + 32);
    match passthrough {
        Passthrough::None => {
            out.extend_from_slice(b"\x1b]52;c;");
            out.extend_from_slice(payload.as_bytes());
            out.extend_from_slice(b"\x1b\\");
        }
        Passthrough::Tmux => {
            out.extend_from_slice(b"\x1bPtmux;");
            // The inner sequence with every ESC doubled.
            out.extend_from_slice(&[ESC, ESC]);
            out.extend_from_slice(b"]52;c;");
            out.extend_from_slice(payload.as_bytes());
            out.extend_from_slice(&[ESC, ESC, b'\\']);
            out.extend_from_slice(b"\x1b\\");
        }
        Passthrough::Screen => {
            let mut inner = Vec::with_capacity(payload.len() + 8);
            inner.extend_from_slice(b"\x1b]52;c;");
            inner.extend_from_slice(payload.as_bytes());
            inner.push(BEL);
            for chunk in inner.chunks(SCREEN_CHUNK) {
                out.extend_from_slice(b"\x1bP");
                out.extend_from_slice(chunk);
                out.extend_from_slice(b"\x1b\\");
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_sequence_is_byte_exact() {
        assert_eq!(encode(b"hello", Passthrough::None).unwrap(), b"\x1b]52;c;aGVsbG8=\x1b\\".to_vec());
        assert_eq!(encode(b"", Passthrough::None).unwrap(), b"\x1b]52;c;\x1b\\".to_vec());
        // Non-ASCII text travels as its UTF-8 bytes.
        assert_eq!(
            encode("- [ ] é".as_bytes(), Passthrough::None).unwrap(),
            b"\x1b]52;c;LSBbIF0gw6k=\x1b\\".to_vec()
        );
    }

    #[test]
    fn tmux_passthrough_doubles_the_inner_escapes() {
        assert_eq!(
            encode(b"hello", Passthrough::Tmux).unwrap(),
            b"\x1bPtmux;\x1b\x1b]52;c;aGVsbG8=\x1b\x1b\\\x1b\\".to_vec()
        );
    }

    #[test]
    fn screen_passthrough_chunks_and_ends_with_bel() {
        assert_eq!(
            encode(b"hello", Passthrough::Screen).unwrap(),
            b"\x1bP\x1b]52;c;aGVsbG8=\x07\x1b\\".to_vec()
        );
        let text = vec![b'a'; 300];
        let out = encode(&text, Passthrough::Screen).unwrap();
        let chunks: Vec<&[u8]> = out
            .split(|&b| b == b'\\')
            .filter(|c| !c.is_empty())
            .map(|c| c.strip_prefix(b"\x1bP").unwrap().strip_suffix(b"\x1b").unwrap())
            .collect();
        assert!(chunks.iter().all(|c| c.len() <= SCREEN_CHUNK));
        let inner: Vec<u8> = chunks.concat();
        let want = format!("\x1b]52;c;{}\x07", base64::engine::general_purpose::STANDARD.encode(&text));
        assert_eq!(inner, want.as_bytes());
    }

    #[test]
    fn the_cap_refuses_rather_than_cuts() {
        assert!(encode(&vec![b'a'; MAX_TEXT], Passthrough::None).is_ok());
        let err = encode(&vec![b'a'; MAX_TEXT + 1], Passthrough::Tmux).unwrap_err();
        assert_eq!(err, TooLarge { bytes: MAX_TEXT + 1, max: MAX_TEXT });
        assert!(
            err.to_string().starts_with("too large for the clipboard over OSC 52 (74 KB, at most 73 KB)"),
            "{err}"
        );
        let seq = encode(&vec![b'a'; MAX_TEXT], Passthrough::None).unwrap();
        assert_eq!(seq.len(), MAX_BASE64 + 9);
    }

    #[test]
    fn the_multiplexer_is_read_from_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
        };
        for (vars, want) in [
            (&[][..], Passthrough::None),
            (&[("TERM", "xterm-256color")][..], Passthrough::None),
            (&[("TMUX", "/tmp/tmux-0/default,1,0"), ("TERM", "screen-256color")][..], Passthrough::Tmux),
            (&[("TERM", "screen.xterm-256color")][..], Passthrough::Screen),
            (&[("STY", "1234.pts-0.host"), ("TERM", "xterm")][..], Passthrough::Screen),
            (&[("TMUX", "")][..], Passthrough::None),
        ] {
            assert_eq!(Passthrough::detect(env(vars)), want, "{vars:?}");
        }
    }
}
