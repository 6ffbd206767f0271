//! Reading the evaluation sets and scoring a search engine on them: shared by the eval test and
//! the tuning benchmark. Beside the engine, a word-overlap baseline ([`WordOverlap`]): what a
//! person gets by counting which of their words each case file contains.

pub mod logs;
pub mod loo;

use std::path::{Path, PathBuf};

use incidex::{
    corpus::filter::Filters,
    search::{Engine, Request},
};

/// One evaluation sentence.
#[derive(Debug, Clone)]
pub struct EvalQuery {
    /// The file it came from.
    pub file: String,
    /// What the on-call engineer types.
    pub text: String,
    /// Cases that answer it; a hit is any of them.
    pub expect: Vec<String>,
    /// A pasted log line rather than a typed sentence: searched as `triage` does (no inline
    /// syntax).
    pub triage: bool,
}

#[derive(serde::Deserialize)]
struct EvalFile {
    query: Vec<EvalEntry>,
}

#[derive(serde::Deserialize)]
struct EvalEntry {
    text: String,
    expect: Vec<String>,
    #[serde(default)]
    triage: bool,
}

/// The directory of the evaluation files.
pub fn eval_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/eval")
}

/// Every sentence of every `tests/eval/*.toml`, files in name order.
pub fn load_queries() -> Vec<EvalQuery> {
    load_queries_in(&eval_dir())
}

/// Every query of every `*.toml` in `dir`, files in name order.
pub fn load_queries_in(dir: &Path) -> Vec<EvalQuery> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("tests/eval exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut queries = Vec::new();
    for path in files {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let text = std::fs::read_to_string(&path).expect("eval file is readable");
        let parsed: EvalFile = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        for q in parsed.query {
            assert!(!q.expect.is_empty(), "{name}: {:?} expects no case", q.text);
            queries.push(EvalQuery { file: name.clone(), text: q.text, expect: q.expect, triage: q.triage });
        }
    }
    queries
}

/// The outcome of one sentence.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The sentence.
    pub query: EvalQuery,
    /// 1-based rank of the first expected case, if it was found at all.
    pub rank: Option<usize>,
    /// The first three ids returned.
    pub top: Vec<String>,
}

/// Outcomes of the whole set.
#[derive(Debug, Clone)]
pub struct Report {
    /// One per sentence, in file order.
    pub outcomes: Vec<Outcome>,
}

impl Report {
    /// Share of sentences with an expected case in the first three.
    pub fn hit_at_3(&self) -> f64 {
        let hits = self.outcomes.iter().filter(|o| o.rank.is_some_and(|r| r <= 3)).count();
        hits as f64 / self.outcomes.len().max(1) as f64
    }

    /// Mean of 1/rank (0 when not found).
    pub fn mrr(&self) -> f64 {
        let sum: f64 = self.outcomes.iter().map(|o| o.rank.map_or(0.0, |r| 1.0 / r as f64)).sum();
        sum / self.outcomes.len().max(1) as f64
    }

    /// The numbers and every miss, for the test log.
    pub fn render(&self) -> String {
        let mut out = format!(
            "eval: {} sentences, hit@3 {:.3}, MRR {:.3}\n",
            self.outcomes.len(),
            self.hit_at_3(),
            self.mrr()
        );
        for o in self.outcomes.iter().filter(|o| o.rank.is_none_or(|r| r > 3)) {
            let rank = o.rank.map_or("not found".to_string(), |r| format!("rank {r}"));
            out.push_str(&format!("  miss ({}, {rank}): {}\n", o.query.file, o.query.text));
            out.push_str(&format!("    want {:?}\n    got  {:?}\n", o.query.expect, o.top));
        }
        out
    }
}

/// Search every sentence and rank the expected cases.
pub fn evaluate(engine: &Engine, queries: &[EvalQuery]) -> Report {
    let none = Filters::default();
    let outcomes = queries
        .iter()
        .map(|q| {
            let request = Request { limit: usize::MAX, all: true, ..Request::new(&q.text, &none) };
            let request = if q.triage { Request { inline_syntax: false, ..request } } else { request };
            let r = engine.search(&request);
            let rank = r.hits.iter().position(|h| q.expect.contains(&h.id)).map(|p| p + 1);
            let top = r.hits.iter().take(3).map(|h| h.id.clone()).collect();
            Outcome { query: q.clone(), rank, top }
        })
        .collect();
    Report { outcomes }
}

/// Rank `ids` (best first) for `query` as an outcome.
pub fn outcome(query: &EvalQuery, ids: &[String]) -> Outcome {
    let rank = ids.iter().position(|id| query.expect.contains(id)).map(|p| p + 1);
    Outcome { query: query.clone(), rank, top: ids.iter().take(3).cloned().collect() }
}

/// The baseline: every case file's words as a set; a query ranks the cases by how many of its
/// distinct words each contains (ties by id), the way `grep -c` over the files would.
pub struct WordOverlap {
    cases: Vec<(String, std::collections::HashSet<String>)>,
}

/// Lowercase runs of letters and digits.
fn word_set(text: &str) -> std::collections::HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

impl WordOverlap {
    /// The word sets of every case of `library` (all of its text).
    pub fn new(library: &incidex::corpus::Library) -> WordOverlap {
        let cases = library
            .cases
            .iter()
            .map(|c| {
                let b = &c.body;
                let mut text = format!("{} {} {} {}", c.title, c.organization, b.symptoms, b.detection);
                for part in b.trigger.iter().chain(&b.root_cause).chain(&b.lessons).chain(&b.remediation) {
                    text.push(' ');
                    text.push_str(part);
                }
                for a in &b.action_items {
                    text.push(' ');
                    text.push_str(&a.text);
                }
                for (_, v) in c.facets.iter() {
                    text.push(' ');
                    text.push_str(v);
                }
                (c.id.clone(), word_set(&text))
            })
            .collect();
        WordOverlap { cases }
    }

    /// Case ids, most shared words first, ties by id; cases sharing no word left out.
    pub fn rank(&self, query: &str) -> Vec<String> {
        let words = word_set(query);
        let mut scored: Vec<(usize, &str)> = self
            .cases
            .iter()
            .map(|(id, set)| (words.iter().filter(|w| set.contains(*w)).count(), id.as_str()))
            .filter(|(n, _)| *n > 0)
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        scored.into_iter().map(|(_, id)| id.to_string()).collect()
    }

    /// The baseline's outcomes over `queries`.
    pub fn evaluate(&self, queries: &[EvalQuery]) -> Report {
        Report { outcomes: queries.iter().map(|q| outcome(q, &self.rank(&q.text))).collect() }
    }
}
