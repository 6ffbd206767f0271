//! What one thread counts of the lines it reads: every template's count and weight, the lines
//! that may stand out (each template's first occurrence) and the last lines.
//!
//! A [`Tally`] reads [`Block`]s in any order; two tallies [`merge`](Tally::merge) into the one
//! that reading all their blocks would have given: counts add up, a template weighs the most it
//! weighed anywhere, its first occurrence is the earliest (by input, then line), the last lines
//! are the latest. So a log read in blocks on several threads has the same digest as one read in
//! a single pass.

use std::{
    collections::{HashMap, hash_map::Entry},
    hash::{BuildHasher, BuildHasherDefault},
};

use rustc_hash::FxHasher;

use super::{
    line,
    ranks::Ranks,
    salience::{self, Salience},
    split::{self, Block},
};

type FxBuild = BuildHasherDefault<FxHasher>;

/// Candidate lines kept (the weightiest, pruned as they grow).
const MAX_CANDIDATES: usize = 4096;
/// Shapes whose template is remembered (a log has a few per template: numbers of other lengths).
const MAX_SHAPES: usize = 1 << 16;
/// Lines kept from the end of the input, for a log in which nothing stands out.
pub const TAIL_LINES: usize = 8;

/// Where a line is: its input, then its 1-based line number there.
pub type Place = (usize, u64);

/// A line that may stand out, as first seen.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Where it was first seen.
    pub place: Place,
    /// Its text, clipped and made safe to show.
    pub text: String,
    /// The most it weighed.
    pub weight: f32,
    /// The ranks whose launcher prefix it was seen under (`[rank3]:`).
    pub ranks: Ranks,
    /// The line just before its first occurrence, where its block had one: its template's key
    /// and its text, clipped and made safe to show. What the program was doing when this line
    /// came (`saving checkpoint … in torch_dist format` before the OOM killer).
    pub before: Option<(u64, String)>,
}

/// One thread's counts; see the module docs.
#[derive(Debug)]
pub struct Tally {
    /// Template hash -> (lines with it, its weight).
    counts: HashMap<u64, (u32, f32), FxBuild>,
    candidates: HashMap<u64, Candidate, FxBuild>,
    tail: Vec<(Place, String)>,
    /// Distinct templates counted at most; past this, new templates are still weighed.
    max_templates: usize,
    in_traceback: bool,
    hasher: FxBuild,
    /// The template of the line being read (a buffer reused line after line).
    template: Vec<u8>,
    /// Shape hash -> template hash (see `line::shape_hash`).
    shapes: HashMap<u64, u64, FxBuild>,
    /// Short lines remembered by their bytes ([`pack_short`]), each in the slot its bytes pick:
    /// lines that, seen again outside a traceback, only add to their count, which is kept here
    /// until the end of the block.
    short_lines: Vec<ShortLine>,
    /// Whether runs of blank and repeated lines are skipped and short lines looked up by their
    /// bytes (always, but in the test that compares the digest with and without).
    shortcuts: bool,
}

/// Slots for short lines (a line whose slot another takes is only read again when it comes).
const SHORT_SLOTS: usize = 1 << 12;

/// A short line, its template and the lines of it counted since the last flush.
#[derive(Debug, Clone, Copy, Default)]
struct ShortLine {
    /// Its bytes and length ([`pack_short`]); 0 (no line) in an empty slot.
    packed: u128,
    key: u64,
    pending: u64,
}

/// The slot of a packed short line.
fn short_slot(packed: u128) -> usize {
    let folded = (packed as u64) ^ ((packed >> 64) as u64).rotate_left(29);
    (folded.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 52) as usize % SHORT_SLOTS
}

/// A line of 1 to 15 bytes as one number (its bytes and its length), else `None`.
fn pack_short(line: &[u8]) -> Option<u128> {
    if line.is_empty() || line.len() > 15 {
        return None;
    }
    let mut bytes = [0u8; 16];
    bytes[..line.len()].copy_from_slice(line);
    bytes[15] = line.len() as u8;
    Some(u128::from_le_bytes(bytes))
}

impl Tally {
    /// An empty tally that counts at most `max_templates` distinct templates.
    pub fn new(max_templates: usize) -> Tally {
        Tally {
            counts: HashMap::default(),
            candidates: HashMap::default(),
            tail: Vec::with_capacity(2 * TAIL_LINES),
            max_templates,
            in_traceback: false,
            shortcuts: true,
            hasher: FxBuild::default(),
            template: Vec::with_capacity(2 * line::MAX_LINE_CHARS + 8),
            shapes: HashMap::default(),
            short_lines: vec![ShortLine::default(); SHORT_SLOTS],
        }
    }

    /// Count and weigh every line of `block`.
    pub fn read_block(&mut self, salience: &Salience, block: &Block) {
        self.in_traceback = block.in_traceback;
        let mut line_no = block.lines_before;
        let mut lines = split::lines(&block.bytes);
        // The last line read that is not blank (before the block: the splitter's).
        let mut before: Option<&[u8]> = Some(block.line_before.as_slice()).filter(|b| !b.is_empty());
        loop {
            // Blank lines change nothing but the line number: a run of them is skipped whole.
            if self.shortcuts {
                line_no += lines.skip_blank();
            }
            let Some(line) = lines.next() else { break };
            line_no += 1;
            let previous = before;
            if !split::is_blank(line) {
                before = Some(line);
            }
            // A short line seen before, where it would only add to its count, is counted
            // without being read again (a log of one-character lines is mostly that).
            let short = pack_short(line).filter(|_| self.shortcuts && !self.in_traceback);
            if let Some(packed) = short {
                let slot = &mut self.short_lines[short_slot(packed)];
                if slot.packed == packed {
                    let again = lines.skip_repeats(line);
                    slot.pending = slot.pending.saturating_add(again + 1);
                    line_no += again;
                    continue;
                }
            }
            let text = split::text(line);
            // Most lines have neither carriage returns nor escapes: one look for both.
            if memchr::memchr2(b'\r', 0x1b, text.as_bytes()).is_none() {
                // The same line again right after would only add to its count: a run of it is
                // counted at the speed of comparing bytes.
                if let Some(key) = self.feed(salience, (block.source, line_no), &text, previous)
                    && self.shortcuts
                {
                    if let Some(packed) = short {
                        self.remember_short(packed, key);
                    }
                    let again = lines.skip_repeats(line);
                    if again > 0
                        && let Some(seen) = self.counts.get_mut(&key)
                    {
                        seen.0 = seen.0.saturating_add(u32::try_from(again).unwrap_or(u32::MAX));
                        line_no += again;
                    }
                }
                continue;
            }
            for record in text.split('\r') {
                self.feed(salience, (block.source, line_no), &line::strip_escapes(record), previous);
            }
        }
        self.flush_short_lines();
        self.keep_last_lines(block, line_no);
    }

    /// Remember that the short line `packed` has the template `key` (and is counted).
    fn remember_short(&mut self, packed: u128, key: u64) {
        let at = short_slot(packed);
        let old = std::mem::replace(&mut self.short_lines[at], ShortLine { packed, key, pending: 0 });
        self.add_count(old.key, old.pending);
    }

    /// Add the counts kept in the short lines' slots to the templates' counts.
    fn flush_short_lines(&mut self) {
        for at in 0..self.short_lines.len() {
            let slot = &mut self.short_lines[at];
            let (key, pending) = (slot.key, std::mem::take(&mut slot.pending));
            self.add_count(key, pending);
        }
    }

    /// `more` lines of the template `key`, which is counted.
    fn add_count(&mut self, key: u64, more: u64) {
        if more > 0
            && let Some(seen) = self.counts.get_mut(&key)
        {
            seen.0 = seen.0.saturating_add(u32::try_from(more).unwrap_or(u32::MAX));
        }
    }

    /// Add the last lines of `block` (whose last line is `last_line`) to the tail: found once,
    /// from the block's end, rather than copied line after line.
    fn keep_last_lines(&mut self, block: &Block, last_line: u64) {
        let mut found: Vec<(Place, String)> = Vec::with_capacity(TAIL_LINES);
        let mut line_no = last_line;
        let mut lines = split::lines(&block.bytes);
        'lines: loop {
            line_no -= lines.skip_blank_back();
            let Some(line) = lines.next_back() else { break };
            for record in split::text(line).rsplit('\r') {
                let clean = line::strip_escapes(record);
                let trimmed = line::message(&clean).trim();
                if !trimmed.is_empty() {
                    found.push(((block.source, line_no), line::clip(trimmed).to_string()));
                    if found.len() == TAIL_LINES {
                        break 'lines;
                    }
                }
            }
            line_no -= 1;
        }
        found.reverse();
        self.add_to_tail(found);
    }

    /// Keep the latest [`TAIL_LINES`] of the tail and `more` (records of one line keep their
    /// order: the sort is stable).
    fn add_to_tail(&mut self, more: Vec<(Place, String)>) {
        self.tail.extend(more);
        self.tail.sort_by_key(|t| t.0);
        let extra = self.tail.len().saturating_sub(TAIL_LINES);
        self.tail.drain(..extra);
    }

    /// Count and weigh one record of the line at `place`, its escapes already stripped. Returns
    /// its template when the same record again would only add one to its count (it was counted,
    /// and no traceback is open after it).
    fn feed(&mut self, salience: &Salience, place: Place, clean: &str, before: Option<&[u8]>) -> Option<u64> {
        let (message, rank) = line::message_and_rank(clean);
        let trimmed = message.trim();
        if trimmed.is_empty() {
            return None;
        }
        // A line of a shape seen before has its template: folding is needed once per shape.
        let shape = line::shape_hash(trimmed);
        let key = match self.shapes.get(&shape) {
            Some(&key) => key,
            None => {
                line::fold_into(trimmed, &mut self.template);
                let key = self.hasher.hash_one(self.template.as_slice());
                if self.shapes.len() < MAX_SHAPES {
                    self.shapes.insert(shape, key);
                }
                key
            }
        };
        let starts_traceback = message.starts_with(split::TRACEBACK);
        // A template seen before weighs what it weighed then: lines that differ only in numbers
        // say the same thing, so the markers are looked for once per template. Inside a
        // traceback the place of a line matters, so it is weighed again there.
        if !self.in_traceback
            && !starts_traceback
            && let Some(seen) = self.counts.get_mut(&key)
        {
            seen.0 = seen.0.saturating_add(1);
            if let Some(rank) = rank
                && let Some(candidate) = self.candidates.get_mut(&key)
            {
                candidate.ranks.insert(rank);
            }
        } else {
            let weight = self.weigh(salience, message);
            let room = self.counts.len() < self.max_templates;
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
                let before = match self.candidates.contains_key(&key) {
                    true => None,
                    false => before.and_then(|b| self.line_and_key(b)),
                };
                let entry = self.candidates.entry(key).or_insert_with(|| Candidate {
                    place,
                    text: crate::text::one_line(line::clip(trimmed)),
                    weight,
                    ranks: Ranks::default(),
                    before,
                });
                entry.weight = entry.weight.max(weight);
                if let Some(rank) = rank {
                    entry.ranks.insert(rank);
                }
                if self.candidates.len() > 2 * MAX_CANDIDATES {
                    self.prune();
                }
            }
        }
        let repeats = !self.in_traceback && !starts_traceback && self.counts.contains_key(&key);
        repeats.then_some(key)
    }

    /// A line's template key and its text as a candidate's is kept, or `None` when it is blank.
    /// Folds into the template buffer: called once a new candidate, never a line.
    fn line_and_key(&mut self, bytes: &[u8]) -> Option<(u64, String)> {
        let text = split::text(bytes);
        let clean = line::strip_escapes(&text);
        let trimmed = line::message(&clean).trim();
        if trimmed.is_empty() {
            return None;
        }
        line::fold_into(trimmed, &mut self.template);
        let key = self.hasher.hash_one(self.template.as_slice());
        Some((key, crate::text::one_line(line::clip(trimmed))))
    }

    /// The weight of `message` where it stands: a frame inside a traceback weighs less, the line
    /// that ends one names the exception.
    fn weigh(&mut self, salience: &Salience, message: &str) -> f32 {
        let indented = message.starts_with([' ', '\t']);
        let mut weight = salience.weigh(message, self.in_traceback && indented);
        if self.in_traceback && !indented && salience::is_exception_line(message.trim_start()) {
            weight = weight.max(salience::EXCEPTION);
        }
        if let Some(open) = split::traceback_transition(message) {
            self.in_traceback = open;
        }
        weight
    }

    /// Keep the weightiest candidates (ties: the first seen).
    fn prune(&mut self) {
        let mut all: Vec<(u64, Candidate)> = self.candidates.drain().collect();
        all.sort_by(|a, b| b.1.weight.total_cmp(&a.1.weight).then(a.1.place.cmp(&b.1.place)));
        all.truncate(MAX_CANDIDATES);
        self.candidates.extend(all);
    }

    /// Add what `other` counted (blocks this tally did not read).
    pub fn merge(&mut self, other: Tally) {
        for (key, (count, weight)) in other.counts {
            let room = self.counts.len() < self.max_templates;
            match self.counts.entry(key) {
                Entry::Occupied(mut seen) => {
                    let seen = seen.get_mut();
                    seen.0 = seen.0.saturating_add(count);
                    seen.1 = seen.1.max(weight);
                }
                Entry::Vacant(slot) if room => {
                    slot.insert((count, weight));
                }
                Entry::Vacant(_) => {}
            }
        }
        for (key, theirs) in other.candidates {
            match self.candidates.entry(key) {
                Entry::Occupied(mut mine) => {
                    let mine = mine.get_mut();
                    let weight = mine.weight.max(theirs.weight);
                    let mut ranks = std::mem::take(&mut mine.ranks);
                    ranks.extend(&theirs.ranks);
                    if theirs.place < mine.place {
                        *mine = theirs;
                    }
                    mine.weight = weight;
                    mine.ranks = ranks;
                }
                Entry::Vacant(slot) => {
                    slot.insert(theirs);
                }
            }
        }
        if self.candidates.len() > 2 * MAX_CANDIDATES {
            self.prune();
        }
        self.add_to_tail(other.tail);
    }

    /// Lines with the template `key` (1 when it was not counted).
    pub fn count(&self, key: u64) -> u64 {
        u64::from(self.counts.get(&key).map_or(1, |c| c.0))
    }

    /// Distinct templates counted.
    pub fn templates(&self) -> usize {
        self.counts.len()
    }

    /// The candidates, by template.
    pub fn candidates(&self) -> impl Iterator<Item = (u64, &Candidate)> {
        self.candidates.iter().map(|(k, c)| (*k, c))
    }

    /// The last lines, oldest first.
    pub fn tail(&self) -> impl Iterator<Item = &(Place, String)> {
        self.tail.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every count, weight, candidate and tail line of reading `log` in blocks of `block_bytes`.
    fn read(log: &str, block_bytes: usize, shortcuts: bool) -> String {
        let salience = Salience::new(["Stale file handle"]);
        let mut tally = Tally::new(1 << 20);
        tally.shortcuts = shortcuts;
        let mut input = log.as_bytes();
        split::split(&mut input, 0, block_bytes, Vec::new, |block| {
            tally.read_block(&salience, &block);
            true
        })
        .unwrap();
        let mut counts: Vec<_> = tally.counts.iter().map(|(k, c)| (*k, c.0, c.1.to_bits())).collect();
        counts.sort_unstable();
        let mut candidates: Vec<_> =
            tally.candidates.iter().map(|(k, c)| (*k, c.place, c.text.clone(), c.weight.to_bits())).collect();
        candidates.sort_unstable();
        format!("{counts:?}\n{candidates:?}\n{:?}", tally.tail)
    }

    #[test]
    fn the_shortcuts_for_blank_repeated_and_short_lines_change_nothing_counted() {
        let mut log = String::new();
        for i in 0..3000 {
            match i % 11 {
                0 => log.push_str("\n\n \t\n"),
                1 => log.push_str(&"x\n".repeat(i % 7 + 1)),
                2 => log.push_str("Traceback (most recent call last):\n\n  x\n  x\nx\nValueError: bad\n"),
                3 => log.push_str(&format!("{}\n", (b'a' + (i % 26) as u8) as char)),
                4 => log.push_str("ERROR\nERROR\n\nERROR\n"),
                5 => log.push_str("[rank1]: x\n x\n"),
                6 => log.push_str("mv: Stale file handle\nmv: Stale file handle\n"),
                7 => log.push_str(" 10%|#\r 20%|##\n"),
                8 => log.push_str(&format!("step {i} loss 2.{i}\n")),
                _ => log.push_str("Traceback (most recent call last):\n  File \"a\"\nx\n"),
            }
        }
        for block in [16, 100, 4096, 1 << 20] {
            assert_eq!(read(&log, block, true), read(&log, block, false), "blocks of {block}");
        }
    }
}
