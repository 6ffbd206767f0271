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
fn is_hex_id(word: &str) -> bool {
    if let Some(hex) = word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        return !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
    }
    word.len() >= 6 && word.bytes().all(|b| b.is_ascii_hexdigit()) && word.bytes().any(|b| b.is_ascii_digit())
}

/// Characters progress bars are drawn with; a run of them is folded to one.
fn is_bar(c: char) -> bool {
    matches!(c, '\u{2580}'..='\u{259f}' | '#' | '=' | '>' | '-' | '.' | '·') || c == ' '
}

/// The template of a message: numbers (digit runs inside words too: `rank3` is `rank#`) and hex
/// ids become `#`, runs of progress-bar characters and of spaces become one, so two lines that
/// differ only in what changes between occurrences have the same template.
pub fn template(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(MAX_LINE_CHARS));
    let mut chars = message.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c.is_alphanumeric() {
            let mut end = message.len();
            while let Some(&(j, d)) = chars.peek() {
                if !d.is_alphanumeric() {
                    end = j;
                    break;
                }
                chars.next();
            }
            let word = &message[i..end];
            if is_hex_id(word) {
                out.push('#');
            } else {
                let mut in_digits = false;
                for d in word.chars() {
                    if d.is_ascii_digit() {
                        if !in_digits {
                            out.push('#');
                        }
                        in_digits = true;
                    } else {
                        out.push(d);
                        in_digits = false;
                    }
                }
            }
        } else if is_bar(c) {
            out.push(c);
            while chars
                .peek()
                .is_some_and(|&(_, d)| d == c || (is_bar(d) && d != ' ' && is_bar(c) && c != ' '))
            {
                chars.next();
            }
        } else {
            out.push(c);
        }
        if out.len() >= MAX_LINE_CHARS * 2 {
            break;
        }
    }
    out
}

/// `text` cut to [`MAX_LINE_CHARS`] characters.
pub fn clip(text: &str) -> &str {
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
