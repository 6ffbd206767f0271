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
//! The same line from 64 ranks is one template, shown once with its count and the ranks that
//! printed it ([`ranks`]). Nothing here knows
//! about cases or the search engine; the taxonomy's signatures come in as plain strings.
//!
//! A large input is cut into blocks of whole lines (`split`) that the machine's cores read at
//! once, each thread into a `tally::Tally` of its own, merged at the end: a gigabyte takes a
//! few seconds, and the digest is the very one a single pass gives.

pub mod decode;
pub mod line;
pub mod progress;
pub mod ranks;
pub mod salience;
mod split;
mod tally;

use std::{
    io::{self, BufRead, BufReader, Read},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
        mpsc,
    },
};

use self::{
    decode::{CrLines, Encoding, Salvage, Utf16},
    salience::Salience,
    split::{Block, Stream},
    tally::Tally,
};

pub use self::split::MAX_LINE_BYTES;

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
/// The size of the blocks of lines handed to the reading threads: large enough that handing
/// one over costs nothing beside reading it, small enough that the threads share the work
/// evenly and the blocks in flight stay a few megabytes.
const BLOCK_BYTES: usize = 1 << 20;
/// Threads that read blocks at most (beside the one that cuts the input into blocks).
const MAX_THREADS: usize = 4;

/// A line carries the failure when it stands out at least this share as much as the line that
/// stands out most (see [`Digest::failure_text`]).
pub const FAILURE_SHARE: f32 = 0.65;

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
    /// The ranks whose launcher prefix (`[rank3]:`) it was seen under; empty when none was.
    pub ranks: ranks::Ranks,
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
    /// Inputs read (a line's place names its input when there were several).
    pub sources: usize,
    /// Inputs that ended early, damaged: what was read before is in the digest.
    pub damaged: Vec<Damage>,
    /// The line just before the first line that carries the failure (see
    /// [`Digest::failure_text`]), when the log printed it at most [`NOISE_FREE_COUNT`] times,
    /// it is no step record of a healthy run and it did not stand out itself: what the job was
    /// doing when it failed (`saving checkpoint at iteration 2000 … in torch_dist format` before
    /// the OOM killer). Searched with the lines that stood out; suggestions are not read from it.
    pub context: Option<Context>,
}

/// The line just before the first line that carries a log's failure ([`Digest::context`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Context {
    /// The input of the line it came before.
    pub source: String,
    /// The number of the line it came before (the first line that carries the failure).
    pub before: u64,
    /// Its text, clipped and made safe to show.
    pub text: String,
}

/// An input that could not be read to its end: what was read before the damage counts.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Damage {
    /// The input (as named to [`LogReader::read`]).
    pub source: String,
    /// Lines read from it before the damage.
    pub lines: u64,
    /// What was wrong, in words ("the gzip stream ends early", an I/O error).
    pub error: String,
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lines = match self.lines {
            1 => "1 line".to_string(),
            n => format!("{} lines", crate::text::numbers::thousands(n as usize)),
        };
        write!(f, "{}: {}; triaged the {lines} read before it", self.source, self.error)
    }
}

/// What a read error means to the user.
fn damage_words(error: &io::Error, gzip: bool) -> String {
    match error.kind() {
        io::ErrorKind::UnexpectedEof if gzip => "the gzip stream ends early (truncated)".to_string(),
        io::ErrorKind::UnexpectedEof => "the input ends early".to_string(),
        _ if gzip => format!("the gzip stream is damaged ({error})"),
        _ => format!("read error ({error})"),
    }
}

impl Digest {
    /// The lines searched: those that stood out, most telling first, then the line before the
    /// failure ([`Digest::context`]).
    pub fn searched_lines(&self) -> impl Iterator<Item = &str> {
        self.evidence.iter().map(|e| e.text.as_str()).chain(self.context.iter().map(|c| c.text.as_str()))
    }

    /// The text to search: [`Digest::searched_lines`], one a line.
    pub fn query_text(&self) -> String {
        let mut text = String::new();
        for line in self.searched_lines() {
            text.push_str(line);
            text.push('\n');
        }
        text
    }

    /// The lines that carry the failure: those that stand out at least [`FAILURE_SHARE`] as
    /// much as the line that stands out most, one a line. A job's start-up warnings and its
    /// launcher's closing lines stand out a little in every log; what the failure printed stands
    /// out far more, and suggested filters are read from it alone. The whole evidence when no
    /// line stood out.
    pub fn failure_text(&self) -> String {
        let best = self.evidence.iter().map(|e| e.score).fold(0.0, f32::max);
        let mut text = String::new();
        for e in self.evidence.iter().filter(|e| e.score >= FAILURE_SHARE * best) {
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

/// Reads logs into a [`Digest`]; see the module docs.
///
/// An input is cut into blocks of whole lines (`split`) that several threads read at once,
/// each into a `Tally` of its own; the tallies are merged when the input ends. The digest is
/// the same as reading the input in one pass (`tests` compare the two).
pub struct LogReader {
    salience: Salience,
    sources: Vec<String>,
    tally: Tally,
    lines: u64,
    bytes: u64,
    threads: usize,
    block_bytes: usize,
    cancel: Option<Arc<AtomicBool>>,
    damaged: Vec<Damage>,
    on_block: Option<Box<dyn Fn() + Sync + Send>>,
}

impl std::fmt::Debug for LogReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogReader")
            .field("sources", &self.sources)
            .field("lines", &self.lines)
            .field("bytes", &self.bytes)
            .field("damaged", &self.damaged)
            .finish_non_exhaustive()
    }
}

impl LogReader {
    /// A reader that also weighs `signatures` (the taxonomy's log fragments) as failure markers,
    /// and reads on as many threads as there are cores (up to four).
    pub fn new<'a>(signatures: impl IntoIterator<Item = &'a str>) -> LogReader {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        LogReader {
            salience: Salience::new(signatures),
            sources: Vec::new(),
            tally: Tally::new(MAX_TEMPLATES),
            lines: 0,
            bytes: 0,
            threads: cores.min(MAX_THREADS),
            block_bytes: BLOCK_BYTES,
            cancel: None,
            damaged: Vec::new(),
            on_block: None,
        }
    }

    /// Call `tick` after each block of lines is cut from the input (about every megabyte, on
    /// the reading thread): a caller that counts the bytes it hands in can show progress.
    pub fn on_block(mut self, tick: impl Fn() + Sync + Send + 'static) -> LogReader {
        self.on_block = Some(Box::new(tick));
        self
    }

    /// Read on `threads` threads (1: on the calling thread only), in blocks of about
    /// `block_bytes`.
    pub fn with_threads(mut self, threads: usize, block_bytes: usize) -> LogReader {
        self.threads = threads.max(1);
        self.block_bytes = block_bytes.max(1);
        self
    }

    /// Stop reading, at the next block, once `flag` is set: [`read`](Self::read) then ends with
    /// an error of kind [`io::ErrorKind::Interrupted`].
    pub fn cancelled_by(mut self, flag: Arc<AtomicBool>) -> LogReader {
        self.cancel = Some(flag);
        self
    }

    /// Read one whole input named `source`, gzip or plain (told by its first bytes, not its
    /// name), UTF-8 or UTF-16 (told by a BOM or by its NULs), its lines ending in a newline or
    /// in CR alone. Invalid UTF-8 is replaced; a line longer than [`MAX_LINE_BYTES`] is cut.
    ///
    /// An input that is damaged (a truncated or corrupt gzip stream, a read error half way) is
    /// not an error: what was read before the damage is kept, and the damage is listed in the
    /// digest ([`Digest::damaged`]). The one error is [`io::ErrorKind::Interrupted`], when the
    /// reading was cancelled.
    pub fn read(&mut self, source: &str, input: impl Read) -> io::Result<()> {
        let lines_before = self.lines;
        let mut raw = Salvage::new(input);
        let (result, decode_error, gzip) = {
            let mut buffered = BufReader::with_capacity(256 << 10, &mut raw);
            let gzip = buffered.fill_buf()?.starts_with(&[0x1f, 0x8b]);
            if gzip {
                let mut decoded = Salvage::new(flate2::bufread::MultiGzDecoder::new(buffered));
                let result = self.read_decoded(source, BufReader::with_capacity(256 << 10, &mut decoded));
                (result, decoded.take_error(), true)
            } else {
                (self.read_decoded(source, buffered), None, false)
            }
        };
        // A read error under the decompressor shows as a truncated stream: the cause is the
        // read error.
        if let Some(error) = raw.take_error().or(decode_error) {
            let lines = self.lines - lines_before;
            self.damaged.push(Damage {
                source: source.to_string(),
                lines,
                error: damage_words(&error, gzip),
            });
        }
        result
    }

    /// Read `input` (decompressed) as text: UTF-16 decoded, CR-only line ends made newlines.
    fn read_decoded(&mut self, source: &str, mut input: impl BufRead) -> io::Result<()> {
        let head = input.fill_buf()?;
        match decode::sniff(head) {
            Encoding::Utf16 { little, bom } => {
                if bom {
                    input.consume(2);
                }
                self.read_lines(source, BufReader::with_capacity(256 << 10, Utf16::new(input, little)), false)
            }
            Encoding::Bytes if decode::cr_only(head) => {
                self.read_lines(source, BufReader::with_capacity(256 << 10, CrLines::new(input)), false)
            }
            Encoding::Bytes => self.read_lines(source, input, false),
        }
    }

    /// Read `text` held in memory (a paste) as the input `source`. Reading from memory fails
    /// only when cancelled.
    pub fn read_text(&mut self, source: &str, text: &str) -> io::Result<()> {
        // What fits in one block is read on this thread: no thread is worth starting for it.
        let small = text.len() < self.block_bytes;
        self.read_lines(source, text.as_bytes(), small)
    }

    /// Read `input` as the input `source`: on this thread when it is `small` (or only one
    /// thread is wanted), else in blocks on several.
    fn read_lines(&mut self, source: &str, mut input: impl BufRead, small: bool) -> io::Result<()> {
        self.sources.push(source.to_string());
        let source = self.sources.len() - 1;
        let cancel = self.cancel.clone();
        let on_block = self.on_block.take();
        let cancelled = || {
            if let Some(tick) = &on_block {
                tick();
            }
            cancel.as_ref().is_some_and(|flag| flag.load(Ordering::Relaxed))
        };
        let stream = if self.threads <= 1 || small {
            let (salience, tally) = (&self.salience, &mut self.tally);
            split::split(&mut input, source, self.block_bytes, Vec::new, |block| {
                tally.read_block(salience, &block);
                !cancelled()
            })?
        } else {
            self.read_in_parallel(&mut input, source, &cancelled)?
        };
        self.on_block = on_block;
        self.lines += stream.lines;
        self.bytes += stream.bytes;
        if stream.stopped {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "reading the log was cancelled"));
        }
        Ok(())
    }

    /// Cut `input` into blocks on this thread and read them on `self.threads` others.
    fn read_in_parallel(
        &mut self,
        input: &mut impl BufRead,
        source: usize,
        cancelled: &dyn Fn() -> bool,
    ) -> io::Result<Stream> {
        let threads = self.threads;
        let (salience, block_bytes) = (&self.salience, self.block_bytes);
        let per_thread = MAX_TEMPLATES / threads;
        // Two blocks waiting per thread keep every thread busy; blocks come back emptied to be
        // filled again.
        let (blocks, waiting) = mpsc::sync_channel::<Block>(2 * threads);
        let waiting = Mutex::new(waiting);
        let (give_back, returned) = mpsc::channel::<Vec<u8>>();
        std::thread::scope(|scope| {
            let readers: Vec<_> = (0..threads)
                .map(|_| {
                    let (waiting, give_back) = (&waiting, give_back.clone());
                    scope.spawn(move || {
                        let mut tally = Tally::new(per_thread);
                        loop {
                            // The lock is held only until a block is taken.
                            let next =
                                waiting.lock().map_err(|_| ()).and_then(|rx| rx.recv().map_err(|_| ()));
                            let Ok(block) = next else { break };
                            tally.read_block(salience, &block);
                            let _ = give_back.send(block.bytes);
                        }
                        tally
                    })
                })
                .collect();
            drop(give_back);
            let stream = split::split(
                input,
                source,
                block_bytes,
                || returned.try_recv().unwrap_or_default(),
                |block| blocks.send(block).is_ok() && !cancelled(),
            );
            drop(blocks);
            for reader in readers {
                match reader.join() {
                    Ok(tally) => self.tally.merge(tally),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            stream
        })
    }

    /// The digest of everything read.
    pub fn finish(self) -> Digest {
        let source_of = |i: usize| self.sources.get(i).cloned().unwrap_or_default();
        // Each line with the line before its first occurrence, for the context.
        let mut scored: Vec<(Evidence, Option<&(u64, String)>)> = self
            .tally
            .candidates()
            .map(|(key, c)| {
                let count = self.tally.count(key);
                let evidence = Evidence {
                    source: source_of(c.place.0),
                    line: c.place.1,
                    text: c.text.clone(),
                    count,
                    ranks: c.ranks.clone(),
                    score: c.weight * noise_factor(count),
                };
                (evidence, c.before.as_ref())
            })
            .collect();
        scored.sort_by(|(a, _), (b, _)| {
            b.score.total_cmp(&a.score).then(a.source.cmp(&b.source)).then(a.line.cmp(&b.line))
        });
        let best = scored.first().map_or(0.0, |(e, _)| e.score);
        let stood_out: Vec<(Evidence, Option<&(u64, String)>)> = scored
            .into_iter()
            .take_while(|(e, _)| e.score >= MIN_SCORE && e.score >= SHARE_OF_BEST * best)
            .take(MAX_EVIDENCE)
            .collect();
        let context = context(&self.tally, &stood_out);
        let mut evidence: Vec<Evidence> = stood_out.into_iter().map(|(e, _)| e).collect();
        if evidence.is_empty() {
            let mut seen = std::collections::HashSet::new();
            evidence = self
                .tally
                .tail()
                .filter(|(_, text)| seen.insert(text.clone()))
                .map(|((source, line), text)| Evidence {
                    source: source_of(*source),
                    line: *line,
                    text: crate::text::one_line(text),
                    count: 1,
                    ranks: ranks::Ranks::default(),
                    score: 0.0,
                })
                .collect();
        }
        Digest {
            lines: self.lines,
            bytes: self.bytes,
            templates: self.tally.templates(),
            evidence,
            sources: self.sources.len(),
            damaged: self.damaged,
            context,
        }
    }
}

/// [`Digest::context`]: the line before the earliest of the lines that carry the failure, of
/// the lines that stood out (each with the line before its first occurrence), unless it is
/// routine or stood out itself.
fn context(tally: &Tally, stood_out: &[(Evidence, Option<&(u64, String)>)]) -> Option<Context> {
    let best = stood_out.iter().map(|(e, _)| e.score).fold(0.0, f32::max);
    let (first, before) = stood_out
        .iter()
        .filter(|(e, _)| best > 0.0 && e.score >= FAILURE_SHARE * best)
        .min_by(|(a, _), (b, _)| (&a.source, a.line).cmp(&(&b.source, b.line)))?;
    let (key, text) = (*before)?;
    let routine = tally.count(*key) as f32 > NOISE_FREE_COUNT
        || progress::is_routine_progress(text)
        || stood_out.iter().any(|(e, _)| e.text == *text);
    (!routine).then(|| Context { source: first.source.clone(), before: first.line, text: text.clone() })
}

/// 1 up to [`NOISE_FREE_COUNT`] occurrences, then falling with the logarithm of the count.
fn noise_factor(count: u64) -> f32 {
    let count = count as f32;
    if count <= NOISE_FREE_COUNT { 1.0 } else { 1.0 / (1.0 + (count / NOISE_FREE_COUNT).ln()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(text: &str) -> Digest {
        let mut reader = LogReader::new(["Stale file handle"]);
        reader.read_text("<paste>", text).unwrap();
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

    /// A noisy multi-rank log with a traceback at `at` (a share of its length) and another
    /// exception inside a traceback, to test reading in blocks against reading in one pass.
    fn noisy_log(lines: usize, at: f64) -> String {
        let mut log = String::new();
        let mut placed = false;
        for step in 0..lines {
            if !placed && step as f64 >= at * lines as f64 {
                log.push_str("[rank5]: Traceback (most recent call last):\n");
                log.push_str("[rank5]:   File \"train.py\", line 3, in <module>\n");
                log.push('\n');
                log.push_str("[rank5]:     raise RuntimeError(\"NCCL error\")\n");
                log.push_str("[rank5]: RuntimeError: NCCL communicator was aborted on rank 5.\n");
                placed = true;
            }
            log.push_str(&format!("[rank{}]: step {step} loss 2.{step} lr 3e-4\n", step % 64));
            match step % 97 {
                0 => log.push_str("[rank1]: /x/torch/utils.py:12: UserWarning: TypedStorage is deprecated\n"),
                1 => log.push_str(&format!(
                    "[W socket.cpp:{step}] [c10d] The client socket has failed to connect\n"
                )),
                2 => log.push_str(&format!(
                    " {}%|███▌      | {step}/1000 [00:10<00:12]\r 50%|█████| 5/10\n",
                    step % 100
                )),
                3 => log.push_str("mv: cannot move 'ckpt': Stale file handle\n"),
                _ => {}
            }
        }
        log
    }

    #[test]
    fn reading_in_blocks_on_threads_gives_the_digest_of_one_pass() {
        for (lines, at) in [(3000, 0.05), (3000, 0.5), (3000, 0.999), (200, 0.3)] {
            let log = noisy_log(lines, at);
            let read = |threads: usize, block: usize| {
                let mut reader = LogReader::new(["Stale file handle"]).with_threads(threads, block);
                reader.read("job.log", log.as_bytes()).unwrap();
                reader.read_text("<paste>", "ERROR: second input\nok\n").unwrap();
                reader.finish()
            };
            let one_pass = read(1, usize::MAX);
            assert!(
                one_pass.evidence[0].text.starts_with("RuntimeError: NCCL communicator"),
                "{one_pass:#?}"
            );
            for (threads, block) in [(1, 64), (2, 100), (3, 4096), (4, 1 << 20)] {
                assert_eq!(
                    read(threads, block),
                    one_pass,
                    "{lines} lines, failure at {at}, {threads} threads of {block}"
                );
            }
        }
    }

    #[test]
    fn the_line_before_the_failure_is_searched_with_it() {
        let log_with = |before: &str| {
            let mut log: String = (0..300).map(|step| format!("step {step} ok\n")).collect();
            log.push_str(before);
            log.push_str("\n\n");
            let failure_at = log.len();
            log.push_str("slurmstepd: error: Detected 1 oom_kill event in StepId=4.0. Some of the step tasks have been OOM Killed.\n");
            log.push_str("srun: error: gpu-b05: task 3: Out Of Memory\nstep 301 ok\n");
            (log, failure_at)
        };
        let (log, failure_at) = log_with("saving checkpoint at iteration 2000 in torch_dist format\n");
        let d = digest(&log);
        let c = d.context.as_ref().unwrap_or_else(|| panic!("{d:#?}"));
        assert_eq!(c.text, "saving checkpoint at iteration 2000 in torch_dist format");
        assert_eq!((c.source.as_str(), c.before), ("<paste>", 304));
        assert!(d.query_text().ends_with("in torch_dist format\n"), "{}", d.query_text());
        assert!(!d.failure_text().contains("torch_dist"), "suggestions are not read from it");
        // Read in blocks, the failure's first line the first of one: the splitter hands the
        // line before on.
        for (threads, block) in [(2, failure_at), (2, 64), (1, 7)] {
            let mut reader = LogReader::new(["Stale file handle"]).with_threads(threads, block);
            reader.read("<paste>", log.as_bytes()).unwrap();
            assert_eq!(reader.finish(), d, "{threads} threads of {block}");
        }
        // A line printed at every step, a step record of a healthy run: no context.
        let (routine, _) = log_with("");
        assert_eq!(digest(&routine).context, None, "step 299 ok, 300 times");
        let step = " iteration     2000/  500000 | lm loss: 2.145E+00 | learning rate: 2.999E-04 | grad norm: 0.2 |\n";
        assert_eq!(digest(&log_with(step).0).context, None);
        // Nothing stood out: no failure, no line before it.
        assert_eq!(digest("step 1\nstep 2\n").context, None);
    }

    #[test]
    fn blank_runs_and_repeated_lines_keep_their_numbers_and_counts() {
        let mut log = "\n".repeat(1000);
        log.push_str(&"x\n".repeat(1000));
        log.push_str(&" \t \r\n".repeat(500));
        log.push_str("ERROR: boom\n");
        log.push_str(&"ERROR: boom\n".repeat(3));
        log.push_str(
            "Traceback (most recent call last):\n\n  File \"a.py\", line 1\n  File \"a.py\", line 1\n",
        );
        log.push_str("ValueError: bad\n");
        log.push_str(&"x\n\n".repeat(10));
        let read = |threads: usize, block: usize| {
            let mut reader = LogReader::new([]).with_threads(threads, block);
            reader.read("job.log", log.as_bytes()).unwrap();
            reader.finish()
        };
        let d = read(1, usize::MAX);
        assert_eq!(d.lines, log.lines().count() as u64);
        let at = |text: &str| d.evidence.iter().find(|e| e.text == text).map(|e| (e.line, e.count));
        assert_eq!(at("ValueError: bad"), Some((2509, 1)), "{d:#?}");
        assert_eq!(at("ERROR: boom"), Some((2501, 4)), "{d:#?}");
        for (threads, block) in [(1, 7), (2, 64), (3, 1000), (4, 4096)] {
            assert_eq!(read(threads, block), d, "{threads} threads of {block}");
        }
        let quiet = "\n\n\nstep 1\n\n\n   \nstep 2\n\n \n";
        let d = digest(quiet);
        let tail: Vec<(u64, &str)> = d.evidence.iter().map(|e| (e.line, e.text.as_str())).collect();
        assert_eq!(tail, [(4, "step 1"), (8, "step 2")]);
    }

    #[test]
    fn a_cancelled_read_ends_with_interrupted() {
        let flag = Arc::new(AtomicBool::new(true));
        let mut reader = LogReader::new([]).with_threads(2, 64).cancelled_by(flag);
        let log = noisy_log(2000, 0.5);
        let error = reader.read("job.log", log.as_bytes()).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::Interrupted);
        assert!(reader.finish().lines < 2000);
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
