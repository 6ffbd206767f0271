//! Text hygiene, applied once where text enters the program (case files, taxonomy, queries).
//!
//! Everything a case file or a query can put on a screen passes through [`sanitize`]: Unicode
//! NFC, `\r\n` folded to `\n`, tabs expanded, and every character that could steer a terminal
//! (C0 controls but newline, DEL, C1 controls, bidirectional overrides and isolates) replaced by a
//! visible stand-in. After this no output path — TUI, plain text, JSON, Markdown — can carry an
//! escape sequence that came from data. Nothing here knows about terminals or files.

use unicode_normalization::UnicodeNormalization;

/// Columns between tab stops when tabs are expanded.
pub const TAB_WIDTH: usize = 8;

/// The stand-in for a C1 control or a bidi control: visible, harmless, and obviously wrong.
pub const REPLACEMENT: char = '\u{FFFD}';

/// Whether `c` may not be shown as it is: C0 (but `\n`), DEL, C1, and the bidi controls
/// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
pub fn is_unsafe_char(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{9}' | '\u{B}'..='\u{1F}' | '\u{7F}'..='\u{9F}'
        | '\u{61C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The visible stand-in for an unsafe character: a Control Pictures glyph for C0 and DEL
/// (`␛` for ESC), U+FFFD for the rest.
fn stand_in(c: char) -> char {
    match c {
        '\u{0}'..='\u{1F}' => char::from_u32(0x2400 + c as u32).unwrap_or(REPLACEMENT),
        '\u{7F}' => '\u{2421}',
        _ => REPLACEMENT,
    }
}

/// The result of [`sanitize`]: the clean text and whether anything unsafe was replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sanitized {
    /// The text as it may be shown.
    pub text: String,
    /// True when a control or bidi character was replaced (tabs and CRLF do not count).
    pub replaced: bool,
}

/// Normalise `input` for display; see the module docs for what changes.
pub fn sanitize(input: &str) -> Sanitized {
    // Printable ASCII and newlines need nothing (ASCII is NFC): most text takes this path, and
    // loading a large library spends its time here otherwise.
    if input.bytes().all(|b| b == b'\n' || (0x20..0x7f).contains(&b)) {
        return Sanitized { text: input.to_string(), replaced: false };
    }
    let normalized: std::borrow::Cow<str> =
        if unicode_normalization::is_nfc_quick(input.chars()) == unicode_normalization::IsNormalized::Yes {
            std::borrow::Cow::Borrowed(input)
        } else {
            std::borrow::Cow::Owned(input.nfc().collect())
        };
    let mut text = String::with_capacity(input.len());
    let mut replaced = false;
    let mut column = 0usize;
    let mut chars = normalized.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => {
                text.push('\n');
                column = 0;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\t' => {
                let spaces = TAB_WIDTH - column % TAB_WIDTH;
                text.extend(std::iter::repeat_n(' ', spaces));
                column += spaces;
            }
            c if is_unsafe_char(c) => {
                text.push(stand_in(c));
                replaced = true;
                column += 1;
            }
            c => {
                text.push(c);
                column += 1;
            }
        }
    }
    Sanitized { text, replaced }
}

/// [`sanitize`], keeping only the text.
pub fn clean(input: &str) -> String {
    sanitize(input).text
}

/// Text for one line of output: sanitized, with newlines folded to spaces.
pub fn one_line(input: &str) -> String {
    let text = clean(input);
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `c` is invisible where it stands: zero-width spaces and joiners, word joiners and
/// invisible operators, the byte-order mark, the soft hyphen. Harmless in prose (a joiner holds an
/// emoji sequence together), but in a file name they only hide what the name really is.
pub fn is_invisible_char(c: char) -> bool {
    matches!(c, '\u{AD}' | '\u{180E}' | '\u{200B}'..='\u{200D}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}')
}

/// A file name or path as it may be shown and written out (in JSON too): on one line, with
/// every control, bidirectional and invisible character replaced by a visible stand-in, so the
/// name reads as the bytes it is made of.
pub fn clean_name(name: &str) -> String {
    if name.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return name.to_string();
    }
    name.chars()
        .map(|c| match c {
            '\n' | '\r' | '\t' => stand_in(c),
            c if is_unsafe_char(c) => stand_in(c),
            c if is_invisible_char(c) => REPLACEMENT,
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_show_every_hidden_character() {
        assert_eq!(clean_name("cases/plain-name.toml"), "cases/plain-name.toml");
        assert_eq!(clean_name("a\u{202E}lmth.toml"), "a\u{FFFD}lmth.toml");
        assert_eq!(clean_name("zero\u{200B}width\u{FEFF}.md"), "zero\u{FFFD}width\u{FFFD}.md");
        assert_eq!(clean_name("line\nbreak\x1b[2J.md"), "line\u{240a}break\u{241b}[2J.md");
        assert_eq!(clean_name("日本語.md"), "日本語.md");
    }

    #[test]
    fn plain_text_is_unchanged() {
        let s = sanitize("NCCL WARN Timeout — 100% GPU, 日本語 ✓");
        assert_eq!(s.text, "NCCL WARN Timeout — 100% GPU, 日本語 ✓");
        assert!(!s.replaced);
    }

    #[test]
    fn escape_sequences_lose_their_escape() {
        for hostile in ["\x1b[2J", "\x1b]52;c;aGVsbG8=\x07", "\u{9b}31m", "a\u{202e}b", "x\u{2066}y"] {
            let s = sanitize(hostile);
            assert!(s.replaced, "{hostile:?}");
            assert!(!s.text.chars().any(is_unsafe_char), "{:?}", s.text);
        }
        assert_eq!(clean("\x1b[2J"), "\u{241b}[2J");
        assert_eq!(clean("\x7f"), "\u{2421}");
        assert_eq!(clean("a\u{202e}b"), "a\u{FFFD}b");
    }

    #[test]
    fn tabs_expand_to_stops_and_crlf_folds() {
        assert_eq!(clean("a\tb"), "a       b");
        assert_eq!(clean("12345678\tb"), "12345678        b");
        assert_eq!(clean("one\r\ntwo"), "one\ntwo");
        assert!(sanitize("lone\rcr").replaced);
        assert!(!sanitize("a\tb\r\n").replaced);
    }

    #[test]
    fn the_ascii_fast_path_agrees_with_the_full_path() {
        for input in
            ["plain words\nand lines", "", "tab\there", "cr\r\nlf", "esc\x1b[2J", "é e\u{301}", "~ ! }"]
        {
            let fast = sanitize(input);
            let mut slow = String::new();
            let mut chars = input.nfc().peekable();
            let mut column = 0;
            let mut replaced = false;
            while let Some(c) = chars.next() {
                match c {
                    '\n' => {
                        slow.push('\n');
                        column = 0;
                    }
                    '\r' if chars.peek() == Some(&'\n') => {}
                    '\t' => {
                        let n = TAB_WIDTH - column % TAB_WIDTH;
                        slow.extend(std::iter::repeat_n(' ', n));
                        column += n;
                    }
                    c if is_unsafe_char(c) => {
                        slow.push(stand_in(c));
                        replaced = true;
                        column += 1;
                    }
                    c => {
                        slow.push(c);
                        column += 1;
                    }
                }
            }
            assert_eq!(fast, Sanitized { text: slow, replaced }, "{input:?}");
        }
    }

    #[test]
    fn text_is_nfc() {
        // "e" + combining acute becomes the precomposed "é".
        assert_eq!(clean("e\u{301}"), "\u{e9}");
    }

    #[test]
    fn one_line_folds_whitespace() {
        assert_eq!(one_line(" a\n b\t c "), "a b c");
    }
}
