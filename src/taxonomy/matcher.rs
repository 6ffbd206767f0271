//! The taxonomy's matcher: the values named in what someone typed or pasted. Search suggestions,
//! log triage and the inference of facets for Markdown postmortems all find values through it.
//!
//! Every name, alias and log signature of the taxonomy is cut into lowercase words. A word of the
//! input matches a word of that vocabulary exactly, by stem (`hangs` ~ `hang`), or — for words of
//! five or more letters — fuzzily: one edit away, or (through nucleo) the same word with a letter
//! or two left out (`dataloadr`). A phrase (`no progress`, `DataLoader worker (pid`, `Xid 79`)
//! matches where its words follow each other in the input, with at most one word stepped over
//! between two of them: a filler (`out of the memory`, `training got slower`) or a number
//! (`training 20% slower`), which names nothing itself ([`Found::skipped`]).
//! Signatures are log text and match exactly. Each value found gets a score (longer phrases and
//! signatures weigh more) and the words of the input that matched. Nothing here applies a filter.
//!
//! Cost is linear in the input: exact and stem lookups are hashed; fuzzy lookups are bounded per
//! call, so a megabyte paste is answered, not stalled.

use std::{cell::RefCell, collections::HashMap};

use rustc_hash::FxHashMap;

use crate::{
    taxonomy::Taxonomy,
    text::words::{WordStemmer, word_spans},
};
use nucleo::{
    Config, Matcher as NucleoMatcher,
    pattern::{AtomKind, CaseMatching, Normalization, Pattern},
};

/// Words a phrase may skip over between two of its own words.
const FILLERS: &[&str] = &[
    "a", "an", "the", "of", "to", "in", "on", "at", "for", "is", "was", "are", "were", "be", "been", "and",
    "or", "my", "our", "its", "this", "that", "all", "some", "very", "really", "just", "got", "gets",
    "became", "becomes", "has", "had", "now", "much", "way", "far",
];

/// Whether the word at a position may be skipped between two words of a phrase: a filler word
/// ([`FILLERS`]: articles, linking verbs, degree words), or a number (`training 20% slower`,
/// `throughput dropped 3x`), which says how much, not what.
fn skippable(word: &str) -> bool {
    FILLERS.contains(&word) || (word.starts_with(|c: char| c.is_ascii_digit()) && word.len() <= 6)
}
/// Words that make a number an HTTP status.
const HTTP_WORDS: &[&str] = &[
    "http",
    "https",
    "status",
    "code",
    "error",
    "errors",
    "response",
    "responses",
    "returned",
    "returns",
    "got",
    "get",
    "post",
    "put",
    "api",
    "request",
    "requests",
    "server",
    "gateway",
    "service",
    "unavailable",
    "many",
];
/// How many words on either side of a number are looked at for an HTTP word.
const HTTP_CONTEXT: usize = 3;
/// How many distinct input words get a fuzzy lookup per call; later words match only exactly.
const FUZZY_BUDGET: usize = 256;
/// Words shorter than this match only exactly or by stem.
const FUZZY_MIN_CHARS: usize = 5;

/// Where a phrase comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    Alias,
    Name,
    Signature,
}

impl Source {
    fn weight(self) -> f32 {
        match self {
            Source::Alias => 1.0,
            Source::Name => 1.1,
            Source::Signature => 1.2,
        }
    }
}

#[derive(Debug, Clone)]
struct Phrase {
    /// Vocabulary word ids, in order.
    words: Vec<u32>,
    /// The value's position in `Taxonomy::values`.
    value: usize,
    source: Source,
}

/// The matches of one value in one input: (score, phrase) and (score, byte range).
#[derive(Default)]
struct ValueHits {
    phrases: Vec<(f32, u32)>,
    spans: Vec<(f32, (usize, usize))>,
    skipped: Vec<(usize, usize)>,
    /// The best match quality of any of its phrases (1 exact, 0.9 a stem, less fuzzy).
    quality: f32,
}

/// A taxonomy value found in the input.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// The value's position in `Taxonomy::values`.
    pub value: usize,
    /// How strongly the input points at it (higher is stronger; about 1 for one exact word).
    pub score: f32,
    /// The input's words that matched, as typed, best first, at most three.
    pub matched: Vec<String>,
    /// Byte ranges of the input where it was named, in input order: every place, so a reader of
    /// the context (a negation before it, a log line around it) can weigh each one.
    pub spans: Vec<(usize, usize)>,
    /// Byte ranges of words inside `spans` that a phrase stepped over (`got` in `gpu got lost`,
    /// `20` in `training 20% slower`): they are in the place it was named, but name nothing.
    pub skipped: Vec<(usize, usize)>,
    /// Whether some phrase of it was found as written or as another form of the same word; a
    /// value found only through a misspelling is a guess, and said to be one.
    pub certain: bool,
    /// Whether its strongest phrase is one of its log signatures (not a name or an alias).
    pub signature: bool,
}

/// Finds taxonomy values in text. Built once per library.
#[derive(Clone)]
pub struct Matcher {
    words: Vec<String>,
    word_ids: FxHashMap<String, u32>,
    /// Stem -> vocabulary words with that stem.
    stems: FxHashMap<String, Vec<u32>>,
    /// First letter -> vocabulary words long enough for fuzzy matching.
    by_initial: FxHashMap<char, Vec<u32>>,
    phrases: Vec<Phrase>,
    /// Word id -> phrases that start with it.
    starts: Vec<Vec<u32>>,
    stemmer: WordStemmer,
}

impl std::fmt::Debug for Matcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Matcher")
            .field("words", &self.words.len())
            .field("phrases", &self.phrases.len())
            .finish()
    }
}

/// Endings that make another form of the same word.
const INFLECTIONS: [&str; 14] =
    ["", "s", "es", "ed", "d", "ing", "e", "n", "en", "y", "ies", "ied", "er", "ers"];

/// Whether two words with the same stem are forms of one word rather than a stemmer's
/// coincidence: a shared start of four letters or more (three when one word is the start of the
/// other) followed by inflections only (`hang`/`hangs`, `froze`/`frozen`, `failing`/`failed`;
/// not `times`/`timing`, `operation`/`operator`).
fn same_word(a: &str, b: &str) -> bool {
    let common: usize = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).map(|(x, _)| x.len_utf8()).sum();
    let (rest_a, rest_b) = (&a[common..], &b[common..]);
    let prefix = rest_a.is_empty() || rest_b.is_empty();
    (common >= 4 || (common >= 3 && prefix)) && INFLECTIONS.contains(&rest_a) && INFLECTIONS.contains(&rest_b)
}

thread_local! {
    static MATCHER: RefCell<NucleoMatcher> = RefCell::new(NucleoMatcher::new(Config::DEFAULT));
}

impl Matcher {
    /// Cut every phrase of `taxonomy` into vocabulary words.
    pub fn new(taxonomy: &Taxonomy) -> Matcher {
        let mut s = Matcher {
            words: Vec::new(),
            word_ids: FxHashMap::default(),
            stems: FxHashMap::default(),
            by_initial: FxHashMap::default(),
            phrases: Vec::new(),
            starts: Vec::new(),
            stemmer: WordStemmer::default(),
        };
        // Where each value's phrase of given words is, to keep one of each (a lookup, not a
        // scan of every phrase so far: taxonomies have thousands).
        let mut placed: FxHashMap<(usize, Vec<u32>), usize> = FxHashMap::default();
        for (value, v) in taxonomy.values().iter().enumerate() {
            let sourced = std::iter::once((v.name.as_str(), Source::Name))
                .chain(v.aliases.iter().map(|a| (a.as_str(), Source::Alias)))
                .chain(v.signatures.iter().map(|g| (g.as_str(), Source::Signature)));
            for (phrase, source) in sourced {
                // `sign-ups` is also typed `signups`: a hyphenated phrase counts both ways.
                let joined = phrase.replace('-', "");
                for text in std::iter::once(phrase).chain((joined != phrase).then_some(joined.as_str())) {
                    let words: Vec<u32> =
                        word_spans(text).map(|(a, b)| s.intern(&text[a..b].to_lowercase())).collect();
                    if words.is_empty() {
                        continue;
                    }
                    // The same words for the same value keep the strongest source only.
                    match placed.entry((value, words)) {
                        std::collections::hash_map::Entry::Occupied(at) => {
                            let p = &mut s.phrases[*at.get()];
                            p.source = p.source.max(source);
                        }
                        std::collections::hash_map::Entry::Vacant(slot) => {
                            s.phrases.push(Phrase { words: slot.key().1.clone(), value, source });
                            slot.insert(s.phrases.len() - 1);
                        }
                    }
                }
            }
        }
        s.starts = vec![Vec::new(); s.words.len()];
        for (i, p) in s.phrases.iter().enumerate() {
            s.starts[p.words[0] as usize].push(i as u32);
        }
        s
    }

    fn intern(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.word_ids.get(word) {
            return id;
        }
        let id = self.words.len() as u32;
        self.words.push(word.to_string());
        self.word_ids.insert(word.to_string(), id);
        let stemmed = self.stemmer.stem(word);
        self.stems.entry(stemmed).or_default().push(id);
        if word.chars().count() >= FUZZY_MIN_CHARS - 1
            && let Some(initial) = word.chars().next()
        {
            self.by_initial.entry(initial).or_default().push(id);
        }
        id
    }

    /// The vocabulary words `word` (lowercase) matches, with a quality in (0, 1].
    fn lookup(&self, word: &str, stemmer: &mut WordStemmer, fuzzy: bool) -> Vec<(u32, f32)> {
        let mut found: Vec<(u32, f32)> = Vec::new();
        if let Some(&id) = self.word_ids.get(word) {
            found.push((id, 1.0));
        }
        if let Some(ids) = self.stems.get(&stemmer.stem(word)) {
            for &id in ids {
                if !found.iter().any(|(f, _)| *f == id) && same_word(word, &self.words[id as usize]) {
                    found.push((id, 0.9));
                }
            }
        }
        let chars = word.chars().count();
        if !found.is_empty() || !fuzzy || chars < FUZZY_MIN_CHARS || word.chars().all(|c| c.is_ascii_digit())
        {
            return found;
        }
        let Some(candidates) = word.chars().next().and_then(|c| self.by_initial.get(&c)) else {
            return found;
        };
        let near: Vec<u32> = candidates
            .iter()
            .copied()
            .filter(|&id| {
                let n = self.words[id as usize].chars().count();
                n + 1 >= chars && n <= chars + 2
            })
            .collect();
        for &id in &near {
            if strsim::damerau_levenshtein(word, &self.words[id as usize]) <= 1 {
                found.push((id, 0.8));
            }
        }
        // A word with a letter or two left out: a subsequence of the vocabulary word, scored by
        // nucleo against that word's own score so quality stays in (0, 1].
        let pattern = Pattern::new(word, CaseMatching::Ignore, Normalization::Smart, AtomKind::Fuzzy);
        let longer: Vec<&str> = near
            .iter()
            .filter(|&&id| self.words[id as usize].chars().count() > chars)
            .filter(|&&id| !found.iter().any(|(f, _)| *f == id))
            .map(|&id| self.words[id as usize].as_str())
            .collect();
        MATCHER.with(|m| {
            let mut matcher = m.borrow_mut();
            for (candidate, score) in pattern.match_list(longer, &mut matcher) {
                let own =
                    Pattern::new(candidate, CaseMatching::Ignore, Normalization::Smart, AtomKind::Fuzzy)
                        .match_list([candidate], &mut matcher)
                        .first()
                        .map_or(0, |(_, s)| *s);
                if own > 0
                    && let Some(&id) = self.word_ids.get(candidate)
                {
                    found.push((id, 0.75 * (score as f32 / own as f32).min(1.0)));
                }
            }
        });
        found
    }

    /// The taxonomy values found in `text`, strongest first (ties by value id). `known` says
    /// whether a lowercase word is a real word of the library: such a word is never read as a
    /// typo of a taxonomy word (`routine` is not `routing`).
    pub fn find(&self, text: &str, known: &dyn Fn(&str) -> bool) -> Vec<Found> {
        let spans: Vec<(usize, usize)> = word_spans(text).collect();
        if spans.is_empty() {
            return Vec::new();
        }
        let mut stemmer = self.stemmer.clone();
        // Each distinct word is looked up once.
        let mut distinct: HashMap<String, usize> = HashMap::new();
        let mut lookups: Vec<Vec<(u32, f32)>> = Vec::new();
        let mut fuzzy_left = FUZZY_BUDGET;
        let token_matches: Vec<usize> = spans
            .iter()
            .map(|&(a, b)| {
                let word = text[a..b].to_lowercase();
                if let Some(&i) = distinct.get(&word) {
                    return i;
                }
                let mut fuzzy = fuzzy_left > 0 && word.chars().count() >= FUZZY_MIN_CHARS;
                if fuzzy {
                    fuzzy_left -= 1;
                    fuzzy = !known(&word);
                }
                lookups.push(self.lookup(&word, &mut stemmer, fuzzy));
                distinct.insert(word, lookups.len() - 1);
                lookups.len() - 1
            })
            .collect();
        let quality = |pos: usize, word: u32| -> Option<f32> {
            lookups[token_matches[pos]].iter().find(|(w, _)| *w == word).map(|(_, q)| *q)
        };
        let words_at: Vec<String> = spans.iter().map(|&(a, b)| text[a..b].to_lowercase()).collect();
        let may_skip: Vec<bool> = words_at.iter().map(|w| skippable(w)).collect();

        let mut hits: HashMap<usize, ValueHits> = HashMap::new();
        let mut skipped = Vec::new();
        for start in 0..spans.len() {
            for &(first, q0) in &lookups[token_matches[start]] {
                for &p in &self.starts[first as usize] {
                    let phrase = &self.phrases[p as usize];
                    let Some((q, end)) =
                        self.match_phrase(phrase, start, q0, &may_skip, &quality, &mut skipped)
                    else {
                        continue;
                    };
                    if !self.in_context(phrase, text, &spans, &words_at, start, end) {
                        continue;
                    }
                    let short = self.words[first as usize].chars().count() <= 2 && phrase.words.len() == 1;
                    if (phrase.source == Source::Signature || short) && q < 1.0 {
                        continue;
                    }
                    let length_bonus = (1.0 + 0.25 * (phrase.words.len() as f32 - 1.0)).min(2.0);
                    let score = q * phrase.source.weight() * length_bonus;
                    let entry = hits.entry(phrase.value).or_default();
                    entry.phrases.push((score, p));
                    entry.quality = entry.quality.max(q);
                    entry.spans.push((score, (spans[start].0, spans[end].1)));
                    entry.skipped.extend(skipped.iter().map(|&i| spans[i]));
                }
            }
        }

        let mut found: Vec<Found> = hits
            .into_iter()
            .map(
                |(
                    value,
                    ValueHits { phrases: mut scores, spans: mut spans_matched, mut skipped, quality },
                )| {
                    // The best match of each phrase; the best phrase counts in full, others a little.
                    scores.sort_by(|a, b| a.1.cmp(&b.1).then(b.0.total_cmp(&a.0)));
                    scores.dedup_by_key(|s| s.1);
                    scores.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                    let score = scores[0].0 + scores[1..].iter().map(|s| 0.1 * s.0).sum::<f32>().min(0.5);
                    let signature = self.phrases[scores[0].1 as usize].source == Source::Signature;
                    let mut spans: Vec<(usize, usize)> = spans_matched.iter().map(|s| s.1).collect();
                    spans.sort_unstable();
                    spans.dedup();
                    spans_matched.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                    let mut matched: Vec<String> = Vec::new();
                    for (_, (a, b)) in spans_matched {
                        let words = crate::text::one_line(&text[a..b]);
                        if !matched.iter().any(|m| m.eq_ignore_ascii_case(&words)) {
                            matched.push(words);
                        }
                        if matched.len() == 3 {
                            break;
                        }
                    }
                    skipped.sort_unstable();
                    skipped.dedup();
                    Found { value, score, matched, spans, skipped, certain: quality >= 0.9, signature }
                },
            )
            .collect();
        found.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.value.cmp(&b.value)));
        found
    }

    /// Whether the phrase matched at input positions `start..=end` means its value there:
    /// - a phrase of digits alone (`503`, `429`) only beside a word of HTTP (`HTTP 503`,
    ///   `status 429`), not in a step line's numbers;
    /// - a single word of a name or an alias not inside a module name or a path (`trainer.py`,
    ///   `torch/utils/data`, `trainer:123`): a logger's name says where a line was printed, not
    ///   what went wrong. Signatures are log text and keep their own context.
    fn in_context(
        &self,
        phrase: &Phrase,
        text: &str,
        spans: &[(usize, usize)],
        words: &[String],
        start: usize,
        end: usize,
    ) -> bool {
        let numeric =
            phrase.words.iter().all(|&w| self.words[w as usize].bytes().all(|b| b.is_ascii_digit()));
        if numeric {
            let near = start.saturating_sub(HTTP_CONTEXT)..(end + HTTP_CONTEXT + 1).min(words.len());
            return words[near].iter().any(|w| HTTP_WORDS.contains(&w.as_str()));
        }
        if phrase.words.len() == 1 && phrase.source != Source::Signature {
            let (a, b) = (spans[start].0, spans[end].1);
            let bytes = text.as_bytes();
            let joined = |sep: u8, next: Option<&u8>| {
                matches!(sep, b'.' | b'/') && next.is_some_and(|c| c.is_ascii_alphanumeric())
            };
            let before = a >= 2 && joined(bytes[a - 1], bytes.get(a - 2));
            let after = b < bytes.len()
                && (joined(bytes[b], bytes.get(b + 1))
                    || (bytes[b] == b':' && bytes.get(b + 1).is_some_and(u8::is_ascii_digit)));
            return !before && !after;
        }
        true
    }

    /// Match the rest of `phrase` after its first word at input position `start`: each next
    /// word right after the one before, or after one word it may skip ([`skippable`]: `no real
    /// progress` is not `no progress`, but `out of the memory` is `out of memory`). Returns the
    /// mean quality (lowered per gap) and the last position; the positions stepped over are left
    /// in `skipped`.
    fn match_phrase(
        &self,
        phrase: &Phrase,
        start: usize,
        q0: f32,
        may_skip: &[bool],
        quality: &dyn Fn(usize, u32) -> Option<f32>,
        skipped: &mut Vec<usize>,
    ) -> Option<(f32, usize)> {
        skipped.clear();
        let mut total = q0;
        let mut pos = start;
        let len = may_skip.len();
        for &word in &phrase.words[1..] {
            let reach = if may_skip.get(pos + 1).copied().unwrap_or(false) { 3 } else { 2 };
            let (next, q) =
                (pos + 1..(pos + reach).min(len)).find_map(|i| quality(i, word).map(|q| (i, q)))?;
            skipped.extend(pos + 1..next);
            total += q;
            pos = next;
        }
        let mean = total / phrase.words.len() as f32;
        Some((mean * 0.9f32.powi(skipped.len() as i32), pos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::taxonomy::FacetKind;

    const TAXONOMY: &str = r#"
[[component]]
name = "Training data loader"
description = "Input pipeline."
aliases = ["dataloader", "data loader", "DataLoader workers"]
signatures = ["DataLoader worker (pid", "is killed by signal"]

[[component]]
name = "CPU and host memory"
description = "Host."
aliases = ["/dev/shm", "shared memory", "shm-size"]
signatures = ["OOMKilled", "Bus error"]

[[component]]
name = "GPU"
description = "Accelerator."
aliases = ["GPUs", "HBM"]
signatures = ["Xid 79", "Xid"]

[[component]]
name = "Checkpointing"
description = "Saves."
aliases = ["checkpoint", "ckpt"]

[[component]]
name = "Kubernetes control plane"
description = "K8s."
aliases = ["etcd", "SM"]
signatures = ["etcdserver: request timed out"]

[[symptom]]
name = "Hang"
description = "No progress."
aliases = ["hung", "stuck", "frozen", "froze", "no progress", "GPU at 100% but no progress"]
signatures = ["Watchdog caught collective operation timeout"]

[[symptom]]
name = "Rate limiting"
description = "429s."
aliases = ["throttled"]
signatures = ["429 Too Many Requests"]
"#;

    fn setup() -> (Matcher, Vec<(FacetKind, String)>) {
        let (taxonomy, diags) = Taxonomy::parse("t.toml", TAXONOMY);
        assert!(diags.is_empty(), "{diags:?}");
        let names = taxonomy.values().iter().map(|v| (v.kind, v.name.clone())).collect();
        (Matcher::new(&taxonomy), names)
    }

    fn found(s: &Matcher, names: &[(FacetKind, String)], text: &str) -> Vec<(String, Vec<String>)> {
        s.find(text, &|_| false).into_iter().map(|f| (names[f.value].1.clone(), f.matched)).collect()
    }

    #[test]
    fn words_names_aliases_and_signatures_are_found() {
        let (s, names) = setup();
        for (text, want, matched) in [
            ("job froze at the end of the epoch", "Hang", "froze"),
            ("the job hangs forever", "Hang", "hangs"),
            ("GPUs at 100% but no progress", "Hang", "no progress"),
            (
                "DataLoader worker (pid 1234) is killed by signal: Bus error",
                "Training data loader",
                "DataLoader worker (pid",
            ),
            (
                "DataLoader worker (pid 1234) is killed by signal: Bus error",
                "CPU and host memory",
                "Bus error",
            ),
            ("kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1", "GPU", "Xid"),
            ("NVRM: Xid 79, GPU has fallen off the bus", "GPU", "Xid 79"),
            ("pod status OOMKilled", "CPU and host memory", "OOMKilled"),
            (
                "[E] Watchdog caught collective operation timeout: WorkNCCL",
                "Hang",
                "Watchdog caught collective operation timeout",
            ),
            ("etcdserver: request timed out", "Kubernetes control plane", "etcdserver: request timed out"),
            ("HTTP 429 Too Many Requests", "Rate limiting", "429 Too Many Requests"),
            ("chekpoint save was slow", "Checkpointing", "chekpoint"),
            ("checkpiont save was slow", "Checkpointing", "checkpiont"),
            ("dataloadr workers", "Training data loader", "dataloadr workers"),
            ("the data loader is slow", "Training data loader", "data loader"),
            ("a dataloader hang", "Training data loader", "dataloader"),
            ("data-loader workers", "Training data loader", "data-loader"),
            ("raise shmsize to 1g", "CPU and host memory", "shmsize"),
        ] {
            let got = found(&s, &names, text);
            let hit = got.iter().find(|(name, _)| name == want);
            assert!(hit.is_some(), "{text:?} should suggest {want}: {got:?}");
            assert!(
                hit.is_some_and(|(_, m)| m.iter().any(|m| m == matched)),
                "{text:?}: {want} matched by {matched:?}: {got:?}"
            );
        }
    }

    #[test]
    fn a_phrase_steps_over_a_linking_verb_or_a_number_which_name_nothing() {
        let (s, names) = setup();
        for (text, skipped) in [
            ("the shared memory is full", None),
            ("the shared got memory", Some("got")),
            ("shared 64 memory", Some("64")),
            ("shared 64% memory", Some("64")),
        ] {
            let got = s.find(text, &|_| false);
            let hit = got.iter().find(|f| names[f.value].1 == "CPU and host memory");
            let hit = hit.unwrap_or_else(|| panic!("{text:?}: {got:?}"));
            let stepped: Vec<&str> = hit.skipped.iter().map(|&(a, b)| &text[a..b]).collect();
            assert_eq!(stepped, skipped.into_iter().collect::<Vec<_>>(), "{text:?}");
        }
        // One word at most, and only such a word: `shared host memory` is no alias.
        for text in ["shared got 64 memory", "shared host memory", "shared 1234567 memory"] {
            let got = s.find(text, &|_| false);
            assert!(got.iter().all(|f| names[f.value].1 != "CPU and host memory"), "{text:?}: {got:?}");
        }
    }

    #[test]
    fn near_misses_are_not_found() {
        let (s, names) = setup();
        for (text, not) in [
            ("hun", "Hang"),
            ("request timed out", "Kubernetes control plane"),
            ("Too Many Requests", "Rate limiting"),
            ("", "anything"),
            ("!!! ??? ...", "anything"),
        ] {
            let got = found(&s, &names, text);
            assert!(got.iter().all(|(name, _)| name != not), "{text:?}: {got:?}");
            if not == "anything" {
                assert!(got.is_empty(), "{text:?}: {got:?}");
            }
        }
        let got = found(&s, &names, "Xid 78");
        assert_eq!(got, [("GPU".to_string(), vec!["Xid".to_string()])], "79 is not 78");
        // Signatures match exactly: a typo in a log line is not that log line.
        let got = found(&s, &names, "OOMKiled");
        assert!(got.iter().all(|(name, _)| name != "CPU and host memory"), "{got:?}");
    }

    #[test]
    fn stronger_evidence_ranks_first() {
        let (s, names) = setup();
        let got = found(&s, &names, "GPU at 100% but no progress, Xid 79");
        let pos = |n: &str| got.iter().position(|(name, _)| name == n);
        assert!(pos("Hang").is_some() && pos("GPU").is_some(), "{got:?}");
        let scores: Vec<f32> = s.find("stuck", &|_| false).iter().map(|f| f.score).collect();
        let long: Vec<f32> =
            s.find("GPU at 100% but no progress", &|_| false).iter().map(|f| f.score).collect();
        assert!(long[0] > scores[0], "a long phrase outweighs one word: {long:?} vs {scores:?}");
    }

    #[test]
    fn known_words_are_not_typos_and_stems_must_be_one_word() {
        let (s, names) = setup();
        let typo = |known: bool| {
            s.find("checkpoinr", &|w| known && w == "checkpoinr")
                .iter()
                .map(|f| names[f.value].1.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(typo(false), ["Checkpointing"]);
        assert!(typo(true).is_empty(), "a word the library knows is taken as it is");
        for (a, b, same) in [
            ("hang", "hangs", true),
            ("froze", "frozen", true),
            ("failing", "failed", true),
            ("die", "died", true),
            ("times", "timing", false),
            ("operation", "operator", false),
            ("synchronously", "synchronized", false),
        ] {
            assert_eq!(same_word(a, b), same, "{a} ~ {b}");
        }
    }
}
