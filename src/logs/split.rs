//! Cutting an input into blocks of whole lines, so that several threads can read one log.
//!
//! [`split`] reads a stream to its end and hands out [`Block`]s of about a given size, each cut
//! after a newline, each numbered (the lines before it) and each carrying the one piece of
//! state a line's weight depends on beyond its own text: whether it starts inside a Python
//! traceback. That state is found by looking back from the end of the block to its last line
//! that decides it ([`traceback_after`]), so a block can be read on any thread, in any order,
//! and weigh every line exactly as reading the whole log in one pass would.
//!
//! A line longer than [`MAX_LINE_BYTES`] keeps its first bytes; the rest is skipped as it
//! streams by, so memory stays bounded by the block size whatever the input.

use std::{
    borrow::Cow,
    io::{self, BufRead},
};

use super::line;

/// Bytes of a line read at most; the rest of a longer line is skipped.
pub const MAX_LINE_BYTES: usize = 64 << 10;

/// What a Python traceback starts with.
pub const TRACEBACK: &str = "Traceback (most recent call last)";

/// Whole lines of one input.
#[derive(Debug)]
pub struct Block {
    /// Which input (an index the reader gave it).
    pub source: usize,
    /// Lines of the input before this block (its first line is number `lines_before + 1`).
    pub lines_before: u64,
    /// Whether the block starts inside a traceback.
    pub in_traceback: bool,
    /// The last line of the input before this block that is not blank (empty when none): what
    /// came just before the block's first line, so a block read alone knows it
    /// ([`Tally`](super::tally::Tally) keeps the line before each new template's first line).
    pub line_before: Vec<u8>,
    /// The lines, each ending in a newline but perhaps the input's last; a line is at most
    /// [`MAX_LINE_BYTES`] long where it crossed a read, and is cut there by [`lines`] otherwise.
    pub bytes: Vec<u8>,
}

/// The lines of `bytes` without their newlines, each cut to [`MAX_LINE_BYTES`]; the last needs
/// no newline. No bytes is no line, one newline is one (empty) line.
pub fn lines(bytes: &[u8]) -> Lines<'_> {
    Lines { rest: bytes }
}

/// The number of lines in `bytes` (as [`lines`] counts them), without looking at them.
pub fn count_lines(bytes: &[u8]) -> u64 {
    count_newlines(bytes) + u64::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// See [`lines`]: found with `memchr`, from either end.
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    rest: &'a [u8],
}

/// Whether `b` is a byte a blank line may hold besides its newline (what `str::trim` takes off
/// of ASCII): a run of such lines is skipped at memory speed, not line by line.
fn blank(b: u8) -> bool {
    matches!(b, b'\n' | b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// Whether `line` holds nothing but what [`Lines::skip_blank`] skips.
pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| blank(b))
}

/// The last line of `bytes` that is not blank, if any.
fn last_line(bytes: &[u8]) -> Option<&[u8]> {
    let mut rest = lines(bytes);
    rest.skip_blank_back();
    rest.next_back()
}

impl Lines<'_> {
    /// Skip the whole lines at the front that hold nothing but spaces, tabs and carriage
    /// returns; how many were skipped. Such a line says nothing: reading it changes no count.
    pub fn skip_blank(&mut self) -> u64 {
        if self.rest.first().is_none_or(|&b| !blank(b)) {
            return 0;
        }
        let run = self.rest.iter().position(|&b| !blank(b)).unwrap_or(self.rest.len());
        let Some(last) = memchr::memrchr(b'\n', &self.rest[..run]) else { return 0 };
        let skipped = count_newlines(&self.rest[..=last]);
        self.rest = &self.rest[last + 1..];
        skipped
    }

    /// Skip the whole lines at the front that are `line` again (a line just taken, shorter than
    /// [`MAX_LINE_BYTES`]); how many were skipped. A run of them is compared in spans that
    /// double, then halve: a few comparisons of memory, however many lines.
    pub fn skip_repeats(&mut self, line: &[u8]) -> u64 {
        if line.len() >= MAX_LINE_BYTES {
            return 0;
        }
        let width = line.len() + 1;
        let rest = self.rest;
        if rest.len() < width || rest[width - 1] != b'\n' || &rest[..line.len()] != line {
            return 0;
        }
        // `done` lines at the front are known to be `line`: the next `step` lines are too when
        // they equal the first `step`.
        let same = |done: usize, step: usize| {
            let (from, to) = (done * width, (done + step) * width);
            to <= rest.len() && rest[from..to] == rest[..step * width]
        };
        let mut done = 1;
        while same(done, done) {
            done *= 2;
        }
        let mut step = done / 2;
        while step > 0 {
            if same(done, step) {
                done += step;
            }
            step /= 2;
        }
        self.rest = &rest[done * width..];
        done as u64
    }

    /// [`skip_blank`](Self::skip_blank) from the back: the blank lines at the end.
    pub fn skip_blank_back(&mut self) -> u64 {
        let Some(last_word) = self.rest.iter().rposition(|&b| !blank(b)) else {
            let skipped = count_lines(self.rest);
            self.rest = &self.rest[..0];
            return skipped;
        };
        // The line holding the last word ends at the next newline; all after it is blank.
        let Some(end) = memchr::memchr(b'\n', &self.rest[last_word..]).map(|i| last_word + i) else {
            return 0;
        };
        let skipped = count_lines(&self.rest[end + 1..]);
        self.rest = &self.rest[..=end];
        skipped
    }
}

/// Newlines in `bytes`.
fn count_newlines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

fn cut(line: &[u8]) -> &[u8] {
    &line[..line.len().min(MAX_LINE_BYTES)]
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.rest.is_empty() {
            return None;
        }
        let (line, rest) = match memchr::memchr(b'\n', self.rest) {
            Some(i) => (&self.rest[..i], &self.rest[i + 1..]),
            None => (self.rest, &self.rest[self.rest.len()..]),
        };
        self.rest = rest;
        Some(cut(line))
    }
}

impl<'a> DoubleEndedIterator for Lines<'a> {
    fn next_back(&mut self) -> Option<&'a [u8]> {
        if self.rest.is_empty() {
            return None;
        }
        // The last line ends at the end, or at a final newline.
        let body = self.rest.strip_suffix(b"\n").unwrap_or(self.rest);
        let (rest, line) = match memchr::memrchr(b'\n', body) {
            Some(i) => (&self.rest[..=i], &body[i + 1..]),
            None => (&self.rest[..0], body),
        };
        self.rest = rest;
        Some(cut(line))
    }
}

/// The records of a line: its text (invalid UTF-8 replaced) without its line ending, split at
/// carriage returns (a progress bar rewrites its line with them: each part is a record).
pub fn text(line: &[u8]) -> Cow<'_, str> {
    // Valid UTF-8 (nearly every line) is checked by the quicker path.
    if let Ok(text) = std::str::from_utf8(line) {
        return Cow::Borrowed(text.trim_end_matches(['\n', '\r']));
    }
    match String::from_utf8_lossy(line) {
        Cow::Borrowed(s) => Cow::Borrowed(s.trim_end_matches(['\n', '\r'])),
        Cow::Owned(s) => Cow::Owned(s.trim_end_matches(['\n', '\r']).to_string()),
    }
}

/// What a record does to the traceback state: `None` when it leaves it as it was (it says
/// nothing, or it is indented: a frame), else whether a traceback is open after it (a line at
/// the margin ends one, and may start the next).
pub fn traceback_transition(message: &str) -> Option<bool> {
    if message.trim().is_empty() || message.starts_with([' ', '\t']) {
        return None;
    }
    Some(message.starts_with(TRACEBACK))
}

/// Whether a traceback is open after the lines of `bytes`, given whether one was before them.
/// Looks back from the last line, and usually stops there.
pub fn traceback_after(bytes: &[u8], before: bool) -> bool {
    let mut lines = lines(bytes);
    loop {
        lines.skip_blank_back();
        let Some(line) = lines.next_back() else { break };
        for record in text(line).rsplit('\r') {
            let clean = line::strip_escapes(record);
            if let Some(open) = traceback_transition(line::message(&clean)) {
                return open;
            }
        }
    }
    before
}

/// Read `input` to its end as blocks of whole lines of about `block_bytes` each, passing each
/// to `deliver` (which returns `false` to stop early: the reading was cancelled). Block
/// buffers come from `spare` (an empty `Vec` when none is left over). Returns the lines and
/// the bytes read.
pub fn split(
    input: &mut impl BufRead,
    source: usize,
    block_bytes: usize,
    mut spare: impl FnMut() -> Vec<u8>,
    mut deliver: impl FnMut(Block) -> bool,
) -> io::Result<Stream> {
    let block_bytes = block_bytes.max(1);
    let mut stream = Stream::default();
    let mut in_traceback = false;
    let mut line_before: Vec<u8> = Vec::new();
    let mut block = Builder::new(spare());
    loop {
        let available = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            break;
        }
        // Up to a newline: the last one within the room left in the block, else the first one
        // past it; without any, the whole (a long line crossing reads).
        let room = block_bytes.saturating_sub(block.bytes.len()).max(1);
        let end = match memchr::memrchr(b'\n', &available[..available.len().min(room)]) {
            Some(i) => Some(i),
            None if available.len() > room => memchr::memchr(b'\n', &available[room..]).map(|i| room + i),
            None => None,
        };
        let taken = end.map_or(available.len(), |i| i + 1);
        block.push(&available[..taken]);
        input.consume(taken);
        stream.bytes += taken as u64;
        if block.bytes.len() >= block_bytes && block.at_line_end() {
            let full = block.take(spare());
            let lines = count_lines(&full);
            let starts_in_traceback = in_traceback;
            in_traceback = traceback_after(&full, in_traceback);
            let before = match last_line(&full) {
                Some(last) => std::mem::replace(&mut line_before, last.to_vec()),
                None => line_before.clone(),
            };
            let done = Block {
                source,
                lines_before: stream.lines,
                in_traceback: starts_in_traceback,
                line_before: before,
                bytes: full,
            };
            stream.lines += lines;
            if !deliver(done) {
                stream.stopped = true;
                return Ok(stream);
            }
        }
    }
    if !block.bytes.is_empty() {
        let last = block.take(Vec::new());
        let lines = count_lines(&last);
        let done = Block { source, lines_before: stream.lines, in_traceback, line_before, bytes: last };
        stream.lines += lines;
        stream.stopped = !deliver(done);
    }
    Ok(stream)
}

/// What [`split`] read.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Stream {
    /// Lines read.
    pub lines: u64,
    /// Bytes read.
    pub bytes: u64,
    /// Whether the reader was told to stop before the end.
    pub stopped: bool,
}

/// A block being filled: lines copied in, a line too long cut at [`MAX_LINE_BYTES`].
struct Builder {
    bytes: Vec<u8>,
    /// Where the line being copied started.
    line_start: usize,
}

impl Builder {
    fn new(bytes: Vec<u8>) -> Builder {
        let mut bytes = bytes;
        bytes.clear();
        Builder { bytes, line_start: 0 }
    }

    /// Whether the block ends with a whole line.
    fn at_line_end(&self) -> bool {
        self.line_start == self.bytes.len()
    }

    /// Append `piece` of the input: the rest of the line being copied (cut to its limit), whole
    /// lines in one copy (cut later by [`lines`]), and the start of the next.
    fn push(&mut self, piece: &[u8]) {
        let Some(first) = memchr::memchr(b'\n', piece) else {
            self.push_part(piece);
            return;
        };
        self.push_part(&piece[..first]);
        self.bytes.push(b'\n');
        let rest = &piece[first + 1..];
        let whole = memchr::memrchr(b'\n', rest).map_or(0, |i| i + 1);
        self.bytes.extend_from_slice(&rest[..whole]);
        self.line_start = self.bytes.len();
        self.push_part(&rest[whole..]);
    }

    /// Part of the line being copied, as much of it as its limit leaves room for.
    fn push_part(&mut self, part: &[u8]) {
        let room = MAX_LINE_BYTES.saturating_sub(self.bytes.len() - self.line_start);
        self.bytes.extend_from_slice(&part[..part.len().min(room)]);
    }

    /// The block so far, this builder starting again on `fresh`.
    fn take(&mut self, fresh: Vec<u8>) -> Vec<u8> {
        let mut fresh = fresh;
        fresh.clear();
        self.line_start = 0;
        std::mem::replace(&mut self.bytes, fresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(input: &[u8], block_bytes: usize, capacity: usize) -> (Vec<Block>, Stream) {
        let mut out = Vec::new();
        let mut reader = io::BufReader::with_capacity(capacity, input);
        let stream = split(&mut reader, 0, block_bytes, Vec::new, |b| {
            out.push(b);
            true
        })
        .unwrap();
        (out, stream)
    }

    #[test]
    fn blocks_hold_whole_lines_and_count_them() {
        let input: Vec<u8> = (0..1000).flat_map(|i| format!("line {i}\n").into_bytes()).collect();
        for (block_bytes, capacity) in [(64, 16), (100, 4096), (1 << 20, 8), (7, 7)] {
            let (blocks, stream) = blocks(&input, block_bytes, capacity);
            assert_eq!(stream, Stream { lines: 1000, bytes: input.len() as u64, stopped: false });
            let joined: Vec<u8> = blocks.iter().flat_map(|b| b.bytes.clone()).collect();
            assert_eq!(joined, input, "{block_bytes} {capacity}");
            let mut before = 0;
            for b in &blocks {
                assert!(b.bytes.ends_with(b"\n"));
                assert_eq!(b.lines_before, before);
                let first = lines(&b.bytes).next().unwrap();
                assert_eq!(first, format!("line {before}").as_bytes());
                before += lines(&b.bytes).count() as u64;
            }
            if block_bytes < 100 {
                assert!(blocks.len() > 10, "{block_bytes} {capacity}: {}", blocks.len());
            }
        }
    }

    #[test]
    fn the_last_line_needs_no_newline_and_an_empty_line_counts() {
        assert_eq!(lines(b"").count(), 0);
        assert_eq!(lines(b"\n").collect::<Vec<_>>(), [b""]);
        assert_eq!(lines(b"a\n\nb").collect::<Vec<_>>(), [&b"a"[..], b"", b"b"]);
        for bytes in [&b""[..], b"\n", b"\n\n", b"a", b"a\n", b"a\n\nb", b"a\n\nb\n", b"\na"] {
            let forward: Vec<&[u8]> = lines(bytes).collect();
            let mut backward: Vec<&[u8]> = lines(bytes).rev().collect();
            backward.reverse();
            assert_eq!(forward, backward, "{bytes:?}");
            assert_eq!(count_lines(bytes), forward.len() as u64, "{bytes:?}");
        }
        let (_, stream) = blocks(b"a\n\nb", 1, 2);
        assert_eq!(stream.lines, 3);
    }

    #[test]
    fn skipping_blank_lines_from_either_end_counts_them_as_lines() {
        for bytes in [
            &b""[..],
            b"\n",
            b"\n\n \t\r\n",
            b"  ",
            b"\n\na\n\n",
            b" \n  a b\n \n\t\n",
            b"a",
            b"\n \nx\n  \n y \n\n  ",
        ] {
            // Skipping blank lines then taking one, from the front and from the back, gives the
            // non-blank lines in order, and the skipped ones add up to the rest.
            let all: Vec<&[u8]> = lines(bytes).collect();
            let words: Vec<&[u8]> = all.iter().copied().filter(|l| !l.iter().all(|&b| blank(b))).collect();
            let (mut front, mut skipped) = (Vec::new(), 0);
            let mut it = lines(bytes);
            loop {
                skipped += it.skip_blank();
                let Some(line) = it.next() else { break };
                front.push(line);
            }
            assert_eq!(front.len() as u64 + skipped, all.len() as u64, "{bytes:?}");
            let (mut back, mut skipped) = (Vec::new(), 0);
            let mut it = lines(bytes);
            loop {
                skipped += it.skip_blank_back();
                let Some(line) = it.next_back() else { break };
                back.push(line);
            }
            back.reverse();
            assert_eq!(back.len() as u64 + skipped, all.len() as u64, "{bytes:?}");
            let strip = |v: Vec<&[u8]>| -> Vec<Vec<u8>> {
                v.into_iter().filter(|l| !l.iter().all(|&b| blank(b))).map(<[u8]>::to_vec).collect()
            };
            let words: Vec<Vec<u8>> = words.into_iter().map(<[u8]>::to_vec).collect();
            assert_eq!(strip(front), words, "{bytes:?}");
            assert_eq!(strip(back), words, "{bytes:?}");
        }
    }

    #[test]
    fn repeats_of_a_line_are_skipped_and_counted() {
        for (n, after) in [(0, "y\n"), (1, ""), (2, "x"), (5, "xy\n"), (64, "x\n\n"), (1000, "y"), (1023, "")]
        {
            let mut bytes = "x\n".repeat(n);
            bytes.push_str(after);
            let mut it = lines(bytes.as_bytes());
            let skipped = it.skip_repeats(b"x");
            // An "x\n" in `after` is one more repeat.
            let more = u64::from(after.starts_with("x\n"));
            assert_eq!(skipped, n as u64 + more, "{n} {after:?}");
            let left: Vec<&[u8]> = it.collect();
            let want: Vec<&[u8]> = lines(&after.as_bytes()[(more as usize) * 2..]).collect();
            assert_eq!(left, want, "{n} {after:?}");
        }
        let mut it = lines(b"ab\nab\nabc\n");
        assert_eq!(it.skip_repeats(b"ab"), 2);
        assert_eq!(it.next(), Some(&b"abc"[..]));
    }

    #[test]
    fn a_long_line_is_cut_and_memory_stays_bounded() {
        let mut input = vec![b'x'; MAX_LINE_BYTES * 5];
        input.extend_from_slice(b"\nERROR: after\n");
        let (parts, stream) = blocks(&input, 1 << 10, 1 << 12);
        assert_eq!(stream.lines, 2);
        assert!(parts.iter().all(|b| b.bytes.len() <= MAX_LINE_BYTES + (1 << 12) + 1), "bounded");
        let all: Vec<&[u8]> = parts.iter().flat_map(|b| lines(&b.bytes)).collect();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].len(), MAX_LINE_BYTES);
        assert_eq!(all[1], b"ERROR: after");
        // Within one read too.
        let (whole, _) = blocks(&input, 1 << 30, 1 << 30);
        assert_eq!(lines(&whole[0].bytes).next().unwrap().len(), MAX_LINE_BYTES);
    }

    #[test]
    fn each_block_knows_whether_it_starts_inside_a_traceback() {
        let input = "step 1\n[rank0]: Traceback (most recent call last):\n[rank0]:   File \"a.py\", line 1\n\n\
                     [rank0]:     f()\nValueError: bad\nstep 2\nTraceback (most recent call last):\n  File \"b\"\n";
        let (blocks, _) = blocks(input.as_bytes(), 1, 1);
        let open: Vec<bool> = blocks.iter().map(|b| b.in_traceback).collect();
        // Each line is a block: the state before each line.
        assert_eq!(open, [false, false, true, true, true, true, false, false, true]);
        assert!(traceback_after(b"  File \"x\"\n", true));
        assert!(!traceback_after(b"  File \"x\"\n", false));
        assert!(!traceback_after(b"Traceback (most recent call last):\rdone\n", false));
    }

    #[test]
    fn a_cancelled_read_stops_early() {
        let input: Vec<u8> = (0..1000).flat_map(|i| format!("line {i}\n").into_bytes()).collect();
        let mut seen = 0;
        let stream = split(&mut &input[..], 0, 100, Vec::new, |_| {
            seen += 1;
            seen < 3
        })
        .unwrap();
        assert!(stream.stopped);
        assert_eq!(seen, 3);
    }
}
