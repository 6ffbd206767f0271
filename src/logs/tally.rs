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
            hasher: FxBuild::default(),
            template: Vec::with_capacity(2 * line::MAX_LINE_CHARS + 8),
            shapes: HashMap::default(),
        }
    }

    /// Count and weigh every line of `block`.
    pub fn read_block(&mut self, salience: &Salience, block: &Block) {
        self.in_traceback = block.in_traceback;
        let mut line_no = block.lines_before;
        for line in split::lines(&block.bytes) {
            line_no += 1;
            let text = split::text(line);
            // Most lines have neither carriage returns nor escapes: one look for both.
            if memchr::memchr2(b'\r', 0x1b, text.as_bytes()).is_none() {
                self.feed(salience, (block.source, line_no), &text);
                continue;
            }
            for record in text.split('\r') {
                self.feed(salience, (block.source, line_no), &line::strip_escapes(record));
            }
        }
        self.keep_last_lines(block, line_no);
    }

    /// Add the last lines of `block` (whose last line is `last_line`) to the tail: found once,
    /// from the block's end, rather than copied line after line.
    fn keep_last_lines(&mut self, block: &Block, last_line: u64) {
        let mut found: Vec<(Place, String)> = Vec::with_capacity(TAIL_LINES);
        let mut line_no = last_line;
        'lines: for line in split::lines(&block.bytes).rev() {
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

    /// Count and weigh one record of the line at `place`, its escapes already stripped.
    fn feed(&mut self, salience: &Salience, place: Place, clean: &str) {
        let (message, rank) = line::message_and_rank(clean);
        let trimmed = message.trim();
        if trimmed.is_empty() {
            return;
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
                let entry = self.candidates.entry(key).or_insert_with(|| Candidate {
                    place,
                    text: crate::text::one_line(line::clip(trimmed)),
                    weight,
                    ranks: Ranks::default(),
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
