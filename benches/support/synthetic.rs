//! Synthetic libraries for benchmarks: any number of cases shaped like the real ones, tagged
//! with the real taxonomy, built deterministically from a seed.
//!
//! Field lengths follow the bundled library (title about 85 characters, symptoms about 400,
//! trigger 210, detection 160, lessons 250, two or three remediation steps and action items of
//! 120 to 140 characters); the words are the taxonomy's names, aliases and log signatures of the
//! case's own facet values mixed with common infrastructure prose, numbers and identifiers, so
//! the vocabulary has the long tail real logs have and facet counts are uneven, as they are in
//! the library. Nothing here is meant to be read; it is meant to cost what real cases cost.
//!
//! Used by the benchmarks (in memory) and by `cargo run --release --example synth` (as files a
//! user library directory can hold).

// Each includer (a benchmark, the example, the library's unit tests) uses a part of it.
#![allow(dead_code)]

use std::{fmt::Write as _, fs, path::Path};

use incidex::{
    corpus::{
        Case, Library,
        model::{
            ActionItem, ActionType, CaseBody, Facets, ItemOrigin, PartialDate, Provenance, Source, SourceKind,
        },
    },
    support::error::{Error, Result},
    taxonomy::{FacetKind, FacetValue, Taxonomy},
};

/// A small, fast, deterministic generator (SplitMix64): the same seed gives the same library on
/// every machine.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next_u64() % n as u64) as usize }
    }

    /// A number in `lo..=hi`.
    pub fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }

    /// An index in `0..n` skewed towards the start (about Zipf-like): popular values stay popular.
    pub fn skewed(&mut self, n: usize) -> usize {
        let a = self.below(n);
        let b = self.below(n);
        a.min(b)
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const NOUNS: &[&str] = &[
    "job",
    "run",
    "rank",
    "node",
    "host",
    "worker",
    "cluster",
    "step",
    "epoch",
    "batch",
    "process",
    "container",
    "pod",
    "service",
    "request",
    "replica",
    "shard",
    "queue",
    "link",
    "switch",
    "disk",
    "volume",
    "config",
    "release",
    "kernel",
    "driver",
    "library",
    "model",
    "checkpoint",
    "log",
    "dashboard",
    "alert",
    "metric",
    "team",
    "operator",
    "engineer",
    "rack",
    "region",
    "tenant",
    "pipeline",
    "tensor",
    "gradient",
    "optimizer",
    "throughput",
    "latency",
    "memory",
    "bandwidth",
];
const VERBS: &[&str] = &[
    "stopped",
    "failed",
    "restarted",
    "slowed down",
    "hung",
    "crashed",
    "recovered",
    "timed out",
    "degraded",
    "returned errors",
    "ran out of memory",
    "lost progress",
    "was drained",
    "was replaced",
    "kept retrying",
    "diverged",
    "stalled",
    "was rolled back",
    "was cordoned",
    "flapped",
];
const CONNECTIVES: &[&str] =
    &["after", "before", "while", "because", "until", "when", "although", "since", "so", "and then"];
const ADJECTIVES: &[&str] = &[
    "slow",
    "stale",
    "partial",
    "silent",
    "intermittent",
    "large",
    "new",
    "old",
    "default",
    "shared",
    "remote",
    "local",
    "faulty",
    "busy",
    "idle",
    "wrong",
    "missing",
    "corrupt",
    "unexpected",
];
const ORG_STEMS: &[&str] = &[
    "Acme",
    "Globex",
    "Initech",
    "Umbrella",
    "Hooli",
    "Vandelay",
    "Stark",
    "Wayne",
    "Tyrell",
    "Cyberdyne",
    "Soylent",
    "Wonka",
    "Oscorp",
    "Aperture",
    "Massive",
    "Pied Piper",
    "Nakatomi",
];
const ORG_KINDS: &[&str] = &["Labs", "AI", "Research", "Cloud", "Systems", "University", "Compute"];

/// Words drawn for one case: its facet values' phrases and the shared prose.
struct Words<'a> {
    phrases: Vec<&'a str>,
}

impl Words<'_> {
    fn phrase(&self, rng: &mut Rng) -> String {
        if self.phrases.is_empty() || rng.below(3) == 0 {
            return rng.pick(NOUNS).to_string();
        }
        rng.pick(&self.phrases).to_string()
    }

    /// One sentence of prose around the case's own phrases.
    fn sentence(&self, rng: &mut Rng) -> String {
        let mut s = String::new();
        match rng.below(6) {
            0 => {
                let _ = write!(
                    s,
                    "The {} {} {} the {}",
                    self.phrase(rng),
                    rng.pick(VERBS),
                    rng.pick(CONNECTIVES),
                    self.phrase(rng)
                );
            }
            1 => {
                let _ = write!(
                    s,
                    "Logs showed \"{}\" on rank {} at step {}",
                    self.phrase(rng),
                    rng.below(4096),
                    rng.below(500_000)
                );
            }
            2 => {
                let _ = write!(
                    s,
                    "A {} {} {} for {} minutes",
                    rng.pick(ADJECTIVES),
                    self.phrase(rng),
                    rng.pick(VERBS),
                    rng.between(1, 600)
                );
            }
            3 => {
                let _ = write!(
                    s,
                    "On node-{:05} the {} {} {} {}",
                    rng.below(100_000),
                    self.phrase(rng),
                    rng.pick(VERBS),
                    rng.pick(CONNECTIVES),
                    self.phrase(rng)
                );
            }
            4 => {
                let _ = write!(
                    s,
                    "Version {}.{}.{} of the {} made the {} {}",
                    rng.below(4),
                    rng.below(30),
                    rng.below(10),
                    self.phrase(rng),
                    rng.pick(NOUNS),
                    rng.pick(ADJECTIVES)
                );
            }
            _ => {
                let _ = write!(
                    s,
                    "{} {} {} across {} GPUs",
                    capitalise(&self.phrase(rng)),
                    rng.pick(VERBS),
                    rng.pick(CONNECTIVES),
                    1usize << rng.between(1, 14)
                );
            }
        }
        s.push('.');
        s
    }

    /// Sentences until about `target` characters (within 40% either way).
    fn prose(&self, rng: &mut Rng, target: usize) -> String {
        let want = target * rng.between(60, 140) / 100;
        let mut text = String::new();
        while text.len() < want {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(&self.sentence(rng));
        }
        text
    }
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

fn pick_values<'a>(rng: &mut Rng, values: &[&'a FacetValue], lo: usize, hi: usize) -> Vec<&'a FacetValue> {
    let mut chosen: Vec<&FacetValue> = Vec::new();
    if values.is_empty() {
        return chosen;
    }
    for _ in 0..rng.between(lo, hi) {
        let v = values[rng.skewed(values.len())];
        if !chosen.iter().any(|c| c.name == v.name) {
            chosen.push(v);
        }
    }
    chosen
}

/// `n` synthetic cases tagged with values of `taxonomy`, ids `synthetic-000000` upwards.
pub fn generate(taxonomy: &Taxonomy, n: usize, seed: u64) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    let by_kind: Vec<Vec<&FacetValue>> =
        FacetKind::ALL.iter().map(|k| taxonomy.values_of(*k).collect()).collect();
    let organizations: Vec<String> =
        ORG_STEMS.iter().flat_map(|s| ORG_KINDS.iter().map(move |k| format!("{s} {k}"))).collect();
    (0..n)
        .map(|i| {
            let mut facets = Facets::default();
            let mut phrases: Vec<&str> = Vec::new();
            for (kind, (lo, hi)) in FacetKind::ALL.into_iter().zip([(1, 2), (1, 3), (1, 2), (0, 2)]) {
                let chosen = pick_values(&mut rng, &by_kind[kind.index()], lo, hi);
                for v in &chosen {
                    phrases.extend(v.phrases());
                }
                facets.set(kind, chosen.iter().map(|v| v.name.clone()).collect());
            }
            let words = Words { phrases };
            let id = format!("synthetic-{i:06}");
            let title = {
                let mut t = format!(
                    "{} {} {} {}",
                    capitalise(&words.phrase(&mut rng)),
                    rng.pick(VERBS),
                    rng.pick(CONNECTIVES),
                    words.phrase(&mut rng)
                );
                while t.len() < 60 {
                    t.push_str(&format!(" on {} {}", rng.between(2, 4096), rng.pick(NOUNS)));
                }
                t
            };
            let year = 2015 + rng.below(12) as u16;
            let date = match rng.below(4) {
                0 => PartialDate { year, month: None, day: None },
                1 => PartialDate { year, month: Some(rng.between(1, 12) as u8), day: None },
                _ => PartialDate {
                    year,
                    month: Some(rng.between(1, 12) as u8),
                    day: Some(rng.between(1, 28) as u8),
                },
            };
            let remediation = (0..rng.between(1, 4)).map(|_| words.prose(&mut rng, 140)).collect();
            let action_items = (0..rng.between(1, 4))
                .map(|_| ActionItem {
                    text: words.prose(&mut rng, 120),
                    kind: *rng.pick(&ActionType::ALL),
                    origin: if rng.below(2) == 0 { ItemOrigin::Report } else { ItemOrigin::Editorial },
                    components: Vec::new(),
                })
                .collect();
            let sources = (0..rng.between(1, 3))
                .map(|s| Source {
                    title: words.prose(&mut rng, 60),
                    url: format!("https://example.org/synthetic/{id}/{s}"),
                    kind: *rng.pick(&SourceKind::ALL),
                    published: None,
                    note: None,
                })
                .collect();
            Case {
                title,
                date: Some(date),
                organization: rng.pick(&organizations).clone(),
                facets,
                provenance: Provenance { path: format!("synthetic/{id}.toml"), bundled: false },
                id,
                body: CaseBody {
                    scale: (rng.below(2) == 0)
                        .then(|| format!("{} GPUs in {} nodes", 8 << rng.below(10), rng.between(1, 512))),
                    symptoms: words.prose(&mut rng, 400),
                    trigger: (rng.below(20) != 0).then(|| words.prose(&mut rng, 210)),
                    detection: words.prose(&mut rng, 160),
                    remediation,
                    action_items,
                    lessons: (rng.below(50) != 0).then(|| words.prose(&mut rng, 250)),
                    sources,
                    impact: None,
                    timeline: None,
                    root_cause: None,
                    owner: None,
                    incident_id: None,
                }
                .into(),
            }
        })
        .collect()
}

/// The bundled taxonomy with `n` synthetic cases (and no bundled case), newest first.
pub fn library(n: usize, seed: u64) -> Library {
    let taxonomy = Library::load(&incidex::corpus::LoadOptions { bundled: false, dirs: Vec::new() }).taxonomy;
    let mut cases = generate(&taxonomy, n, seed);
    cases.sort_by(Case::newest_first);
    Library { cases: cases.into(), taxonomy, diagnostics: Vec::new() }
}

/// A case as a case file.
pub fn case_toml(case: &Case) -> String {
    use toml::{Table, Value};
    let s = |v: &str| Value::String(v.to_string());
    let list = |v: &[String]| Value::Array(v.iter().map(|x| s(x)).collect());
    let mut t = Table::new();
    t.insert("id".into(), s(&case.id));
    t.insert("title".into(), s(&case.title));
    t.insert("date".into(), s(&case.date.map(|d| d.to_string()).unwrap_or_else(|| "unknown".into())));
    t.insert("organization".into(), s(&case.organization));
    if let Some(scale) = &case.body.scale {
        t.insert("scale".into(), s(scale));
    }
    t.insert("symptoms".into(), s(&case.body.symptoms));
    if let Some(trigger) = &case.body.trigger {
        t.insert("trigger".into(), s(trigger));
    }
    t.insert("detection".into(), s(&case.body.detection));
    t.insert("remediation".into(), list(&case.body.remediation));
    if let Some(lessons) = &case.body.lessons {
        t.insert("lessons".into(), s(lessons));
    }
    for kind in FacetKind::ALL {
        t.insert(kind.case_field().into(), list(case.facets.values(kind)));
    }
    let items = case
        .body
        .action_items
        .iter()
        .map(|a| {
            let mut item = Table::new();
            item.insert("text".into(), s(&a.text));
            item.insert("type".into(), s(a.kind.key()));
            item.insert(
                "origin".into(),
                s(if a.origin == ItemOrigin::Report { "report" } else { "editorial" }),
            );
            Value::Table(item)
        })
        .collect();
    t.insert("action_items".into(), Value::Array(items));
    let sources = case
        .body
        .sources
        .iter()
        .map(|src| {
            let mut source = Table::new();
            source.insert("title".into(), s(&src.title));
            source.insert("url".into(), s(&src.url));
            source.insert("kind".into(), s(src.kind.key()));
            Value::Table(source)
        })
        .collect();
    t.insert("sources".into(), Value::Array(sources));
    toml::to_string(&t).unwrap_or_default()
}

/// Write `cases` as case files under `dir`, a thousand to a sub-directory (`000/`, `001/`, ...).
pub fn write(dir: &Path, cases: &[Case]) -> Result<()> {
    for (i, case) in cases.iter().enumerate() {
        let sub = dir.join(format!("{:03}", i / 1000));
        if i % 1000 == 0 {
            fs::create_dir_all(&sub).map_err(|e| Error::io(&sub, e))?;
        }
        let path = sub.join(format!("{}.toml", case.id));
        fs::write(&path, case_toml(case)).map_err(|e| Error::io(&path, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    // A benchmark without the test harness compiles this module but drops its tests.
    #[allow(unused_imports)]
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_library() {
        let a = library(30, 7);
        let b = library(30, 7);
        assert_eq!(a.cases, b.cases);
        assert_ne!(a.cases, library(30, 8).cases);
    }

    #[test]
    fn written_cases_load_back_clean_and_look_like_real_ones() {
        let lib = library(60, 1);
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &lib.cases).unwrap();
        let loaded = Library::load(&incidex::corpus::LoadOptions {
            bundled: false,
            dirs: vec![dir.path().to_path_buf()],
        });
        let problems: Vec<String> =
            loaded.diagnostics.iter().filter(|d| d.is_error()).map(ToString::to_string).collect();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(loaded.cases.len(), 60);
        let mean = |f: &dyn Fn(&Case) -> usize| lib.cases.iter().map(f).sum::<usize>() / lib.cases.len();
        for (what, got, lo, hi) in [
            ("title", mean(&|c| c.title.len()), 60, 130),
            ("symptoms", mean(&|c| c.body.symptoms.len()), 300, 550),
            ("detection", mean(&|c| c.body.detection.len()), 110, 250),
            ("components", mean(&|c| c.facets.values(FacetKind::Component).len() * 10), 10, 30),
        ] {
            assert!((lo..=hi).contains(&got), "{what}: mean {got} outside {lo}..={hi}");
        }
    }
}
