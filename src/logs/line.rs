//! One log line as the log reader sees it: its launcher prefix taken off (`[rank3]:`, `3: `,
//! `[1,3]<stderr>:`), terminal escapes gone, and its template: the line with everything that
//! changes from one occurrence to the next (numbers, hex ids, progress bars) folded, so the same
//! message from 64 ranks, or at every step, counts as one.
//!
//! The template depends only on the line's *shape*, its bytes with every digit alike (which
//! digit a number has never matters, only where digits are), so [`shape_hash`], a few
//! instructions a byte, stands in for the template of a line whose shape was seen before: the
//! log reader folds a template once per shape, not once per line.
//!
//! Pure functions over `&str`; nothing here knows about files or the taxonomy.

/// The longest piece of a line kept for showing and matching; a longer line is cut here.
pub const MAX_LINE_CHARS: usize = 400;

/// `line` without ANSI escape sequences (colour codes that loggers write into files).
pub fn strip_escapes(line: &str) -> std::borrow::Cow<'_, str> {
    if memchr::memchr(0x1b, line.as_bytes()).is_none() {
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
    message_and_rank(line).0
}

/// [`message`], and the rank the first launcher prefix names (`[rank3]:` and `[default3]:` 3,
/// mpirun's `[1,3]<stderr>:` 3, srun's `3: ` 3).
pub fn message_and_rank(line: &str) -> (&str, Option<u32>) {
    let mut rest = line;
    let mut rank = None;
    loop {
        let before = rest;
        if let Some((tail, inner)) = bracket_prefix(rest) {
            rest = tail;
            let digits = inner.rsplit(',').next().unwrap_or(inner);
            rank = rank.or_else(|| digits.parse().ok());
        } else if let Some(tail) = label_prefix(rest) {
            rest = tail;
            let digits = &before[..before.bytes().take_while(u8::is_ascii_digit).count()];
            rank = rank.or_else(|| digits.parse().ok());
        }
        if rest.len() == before.len() {
            return (rest, rank);
        }
    }
}

/// `[rank3]:` / `[default0]:` / `[1,3]<stderr>:` at the start of `line`: the rest after it, and
/// the digits inside the brackets (`3`, `0`, `1,3`).
fn bracket_prefix(line: &str) -> Option<(&str, &str)> {
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
    Some((tail.strip_prefix(' ').unwrap_or(tail), launcher))
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
/// digit in it (addresses, hashes, uuids' parts), or `0x…`. (Any digit before the `x` counts, as
/// only the shape of a word may decide: `2x8` is taken for hex too.)
fn is_hex_id(word: &[u8]) -> bool {
    if let Some(hex) = hex_prefixed(word) {
        return !hex.is_empty() && hex.iter().all(u8::is_ascii_hexdigit);
    }
    word.len() >= 6 && word.iter().all(u8::is_ascii_hexdigit) && word.iter().any(u8::is_ascii_digit)
}

/// What follows `0x` (or `0X`: any digit and an x) at the start of `word`.
fn hex_prefixed(word: &[u8]) -> Option<&[u8]> {
    match word {
        [d, b'x' | b'X', hex @ ..] if d.is_ascii_digit() => Some(hex),
        _ => None,
    }
}

/// A hash of `message`'s shape: its bytes with every ASCII digit alike. Lines of one shape have
/// one template ([`template`] looks at where digits are, never at which they are); eight bytes
/// at a time, so it costs a fraction of folding the template.
pub fn shape_hash(message: &str) -> u64 {
    let bytes = message.as_bytes();
    let mut hash = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in chunks.by_ref() {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        hash = (hash.rotate_left(23) ^ digits_alike(word)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    hash =
        (hash.rotate_left(23) ^ digits_alike(u64::from_le_bytes(last))).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    // The finaliser of MurmurHash3: every input bit moves every output bit.
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    hash ^ (hash >> 33)
}

/// Eight bytes with each ASCII digit made `0` (and nothing else changed), without a branch.
fn digits_alike(word: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    // A digit is 0x30..=0x39: xor with 0x30 leaves it below 10, and every other byte at 10 or
    // more. Adding 118 to the low seven bits sets a byte's top bit when they are 10 or more
    // (never carrying into the next byte); a byte whose own top bit is set is no digit either.
    let t = word ^ (0x30 * ONES);
    let not_digit = (((t & LOW7) + 118 * ONES) | t) & HIGH;
    let digit = (!not_digit & HIGH) >> 7;
    let mask = digit * 0xff;
    (word & !mask) | ((0x30 * ONES) & mask)
}

/// Characters progress bars are drawn with; a run of them is folded to one.
fn is_bar(c: char) -> bool {
    matches!(c, '\u{2580}'..='\u{259f}' | '#' | '=' | '>' | '-' | '.' | '·')
}

/// The template of a message: numbers (digit runs inside words too: `rank3` is `rank#`), hex ids
/// and the letter-and-number parts of host names (`gpu-b05` is `gpu-#`) become `#`, runs of progress-bar characters and of spaces become one, so two lines that
/// differ only in what changes between occurrences have the same template.
pub fn template(message: &str) -> String {
    let mut out = Vec::with_capacity(message.len().min(MAX_LINE_CHARS));
    fold_into(message, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// [`template`] written into `out` (cleared first), so the log reader reuses one buffer for every
/// line and hashes it once.
///
/// One pass over the bytes, a table lookup each: a log is nearly all ASCII and short words, so
/// what costs is per byte and per word, not per character decoded. A word is written as it is
/// read (its digit runs as `#`) and, when it ends and turns out to be a hex id, replaced by `#`.
/// Other characters are decoded and taken whole.
pub fn fold_into(message: &str, out: &mut Vec<u8>) {
    out.clear();
    out.reserve(message.len().min(MAX_LINE_CHARS * 2) + 8);
    let bytes = message.as_bytes();
    // The word being read: where it started in `bytes` (NO_WORD: none) and in `out`, whether a
    // digit was in it, whether it has had only hex digits.
    let (mut word_from, mut word_written, mut word_digits, mut word_hex) = (NO_WORD, 0, false, true);
    // The last character written outside words (NO_CHAR: none) and whether it draws bars, to
    // fold runs.
    let (mut last, mut last_bar) = (NO_CHAR, false);
    let mut i = 0;
    while i < bytes.len() && out.len() < MAX_LINE_CHARS * 2 {
        let b = bytes[i];
        let class = CLASS[usize::from(b)];
        let (c, len, bar) = match class {
            OTHER => (u32::from(b), 1, false),
            BAR => (u32::from(b), 1, true),
            NON_ASCII => {
                let (c, len) = char_at(message, i);
                if c.is_alphanumeric() {
                    if word_from == NO_WORD {
                        (word_from, word_written, word_digits) = (i, out.len(), false);
                    }
                    out.extend_from_slice(&bytes[i..i + len]);
                    word_hex = false;
                    (last, last_bar) = (NO_CHAR, false);
                    i += len;
                    continue;
                }
                (u32::from(c), len, is_bar(c))
            }
            _ => {
                if word_from == NO_WORD {
                    (word_from, word_written, word_digits, word_hex) = (i, out.len(), false, true);
                }
                if class == DIGIT {
                    // A run of digits is one `#`.
                    word_digits = true;
                    i += 1;
                    while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                        i += 1;
                    }
                    out.push(b'#');
                } else {
                    // A run of letters, copied as it is scanned (a call to copy each short run
                    // would cost more than the run).
                    word_hex &= class == HEX_LETTER;
                    out.push(b);
                    i += 1;
                    while let Some(&b) = bytes.get(i) {
                        match CLASS[usize::from(b)] {
                            HEX_LETTER => {}
                            LETTER => word_hex = false,
                            _ => break,
                        }
                        out.push(b);
                        i += 1;
                    }
                }
                (last, last_bar) = (NO_CHAR, false);
                continue;
            }
        };
        // Outside words: the word before ends (a hex id is `#`, whatever was written for it),
        // and runs of one character, or of bar characters, fold.
        if word_from != NO_WORD {
            if word_digits {
                let maybe_hex = word_hex || hex_prefixed(&bytes[word_from..]).is_some();
                word_ends(bytes, (word_from, i), maybe_hex, word_written, out);
            }
            word_from = NO_WORD;
        }
        if last != c && !(last_bar && bar) {
            if len == 1 {
                out.push(b);
            } else {
                out.extend_from_slice(&bytes[i..i + len]);
            }
        }
        (last, last_bar) = (c, bar);
        i += len;
    }
    if word_from != NO_WORD && word_digits {
        word_ends(bytes, (word_from, i), true, word_written, out);
    }
}

/// No word is being read.
const NO_WORD: usize = usize::MAX;
/// No character was written outside a word since the last word.
const NO_CHAR: u32 = u32::MAX;

/// A word with a digit (`bytes[from..to]`, written from `written` in `out`) ends: a hex id (looked
/// for only where the word `maybe_hex`) or a host name's part becomes `#`.
fn word_ends(bytes: &[u8], (from, to): (usize, usize), maybe_hex: bool, written: usize, out: &mut Vec<u8>) {
    if (maybe_hex && is_hex_id(&bytes[from..to])) || is_host_part(bytes, from, to) {
        out.truncate(written);
        out.push(b'#');
    }
}

/// Whether `bytes[from..to]` is one letter and a number after a `-` or a `.`: the rack-and-slot
/// part of a host name (`gpu-b05`, `node-c11.cluster`), whose letter changes from host to host
/// as its digits do, so `srun: error: gpu-b05: task 3: Out Of Memory` and the same line from
/// `gpu-c11` are one template. Only the shape decides (the letter, the digits and the byte
/// before), so a shape still has one template.
fn is_host_part(bytes: &[u8], from: usize, to: usize) -> bool {
    let word = &bytes[from..to];
    from > 0
        && matches!(bytes[from - 1], b'-' | b'.')
        && word.len() >= 2
        && word[0].is_ascii_alphabetic()
        && word[1..].iter().all(u8::is_ascii_digit)
}

/// Byte classes for [`fold_into`].
const OTHER: u8 = 0;
/// An ASCII character progress bars are drawn with ([`is_bar`]).
const BAR: u8 = 6;
const DIGIT: u8 = 1;
const HEX_LETTER: u8 = 2;
const LETTER: u8 = 3;
/// A byte of a non-ASCII character (decoded to be told).
const NON_ASCII: u8 = 4;

/// The class of every byte.
static CLASS: [u8; 256] = {
    let mut class = [NON_ASCII; 256];
    let mut b = 0;
    while b < 128 {
        class[b] = match b as u8 {
            b'0'..=b'9' => DIGIT,
            b'a'..=b'f' | b'A'..=b'F' => HEX_LETTER,
            b'g'..=b'z' | b'G'..=b'Z' => LETTER,
            b'#' | b'=' | b'>' | b'-' | b'.' => BAR,
            _ => OTHER,
        };
        b += 1;
    }
    class
};

/// The character at byte `i` of `text` and its length.
fn char_at(text: &str, i: usize) -> (char, usize) {
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
    fn the_first_launcher_prefix_names_the_rank() {
        for (line, rank) in [
            ("[rank3]: Traceback (most recent call last):", Some(3)),
            ("[default12]:RuntimeError: boom", Some(12)),
            ("[1,7]<stderr>:NCCL WARN x", Some(7)),
            ("5: [rank3]: ValueError: bad", Some(5)),
            ("12:30:01 not a label", None),
            ("[2024-05-01 12:00:00] INFO x", None),
            ("plain", None),
        ] {
            assert_eq!(message_and_rank(line).1, rank, "{line}");
        }
    }

    #[test]
    fn templates_fold_what_changes_between_occurrences() {
        let a = template("[rank3]: step 120 loss 2.31 host gpu-node-17 addr 0x7f3a2c00 id 9f8e7d6c5b");
        let b = template("[rank41]: step 121 loss 2.29 host gpu-node-2 addr 0x7f3a2d10 id 1a2b3c4d5e");
        assert_eq!(a, b);
        assert_eq!(template("Xid 79"), "Xid #");
        // Hosts whose rack letter differs as well as their number.
        assert_eq!(
            template("srun: error: gpu-b05: task 3: Out Of Memory"),
            template("srun: error: gpu-c11: task 12: Out Of Memory")
        );
        assert_eq!(
            template("slurmstepd: error: node-a7.cluster oom"),
            "slurmstepd: error: node-#.cluster oom"
        );
        // A letter and a number elsewhere keep their letter: `fp16` and `bf16` differ.
        assert_ne!(template("using fp16"), template("using bf16"));
        assert_ne!(template("NCCL WARN Timeout"), template("NCCL INFO Timeout"));
        let bar1 = template(" 45%|████▌     | 450/1000 [00:10<00:12, 43.2it/s]");
        let bar2 = template(" 46%|████▋     | 460/1000 [00:10<00:12, 43.9it/s]");
        assert_eq!(bar1, bar2);
    }

    /// The template rule written plainly, character by character, to check the byte-level one.
    fn plain_template(message: &str) -> String {
        let chars: Vec<char> = message.chars().collect();
        let mut out = String::new();
        let mut last: Option<char> = None;
        let mut i = 0;
        while i < chars.len() {
            if chars[i].is_alphanumeric() {
                let start = i;
                while i < chars.len() && chars[i].is_alphanumeric() {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let after_dash = start > 0 && matches!(chars[start - 1], '-' | '.');
                let mut letters = word.chars();
                let host_part = after_dash
                    && letters.next().is_some_and(|c| c.is_ascii_alphabetic())
                    && word.len() >= 2
                    && letters.all(|c| c.is_ascii_digit());
                if is_hex_id(word.as_bytes()) || host_part {
                    out.push('#');
                } else {
                    let mut digits = false;
                    for c in word.chars() {
                        match (c.is_ascii_digit(), digits) {
                            (true, false) => out.push('#'),
                            (true, true) => {}
                            (false, _) => out.push(c),
                        }
                        digits = c.is_ascii_digit();
                    }
                }
                last = None;
                continue;
            }
            let c = chars[i];
            if !last.is_some_and(|l| l == c || (is_bar(l) && is_bar(c))) {
                out.push(c);
            }
            last = Some(c);
            i += 1;
        }
        out
    }

    #[test]
    fn the_byte_level_fold_is_the_plain_rule() {
        for message in [
            "[rank3]: step 120 loss 2.31 host gpu-node-17 addr 0x7f3a2c00 id 9f8e7d6c5b",
            " 45%|████▌     | 450/1000 [00:10<00:12, 43.2it/s]",
            "café9 naïve² Ωmega3 日本語12 x²3 ０１２ ---==>>..·· é",
            "0x 0X1F 0xZZ deadbeef cafe12 abc123def 123abc",
            "srun: error: gpu-b05: task 3: Out Of Memory on node-c11.cluster -O2 x-7 -é5 .z99z -b é-b5",
            "  File \"/usr/lib/python3.10/site-packages/torch/x.py\", line 77, in forward",
            "",
            "####    ####",
        ] {
            let mut out = Vec::new();
            fold_into(message, &mut out);
            assert_eq!(String::from_utf8(out).unwrap(), plain_template(message), "{message}");
        }
    }

    #[test]
    fn digits_are_made_alike_and_nothing_else_changes() {
        for lane in 0..8 {
            for byte in 0..=255u8 {
                let mut bytes = *b"a0Z9 .\xff7";
                bytes[lane] = byte;
                let mut want = bytes;
                want.iter_mut().filter(|b| b.is_ascii_digit()).for_each(|b| *b = b'0');
                let got = digits_alike(u64::from_le_bytes(bytes)).to_le_bytes();
                assert_eq!(got, want, "byte {byte:#x} in lane {lane}");
            }
        }
    }

    #[test]
    fn a_shape_has_one_template() {
        let lines = [
            "[rank3]: step 120 loss 2.31 host gpu-node-17 addr 0x7f3a2c00 id 9f8e7d6c5b",
            "[rank4]: step 987 loss 7.02 host gpu-node-92 addr 0x1f9a5c42 id 0f1e2d3c4b",
            "step 120 of 2x8 and 9x9 and 12x4 a1b2c3 123456 a00000",
            "step 999 of 0x8 and 1x0 and 99x1 a9b8c7 000000 a99999",
        ];
        assert_eq!(shape_hash(lines[0]), shape_hash(lines[1]));
        assert_eq!(template(lines[0]), template(lines[1]));
        assert_eq!(shape_hash(lines[2]), shape_hash(lines[3]));
        assert_eq!(template(lines[2]), template(lines[3]));
        assert_eq!(template(lines[2]), "step # of # and # and #x# # # #");
        assert_ne!(shape_hash("step 12"), shape_hash("step 123"));
        assert_ne!(shape_hash("abcdefgh1"), shape_hash("abcdefgh"));
        assert_ne!(shape_hash("x"), shape_hash("x\0"));
    }

    #[test]
    fn escapes_are_stripped_and_long_lines_clipped() {
        assert_eq!(strip_escapes("\u{1b}[31mERROR\u{1b}[0m: x"), "ERROR: x");
        assert_eq!(strip_escapes("plain"), "plain");
        let long = "x".repeat(MAX_LINE_CHARS + 10);
        assert_eq!(clip(&long).len(), MAX_LINE_CHARS);
    }
}
