//! Reading a job's log down to the few lines that carry its failure.
//!
//! An on-call engineer's input is the job's whole log: a torchrun banner, NCCL's start-up lines
//! from every rank, Python warnings, step lines, progress bars, checkpoint saves, and somewhere
//! in it one real failure. [`LogReader`] streams any number of logs (plain or gzip, of any size,
//! in bounded memory), reduces every line to a template ([`line::template`]: what changes between
//! occurrences folded) and counts the templates, weighs each line by what it says about a failure
//! ([`salience`]), and keeps, per template, where it was first seen. [`LogReader::finish`] scores
//! each template by its weight, less the more often it occurs (a template seen thousands of
//! times is noise, whatever its words), and returns the [`Digest`]: what was read and the lines
//! that stood out, with their line numbers. Those lines, not the whole text, are what is searched.
//!
//! The same line from 64 ranks is one template, shown once with its count. Nothing here knows
//! about cases or the search engine; the taxonomy's signatures come in as plain strings.

pub mod line;
pub mod salience;

use std::{
    collections::HashMap,
    hash::{BuildHasher, BuildHasherDefault, Hasher},
    io::{BufRead, BufReader, Read},
};

use rustc_hash::FxHasher;

use self::salience::Salience;

/// At most this many lines stand out.
pub const MAX_EVIDENCE: usize = 8;
/// A template seen up to this many times is not noise for it (the same line from every rank of
/// a large job, a retry loop); beyond, its weight falls with the logarithm of its count.
const NOISE_FREE_COUNT: f32 = 256.0;
/// A line stands out when it scores at least this share of the best line…
const SHARE_OF_BEST: f32 = 0.4;
/// …and at least this much.
const MIN_SCORE: f32 = 0.9;
/// Distinct templates counted; past this, new templates are still read and weighed but no
/// longer counted (a log of millions of distinct lines is not what anyone reads).
const MAX_TEMPLATES: usize = 1 << 20;
/// Candidate lines kept while reading (the weightiest, pruned as they grow).
const MAX_CANDIDATES: usize = 4096;
/// Lines kept from the end of the input, for a log in which nothing stands out.
const TAIL_LINES: usize = 8;
/// Bytes of a line read at most; the rest of a longer line is skipped.
const MAX_LINE_BYTES: usize = 64 << 10;

type FxBuild = BuildHasherDefault<FxHasher>;

/// A line that stood out.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Evidence {
    /// The input it came from (a file name, `<stdin>`, `<paste>`).
    pub source: String,
    /// Its 1-based line number there (its first occurrence).
    pub line: u64,
    /// Its text, without the launcher's prefix, cut to [`line::MAX_LINE_CHARS`], made safe to
    /// show (`text::one_line`: no control character survives).
    pub text: String,
    /// How many lines had the same template.
    pub count: u64,
    /// How much it says about a failure, its count considered (higher stands out more).
    pub score: f32,
}

/// What reading a log found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Digest {
    /// Lines read.
    pub lines: u64,
    /// Bytes read (after decompression).
    pub bytes: u64,
    /// Distinct templates among the lines (at most `MAX_TEMPLATES` are counted).
    pub templates: usize,
    /// The lines that stood out, most telling first; when none did, the last lines of the input
    /// (with a score of 0).
    pub evidence: Vec<Evidence>,
}

impl Digest {
    /// The text to search: the lines that stood out, one a line, most telling first.
    pub fn query_text(&self) -> String {
        let mut text = String::new();
        for e in &self.evidence {
            text.push_str(&e.text);
            text.push('\n');
        }
        text
    }

    /// Whether any line stood out (rather than the tail standing in).
    pub fn stood_out(&self) -> bool {
        self.evidence.iter().any(|e| e.score > 0.0)
    }
}

/// A line that may stand out, as first seen.
#[derive(Debug, Clone)]
struct Candidate {
    source: usize,
    line: u64,
    text: String,
    weight: f32,
}

/// Reads logs line by line into a [`Digest`]; see the module docs.
#[derive(Debug)]
pub struct LogReader {
    salience: Salience,
    sources: Vec<String>,
    /// Template hash -> (lines with it, its weight).
    counts: HashMap<u64, (u32, f32), FxBuild>,
    candidates: HashMap<u64, Candidate, FxBuild>,
    tail: std::collections::VecDeque<(usize, u64, String)>,
    lines: u64,
    bytes: u64,
    in_traceback: bool,
    hasher: FxBuild,
}

impl LogReader {
    /// A reader that also weighs `signatures` (the taxonomy's log fragments) as failure markers.
    pub fn new<'a>(signatures: impl IntoIterator<Item = &'a str>) -> LogReader {
        LogReader {
            salience: Salience::new(signatures),
            sources: Vec::new(),
            counts: HashMap::default(),
            candidates: HashMap::default(),
            tail: std::collections::VecDeque::with_capacity(TAIL_LINES + 1),
            lines: 0,
            bytes: 0,
            in_traceback: false,
            hasher: FxBuild::default(),
        }
    }

    /// Read one whole input named `source`, gzip or plain (told by its first bytes, not its
    /// name). Invalid UTF-8 is replaced; a line longer than 64 KiB is cut.
    pub fn read(&mut self, source: &str, input: impl Read) -> std::io::Result<()> {
        let mut buffered = BufReader::with_capacity(256 << 10, input);
        let gzip = buffered.fill_buf()?.starts_with(&[0x1f, 0x8b]);
        if gzip {
            let decoder = flate2::bufread::MultiGzDecoder::new(buffered);
            self.read_lines(source, BufReader::with_capacity(256 << 10, decoder))
        } else {
            self.read_lines(source, buffered)
        }
    }

    /// Read `text` held in memory (a paste) as the input `source`.
    pub fn read_text(&mut self, source: &str, text: &str) {
        // Reading from memory cannot fail.
        let _ = self.read_lines(source, text.as_bytes());
    }

    fn read_lines(&mut self, source: &str, mut input: impl BufRead) -> std::io::Result<()> {
        let source = {
            self.sources.push(source.to_string());
            self.sources.len() - 1
        };
        self.in_traceback = false;
        let mut line_no: u64 = 0;
        let mut buf: Vec<u8> = Vec::with_capacity(1024);
        loop {
            buf.clear();
            let read = read_line_capped(&mut input, &mut buf)?;
            if read == 0 {
                break;
            }
            self.bytes += read as u64;
            line_no += 1;
            let text = String::from_utf8_lossy(&buf);
            let text = text.trim_end_matches(['\n', '\r']);
            // Progress bars rewrite their line with carriage returns: each part is a record.
            for record in text.split('\r') {
                self.feed(source, line_no, record);
            }
        }
        self.lines += line_no;
        Ok(())
    }

    /// Count and weigh one record of line `line_no` of input `source`.
    fn feed(&mut self, source: usize, line_no: u64, raw: &str) {
        let clean = line::strip_escapes(raw);
        let message = line::message(&clean);
        if message.trim().is_empty() {
            return;
        }
        let key = {
            let mut hasher = self.hasher.build_hasher();
            line::fold(message.trim(), &mut |piece| hasher.write(piece));
            hasher.finish()
        };
        let starts_traceback = message.starts_with("Traceback (most recent call last)");
        // A template seen before weighs what it weighed then: lines that differ only in numbers
        // say the same thing, so the markers are looked for once per template. Inside a
        // traceback the place of a line matters, so it is weighed again there.
        if !self.in_traceback
            && !starts_traceback
            && let Some(seen) = self.counts.get_mut(&key)
        {
            seen.0 = seen.0.saturating_add(1);
        } else {
            let weight = self.weigh(message, starts_traceback);
            let room = self.counts.len() < MAX_TEMPLATES;
            match self.counts.get_mut(&key) {
                Some(seen) => {
                    seen.0 = seen.0.saturating_add(1);
                    seen.1 = seen.1.max(weight);
                }
                None if room => {
                    self.counts.insert(key, (1, weight));
                }
                None => {}
            }
            if weight > 0.0 {
                let entry = self.candidates.entry(key).or_insert_with(|| Candidate {
                    source,
                    line: line_no,
                    text: crate::text::one_line(line::clip(message.trim())),
                    weight,
                });
                entry.weight = entry.weight.max(weight);
                if self.candidates.len() > 2 * MAX_CANDIDATES {
                    self.prune();
                }
            }
        }
        // The last lines, in buffers reused line after line.
        let mut slot = if self.tail.len() == TAIL_LINES {
            self.tail.pop_front().map(|(_, _, text)| text).unwrap_or_default()
        } else {
            String::new()
        };
        slot.clear();
        slot.push_str(line::clip(message.trim()));
        self.tail.push_back((source, line_no, slot));
    }

    /// The weight of `message` where it stands: a frame inside a traceback weighs less, the line
    /// that ends one names the exception.
    fn weigh(&mut self, message: &str, starts_traceback: bool) -> f32 {
        let indented = message.starts_with([' ', '\t']);
        let in_frame = self.in_traceback && indented;
        let mut weight = self.salience.weigh(message, in_frame);
        if self.in_traceback && !indented {
            self.in_traceback = false;
            if salience::is_exception_line(message.trim_start()) {
                weight = weight.max(salience::EXCEPTION);
            }
        }
        if starts_traceback {
            self.in_traceback = true;
        }
        weight
    }

    /// Keep the weightiest candidates (ties: the first seen).
    fn prune(&mut self) {
        let mut all: Vec<(u64, Candidate)> = self.candidates.drain().collect();
        all.sort_by(|a, b| b.1.weight.total_cmp(&a.1.weight).then(a.1.line.cmp(&b.1.line)));
        all.truncate(MAX_CANDIDATES);
        self.candidates.extend(all);
    }

    /// The digest of everything read.
    pub fn finish(self) -> Digest {
        let count_of = |key: &u64| u64::from(self.counts.get(key).map_or(1, |c| c.0));
        let mut scored: Vec<Evidence> = self
            .candidates
            .iter()
            .map(|(key, c)| {
                let count = count_of(key);
                Evidence {
                    source: self.sources.get(c.source).cloned().unwrap_or_default(),
                    line: c.line,
                    text: c.text.clone(),
                    count,
                    score: c.weight * noise_factor(count),
                }
            })
            .collect();
        let order = |a: &Evidence, b: &Evidence| {
            b.score.total_cmp(&a.score).then(a.source.cmp(&b.source)).then(a.line.cmp(&b.line))
        };
        scored.sort_by(order);
        let best = scored.first().map_or(0.0, |e| e.score);
        let mut evidence: Vec<Evidence> = scored
            .into_iter()
            .take_while(|e| e.score >= MIN_SCORE && e.score >= SHARE_OF_BEST * best)
            .take(MAX_EVIDENCE)
            .collect();
        if evidence.is_empty() {
            let mut seen = std::collections::HashSet::new();
            evidence = self
                .tail
                .iter()
                .filter(|(_, _, text)| seen.insert(text.clone()))
                .map(|(source, line, text)| Evidence {
                    source: self.sources.get(*source).cloned().unwrap_or_default(),
                    line: *line,
                    text: crate::text::one_line(text),
                    count: 1,
                    score: 0.0,
                })
                .collect();
        }
        Digest { lines: self.lines, bytes: self.bytes, templates: self.counts.len(), evidence }
    }
}

/// 1 up to [`NOISE_FREE_COUNT`] occurrences, then falling with the logarithm of the count.
fn noise_factor(count: u64) -> f32 {
    let count = count as f32;
    if count <= NOISE_FREE_COUNT { 1.0 } else { 1.0 / (1.0 + (count / NOISE_FREE_COUNT).ln()) }
}

/// Read one line into `buf` (its newline included), keeping at most [`MAX_LINE_BYTES`] of it;
/// returns the bytes consumed (0 at the end of the input).
fn read_line_capped(input: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut consumed = 0;
    loop {
        let available = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(consumed);
        }
        let (chunk, done) = match memchr::memchr(b'\n', available) {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let room = MAX_LINE_BYTES.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let n = chunk.len();
        consumed += n;
        input.consume(n);
        if done {
            return Ok(consumed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(text: &str) -> Digest {
        let mut reader = LogReader::new(["Stale file handle"]);
        reader.read_text("<paste>", text);
        reader.finish()
    }

    #[test]
    fn the_failure_stands_out_of_the_noise() {
        let mut log = String::new();
        for step in 0..5000 {
            log.push_str(&format!("[rank{}]: step {step} loss 2.{step} lr 3e-4\n", step % 64));
            if step % 7 == 0 {
                log.push_str(&format!(
                    "[rank{}]: node-{}:1:2 [0] NCCL INFO Channel 0{} via NVLS\n",
                    step % 64,
                    step % 8,
                    step % 4
                ));
            }
            if step % 3 == 0 {
                log.push_str("/x/torch/utils.py:12: UserWarning: TypedStorage is deprecated\n");
            }
        }
        log.push_str("[rank5]: Traceback (most recent call last):\n");
        log.push_str("[rank5]:   File \"train.py\", line 3, in <module>\n");
        log.push_str("[rank5]:     raise RuntimeError(\"x\")\n");
        log.push_str("[rank5]: RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error.\n");
        for step in 5000..6000 {
            log.push_str(&format!("[rank{}]: step {step} loss 2.0\n", step % 64));
        }
        let d = digest(&log);
        assert_eq!(d.lines as usize, log.lines().count());
        let first = &d.evidence[0];
        assert!(first.text.starts_with("RuntimeError: DataLoader worker"), "{d:#?}");
        assert_eq!(first.score, salience::EXCEPTION);
        assert!(
            d.evidence.iter().all(|e| !e.text.contains("NCCL INFO") && !e.text.contains("UserWarning")),
            "{d:#?}"
        );
        assert!(d.stood_out());
    }

    #[test]
    fn one_line_from_many_ranks_is_one_piece_of_evidence() {
        let log: String = (0..64)
            .map(|r| {
                format!("[rank{r}]: [E] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={r})\n")
            })
            .collect();
        let d = digest(&log);
        assert_eq!(d.evidence.len(), 1, "{d:#?}");
        assert_eq!(d.evidence[0].count, 64);
        assert_eq!(d.evidence[0].line, 1);
    }

    #[test]
    fn a_line_seen_thousands_of_times_is_noise() {
        let mut log: String = (0..20_000).map(|i| format!("WARNING retrying request {i}\n")).collect();
        log.push_str("mv: cannot move 'ckpt': Stale file handle\n");
        let d = digest(&log);
        assert!(d.evidence[0].text.contains("Stale file handle"), "{d:#?}");
    }

    #[test]
    fn a_quiet_log_offers_its_last_lines() {
        let d = digest("starting\nstep 1\nstep 2\nall done\n");
        assert!(!d.stood_out());
        assert_eq!(d.evidence.last().map(|e| e.text.as_str()), Some("all done"));
        assert!(digest("").evidence.is_empty());
    }

    #[test]
    fn gzip_is_read_by_its_magic_bytes() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"ok\nNVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n").unwrap();
        let bytes = gz.finish().unwrap();
        let mut reader = LogReader::new([]);
        reader.read("job.log.gz", bytes.as_slice()).unwrap();
        let d = reader.finish();
        assert_eq!(d.lines, 2);
        assert!(d.evidence[0].text.starts_with("NVRM: Xid"), "{d:#?}");
        assert_eq!(d.evidence[0].line, 2);
    }

    #[test]
    fn long_lines_and_carriage_returns_are_bounded() {
        let mut log = "x".repeat(MAX_LINE_BYTES * 3);
        log.push_str("\n 10%|█| 1/10\r 20%|██| 2/10\r100%|████| 10/10\nERROR: boom\n");
        let d = digest(&log);
        assert_eq!(d.lines, 3);
        assert!(d.evidence[0].text.starts_with("ERROR: boom"));
        assert_eq!(d.evidence[0].line, 3);
    }
}
