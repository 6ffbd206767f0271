//! One log line as the log reader sees it: its launcher prefix taken off (`[rank3]:`, `3: `,
//! `[1,3]<stderr>:`), terminal escapes gone, and its template: the line with everything that
//! changes from one occurrence to the next (numbers, hex ids, progress bars) folded, so the same
//! message from 64 ranks, or at every step, counts as one.
//!
//! Pure functions over `&str`; nothing here knows about files or the taxonomy.

/// The longest piece of a line kept for showing and matching; a longer line is cut here.
pub const MAX_LINE_CHARS: usize = 400;

/// `line` without ANSI escape sequences (colour codes that loggers write into files).
pub fn strip_escapes(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        // CSI: ESC [ parameters final-byte; other escapes: ESC and one character.
        if chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        } else {
            chars.next();
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The message of a line: what a launcher put before it taken off, and at most one space after
/// that, so a traceback frame's own indentation stays.
///
/// Taken off, repeatedly: `[rank3]:`, `[default0]:`, `[1,3]<stderr>:` (torchrun and mpirun
/// prefixes) and `3: ` or `12:` (srun `--label`).
pub fn message(line: &str) -> &str {
    let mut rest = line;
    loop {
        let before = rest;
        if let Some(tail) = bracket_prefix(rest) {
            rest = tail;
        } else if let Some(tail) = label_prefix(rest) {
            rest = tail;
        }
        if rest.len() == before.len() {
            return rest;
        }
    }
}

/// `[rank3]:` / `[default0]:` / `[1,3]<stderr>:` at the start of `line`: the rest after it.
fn bracket_prefix(line: &str) -> Option<&str> {
    let inner_end = line.strip_prefix('[')?.find(']')? + 1;
    let inner = &line[1..inner_end];
    let launcher = inner.strip_prefix("rank").or_else(|| inner.strip_prefix("default")).unwrap_or(inner);
    if inner.is_empty() || !launcher.chars().all(|c| c.is_ascii_digit() || c == ',') {
        return None;
    }
    let mut tail = &line[inner_end + 1..];
    for stream in ["<stdout>", "<stderr>"] {
        tail = tail.strip_prefix(stream).unwrap_or(tail);
    }
    let tail = tail.strip_prefix(':')?;
    Some(tail.strip_prefix(' ').unwrap_or(tail))
}

/// `3: ` (srun --label) at the start of `line`: the rest after it.
fn label_prefix(line: &str) -> Option<&str> {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 5 {
        return None;
    }
    let tail = line[digits..].strip_prefix(':')?;
    // `12:30:01` is a time, not a label.
    if tail.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    Some(tail.strip_prefix(' ').unwrap_or(tail))
}

/// Whether a word is an identifier that changes between runs: hex of six or more digits with a
/// digit in it (addresses, hashes, uuids' parts), or `0x…`.
fn is_hex_id(word: &[u8]) -> bool {
    if let Some(hex) = word.strip_prefix(b"0x").or_else(|| word.strip_prefix(b"0X")) {
        return !hex.is_empty() && hex.iter().all(u8::is_ascii_hexdigit);
    }
    word.len() >= 6 && word.iter().all(u8::is_ascii_hexdigit) && word.iter().any(u8::is_ascii_digit)
}

/// Characters progress bars are drawn with; a run of them is folded to one.
fn is_bar(c: char) -> bool {
    matches!(c, '\u{2580}'..='\u{259f}' | '#' | '=' | '>' | '-' | '.' | '·')
}

/// The template of a message: numbers (digit runs inside words too: `rank3` is `rank#`) and hex
/// ids become `#`, runs of progress-bar characters and of spaces become one, so two lines that
/// differ only in what changes between occurrences have the same template.
pub fn template(message: &str) -> String {
    let mut out = Vec::with_capacity(message.len().min(MAX_LINE_CHARS));
    fold(message, &mut |piece| out.extend_from_slice(piece));
    String::from_utf8(out).unwrap_or_default()
}

/// [`template`] fed piece by piece to `sink`, without building it: the log reader hashes the
/// pieces of every line and keeps no string. Works on bytes, so the ASCII most logs are made of
/// costs no decoding; other characters are taken whole.
pub fn fold(message: &str, sink: &mut dyn FnMut(&[u8])) {
    let bytes = message.as_bytes();
    let mut i = 0;
    let mut emitted = 0;
    // The last character emitted outside words, to fold runs.
    let mut last: Option<char> = None;
    while i < bytes.len() && emitted < MAX_LINE_CHARS * 2 {
        let (c, len) = char_at(message, i);
        if c.is_alphanumeric() {
            let start = i;
            while i < bytes.len() {
                let (d, l) = char_at(message, i);
                if !d.is_alphanumeric() {
                    break;
                }
                i += l;
            }
            let word = &bytes[start..i];
            if is_hex_id(word) {
                sink(b"#");
            } else {
                let mut run = start;
                while run < i {
                    if word[run - start].is_ascii_digit() {
                        while run < i && bytes[run].is_ascii_digit() {
                            run += 1;
                        }
                        sink(b"#");
                    } else {
                        let from = run;
                        while run < i && !bytes[run].is_ascii_digit() {
                            run += 1;
                        }
                        sink(&bytes[from..run]);
                    }
                }
            }
            emitted += i - start;
            last = None;
            continue;
        }
        let folds = last.is_some_and(|l| l == c || (is_bar(l) && is_bar(c)));
        if !folds {
            sink(&bytes[i..i + len]);
            emitted += len;
        }
        last = Some(c);
        i += len;
    }
}

/// The character at byte `i` of `text` and its length; ASCII without decoding.
fn char_at(text: &str, i: usize) -> (char, usize) {
    let b = text.as_bytes()[i];
    if b.is_ascii() {
        return (b as char, 1);
    }
    text[i..].chars().next().map_or((' ', 1), |c| (c, c.len_utf8()))
}

/// `text` cut to [`MAX_LINE_CHARS`] characters.
pub fn clip(text: &str) -> &str {
    // No more bytes than the limit: no more characters either.
    if text.len() <= MAX_LINE_CHARS {
        return text;
    }
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launcher_prefixes_come_off_and_indentation_stays() {
        for (line, want) in [
            ("[rank3]: Traceback (most recent call last):", "Traceback (most recent call last):"),
            ("[rank3]:   File \"train.py\", line 3", "  File \"train.py\", line 3"),
            ("[default0]:RuntimeError: boom", "RuntimeError: boom"),
            ("[1,3]<stderr>:NCCL WARN x", "NCCL WARN x"),
            ("12: ValueError: bad", "ValueError: bad"),
            ("12:30:01 not a label", "12:30:01 not a label"),
            ("[2024-05-01 12:00:00] INFO x", "[2024-05-01 12:00:00] INFO x"),
            ("plain", "plain"),
        ] {
            assert_eq!(message(line), want, "{line}");
        }
    }

    #[test]
    fn templates_fold_what_changes_between_occurrences() {
        let a = template("[rank3]: step 120 loss 2.31 host gpu-node-17 addr 0x7f3a2c00 id 9f8e7d6c5b");
        let b = template("[rank41]: step 121 loss 2.29 host gpu-node-2 addr 0x7f3a2d10 id 1a2b3c4d5e");
        assert_eq!(a, b);
        assert_eq!(template("Xid 79"), "Xid #");
        assert_ne!(template("NCCL WARN Timeout"), template("NCCL INFO Timeout"));
        let bar1 = template(" 45%|████▌     | 450/1000 [00:10<00:12, 43.2it/s]");
        let bar2 = template(" 46%|████▋     | 460/1000 [00:10<00:12, 43.9it/s]");
        assert_eq!(bar1, bar2);
    }

    #[test]
    fn escapes_are_stripped_and_long_lines_clipped() {
        assert_eq!(strip_escapes("\u{1b}[31mERROR\u{1b}[0m: x"), "ERROR: x");
        assert_eq!(strip_escapes("plain"), "plain");
        let long = "x".repeat(MAX_LINE_CHARS + 10);
        assert_eq!(clip(&long).len(), MAX_LINE_CHARS);
    }
}
