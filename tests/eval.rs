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
const SUGGESTION_PRECISION_FLOOR: f64 = 0.95;
/// Of the values the labelled suggestion set wants suggested (everyday words: "oom", "training is
/// slow", "inference is slow"), the share that are (1.000, 15 of 15, when set).
const SUGGESTION_RECALL_FLOOR: f64 = 0.9;
/// How many of a log's suggestions are judged: the first ones, strongest first, as triage lists them.
const SUGGESTIONS_READ: usize = 3;
/// Suggestions from whole logs: the share a case that answers the log carries.
const LOG_SUGGESTIONS_FLOOR: f64 = 0.9;
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
    let aliases_only = Engine::new(engine.library().clone()).expect("the index builds").aliases_only();
    // (right, all) suggestions, with the learned model and without.
    let (mut learned_suggestions, mut alias_suggestions) = ((0usize, 0usize), (0usize, 0usize));
    let mut wrong_suggestions = Vec::new();
    for (n, scenario) in SCENARIOS.iter().enumerate() {
        for value in scenario.accept {
            let (kind, name) = value.split_once(": ").expect("Kind: Value");
            let known =
                engine.library().taxonomy.values().iter().any(|v| v.kind.label() == kind && v.name == name);
            assert!(known, "{}: accepts {value:?}, which is not in the taxonomy", scenario.name);
        }
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
        let failure = digest.failure_text();
        let r = engine.search(&Request {
            limit: usize::MAX,
            all: true,
            suggest_from: Some(&failure),
            ..Request::log(&text, &none)
        });
        let ids: Vec<String> = r.hits.iter().map(|h| h.id.clone()).collect();
        let query = eval_support::EvalQuery {
            file: format!("log {n}: {}", scenario.name),
            text: scenario.name.to_string(),
            expect: scenario.expect.iter().map(|s| s.to_string()).collect(),
            triage: true,
        };
        outcomes.push(eval_support::outcome(&query, &ids));
        // A suggestion is right when a case that answers the log carries it, or the failure
        // lines show it (the scenario's `accept`).
        let carried = |kind: incidex::taxonomy::FacetKind, value: &str| {
            scenario.accept.contains(&format!("{}: {value}", kind.label()).as_str())
                || scenario
                    .expect
                    .iter()
                    .any(|id| engine.library().case(id).is_some_and(|c| c.facets.contains(kind, value)))
        };
        // The baseline: aliases and signatures, read from every line that stood out (as before).
        let stood_out: String = digest.evidence.iter().map(|e| format!("{}\n", e.text)).collect();
        let plain = aliases_only.search(&Request { limit: 1, ..Request::log(&stood_out, &none) });
        for (tally, response) in [(&mut learned_suggestions, &r), (&mut alias_suggestions, &plain)] {
            for s in response.suggestions.iter().take(SUGGESTIONS_READ) {
                tally.0 += usize::from(carried(s.kind, &s.value));
                tally.1 += 1;
            }
        }
        for s in r.suggestions.iter().take(SUGGESTIONS_READ) {
            if !carried(s.kind, &s.value) {
                wrong_suggestions.push(format!(
                    "{}: {}: {} ({})",
                    scenario.name,
                    s.kind.label(),
                    s.value,
                    s.basis.describe()
                ));
            }
        }
        base.push(eval_support::outcome(&query, &baseline.rank(&log)));
        evidence.push(
            digest
                .evidence
                .iter()
                .map(|e| format!("L{} ({:.2}) {}", e.line, e.score, e.text))
                .collect::<Vec<_>>(),
        );
    }
    let report = eval_support::Report { outcomes };
    let baseline = eval_support::Report { outcomes: base };
    println!("word overlap over the whole log: hit@3 {:.3}, MRR {:.3}", baseline.hit_at_3(), baseline.mrr());
    println!("logs {}", report.render());
    for (o, lines) in report.outcomes.iter().zip(&evidence) {
        if o.rank.is_none_or(|r| r > 3) || std::env::var_os("INCIDEX_EVAL_EVIDENCE").is_some() {
            println!("  evidence for {}: {lines:#?}", o.query.file);
        }
    }
    assert!(
        report.hit_at_3() >= LOGS_HIT_AT_3_FLOOR,
        "logs: hit@3 {:.3} fell below its floor {LOGS_HIT_AT_3_FLOOR}",
        report.hit_at_3()
    );
    assert!(report.hit_at_3() > baseline.hit_at_3(), "triage must beat word overlap on whole logs");
    let share = |(right, all): (usize, usize)| right as f64 / all.max(1) as f64;
    println!(
        "logs: suggestions right {:.3} ({} of {}); aliases and signatures only {:.3} ({} of {})",
        share(learned_suggestions),
        learned_suggestions.0,
        learned_suggestions.1,
        share(alias_suggestions),
        alias_suggestions.0,
        alias_suggestions.1
    );
    for w in &wrong_suggestions {
        println!("  wrong suggestion: {w}");
    }
    assert!(
        share(learned_suggestions) >= LOG_SUGGESTIONS_FLOOR,
        "logs: suggestions right {:.3}, below {LOG_SUGGESTIONS_FLOOR}",
        share(learned_suggestions)
    );
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
    /// Values that must be among the suggestions (each also in `accept`).
    #[serde(default)]
    want: Vec<String>,
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
    let (mut right, mut all, mut wanted, mut given) = (0usize, 0usize, 0usize, 0usize);
    let (mut wrong, mut missed) = (Vec::new(), Vec::new());
    for input in &file.input {
        for value in &input.want {
            assert!(input.accept.contains(value), "{:?} wants {value:?} but does not accept it", input.text);
        }
        for value in &input.accept {
            let (kind, name) = value.split_once(": ").expect("Kind: Value");
            let known =
                engine.library().taxonomy.values().iter().any(|v| v.kind.label() == kind && v.name == name);
            assert!(known, "{:?} accepts {value:?}, which is not in the taxonomy", input.text);
        }
        let r = engine.search(&Request::new(&input.text, &none));
        for value in &input.want {
            wanted += 1;
            let suggested =
                r.suggestions.iter().any(|s| format!("{}: {}", s.kind.label(), s.value) == *value);
            if suggested {
                given += 1;
            } else {
                missed.push(format!("{:?} -> {value}", input.text));
            }
        }
        for s in &r.suggestions {
            all += 1;
            let label = format!("{}: {}", s.kind.label(), s.value);
            if input.accept.contains(&label) {
                right += 1;
            } else {
                wrong.push(format!("{:?} -> {label} ({})", input.text, s.basis.describe()));
            }
        }
    }
    let precision = right as f64 / all.max(1) as f64;
    println!("suggestions: {all} over {} inputs, precision {precision:.3}", file.input.len());
    for w in &wrong {
        println!("  wrong: {w}");
    }
    let recall = given as f64 / wanted.max(1) as f64;
    println!("suggestions wanted: {given} of {wanted} given, recall {recall:.3}");
    for m in &missed {
        println!("  not suggested: {m}");
    }
    assert!(
        recall >= SUGGESTION_RECALL_FLOOR,
        "suggestion recall {recall:.3} below {SUGGESTION_RECALL_FLOOR}"
    );
    assert!(
        precision >= SUGGESTION_PRECISION_FLOOR,
        "suggestion precision {precision:.3} below {SUGGESTION_PRECISION_FLOOR}"
    );
}

/// Floors of the leave-one-out measure (issue 30), per kind (root cause, component, symptom,
/// contributing factor): inference (aliases, doubted, confirmed and added to by the learned
/// model) must keep at least this precision@3 on cases the model has not seen (0.810, 0.798,
/// 0.773, 0.917 when set; aliases alone 0.783, 0.734, 0.770, 0.905)...
const LOO_PRECISION_FLOOR: [f64; 4] = [0.79, 0.78, 0.76, 0.9];
/// ...and reach at least this recall@3 (0.086, 0.682, 0.371, 0.045 when set; aliases alone
/// 0.023, 0.628, 0.313, 0.039 on 601 cases).
const LOO_RECALL_FLOOR: [f64; 4] = [0.08, 0.66, 0.35, 0.042];
/// Every kind's leave-one-out precision must beat the aliases alone, as its recall and F1 must.
/// Contributing factors are the narrowest: the aliases give 21 in 601 cases, 19 right; with the
/// model 24, 22 right (a weak factor is confirmed only by the rest of the report,
/// `corpus::infer::confirms_apart`).
const PRECISION_BEATS_ALIASES: [incidex::taxonomy::FacetKind; 4] = incidex::taxonomy::FacetKind::ALL;
/// The share of a case's three nearest cases (its symptom text searched, the case left out)
/// that share a value of each kind with it.
const NEIGHBOUR_FLOOR: [f64; 4] = [0.38, 0.88, 0.58, 0.17];

#[test]
fn leave_one_out_facets_beat_aliases_alone() {
    use eval_support::loo;
    use incidex::corpus::learned::{FacetModel, train};
    let library = Library::bundled();
    let started = std::time::Instant::now();
    let model = FacetModel::bundled();
    assert_eq!(
        model.cases() as usize,
        library.cases.len(),
        "the baked model learned from the bundled library"
    );
    assert_eq!(&train::train(&library.cases), model, "the baked model is the one the library trains");
    let baseline = loo::aliases_only(&library);
    println!("{}", loo::render("leave one out: aliases and signatures only (before the model)", &baseline));
    let inferred = loo::inferred(&library, model);
    println!(
        "{}",
        loo::render(
            "leave one out: inference (aliases, doubted, confirmed and added to by the model)",
            &inferred
        )
    );
    let mut table = String::new();
    for min in [0.0, 0.5, 0.6, 0.7, 0.8, 0.9] {
        let learned = loo::learned(&library, model, min);
        table.push_str(&format!("  >= {min:.1}:"));
        for k in &learned {
            table.push_str(&format!("  P {:.3} R {:.3} F1 {:.3} |", k.precision(), k.recall(), k.f1()));
        }
        table.push('\n');
    }
    println!(
        "leave one out: the learned model alone by confidence (root cause | component | symptom | factor):\n{table}"
    );
    for kind in incidex::taxonomy::FacetKind::ALL {
        let (i, b, s) = (kind.index(), &baseline[kind.index()], &inferred[kind.index()]);
        assert!(
            s.recall() > b.recall(),
            "{}: recall {:.3} must beat aliases alone {:.3}",
            kind.label(),
            s.recall(),
            b.recall()
        );
        assert!(s.f1() > b.f1(), "{}: F1 {:.3} must beat aliases alone {:.3}", kind.label(), s.f1(), b.f1());
        if PRECISION_BEATS_ALIASES.contains(&kind) {
            assert!(
                s.precision() > b.precision(),
                "{}: precision {:.3} must beat aliases alone {:.3}",
                kind.label(),
                s.precision(),
                b.precision()
            );
        }
        assert!(
            s.precision() >= LOO_PRECISION_FLOOR[i],
            "{}: precision {:.3} below its floor",
            kind.label(),
            s.precision()
        );
        assert!(
            s.recall() >= LOO_RECALL_FLOOR[i],
            "{}: recall {:.3} below its floor",
            kind.label(),
            s.recall()
        );
    }
    let engine = engine();
    let plain = Engine::with_tuning(engine.library().clone(), Tuning::plain()).expect("the index builds");
    let near = loo::neighbours(engine);
    let near_plain = loo::neighbours(&plain);
    println!(
        "leave one out, ranking: nearest 3 share a root cause {:.3}, component {:.3}, symptom {:.3}, factor {:.3} (plain BM25: {:.3}, {:.3}, {:.3}, {:.3})",
        near[0], near[1], near[2], near[3], near_plain[0], near_plain[1], near_plain[2], near_plain[3]
    );
    for (i, floor) in NEIGHBOUR_FLOOR.iter().enumerate() {
        assert!(near[i] >= *floor, "neighbours share kind {i} {:.3}, below {floor}", near[i]);
    }
    println!("leave one out over {} cases took {:.2?}", library.cases.len(), started.elapsed());
}

#[test]
fn short_queries_naming_a_rare_thing_rank_its_case_first() {
    use incidex::{corpus::filter::Filters, search::Request};
    // Each names a GPU, a library or a filesystem that few cases share (issue 30: a word that
    // names a taxonomy value must not outweigh it).
    let queries = [
        ("b200 shows too many rdma devices", "2025-09-hyperpod-p6-b200-efa-plugin-counts-nvlink-devices"),
        (
            "mi300x gpu hang during training",
            "2024-11-mi300x-axolotl-training-intermittent-gpu-hang-hw-exception",
        ),
        (
            "gb300 host oom on checkpoint save",
            "2026-07-megatron-glm-744b-first-torch-dist-save-host-oom-gb300",
        ),
        ("dali resize memory keeps growing", "2026-01-dali-resize-pipeline-rss-growth-oom-killed-after-days"),
        ("p4d dcgm exporter oom", "2024-07-cloudwatch-addon-dcgm-exporter-250mi-oom-p4d"),
        ("weka mmap eperm on large blend", "2026-05-megatron-indexeddataset-mmap-eperm-wekafs-large-blend"),
    ];
    let engine = engine();
    let none = Filters::default();
    for (text, id) in queries {
        assert!(engine.library().case(id).is_some(), "{id} is not in the library");
        let r = engine.search(&Request::new(text, &none));
        assert_eq!(r.hits.first().map(|h| h.id.as_str()), Some(id), "{text:?}");
    }
}
