//! Search quality on the on-call evaluation set: every `tests/eval/*.toml` sentence is searched
//! over the bundled library, and hit@3 (an expected case among the first three) and mean
//! reciprocal rank must stay above the floors below. The report (`cargo test --test eval --
//! --nocapture`) lists every miss with the rank its cases reached.
//!
//! Eval files: `[[query]] text = "..." expect = ["case-id", ...]`. Add sentences as the library
//! grows; raise the floors when quality rises.

#[path = "eval_support/mod.rs"]
mod eval_support;

use std::sync::Arc;

use incidex::{
    corpus::Library,
    search::{Engine, index::Tuning},
};

/// hit@3 must not fall below this (0.974 measured over 155 sentences when it was set; the margin
/// leaves room for new cases that compete for the same sentences).
const HIT_AT_3_FLOOR: f64 = 0.94;
/// Mean reciprocal rank must not fall below this (0.951 measured when it was set).
const MRR_FLOOR: f64 = 0.92;

#[test]
fn search_quality_holds_its_floor() {
    let queries = eval_support::load_queries();
    assert!(queries.len() >= 40, "the evaluation set needs at least 40 sentences, has {}", queries.len());
    let library = Arc::new(Library::bundled());
    for q in &queries {
        for id in &q.expect {
            assert!(library.case(id).is_some(), "{}: expects '{id}', which is not in the library", q.file);
        }
    }
    let plain = Engine::with_tuning(library.clone(), Tuning::plain()).expect("the index builds");
    let baseline = eval_support::evaluate(&plain, &queries);
    let engine = Engine::new(library).expect("the index builds");
    let report = eval_support::evaluate(&engine, &queries);
    println!(
        "plain BM25 (no boosts, no expansion, no typos): hit@3 {:.3}, MRR {:.3}",
        baseline.hit_at_3(),
        baseline.mrr()
    );
    let overlap = eval_support::WordOverlap::new(&Library::bundled()).evaluate(&queries);
    println!("word overlap: hit@3 {:.3}, MRR {:.3}", overlap.hit_at_3(), overlap.mrr());
    println!("{}", report.render());
    assert!(
        report.mrr() > baseline.mrr(),
        "the tuned ranking (MRR {:.3}) must beat plain BM25 (MRR {:.3})",
        report.mrr(),
        baseline.mrr()
    );
    assert!(
        report.hit_at_3() >= HIT_AT_3_FLOOR,
        "hit@3 {:.3} fell below its floor {HIT_AT_3_FLOOR}",
        report.hit_at_3()
    );
    assert!(report.mrr() >= MRR_FLOOR, "MRR {:.3} fell below its floor {MRR_FLOOR}", report.mrr());
}

/// The engine over the bundled library, built once for every test here.
fn engine() -> &'static Engine {
    static ENGINE: std::sync::OnceLock<Engine> = std::sync::OnceLock::new();
    ENGINE.get_or_init(|| Engine::new(Arc::new(Library::bundled())).expect("the index builds"))
}

/// Floors of the triage evaluation (issue 15): whole logs, everyday short queries, and the
/// precision of suggested filters.
const LOGS_HIT_AT_3_FLOOR: f64 = 0.9;
const SHORT_HIT_AT_3_FLOOR: f64 = 0.9;
const SUGGESTION_PRECISION_FLOOR: f64 = 0.9;
/// Every generated log has at least this many lines.
const LOG_LINES: usize = 10_000;

#[test]
fn whole_logs_find_their_case() {
    use eval_support::logs::{SCENARIOS, generate};
    use incidex::{corpus::filter::Filters, logs::LogReader, search::Request};
    let engine = engine();
    let baseline = eval_support::WordOverlap::new(engine.library());
    assert!(SCENARIOS.len() >= 30, "the log evaluation needs at least 30 logs, has {}", SCENARIOS.len());
    let none = Filters::default();
    let mut outcomes = Vec::new();
    let mut base = Vec::new();
    let mut evidence = Vec::new();
    for (n, scenario) in SCENARIOS.iter().enumerate() {
        for id in scenario.expect {
            assert!(
                engine.library().case(id).is_some(),
                "{}: expects '{id}', not in the library",
                scenario.name
            );
        }
        let log = generate(n, LOG_LINES);
        assert!(log.lines().count() >= LOG_LINES, "{}: {} lines", scenario.name, log.lines().count());
        let mut reader = LogReader::new(engine.library().taxonomy.signatures()).with_threads(1, usize::MAX);
        reader.read_text("job.log", &log).unwrap();
        let digest = reader.finish();
        // Read in small blocks on two threads, as a large log is, the digest is the same.
        let mut blocks = LogReader::new(engine.library().taxonomy.signatures()).with_threads(2, 16 << 10);
        blocks.read("job.log", log.as_bytes()).unwrap();
        assert_eq!(blocks.finish(), digest, "{}: read in blocks", scenario.name);
        let text = digest.query_text();
        let r = engine.search(&Request { limit: usize::MAX, all: true, ..Request::log(&text, &none) });
        let ids: Vec<String> = r.hits.iter().map(|h| h.id.clone()).collect();
        let query = eval_support::EvalQuery {
            file: format!("log {n}: {}", scenario.name),
            text: scenario.name.to_string(),
            expect: scenario.expect.iter().map(|s| s.to_string()).collect(),
            triage: true,
        };
        outcomes.push(eval_support::outcome(&query, &ids));
        base.push(eval_support::outcome(&query, &baseline.rank(&log)));
        evidence.push(digest.evidence.iter().map(|e| format!("L{} {}", e.line, e.text)).collect::<Vec<_>>());
    }
    let report = eval_support::Report { outcomes };
    let baseline = eval_support::Report { outcomes: base };
    println!("word overlap over the whole log: hit@3 {:.3}, MRR {:.3}", baseline.hit_at_3(), baseline.mrr());
    println!("logs {}", report.render());
    for (o, lines) in report.outcomes.iter().zip(&evidence) {
        if o.rank.is_none_or(|r| r > 3) {
            println!("  evidence for {}: {lines:#?}", o.query.file);
        }
    }
    assert!(
        report.hit_at_3() >= LOGS_HIT_AT_3_FLOOR,
        "logs: hit@3 {:.3} fell below its floor {LOGS_HIT_AT_3_FLOOR}",
        report.hit_at_3()
    );
    assert!(report.hit_at_3() > baseline.hit_at_3(), "triage must beat word overlap on whole logs");
}

#[test]
fn short_queries_find_their_case() {
    let engine = engine();
    let queries = eval_support::load_queries_in(&eval_support::eval_dir().join("short"));
    assert!(queries.len() >= 30, "the short-query set needs at least 30 queries, has {}", queries.len());
    for q in &queries {
        let words = q.text.split_whitespace().count();
        assert!((2..=6).contains(&words), "{:?} has {words} words; short queries have 2 to 6", q.text);
    }
    let report = eval_support::evaluate(engine, &queries);
    let baseline = eval_support::WordOverlap::new(engine.library()).evaluate(&queries);
    println!("word overlap: hit@3 {:.3}, MRR {:.3}", baseline.hit_at_3(), baseline.mrr());
    println!("short {}", report.render());
    assert!(
        report.hit_at_3() >= SHORT_HIT_AT_3_FLOOR,
        "short queries: hit@3 {:.3} fell below its floor {SHORT_HIT_AT_3_FLOOR}",
        report.hit_at_3()
    );
}

#[derive(serde::Deserialize)]
struct SuggestFile {
    input: Vec<SuggestInput>,
}

#[derive(serde::Deserialize)]
struct SuggestInput {
    text: String,
    accept: Vec<String>,
}

#[test]
fn suggestions_are_precise() {
    use incidex::{corpus::filter::Filters, search::Request};
    let engine = engine();
    let path = eval_support::eval_dir().join("suggest/suggest.toml");
    let file: SuggestFile =
        toml::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("valid");
    assert!(file.input.len() >= 30, "the suggestion set needs at least 30 inputs, has {}", file.input.len());
    let none = Filters::default();
    let (mut right, mut all) = (0usize, 0usize);
    let mut wrong = Vec::new();
    for input in &file.input {
        for value in &input.accept {
            let (kind, name) = value.split_once(": ").expect("Kind: Value");
            let known =
                engine.library().taxonomy.values().iter().any(|v| v.kind.label() == kind && v.name == name);
            assert!(known, "{:?} accepts {value:?}, which is not in the taxonomy", input.text);
        }
        let r = engine.search(&Request::new(&input.text, &none));
        for s in &r.suggestions {
            all += 1;
            let label = format!("{}: {}", s.kind.label(), s.value);
            if input.accept.contains(&label) {
                right += 1;
            } else {
                wrong.push(format!("{:?} -> {label} (from {:?})", input.text, s.matched));
            }
        }
    }
    let precision = right as f64 / all.max(1) as f64;
    println!("suggestions: {all} over {} inputs, precision {precision:.3}", file.input.len());
    for w in &wrong {
        println!("  wrong: {w}");
    }
    assert!(
        precision >= SUGGESTION_PRECISION_FLOOR,
        "suggestion precision {precision:.3} below {SUGGESTION_PRECISION_FLOOR}"
    );
}
