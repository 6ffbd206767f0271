//! Property tests: whatever string reaches the search engine — random Unicode, random bytes
//! read lossily, a megabyte paste, unbalanced quotes, only punctuation, fragments of the inline
//! syntax in any order — it returns results or clean errors, never a panic, and the results
//! keep their invariants (page within total, order, counts, error spans inside the input).

use std::sync::{Arc, OnceLock};

use incidex::{
    corpus::Library,
    corpus::filter::Filters,
    search::{Engine, Request, Response},
};
use proptest::prelude::*;

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| Engine::new(Arc::new(Library::bundled())).expect("the index builds"))
}

/// Search `input` both ways (inline syntax on and off) and check the invariants of each answer.
fn check(input: &str, offset: usize, limit: usize) {
    let none = Filters::default();
    for inline_syntax in [true, false] {
        let request =
            Request { input, filters: &none, offset, limit, inline_syntax, ..Request::new(input, &none) };
        let r = engine().search(&request);
        invariants(input, &request, &r);
    }
}

fn invariants(input: &str, request: &Request<'_>, r: &Response) {
    let e = engine();
    assert!(r.hits.len() <= request.limit);
    assert!(r.hits.len() <= r.total.saturating_sub(request.offset));
    assert!(r.total <= e.library().cases.len());
    for w in r.hits.windows(2) {
        match (w[0].score, w[1].score) {
            (Some(a), Some(b)) => assert!(a > b || (a == b && w[0].index < w[1].index), "{w:?}"),
            (None, None) => assert!(w[0].index < w[1].index),
            _ => panic!("mixed ranked and unranked hits: {w:?}"),
        }
    }
    for hit in &r.hits {
        assert_eq!(e.library().cases[hit.index].id, hit.id);
        assert!(r.filters.matches(&e.library().cases[hit.index]));
        assert!(hit.score.is_none_or(f32::is_finite));
    }
    for s in &r.suggestions {
        // Applying a value can make weaker matches real ones (the best among its cases may score
        // lower), never more than every case that matched at all.
        assert!(s.count > 0 && s.count <= r.total + r.weaker, "{s:?}");
        assert!(!s.matched.is_empty());
        assert!(s.matched.iter().all(|m| !m.chars().any(incidex::text::is_unsafe_char)));
    }
    for err in &r.errors {
        assert!(err.span.start <= err.span.end && err.span.end <= input.len(), "{err:?}");
        assert!(input.is_char_boundary(err.span.start) && input.is_char_boundary(err.span.end));
        assert!(!err.message.chars().any(incidex::text::is_unsafe_char), "{err:?}");
    }
    if !request.inline_syntax {
        assert!(r.errors.is_empty() && r.inline.is_empty());
    }
    let counted: usize = r.breakdown.year.iter().map(|c| c.count).sum();
    assert_eq!(counted, r.total, "every result is counted once by year");
}

/// Pieces the inline syntax is made of, to be shuffled into hostile combinations.
fn syntax_fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("component:".to_string()),
        Just("-root:".to_string()),
        Just("symptom:\"".to_string()),
        Just("\"".to_string()),
        Just("org:".to_string()),
        Just("year:".to_string()),
        Just("after:2024-".to_string()),
        Just("before:".to_string()),
        Just("-".to_string()),
        Just(":".to_string()),
        Just(" ".to_string()),
        Just("\n".to_string()),
        Just("nccl".to_string()),
        Just("Xid 79".to_string()),
        Just("hang".to_string()),
        Just("é".to_string()),
        Just("日本".to_string()),
        "[0-9]{1,5}",
        "[a-z]{1,8}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn any_unicode_string(input in "\\PC*", offset in 0usize..300, limit in 0usize..50) {
        check(&input, offset, limit);
    }

    #[test]
    fn any_bytes_read_lossily(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        check(&String::from_utf8_lossy(&bytes), 0, 20);
    }

    #[test]
    fn only_punctuation_and_quotes(input in "[\"'`:;.,!?()\\[\\]{}<>|\\\\/*&^%$#@~+=_ -]{0,64}") {
        check(&input, 0, 20);
    }

    #[test]
    fn shuffled_syntax(parts in proptest::collection::vec(syntax_fragment(), 0..24)) {
        check(&parts.concat(), 0, 20);
    }

    #[test]
    fn control_characters(input in "[\\x00-\\x1f\\x7f\\u{80}-\\u{9f}\\u{202e}a-z: \"-]{0,64}") {
        check(&input, 0, 20);
    }
}

#[test]
fn a_megabyte_paste_is_answered() {
    // A log-like megabyte: real signatures, numbers, paths, hex, and noise, deterministically.
    let lines = [
        "[rank3]:[E ProcessGroupNCCL.cpp:616] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5)",
        "kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.",
        "RuntimeError: DataLoader worker (pid 1234) is killed by signal: Bus error.",
        "etcdserver: request timed out  component:nccl -root:\"unbalanced  year:20x4",
        "0x7f3a9c000000 /var/lib/kubelet/pods/3f1c9a2e/volumes 10.0.0.1:8080 HTTP 429 Too Many Requests",
    ];
    let mut paste = String::with_capacity(1 << 20);
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    while paste.len() < 1 << 20 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        paste.push_str(lines[(seed % lines.len() as u64) as usize]);
        paste.push_str(&format!(" token{:x} {}\n", seed >> 40, seed % 977));
    }
    check(&paste, 0, 20);
    let none = Filters::default();
    let r = engine().search(&Request { inline_syntax: false, ..Request::new(&paste, &none) });
    assert!(r.ranked && r.total > 0);
    for want in ["Hang", "GPU", "Training data loader"] {
        assert!(r.suggestions.iter().any(|s| s.value == want), "{want} in {:?}", r.suggestions);
    }
}

/// Words on-call engineers type, mixed into sentences by the property below.
const WORDS: &[&str] = &[
    "NCCL",
    "hang",
    "hung",
    "timeout",
    "watchdog",
    "checkpoint",
    "save",
    "OOM",
    "out",
    "of",
    "memory",
    "GPU",
    "Xid",
    "79",
    "fell",
    "off",
    "the",
    "bus",
    "loader",
    "worker",
    "shared",
    "shm",
    "epoch",
    "end",
    "slow",
    "allreduce",
    "throughput",
    "disk",
    "full",
    "kubernetes",
    "pod",
    "evicted",
    "driver",
    "NVLink",
    "ECC",
    "error",
    "training",
    "loss",
    "spike",
    "NaN",
    "inference",
    "latency",
    "rate",
    "limit",
    "deploy",
    "config",
    "DNS",
    "outage",
    "storage",
    "S3",
    "InfiniBand",
    "link",
    "flapping",
    "vLLM",
    "CUDA",
    "illegal",
    "memory",
    "access",
    "segfault",
    "resume",
    "optimizer",
    "state",
    "FSDP",
    "DeepSpeed",
    "overheating",
    "power",
    "network",
    "partition",
    "tokenizer",
    "quality",
    "regression",
    "cache",
];

/// A count is a promise (issue 29, item 2): each suggested filter's count is exactly the total
/// that applying it gives, under the same sentence and the filters already in force — for a
/// typed search (inline syntax, typos) and a pasted log alike, with `--all` or without.
fn counts_hold(input: &str, filters: &Filters, all: bool) {
    let e = engine();
    for (inline_syntax, typos) in [(true, true), (false, false)] {
        let request = Request { inline_syntax, typos, all, ..Request::new(input, filters) };
        let r = e.search(&request);
        for s in &r.suggestions {
            let mut applied = r.filters.clone();
            applied.facets.push(incidex::corpus::filter::FacetFilter {
                kind: s.kind,
                value: s.value.clone(),
                negated: false,
            });
            let after = e.search(&Request { inline_syntax, typos, all, ..Request::new(input, &applied) });
            assert_eq!(
                after.total,
                s.count,
                "{input:?} (inline {inline_syntax}, all {all}, filters {filters:?}): {} {} promised {}, \
                 applying it gives {}",
                s.kind.label(),
                s.value,
                s.count,
                after.total
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn a_suggested_filter_leaves_exactly_the_count_it_shows(
        words in proptest::collection::vec(proptest::sample::select(WORDS), 1..8),
        first in any::<bool>(),
        all in any::<bool>(),
    ) {
        let input = words.join(" ");
        counts_hold(&input, &Filters::default(), all);
        // And once one of them is applied: the counts under a filter hold too.
        if first {
            let r = engine().search(&Request::new(&input, &Filters::default()));
            if let Some(s) = r.suggestions.first() {
                let mut filters = Filters::default();
                filters.facets.push(incidex::corpus::filter::FacetFilter {
                    kind: s.kind,
                    value: s.value.clone(),
                    negated: false,
                });
                counts_hold(&input, &filters, all);
            }
        }
    }
}

/// Every sentence of the eval sets keeps the counts it suggests (the issue saw "Symptom: Hang
/// 37" give 39 once applied).
#[test]
fn the_sentences_of_the_eval_sets_keep_their_counts() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/eval");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let doc: toml::Table = text.parse().unwrap();
        for query in doc.get("query").and_then(|q| q.as_array()).into_iter().flatten() {
            if let Some(sentence) = query.get("text").and_then(|t| t.as_str()) {
                counts_hold(sentence, &Filters::default(), false);
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "only {checked} sentences");
}
